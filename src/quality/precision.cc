#include "quality/precision.h"

#include "deid/check.h"
#include "deid/problem.h"
#include "transform/microaggregation.h"

namespace deid {
namespace {

// l / L of quasi-identifier q at `level`; 0 for a hierarchy with level 0 only.
double level_share(const Problem& problem, std::size_t q, int level) {
  const int top = problem.hierarchies[q].height() - 1;
  return top == 0 ? 0.0 : static_cast<double>(level) / static_cast<double>(top);
}

}  // namespace

PrecisionModel::PrecisionModel(Aggregate aggregate) : aggregate_(aggregate) {}

QualityValue PrecisionModel::evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const {
  std::uint64_t suppressed = 0;
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (classes.suppressed[c]) suppressed += classes.counts[c];
  const double n = static_cast<double>(problem.rows);
  const double s = static_cast<double>(suppressed);
  QualityValue out;
  out.per_attribute.resize(classes.width);
  for (std::size_t q = 0; q < classes.width; ++q) {
    // ARX: ((n - S) * l/L + S) / n, written as l/L + S (1 - l/L) / n so
    // that the value is never below the bound l/L, even by rounding.
    const double v = level_share(problem, q, t[q]);
    out.per_attribute[q] = n > 0 ? v + s * (1.0 - v) / n : v;
  }
  // Microaggregated attributes (not generalized): ARX's sum over classes,
  // divided by the records (gs-factor 0.5: both weights 1).
  for (double sum : microaggregation::dimension_sums(problem, t, classes, 1.0, 1.0))
    out.per_attribute.push_back(n > 0 ? sum / n : 0.0);
  out.value = deid::aggregate(aggregate_, out.per_attribute, problem.weights);
  return out;
}

double PrecisionModel::lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  std::vector<double> per(classes.width);
  for (std::size_t q = 0; q < classes.width; ++q) per[q] = level_share(problem, q, t[q]);
  per.resize(per.size() + problem.aggregated_dimensions(), 0.0);  // no bound for microaggregation (ARX)
  return deid::aggregate(aggregate_, per, problem.weights);
}

std::optional<LevelBound> PrecisionModel::level_bound(const Problem& problem) const {
  // lower_bound()'s l / L per (quasi-identifier, level), and its zeros for
  // microaggregated dimensions.
  std::vector<std::vector<double>> values(problem.hierarchies.size());
  for (std::size_t q = 0; q < values.size(); ++q)
    for (int level = 0; level < problem.hierarchies[q].height(); ++level) values[q].push_back(level_share(problem, q, level));
  return LevelBound(aggregate_, values, std::vector<double>(problem.aggregated_dimensions(), 0.0), problem.weights);
}

double PrecisionModel::class_loss(const Problem& problem, const Transformation&, const Classes& classes,
                               std::size_t c) const {
  return deid::aggregate(aggregate_,
                         std::vector<double>(classes.width + problem.aggregated_dimensions(),
                                             static_cast<double>(classes.counts[c])),
                         problem.weights);
}

}  // namespace deid
