#include "quality/arx_conventions.h"

#include <fmt/format.h>

#include <cmath>

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

std::string java_double(double value) {
  std::string s = fmt::format("{}", value);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // "n": nan and inf stay as they are
  return s;
}

}  // namespace deid::quality
