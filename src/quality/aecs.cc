#include "quality/aecs.h"

#include <algorithm>

#include "deid/check.h"
#include "deid/problem.h"

namespace deid {

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
  const std::uint64_t groups = kept + (any_suppressed ? 1 : 0);
  QualityValue out;
  out.value = groups == 0 ? 0.0 : static_cast<double>(problem.rows) / static_cast<double>(groups);
  return out;
}

double AecsModel::lower_bound(const Problem& problem, const Transformation&, const Classes& classes) const {
  std::size_t groups = classes.size();
  if (problem.has_subset()) groups -= static_cast<std::size_t>(std::count(classes.counts.begin(), classes.counts.end(), 0));
  return groups == 0 ? 0.0 : static_cast<double>(problem.rows) / static_cast<double>(groups);
}

double AecsModel::class_loss(const Problem&, const Transformation&, const Classes& classes, std::size_t c) const {
  return static_cast<double>(classes.counts[c]);
}

}  // namespace deid
