#include "quality/ambiguity.h"

#include "deid/check.h"
#include "deid/problem.h"

namespace deid {
namespace {

// ARX's factor of attribute q for generalized value `code` at `level`:
// DomainShareMaterialized's share (leaves / H, a double) times H.
double factor(const Generalization& h, int level, std::uint32_t code) {
  const double size = static_cast<double>(h.hierarchy_rows());
  const double share = static_cast<double>(h.leaves(level, code)) / size;
  return share * size;
}

}  // namespace

double AmbiguityModel::sum(const Problem& problem, const Transformation& t, const Classes& classes,
                           bool charge_suppressed) const {
  const std::uint32_t w = classes.width;
  double total = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const bool suppressed = charge_suppressed && classes.suppressed[c];
    double term = 1.0;
    for (std::uint32_t q = 0; q < w; ++q) {
      const Generalization& h = problem.hierarchies[q];
      const double size = static_cast<double>(h.hierarchy_rows());
      // ARX: (isNotOutlier ? share : 1) * domain size.
      term *= suppressed ? size : factor(h, t[q], classes.keys[c * w + q]);
    }
    total += term * static_cast<double>(classes.counts[c]);
  }
  return total;
}

QualityValue AmbiguityModel::evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const {
  QualityValue out;
  out.value = sum(problem, t, classes, true);
  return out;
}

double AmbiguityModel::lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  return sum(problem, t, classes, false);
}

double AmbiguityModel::class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                                  std::size_t c) const {
  const std::uint32_t w = classes.width;
  double term = 1.0;
  for (std::uint32_t q = 0; q < w; ++q) term *= factor(problem.hierarchies[q], t[q], classes.keys[c * w + q]);
  return term * static_cast<double>(classes.counts[c]);
}

}  // namespace deid
