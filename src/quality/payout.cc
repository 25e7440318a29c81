#include "quality/payout.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "deid/problem.h"

namespace deid::quality {

double max_entropy_based_loss(const Problem& problem) {
  double product = 1.0;
  for (const Generalization& h : problem.hierarchies) product *= static_cast<double>(h.hierarchy_rows());
  return std::log10(product);
}

double entropy_based_loss(const Problem& problem, const Transformation& t, std::span<const std::uint32_t> key,
                          double max_loss) {
  if (max_loss == 0 || std::isnan(max_loss) || std::isinf(max_loss)) return 0.0;
  double product = 1.0;
  for (std::size_t q = 0; q < key.size(); ++q) {
    const Generalization& h = problem.hierarchies[q];
    // ARX's DomainShareMaterialized: rows under the value / rows.
    product *= static_cast<double>(h.leaves(t[q], key[q])) / static_cast<double>(h.hierarchy_rows());
  }
  const double result = std::log10(product) / max_loss + 1.0;
  if (std::isnan(result) || result <= -0.001 || result >= 1.001)
    throw std::logic_error("entropy-based information loss " + std::to_string(result) + " is outside [0, 1]");
  return result < 0 ? 0.0 : result > 1 ? 1.0 : result;
}

}  // namespace deid::quality
