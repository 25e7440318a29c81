// Population uniqueness estimators (papers/002, VI-D and VI-H), with the
// definitions, starting values and solver settings of ARX 3.9.2
// (org.deidentifier.arx.risk: ModelZayatz, ModelPitman, ModelSNB,
// RiskModelPopulationUniqueness). docs/risk-models.md derives the formulas.
#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "risk/arx_gamma.h"
#include "risk/models.h"

namespace deid {

namespace bm = boost::math;
namespace {

// Gamma values at poles or outside the domain become NaN or infinity
// instead of exceptions (equation (1) then has no value, as in ARX).
using Quiet = bm::policies::policy<bm::policies::domain_error<bm::policies::ignore_error>,
                                   bm::policies::pole_error<bm::policies::ignore_error>,
                                   bm::policies::overflow_error<bm::policies::ignore_error>,
                                   bm::policies::evaluation_error<bm::policies::ignore_error>,
                                   bm::policies::promote_double<false>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

UniquenessEstimate no_sample_uniques(UniquenessEstimator e) {
  UniquenessEstimate out;
  out.estimator = e;
  out.status = UniquenessEstimate::Status::no_sample_uniques;
  out.uniques = 0.0;
  return out;
}

}  // namespace

const char* to_string(UniquenessEstimator e) {
  switch (e) {
    case UniquenessEstimator::dankar: return "dankar";
    case UniquenessEstimator::pitman: return "pitman";
    case UniquenessEstimator::zayatz: return "zayatz";
    case UniquenessEstimator::snb: return "snb";
  }
  return "?";
}

const char* to_string(UniquenessEstimate::Status s) {
  switch (s) {
    case UniquenessEstimate::Status::ok: return "ok";
    case UniquenessEstimate::Status::no_sample_uniques: return "no-sample-uniques";
    case UniquenessEstimate::Status::not_converged: return "not-converged";
    case UniquenessEstimate::Status::invalid: return "invalid";
  }
  return "?";
}

ClassSizeFrequencies ClassSizeFrequencies::from_class_sizes(std::span<const std::uint64_t> class_sizes,
                                                           std::span<const std::uint8_t> skip) {
  // Counted directly for the small sizes (nearly all classes), sorted for
  // the rest: O(classes) where a sort of all sizes cost a tenth of the
  // population-uniqueness check on the survey table.
  constexpr std::uint64_t kDirect = 4096;
  std::vector<std::uint64_t> small(kDirect, 0), large;
  for (std::size_t c = 0; c < class_sizes.size(); ++c) {
    const std::uint64_t s = class_sizes[c];
    if (s == 0 || (!skip.empty() && skip[c])) continue;
    if (s < kDirect) {
      ++small[s];
    } else {
      large.push_back(s);
    }
  }
  ClassSizeFrequencies out;
  for (std::uint64_t s = 1; s < kDirect; ++s)
    if (small[s]) out.sizes.emplace_back(s, small[s]);
  std::sort(large.begin(), large.end());
  for (std::size_t i = 0; i < large.size();) {
    std::size_t j = i;
    while (j < large.size() && large[j] == large[i]) ++j;
    out.sizes.emplace_back(large[i], j - i);
    i = j;
  }
  return out;
}

std::uint64_t ClassSizeFrequencies::records() const {
  std::uint64_t n = 0;
  for (const auto& [size, count] : sizes) n += size * count;
  return n;
}

std::uint64_t ClassSizeFrequencies::classes() const {
  std::uint64_t u = 0;
  for (const auto& [size, count] : sizes) u += count;
  return u;
}

std::uint64_t ClassSizeFrequencies::of_size(std::uint64_t size) const {
  for (const auto& [s, count] : sizes) {
    if (s == size) return count;
    if (s > size) break;
  }
  return 0;
}

namespace risk {

// ARX's closed forms (ModelPitman.getMasterFunctionClosed) with ARX's
// polygamma approximations, in ARX's order of operations: the equations
// are the exact ones, the Jacobian is the one ARX steers by (arx_gamma.h).
SystemValue pitman_closed(const ClassSizeFrequencies& freq, const Vec2& v) {
  const double t = v.x, a = v.y;
  const double u = static_cast<double>(freq.classes());
  const double n = static_cast<double>(freq.records());
  const double val0 = u - 1.0;
  const double val1 = arx::digamma(val0 + (t / a) + 1.0);
  const double val2 = arx::trigamma((a + t + (a * val0)) / a);
  const double val3 = arx::trigamma((t / a) + 1.0);
  const double val4 = arx::digamma((t / a) + 1.0);
  const double val5 = a * a;
  const double d1 = (val3 - val2) / val5;
  const double d5 = (((a * val1) + (t * val2)) - (a * val4) - (t * val3)) / (val5 * a);
  const double d3 =
      (((((val5 * val0) - (t * t * val2)) + (t * t * val3)) - (2.0 * a * t * val1)) + (2.0 * a * t * val4)) /
      (val5 * val5);
  const double o1 = (val1 - val4) / a;
  const double o3 = ((-t * val1) + (a * val0) + (t * val4)) / (a * a);
  const double o2 = arx::digamma(n + t) - arx::digamma(t + 1.0);
  const double d2 = arx::trigamma(t + 1.0) - arx::trigamma(n + t);
  double d4 = 0, o4 = 0;
  const double val6 = arx::digamma(1.0 - a), val7 = arx::trigamma(1.0 - a);
  for (const auto& [size, count] : freq.sizes) {
    if (size == 1) continue;
    const double key = static_cast<double>(size), value = static_cast<double>(count);
    d4 += value * (val7 - arx::trigamma(key - a));
    o4 += value * (arx::digamma(key - a) - val6);
  }
  SystemValue out;
  out.j = {d2 - d1, 0.0 - d5, 0.0 - d5, 0.0 - d3 - d4};
  out.f = {o1 - o2, o3 - o4};
  return out;
}

Vec2 pitman_start(const ClassSizeFrequencies& freq) {
  const double c1 = static_cast<double>(freq.of_size(1));
  double c2 = static_cast<double>(freq.of_size(2));
  const double u = static_cast<double>(freq.classes());
  const double n = static_cast<double>(freq.records());
  if (c2 == 0) c2 = 1;  // ARX: "overestimate"
  const double c = c1 * (c1 - 1.0) / c2;
  const double t = (n * u * c - c1 * (n - 1.0) * (2.0 * u + c)) / (2.0 * c1 * u + c1 * c - n * c);
  const double a = (t * (c1 - n) + (n - 1.0) * c1) / (n * u);
  return {t, a};
}

double pitman_uniques(const Vec2& theta_alpha, double population) {
  const double t = theta_alpha.x, a = theta_alpha.y;
  if (std::isnan(t) || std::isnan(a) || a == 0) return kNaN;
  const double scale = std::pow(population, a);
  auto in_range = [&](double x) { return x >= 0 && x <= population ? x : kNaN; };
  // Via log-gamma (defined here for positive arguments only, as in ARX)
  // and via gamma, which overflows for large theta.
  double via_log = kNaN;
  if (t + 1.0 > 0 && t + a > 0) {
    // Both large: ARX's own log-gamma (arx_gamma.h), whose rounding at
    // large theta is ARX's; else Boost's.
    const double lg1 = t + a > 8.0 ? arx::log_gamma_large(t + 1.0) : bm::lgamma(t + 1.0, Quiet());
    const double lga = t + a > 8.0 ? arx::log_gamma_large(t + a) : bm::lgamma(t + a, Quiet());
    via_log = in_range(std::exp(lg1 - lga) * scale);
  }
  const double via_gamma = in_range(bm::tgamma(t + 1.0, Quiet()) / bm::tgamma(t + a, Quiet()) * scale);
  if (std::isnan(via_log)) return via_gamma;
  if (std::isnan(via_gamma)) return via_log;
  return std::max(via_log, via_gamma);
}

double hypergeometric_one(double population, std::uint64_t successes, std::uint64_t draws) {
  const double N = population, K = static_cast<double>(successes), n = static_cast<double>(draws);
  if (successes == 0 || draws == 0 || K > N || n > N) return 0;
  if (n + K - N > 1) return 0;  // outside the support: at least two successes drawn
  // P(X=1) = K C(N-K, n-1) / C(N, n) = (K n / (N-K+1)) prod_{j=0}^{K-2} (1 - n/(N-j)).
  double log_p = std::log(K) + std::log(n) - std::log(N - K + 1.0);
  for (std::uint64_t j = 0; j + 2 <= successes; ++j) {
    const double rest = N - static_cast<double>(j);
    if (n >= rest) return 0;
    log_p += std::log1p(-n / rest);
  }
  return std::exp(log_p);
}

SystemValue snb_system(double k, double f, double s1, double s2, const Vec2& v) {
  const double a = v.x, b = v.y;
  const double d = (1.0 - f) * (1.0 - b);
  const double q = 1.0 - d;
  // Four transcendental calls per evaluation (the solver may evaluate this
  // 10,000 times per estimate): every power below is a product of these.
  const double log_b = std::log(b), log_q = std::log(q);
  const double ba = std::exp(a * log_b);   // b^a
  const double qa = std::exp(a * log_q);   // q^a
  const double g = ba / qa;                // (b/q)^a
  const double qa2 = qa * q * q;           // q^(a+2)
  const double m = 2.0 - (1.0 - a) * d;    // 2 - (1-a) d
  SystemValue out;
  // ARX's equations (models.h): the second multiplies by q^(a+2).
  out.f.x = k * f * g * (a * d / q + 1.0) - s1;
  out.f.y = k * a * ba * f * f * (1.0 - b) / 2.0 * qa2 * m - s2;
  // Row 1: derivatives of f1, with d(b/q)/db = f/q^2 and d(a d/q)/db = -a (1-f)/q^2.
  out.j.x1 = k * f * g * ((log_b - log_q) * (a * d / q + 1.0) + d / q);
  out.j.x2 = k * f * (a * (g * q / b) * (f / (q * q)) * (a * d / q + 1.0) - g * a * (1.0 - f) / (q * q));
  // Row 2: derivatives of F = C a b^a (1-b) m / q^(a+2), C = K f^2 / 2 (the
  // divided form, as ARX's Jacobian has it), with dm/da = d,
  // dm/db = (1-a)(1-f) and dq/db = 1-f.
  const double c = k * f * f / 2.0;
  out.j.y1 = c * (1.0 - b) / qa2 * (ba * m + a * ba * log_b * m + a * ba * d - a * ba * m * log_q);
  out.j.y2 = c * a / qa2 *
             (a * (ba / b) * (1.0 - b) * m - ba * m + ba * (1.0 - b) * (1.0 - a) * (1.0 - f) -
              (a + 2.0) * ba * (1.0 - b) * m * (1.0 - f) / q);
  return out;
}

double snb_f2_divided(double k, double f, double s2, const Vec2& v) {
  const double a = v.x, b = v.y;
  const double d = (1.0 - f) * (1.0 - b);
  const double q = 1.0 - d;
  return k * a * std::pow(b, a) * f * f * (1.0 - b) / 2.0 / std::pow(q, a + 2.0) * (2.0 - (1.0 - a) * d) - s2;
}

double snb_classes(const ClassSizeFrequencies& freq, double f) {
  const double u = static_cast<double>(freq.classes());
  const double s1 = static_cast<double>(freq.of_size(1));
  double A = 0, B = 0, C = 0, D = 0;
  for (const auto& [size, count] : freq.sizes) {
    const double k = static_cast<double>(size), s = static_cast<double>(count);
    const double w = std::pow(1.0 - f, k) * s;
    A += k * f * f * std::pow(1.0 - f * f, k - 1.0) * s;
    B += w * std::pow(1.0 + f, k) - 1.0;  // ARX subtracts 1 per class size
    C += w;
    D += k * f * std::pow(1.0 - f, k - 1.0) * s;
  }
  return u + s1 * (A / B) * (C / D) * (C / D);
}

}  // namespace risk

UniquenessEstimate estimate_zayatz(const ClassSizeFrequencies& freq, double population) {
  if (freq.of_size(1) == 0) return no_sample_uniques(UniquenessEstimator::zayatz);
  const double u = static_cast<double>(freq.classes());
  const std::uint64_t n = freq.records();
  // The probability that a sample unique comes from a population unique:
  // (s_1/u P(X=1 | K=1)) / sum_k (s_k/u P(X=1 | K=k)).
  double all = 0;
  for (const auto& [size, count] : freq.sizes)
    all += static_cast<double>(count) / u * risk::hypergeometric_one(population, size, n);
  const double s1 = static_cast<double>(freq.of_size(1));
  const double conditional = s1 / u * risk::hypergeometric_one(population, 1, n) / all;
  const double sampling_fraction = static_cast<double>(n) / population;
  UniquenessEstimate out;
  out.estimator = UniquenessEstimator::zayatz;
  const double uniques = s1 * conditional / sampling_fraction;
  if (std::isfinite(uniques) && uniques > 0) {
    out.uniques = uniques;
  } else {
    out.status = UniquenessEstimate::Status::invalid;
  }
  return out;
}

UniquenessEstimate estimate_pitman(const ClassSizeFrequencies& freq, double population, const SolverOptions& options) {
  if (freq.of_size(1) == 0) return no_sample_uniques(UniquenessEstimator::pitman);
  UniquenessEstimate out;
  out.estimator = UniquenessEstimator::pitman;
  const risk::Vec2 start = risk::pitman_start(freq);
  // ARX constrains theta to be non-negative.
  const risk::Constraint theta_positive = [](const risk::Vec2& v) { return v.x >= 0; };
  // Step 1 (papers/002, VI-H; ARX's ModelPitman): solve with the closed
  // forms. Their evaluations cost a few polygamma values per class size,
  // which ARX's time limits never reach: no budget.
  risk::NewtonResult r =
      risk::solve_newton([&](const risk::Vec2& v) { return risk::pitman_closed(freq, v); }, start, options, 0.0,
                         theta_positive);
  out.iterations = r.iterations;
  bool verified = false;
  if (r.converged) {
    // Step 2: verify the root with the exact sums.
    const risk::Vec2 check = risk::pitman_equations_exact(freq, r.root);
    verified = std::abs(check.x) <= options.accuracy && std::abs(check.y) <= options.accuracy;
  }
  if (!verified) {
    // Step 3: solve again with the exact sums, from the same start. An
    // evaluation sums about u + n + the largest class terms; the budgets
    // stand for ARX's time limits (include/deid/risk.h).
    const double terms = static_cast<double>(freq.classes() + freq.records() +
                                             (freq.sizes.empty() ? 0 : freq.sizes.back().first));
    r = risk::solve_newton([&](const risk::Vec2& v) { return risk::pitman_exact(freq, v); }, start, options, terms,
                           theta_positive);
    out.iterations += r.iterations;
    out.exact_sums = true;
  }
  if (!r.converged) {
    out.status = UniquenessEstimate::Status::not_converged;
    return out;
  }
  out.parameters = std::make_pair(r.root.x, r.root.y);
  const double uniques = risk::pitman_uniques(r.root, population);
  if (std::isnan(uniques) || uniques == 0) {
    out.status = UniquenessEstimate::Status::invalid;
  } else {
    out.uniques = uniques;
  }
  return out;
}

UniquenessEstimate estimate_snb(const ClassSizeFrequencies& freq, double population, const SolverOptions& options) {
  if (freq.of_size(1) == 0) return no_sample_uniques(UniquenessEstimator::snb);
  UniquenessEstimate out;
  out.estimator = UniquenessEstimator::snb;
  const double f = static_cast<double>(freq.records()) / population;
  const double k = risk::snb_classes(freq, f);
  const double s1 = static_cast<double>(freq.of_size(1)), s2 = static_cast<double>(freq.of_size(2));
  // ARX starts at alpha = beta = 1 (NewtonRaphson2D.solve()), then at its
  // prepared start values; no constraint.
  const risk::NewtonResult r = risk::solve_newton(
      [&](const risk::Vec2& v) { return risk::snb_system(k, f, s1, s2, v); }, {1.0, 1.0}, options);
  out.iterations = r.iterations;
  if (!r.converged) {
    out.status = UniquenessEstimate::Status::not_converged;
    return out;
  }
  out.parameters = std::make_pair(r.root.x, r.root.y);
  const double uniques = k * std::pow(r.root.y, r.root.x);
  if (std::isfinite(uniques) && uniques > 0) {
    out.uniques = uniques;
  } else {
    out.status = UniquenessEstimate::Status::invalid;
  }
  return out;
}

UniquenessEstimate estimate_dankar(const ClassSizeFrequencies& freq, double population, const SolverOptions& options,
                                   bool zayatz_fallback) {
  if (freq.of_size(1) == 0) return no_sample_uniques(UniquenessEstimator::dankar);
  UniquenessEstimate chosen;
  const double sampling_fraction = static_cast<double>(freq.records()) / population;
  if (sampling_fraction <= 0.1) {
    chosen = estimate_pitman(freq, population, options);
    if (!chosen.available() && zayatz_fallback) chosen = estimate_zayatz(freq, population);
  } else {
    const UniquenessEstimate snb = estimate_snb(freq, population, options);
    const UniquenessEstimate zayatz = estimate_zayatz(freq, population);
    if (snb.available() && !(zayatz.available() && *zayatz.uniques < *snb.uniques)) {
      chosen = snb;
    } else {
      chosen = zayatz;
    }
  }
  UniquenessEstimate out = chosen;
  out.estimator = UniquenessEstimator::dankar;
  out.selected = chosen.estimator;
  return out;
}

UniquenessEstimate estimate_uniques(UniquenessEstimator estimator, const ClassSizeFrequencies& freq, double population,
                                    const SolverOptions& options, bool zayatz_fallback) {
  switch (estimator) {
    case UniquenessEstimator::zayatz: return estimate_zayatz(freq, population);
    case UniquenessEstimator::pitman: return estimate_pitman(freq, population, options);
    case UniquenessEstimator::snb: return estimate_snb(freq, population, options);
    case UniquenessEstimator::dankar: return estimate_dankar(freq, population, options, zayatz_fallback);
  }
  return estimate_dankar(freq, population, options, zayatz_fallback);
}

}  // namespace deid
