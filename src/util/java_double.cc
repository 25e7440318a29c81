#include "util/java_double.h"

#include <charconv>
#include <cmath>

namespace deid {

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

}  // namespace deid
