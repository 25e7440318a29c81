#include "quality/precision.h"

#include <algorithm>

#include "deid/check.h"
#include "deid/problem.h"
#include "quality/arx_conventions.h"
#include "transform/microaggregation.h"

namespace deid {
namespace {

// l / L of quasi-identifier q at `level`; 0 for a hierarchy with level 0 only.
double level_share(const Problem& problem, std::size_t q, int level) {
  const int top = problem.hierarchies[q].height() - 1;
  return top == 0 ? 0.0 : static_cast<double>(level) / static_cast<double>(top);
}

}  // namespace

PrecisionModel::PrecisionModel(Aggregate aggregate, double gs_factor) : aggregate_(aggregate) {
  const quality::GsWeights w = quality::gs_weights(gs_factor);
  g_ = w.generalization;
  s_ = w.suppression;
}

namespace {

std::uint64_t suppressed_records(const Classes& classes) {
  std::uint64_t suppressed = 0;
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (classes.suppressed[c]) suppressed += classes.counts[c];
  return suppressed;
}

}  // namespace

QualityValue PrecisionModel::evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const {
  const double n = static_cast<double>(problem.rows);
  const double s = static_cast<double>(suppressed_records(classes));
  QualityValue out;
  out.per_attribute.resize(classes.width);
  for (std::size_t q = 0; q < classes.width; ++q) {
    // ARX: ((n - S) * g l/L + S s) / n, written as g l/L + S (s - g l/L) / n
    // and kept within [min, max] of g l/L and s, so that the value is never
    // below the bound, even by rounding.
    const double v = g_ * level_share(problem, q, t[q]);
    const double value = n > 0 ? v + s * (s_ - v) / n : v;
    out.per_attribute[q] = std::clamp(value, std::min(v, s_), std::max(v, s_));
  }
  // Microaggregated attributes (not generalized): ARX's sum over classes,
  // divided by the records.
  for (double sum : microaggregation::dimension_sums(problem, t, classes, g_, s_))
    out.per_attribute.push_back(n > 0 ? sum / n : 0.0);
  out.value = deid::aggregate(aggregate_, out.per_attribute, problem.weights);
  return out;
}

double PrecisionModel::lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  std::vector<double> per(classes.width);
  for (std::size_t q = 0; q < classes.width; ++q) per[q] = std::min(g_ * level_share(problem, q, t[q]), s_);
  per.resize(per.size() + problem.aggregated_dimensions(), 0.0);  // no bound for microaggregation (ARX)
  return deid::aggregate(aggregate_, per, problem.weights);
}

std::optional<LevelBound> PrecisionModel::level_bound(const Problem& problem) const {
  // lower_bound()'s min(g l / L, s) per (quasi-identifier, level), and its zeros for
  // microaggregated dimensions.
  std::vector<std::vector<double>> values(problem.hierarchies.size());
  for (std::size_t q = 0; q < values.size(); ++q)
    for (int level = 0; level < problem.hierarchies[q].height(); ++level)
      values[q].push_back(std::min(g_ * level_share(problem, q, level), s_));
  return LevelBound(aggregate_, values, std::vector<double>(problem.aggregated_dimensions(), 0.0), problem.weights);
}

double PrecisionModel::class_loss(const Problem& problem, const Transformation&, const Classes& classes,
                               std::size_t c) const {
  return deid::aggregate(aggregate_,
                         std::vector<double>(classes.width + problem.aggregated_dimensions(),
                                             static_cast<double>(classes.counts[c])),
                         problem.weights);
}

double PrecisionModel::arx_value(const Problem& problem, const Transformation& t, const Classes& classes) const {
  // MetricMDNMPrecision.getInformationLossInternal, term for term.
  const std::uint64_t suppressed = suppressed_records(classes);
  const double kept = static_cast<double>(problem.rows - suppressed);
  const double n = static_cast<double>(problem.rows);
  std::vector<double> per(classes.width);
  for (std::size_t q = 0; q < classes.width; ++q) {
    per[q] = kept * level_share(problem, q, t[q]) * g_ + static_cast<double>(suppressed) * s_;
    per[q] /= n;
  }
  for (double sum : microaggregation::dimension_sums(problem, t, classes, g_, s_)) per.push_back(sum / n);
  return deid::aggregate(aggregate_, per, problem.weights);
}

double PrecisionModel::arx_bound(const Problem& problem, const Transformation& t, const Classes*) const {
  // MetricMDNMPrecision.getLowerBoundInternal(transformation): g l / L,
  // nothing for microaggregated attributes.
  std::vector<double> per(problem.hierarchies.size());
  for (std::size_t q = 0; q < per.size(); ++q) per[q] = level_share(problem, q, t[q]) * g_;
  per.resize(per.size() + problem.aggregated_dimensions(), 0.0);
  return deid::aggregate(aggregate_, per, problem.weights);
}

}  // namespace deid
