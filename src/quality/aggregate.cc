#include <algorithm>
#include <cmath>

#include "deid/quality.h"

namespace deid {

// Each aggregate is computed in the order ARX's ILMultiDimensional* classes
// use, so that deid's totals equal ARX's to the last bits. Every aggregate
// is non-decreasing in each value, which keeps per-attribute lower bounds
// (and their monotonicity) valid for the total.
// With weights, each value is multiplied by its attribute's weight where ARX
// does (ILMultiDimensionalArithmeticMean: (v / n) * w; Sum: v * w;
// GeometricMean: (v * w + 1)^(1/n); Max: max(v * w)); a weight of 1 leaves
// every bit as without weights.
double aggregate(Aggregate how, const std::vector<double>& values, std::span<const double> weights) {
  if (values.empty()) return 0;
  const double n = static_cast<double>(values.size());
  const auto w = [&](std::size_t i) { return weights.empty() ? 1.0 : weights[i]; };
  switch (how) {
    case Aggregate::geometric_mean: {
      // ARX shifts by one so that a zero does not make the mean zero:
      // prod((1 + v_i)^(1/n)) - 1.
      double product = 1.0;
      for (std::size_t i = 0; i < values.size(); ++i) product *= std::pow(values[i] * w(i) + 1.0, 1.0 / n);
      return product - 1.0;
    }
    case Aggregate::arithmetic_mean: {
      double s = 0;
      for (std::size_t i = 0; i < values.size(); ++i) s += (values[i] / n) * w(i);
      return s;
    }
    case Aggregate::sum: {
      double s = 0;
      for (std::size_t i = 0; i < values.size(); ++i) s += values[i] * w(i);
      return s;
    }
    case Aggregate::max: {
      double m = values[0] * w(0);
      for (std::size_t i = 1; i < values.size(); ++i) m = std::max(m, values[i] * w(i));
      return m;
    }
  }
  return 0;
}

}  // namespace deid
