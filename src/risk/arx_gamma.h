// The digamma and trigamma approximations that ARX 3.9.2's population
// models compute with (org.deidentifier.arx.risk.Gamma, after Minka's
// lightspeed algorithms). Internal to risk/.
//
// Pitman's closed forms take their Jacobian from trigamma values, and
// Newton-Raphson's path (and with it whether a try reaches a root before a
// constraint ends it) depends on those values. ARX's trigamma is not the
// trigamma function below 12: it reduces x by the recurrence
// psi'(x) = 1/x^2 + psi'(x+1) only until x >= 8, but adds the asymptotic
// tail only when x >= 12, so for every x < 12 it returns the finite sum
// sum_{j=0}^{m-1} 1/(x+j)^2 (m the steps to reach 8) without the tail
// psi'(x+m) (about 1/8). Its digamma is accurate to about 1e-15. Negative
// arguments go through the reflection formulas. deid reproduces them, quirks included, so that its solver takes
// ARX's steps and reaches ARX's verdicts (docs/risk-models.md, "Numerics");
// the equations themselves use only digamma and are verified by the exact
// sums.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace deid::risk::arx {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kEulerGamma = 0.57721566490153286060651209008240243104215933593992;
inline constexpr double kTrigammaOne = kPi * kPi / 6.0;  // pi^2/6
inline constexpr double kTetragammaOne = -2.0 * 1.202056903159594285399738161511449990764986292;  // -2 zeta(3)

// Java's StrictMath.log, which ARX's digamma calls: the Java specification
// requires the results of fdlibm's algorithm (Sun, 1993), and the C
// library's log, though also within an ulp, rounds differently for about 2 %
// of arguments, enough to move Newton-Raphson's iterates. The method:
// x = 2^k (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2); s = f / (2 + f);
// log(1 + f) = 2s + s R(s^2) with R a degree-7 polynomial in s^2 (minimax,
// error below 2^-58.45); log x = k ln2_hi + (f - (hfsq - (s (hfsq + R) +
// k ln2_lo))) with ln2 split into a high part exact in k ln2_hi. Checked
// bit for bit against Java on 150,000 arguments (tests/unit/risk_test.cc).
inline double strict_log(double x) {
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  constexpr double two54 = 1.80143985094819840000e+16;
  constexpr double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01, lg3 = 2.857142874366239149e-01,
                   lg4 = 2.222219843214978396e-01, lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                   lg7 = 1.479819860511658591e-01;
  auto bits = [](double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  };
  auto with_high = [](double v, std::int32_t high) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    b = (b & 0xffffffffULL) | (static_cast<std::uint64_t>(static_cast<std::uint32_t>(high)) << 32);
    double out;
    std::memcpy(&out, &b, sizeof out);
    return out;
  };
  std::int32_t hx = static_cast<std::int32_t>(bits(x) >> 32);
  const std::uint32_t lx = static_cast<std::uint32_t>(bits(x));
  std::int32_t k = 0;
  if (hx < 0x00100000) {  // zero, subnormal or negative
    if (((hx & 0x7fffffff) | static_cast<std::int32_t>(lx)) == 0) return -std::numeric_limits<double>::infinity();
    if (hx < 0) return std::numeric_limits<double>::quiet_NaN();
    k -= 54;
    x *= two54;
    hx = static_cast<std::int32_t>(bits(x) >> 32);
  }
  if (hx >= 0x7ff00000) return x + x;
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  const std::int32_t i0 = (hx + 0x95f64) & 0x100000;
  x = with_high(x, hx | (i0 ^ 0x3ff00000));  // x or x/2 into [sqrt(2)/2, sqrt(2))
  k += i0 >> 20;
  const double f = x - 1.0;
  const double dk = static_cast<double>(k);
  if ((0x000fffff & (2 + hx)) < 3) {  // |f| < 2^-20
    if (f == 0.0) return k == 0 ? 0.0 : dk * ln2_hi + dk * ln2_lo;
    const double r = f * f * (0.5 - 0.33333333333333333 * f);
    return k == 0 ? f - r : dk * ln2_hi - ((r - dk * ln2_lo) - f);
  }
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (lg2 + w * (lg4 + w * lg6));
  const double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
  const double r = t2 + t1;
  if (((hx - 0x6147a) | (0x6b851 - hx)) > 0) {
    const double hfsq = 0.5 * f * f;
    return k == 0 ? f - (hfsq - s * (hfsq + r)) : dk * ln2_hi - ((hfsq - (s * (hfsq + r) + dk * ln2_lo)) - f);
  }
  return k == 0 ? f - s * (f - r) : dk * ln2_hi - ((s * (f - r) - dk * ln2_lo) - f);
}

