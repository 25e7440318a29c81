#include <algorithm>
#include <cmath>

#include "deid/quality.h"

namespace deid {

double aggregate(Aggregate how, const std::vector<double>& values) {
  if (values.empty()) return 0;
  switch (how) {
    case Aggregate::geometric_mean: {
      // ARX's geometric mean shifts by one so that zeros do not dominate.
      double log_sum = 0;
      for (double v : values) log_sum += std::log(1.0 + v);
      return std::exp(log_sum / static_cast<double>(values.size())) - 1.0;
    }
    case Aggregate::arithmetic_mean: {
      double s = 0;
      for (double v : values) s += v;
      return s / static_cast<double>(values.size());
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
