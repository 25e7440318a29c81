#include "quality/aecs.h"

#include <algorithm>

#include "deid/check.h"
#include "deid/problem.h"
#include "quality/arx_conventions.h"

namespace deid {

AecsModel::AecsModel(double gs_factor) {
  const quality::GsWeights w = quality::gs_weights(gs_factor);
  a_ = w.suppression;
  b_ = w.generalization;
}

namespace {

// The classes holding records (ARX's m.count > 0: a class may hold none of
// the research subset's).
std::size_t nonempty(const Problem& problem, const Classes& classes) {
  std::size_t groups = classes.size();
  if (problem.has_subset()) groups -= static_cast<std::size_t>(std::count(classes.counts.begin(), classes.counts.end(), 0));
  return groups;
}

}  // namespace

QualityValue AecsModel::evaluate(const Problem& problem, const Transformation&, const Classes& classes) const {
  std::uint64_t kept = 0;
  bool any_suppressed = false;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    if (classes.counts[c] == 0) continue;  // no record of the research subset (ARX's m.count > 0)
    if (classes.suppressed[c])
      any_suppressed = true;
    else
      ++kept;
  }
  QualityValue out;
  if (kept == 0 && !any_suppressed) return out;  // no records
  // MetricSDAECS.getInformationLossInternal, term for term.
  double groups = static_cast<double>(kept) * a_;
  if (any_suppressed) groups += b_;
  out.value = static_cast<double>(problem.rows) / groups;
  return out;
}

double AecsModel::lower_bound(const Problem& problem, const Transformation&, const Classes& classes) const {
  const std::size_t groups = nonempty(problem, classes);
  if (groups == 0) return 0.0;
  return static_cast<double>(problem.rows) / (static_cast<double>(groups) * a_ + std::max(0.0, b_ - a_));
}

double AecsModel::arx_bound(const Problem& problem, const Transformation&, const Classes* classes) const {
  const std::size_t groups = classes ? nonempty(problem, *classes) : 0;
  if (groups == 0) return 0.0;
  return static_cast<double>(problem.rows) / (static_cast<double>(groups) * a_);
}

double AecsModel::class_loss(const Problem&, const Transformation&, const Classes& classes, std::size_t c) const {
  return static_cast<double>(classes.counts[c]);
}

}  // namespace deid
