#include <algorithm>
#include <cmath>

#include "deid/quality.h"

namespace deid {

// Each aggregate is computed in the order ARX's ILMultiDimensional* classes
// use, so that deid's totals equal ARX's to the last bits. Every aggregate
// is non-decreasing in each value, which keeps per-attribute lower bounds
// (and their monotonicity) valid for the total.
double aggregate(Aggregate how, const std::vector<double>& values) {
  if (values.empty()) return 0;
  const double n = static_cast<double>(values.size());
  switch (how) {
    case Aggregate::geometric_mean: {
      // ARX shifts by one so that a zero does not make the mean zero:
      // prod((1 + v_i)^(1/n)) - 1.
      double product = 1.0;
      for (double v : values) product *= std::pow(v + 1.0, 1.0 / n);
      return product - 1.0;
    }
    case Aggregate::arithmetic_mean: {
      double s = 0;
      for (double v : values) s += v / n;
      return s;
    }
    case Aggregate::sum: {
      double s = 0;
      for (double v : values) s += v;
      return s;
    }
    case Aggregate::max: return *std::max_element(values.begin(), values.end());
  }
  return 0;
}

}  // namespace deid
