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

std::string java_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  const double a = std::fabs(v);
  char buf[64];
  if (a >= 1e-3 && a < 1e7) {
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
    std::string s(buf, r.ptr);
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, r.ptr);  // e.g. 1.5e+07, 1e-05
  const std::size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  const int exponent = std::stoi(s.substr(e + 1));
  return mantissa + "E" + std::to_string(exponent);
}

}  // namespace deid::quality
