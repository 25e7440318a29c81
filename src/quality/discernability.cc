#include "quality/discernability.h"

#include "deid/check.h"
#include "deid/problem.h"

namespace deid {

QualityValue DiscernabilityModel::evaluate(const Problem& problem, const Transformation&,
                                           const Classes& classes) const {
  // Summed exactly in 128 bits: the value does not depend on the order of
  // the classes.
  const unsigned __int128 n = problem.rows;
  unsigned __int128 sum = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const unsigned __int128 count = classes.counts[c];
    sum += classes.suppressed[c] && !monotonic_ ? n * count : count * count;
  }
  QualityValue out;
  out.value = static_cast<double>(sum);
  return out;
}

double DiscernabilityModel::lower_bound(const Problem&, const Transformation&, const Classes& classes) const {
  unsigned __int128 bound = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const unsigned __int128 count = classes.counts[c];
    bound += count * count;
  }
  return static_cast<double>(bound);
}

double DiscernabilityModel::class_loss(const Problem&, const Transformation&, const Classes& classes, std::size_t c) const {
  return static_cast<double>(classes.counts[c]);
}

}  // namespace deid