inline double digamma(double x) {
  if (std::isinf(x) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  // Reflection: psi(x) = psi(1 - x) - pi cot(pi x).
  if (x < 0.0) return digamma(1.0 - x) + (kPi / std::tan(-kPi * x));
  // Series at 0.
  if (x <= 1e-6) return (-kEulerGamma - 1.0 / x) + kTrigammaOne * x;
  double result = 0.0;
  for (; x < 12.0; x += 1.0) result -= 1.0 / x;
  // de Moivre's expansion: log x - 1/(2x) - sum B_2k / (2k x^2k).
  double r = 1.0 / x;
  result += strict_log(x) - 0.5 * r;
  r *= r;
  result -= r * (1.0 / 12.0 - r * (1.0 / 120.0 - r * (1.0 / 252.0 - r * (1.0 / 240.0 - r * (1.0 / 132.0)))));
  return result;
}

inline double trigamma(double x) {
  if (std::isinf(x) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();  // ARX's value at the pole
  // Reflection: psi'(x) = -psi'(1 - x) + (pi / sin(pi x))^2.
  if (x < 0.0) {
    const double r = kPi / std::sin(-kPi * x);
    return -trigamma(1.0 - x) + (r * r);
  }
  if (x <= 1e-4) return (1.0 / (x * x)) + kTrigammaOne + kTetragammaOne * x;
  double result = 0.0;
  for (; x < 8.0; x += 1.0) result += 1.0 / (x * x);
  // ARX's bound for the tail is digamma's (12), not the 8 reduced to above.
  if (x >= 12.0) {
    const double r = 1.0 / (x * x);
    result += 0.5 * r +
              (1.0 + r * (1.0 / 6.0 + r * (-1.0 / 30.0 + r * (1.0 / 42.0 + r * (-1.0 / 30.0 + r * (5.0 / 66.0)))))) / x;
  }
  return result;
}

// log Gamma(x) as ARX computes it (Apache Commons Math 3, Gamma.logGamma)
// for x > 8, where deid's estimate takes the difference of two of them
// (Pitman's equation (1), log Gamma(theta + 1) - log Gamma(theta + alpha)):
// Lanczos' approximation with g = 607/128 and Godfrey's 15 coefficients,
// (x + 1/2) log(x + g + 1/2) - (x + g + 1/2) + log(2 pi)/2 + log(sum / x).
// At theta ~ 10^6 each term is ~10^7 and the difference loses about 10^-9
// of the estimate to rounding; computing the terms in ARX's order keeps
// that rounding ARX's (Commons Math's log agrees with fdlibm's on nearly
// every argument). Returns NaN for x <= 8 (the caller uses another way).
inline double log_gamma_large(double x) {
  if (!(x > 8.0)) return std::numeric_limits<double>::quiet_NaN();
  constexpr double g = 607.0 / 128.0;
  constexpr double half_log_2pi = 0.9189385332046727;  // 0.5 * log(2 pi)
  static constexpr double c[15] = {0.99999999999999709182,     57.156235665862923517,     -59.597960355475491248,
                                   14.136097974741747174,      -0.49191381609762019978,   .33994649984811888699e-4,
                                   .46523628927048575665e-4,   -.98374475304879564677e-4, .15808870322491248884e-3,
                                   -.21026444172410488319e-3,  .21743961811521264320e-3,  -.16431810653676389022e-3,
                                   .84418223983852743293e-4,   -.26190838401581408670e-4, .36899182659531622704e-5};
  double sum = 0.0;
  for (int i = 14; i > 0; --i) sum += c[i] / (x + i);
  sum += c[0];
  const double tmp = x + g + 0.5;
  return ((x + 0.5) * strict_log(tmp)) - tmp + half_log_2pi + strict_log(sum / x);
}

}  // namespace deid::risk::arx
