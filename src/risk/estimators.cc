// Population uniqueness estimators (papers/002, VI-D and VI-H), with the
// definitions, starting values and solver settings of ARX 3.9.2
// (org.deidentifier.arx.risk: ModelZayatz, ModelPitman, ModelSNB,
// RiskModelPopulationUniqueness). docs/risk-models.md derives the formulas.
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "risk/models.h"

namespace deid {

namespace bm = boost::math;
namespace {

// Polygamma values at poles or outside the domain become NaN or infinity
// instead of exceptions: the solver treats a NaN step as the end of a try,
// as ARX does. Double precision throughout (no promotion to long double):
// the root is verified with the exact sums anyway.
using Quiet = bm::policies::policy<bm::policies::domain_error<bm::policies::ignore_error>,
                                   bm::policies::pole_error<bm::policies::ignore_error>,
                                   bm::policies::overflow_error<bm::policies::ignore_error>,
                                   bm::policies::evaluation_error<bm::policies::ignore_error>,
                                   bm::policies::promote_double<false>>;

double psi(double x) { return bm::digamma(x, Quiet()); }
double psi1(double x) { return bm::trigamma(x, Quiet()); }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Step 3 of the Pitman estimate after the closed forms found no root: the
// exact sums get at most this many terms in total (estimate_pitman).
constexpr double kExactTermsAfterNoRoot = 5e7;

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

ClassSizeFrequencies ClassSizeFrequencies::from_class_sizes(std::span<const std::uint64_t> class_sizes) {
  std::vector<std::uint64_t> sorted;
  sorted.reserve(class_sizes.size());
  for (std::uint64_t s : class_sizes)
    if (s > 0) sorted.push_back(s);
  std::sort(sorted.begin(), sorted.end());
  ClassSizeFrequencies out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    out.sizes.emplace_back(sorted[i], j - i);
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

namespace {

// The sums over 1..u-1 (p1, p2, q0, q1, q2 in models.h) by the exact loop.
struct USums {
  double p1 = 0, p2 = 0, q0 = 0, q1 = 0, q2 = 0;
};
USums u_sums_exact(std::uint64_t u, double t, double a) {
  USums s;
  for (std::uint64_t i = 1; i < u; ++i) {
    const double di = static_cast<double>(i);
    const double inv = 1.0 / (t + di * a);
    const double inv2 = inv * inv;
    s.p1 += inv;
    s.p2 += di * inv;
    s.q0 += inv2;
    s.q1 += di * inv2;
    s.q2 += di * di * inv2;
  }
  return s;
}

SystemValue pitman_polygamma(const ClassSizeFrequencies& freq, const Vec2& v, bool guarded) {
  const double t = v.x, a = v.y;
  const std::uint64_t classes = freq.classes(), records = freq.records();
  const double u = static_cast<double>(classes);
  const double n = static_cast<double>(records);
  const double r = t / a;
  USums us;
  // psi(u+r) - psi(1+r) is about (u-1)/r when r >> u: both terms are about
  // log r, and the difference loses log10(r/u) digits, which the chains for
  // p2, q1 and q2 amplify. Beyond r = 1000 u the guarded form sums exactly.
  if (guarded && !(std::abs(r) <= 1000.0 * u)) {
    us = u_sums_exact(classes, t, a);
  } else {
    // One evaluation of each polygamma at u + r and 1 + r serves all five
    // sums over 1..u-1 (models.h).
    const double psi_u = psi(u + r), psi_1 = psi(1.0 + r);
    const double tri_u = psi1(u + r), tri_1 = psi1(1.0 + r);
    us.p1 = (psi_u - psi_1) / a;
    us.p2 = ((u - 1.0) - t * us.p1) / a;
    us.q0 = (tri_1 - tri_u) / (a * a);
    us.q1 = (us.p1 - t * us.q0) / a;
    us.q2 = (us.p2 - t * us.q1) / a;
  }
  double h_n = 0, h2_n = 0;
  if (guarded && !(std::abs(t) <= 1000.0 * n)) {
    // The same cancellation for the sums over 1..n-1 when theta >> n.
    for (std::uint64_t i = 1; i < records; ++i) {
      const double inv = 1.0 / (t + static_cast<double>(i));
      h_n += inv;
      h2_n += inv * inv;
    }
  } else {
    h_n = psi(n + t) - psi(1.0 + t);
    h2_n = psi1(1.0 + t) - psi1(n + t);
  }
  const double psi_a = psi(1.0 - a), tri_a = psi1(1.0 - a);
  double o4 = 0, d4 = 0;
  for (const auto& [size, count] : freq.sizes) {
    if (size < 2) continue;
    const double k = static_cast<double>(size), s = static_cast<double>(count);
    o4 += s * (psi(k - a) - psi_a);
    d4 += s * (tri_a - psi1(k - a));
  }
  SystemValue out;
  out.f = {us.p1 - h_n, us.p2 - o4};
  out.j = {h2_n - us.q0, -us.q1, -us.q1, -us.q2 - d4};
  return out;
}

}  // namespace

SystemValue pitman_closed(const ClassSizeFrequencies& freq, const Vec2& v) { return pitman_polygamma(freq, v, false); }

SystemValue pitman_fast(const ClassSizeFrequencies& freq, const Vec2& v) { return pitman_polygamma(freq, v, true); }

namespace {

// The sums over the class sizes: o4 = sum_k s_k H_k, d4 = sum_k s_k H2_k
// with H_k = sum_{j=1}^{k-1} 1/(j-alpha) and H2_k its squares, cumulated in
// one pass up to the largest size (sizes are ascending).
void size_sums(const ClassSizeFrequencies& freq, double a, double& o4, double* d4) {
  double h = 0, h2 = 0;
  std::uint64_t j = 1;
  for (const auto& [size, count] : freq.sizes) {
    for (; j < size; ++j) {
      const double inv = 1.0 / (static_cast<double>(j) - a);
      h += inv;
      if (d4) h2 += inv * inv;
    }
    if (size < 2) continue;
    const double s = static_cast<double>(count);
    o4 += s * h;
    if (d4) *d4 += s * h2;
  }
}

}  // namespace

SystemValue pitman_exact(const ClassSizeFrequencies& freq, const Vec2& v) {
  const double t = v.x, a = v.y;
  const std::uint64_t n = freq.records();
  const USums us = u_sums_exact(freq.classes(), t, a);
  double o4 = 0, d4 = 0;
  size_sums(freq, a, o4, &d4);
  double h_n = 0, h2_n = 0;
  for (std::uint64_t i = 1; i < n; ++i) {
    const double inv = 1.0 / (t + static_cast<double>(i));
    h_n += inv;
    h2_n += inv * inv;
  }
  SystemValue out;
  out.f = {us.p1 - h_n, us.p2 - o4};
  out.j = {h2_n - us.q0, -us.q1, -us.q1, -us.q2 - d4};
  return out;
}

Vec2 pitman_equations_exact(const ClassSizeFrequencies& freq, const Vec2& v) {
  const double t = v.x, a = v.y;
  const std::uint64_t u = freq.classes(), n = freq.records();
  double p1 = 0, p2 = 0;
  for (std::uint64_t i = 1; i < u; ++i) {
    const double di = static_cast<double>(i);
    const double inv = 1.0 / (t + di * a);
    p1 += inv;
    p2 += di * inv;
  }
  double o4 = 0;
  size_sums(freq, a, o4, nullptr);
  double h_n = 0;
  for (std::uint64_t i = 1; i < n; ++i) h_n += 1.0 / (t + static_cast<double>(i));
  return {p1 - h_n, p2 - o4};
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
  if (t + 1.0 > 0 && t + a > 0)
    via_log = in_range(std::exp(bm::lgamma(t + 1.0, Quiet()) - bm::lgamma(t + a, Quiet())) * scale);
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
  // ARX restarts in the box between 0 and the initial guess, which holds no
  // admissible alpha when the guess's alpha is negative (it often is);
  // deid restarts with theta in [0, max(1, guess)] and alpha in [0, 1), the
  // range of alpha in Pitman's model with a finite population share of
  // uniques.
  const risk::RestartBox box{{0.0, 0.0}, {std::isfinite(start.x) ? std::max(1.0, start.x) : 1.0, 1.0}};
  // Far from the root the equations also vanish as theta and -alpha grow
  // together without bound (every term 1/(theta + i alpha) tends to 0);
  // Newton-Raphson from a guess with negative alpha often runs off there
  // and "converges" to a point where equation (1) has no finite value. ARX
  // then reports no estimate; deid rejects such a point and restarts.
  const risk::Acceptance usable = [&](const risk::Vec2& v) {
    return !std::isnan(risk::pitman_uniques(v, population));
  };
  // Step 1: solve with the closed forms (papers/002, VI-H).
  risk::NewtonResult r = risk::solve_newton([&](const risk::Vec2& v) { return risk::pitman_fast(freq, v); },
                                            start, box, options, theta_positive, usable);
  out.iterations = r.iterations;
  bool verified = false;
  if (r.converged) {
    // Step 2: verify the root with the exact sums.
    const risk::Vec2 check = risk::pitman_equations_exact(freq, r.root);
    verified = std::abs(check.x) <= options.accuracy && std::abs(check.y) <= options.accuracy;
  }
  if (!verified) {
    // Step 3: solve again with the exact sums. After a root that failed
    // verification, with the whole budget. After no root at all, with a
    // budget of kExactTermsAfterNoRoot terms summed (papers/002 bounds this
    // step by time, ARX by 100 ms per try and 1 s in total; counting terms
    // keeps deid deterministic). An exact evaluation sums about u + n +
    // (largest class) terms, so on nearly unique tables (u close to n) the
    // full 10000 steps cost 10000 (u + n) terms: on cup's population-
    // uniqueness job 98 % of the CPU time went there (bench/README.md).
    // The budget keeps every root the full budget found there (the largest
    // took 2.5e7 terms).
    SolverOptions exact = options;
    if (!r.converged) {
      const double terms = static_cast<double>(freq.classes() + freq.records() +
                                               (freq.sizes.empty() ? 0 : freq.sizes.back().first));
      const double steps = std::floor(kExactTermsAfterNoRoot / std::max(1.0, terms));
      exact.iterations_total = static_cast<int>(std::min(static_cast<double>(options.iterations_total), steps));
      exact.iterations_per_try = std::min(options.iterations_per_try, exact.iterations_total);
    }
    r = risk::solve_newton([&](const risk::Vec2& v) { return risk::pitman_exact(freq, v); }, start, box, exact,
                           theta_positive, usable);
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
  // ARX starts at alpha = beta = 1 and restarts in [0, 1] x [0, 1].
  const risk::NewtonResult r =
      risk::solve_newton([&](const risk::Vec2& v) { return risk::snb_system(k, f, s1, s2, v); }, {1.0, 1.0},
                         risk::RestartBox{{0.0, 0.0}, {1.0, 1.0}}, options);
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
