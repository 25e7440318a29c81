#include "quality/arx_conventions.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>

namespace deid::quality {

GsWeights gs_weights(double gs_factor) {
  GsWeights w;
  w.suppression = gs_factor < 0.5 ? 2.0 * gs_factor : 1.0;
  w.generalization = gs_factor <= 0.5 ? 1.0 : 1.0 - 2.0 * (gs_factor - 0.5);
  return w;
}

double truncate_10_digits(double value) {
  constexpr double kFactor = 1e10;
  return std::floor(value * kFactor) / kFactor;
}

double log2_arx(double x) {
  static const double kLn2 = std::log(2.0);
  return std::log(x) / kLn2;
}

}  // namespace deid::quality
