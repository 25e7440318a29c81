#include "quality/height.h"

#include "deid/check.h"

namespace deid {

HeightModel::HeightModel(Aggregate aggregate) : aggregate_(aggregate) {}

QualityValue HeightModel::evaluate(const Problem& problem, const Transformation& t, const Classes&) const {
  QualityValue out;
  out.per_attribute.assign(t.begin(), t.end());
  out.value = deid::aggregate(aggregate_, out.per_attribute, problem.weights);
  return out;
}

double HeightModel::lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  return evaluate(problem, t, classes).value;
}

std::optional<LevelBound> HeightModel::level_bound(const Problem& problem) const {
  // lower_bound() is the value: the levels themselves, aggregated.
  std::vector<std::vector<double>> values(problem.hierarchies.size());
  for (std::size_t q = 0; q < values.size(); ++q)
    for (int level = 0; level < problem.hierarchies[q].height(); ++level) values[q].push_back(static_cast<double>(level));
  return LevelBound(aggregate_, values, {}, problem.weights);
}

double HeightModel::class_loss(const Problem& problem, const Transformation&, const Classes& classes, std::size_t c) const {
  return deid::aggregate(aggregate_, std::vector<double>(classes.width, static_cast<double>(classes.counts[c])), problem.weights);
}

double HeightModel::arx_bound(const Problem& problem, const Transformation& t, const Classes*) const {
  return lower_bound(problem, t, Classes{});  // the levels alone
}

}  // namespace deid
