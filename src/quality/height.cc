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

double HeightModel::class_loss(const Problem& problem, const Transformation&, const Classes& classes, std::size_t c) const {
  return deid::aggregate(aggregate_, std::vector<double>(classes.width, static_cast<double>(classes.counts[c])), problem.weights);
}

}  // namespace deid
