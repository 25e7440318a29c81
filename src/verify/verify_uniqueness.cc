// Population-uniqueness estimates for the independent verifier
// (verify_uniqueness.h). std only; see the header for how each estimate is
// computed and why differently from the engine.
#include "verify_uniqueness.h"

#include "verify_sensitive.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <sstream>
#include <vector>

namespace verify {
namespace {

using Real = long double;

struct Counts {
  Real n = 0;   // records
  Real u = 0;   // classes
  Real s1 = 0;  // sample uniques
  Real s2 = 0;
};

Counts counts_of(const ClassSizes& sizes) {
  Counts c;
  for (const auto& [size, classes] : sizes) {
    c.n += static_cast<Real>(size) * static_cast<Real>(classes);
    c.u += static_cast<Real>(classes);
    if (size == 1) c.s1 = static_cast<Real>(classes);
    if (size == 2) c.s2 = static_cast<Real>(classes);
  }
  return c;
}

// Every estimator is 0 without sample uniques (ARX's convention).
UniquesEstimate no_sample_uniques(const char* model) {
  UniquesEstimate out;
  out.model = model;
  out.uniques = 0;
  out.why = "no sample uniques";
  return out;
}

Real log_choose(Real n, Real k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

// A 2x2 system F(x) = 0: its value and Jacobian at a point.
struct System {
  std::array<Real, 2> f{};
  std::array<Real, 4> j{};  // df1/dx, df1/dy, df2/dx, df2/dy
  bool defined = true;
};
using Equations = std::function<System(Real, Real)>;

Real norm(const System& s) { return std::max(std::fabs(s.f[0]), std::fabs(s.f[1])); }

// Damped Newton-Raphson: a full step unless it leaves the domain or does not
// reduce the residual, then halved (up to 60 times). Returns the root when
// max |f_i| <= tolerance within `steps`.
std::optional<std::array<Real, 2>> newton(const Equations& eq, Real x, Real y, Real tolerance, int steps) {
  System s = eq(x, y);
  if (!s.defined) return std::nullopt;
  for (int step = 0; step < steps; ++step) {
    if (norm(s) <= tolerance) return std::array<Real, 2>{x, y};
    const Real det = s.j[0] * s.j[3] - s.j[1] * s.j[2];
    if (!std::isfinite(det) || det == 0) return std::nullopt;
    const Real dx = (s.f[0] * s.j[3] - s.f[1] * s.j[1]) / det;
    const Real dy = (s.j[0] * s.f[1] - s.j[2] * s.f[0]) / det;
    Real scale = 1;
    bool moved = false;
    for (int halving = 0; halving < 60; ++halving, scale /= 2) {
      const Real nx = x - scale * dx, ny = y - scale * dy;
      const System t = eq(nx, ny);
      if (t.defined && std::isfinite(norm(t)) && norm(t) < norm(s)) {
        x = nx;
        y = ny;
        s = t;
        moved = true;
        break;
      }
    }
    if (!moved) return std::nullopt;
  }
  if (norm(s) <= tolerance) return std::array<Real, 2>{x, y};
  return std::nullopt;
}

}  // namespace

UniquesEstimate zayatz_uniques(const ClassSizes& sizes, long double population) {
  const Counts c = counts_of(sizes);
  if (c.s1 == 0) return no_sample_uniques("zayatz");
  UniquesEstimate out;
  out.model = "zayatz";
  const Real N = population;
  // P(X = 1), X hypergeometric: N individuals, k of them in the class, n drawn.
  auto p_one = [&](Real k) -> Real {
    if (N - k < c.n - 1) return 0;
    return std::exp(std::log(k) + log_choose(N - k, c.n - 1) - log_choose(N, c.n));
  };
  Real all = 0;
  for (const auto& [size, classes] : sizes) all += static_cast<Real>(classes) / c.u * p_one(static_cast<Real>(size));
  const Real conditional = c.s1 / c.u * p_one(1) / all;
  const Real uniques = c.s1 * conditional / (c.n / N);
  if (std::isfinite(uniques) && uniques > 0) {
    out.uniques = uniques;
  } else {
    out.why = "the estimate is not a positive number";
  }
  return out;
}

UniquesEstimate pitman_uniques(const ClassSizes& sizes, long double population) {
  const Counts c = counts_of(sizes);
  if (c.s1 == 0) return no_sample_uniques("pitman");
  UniquesEstimate out;
  out.model = "pitman";
  const auto u = static_cast<std::uint64_t>(c.u), n = static_cast<std::uint64_t>(c.n);
  // Equations (2) and (3) of papers/002 with their derivatives, summed term
  // by term. theta >= 0 (as ARX constrains it) and every denominator > 0.
  const Equations eq = [&](Real theta, Real alpha) {
    System s;
    if (!(theta >= 0) || !(alpha < 1) || !(theta + alpha > 0) || !(theta + (c.u - 1) * alpha > 0)) {
      s.defined = false;
      return s;
    }
    Real a = 0, b = 0, a2 = 0, b1 = 0, b2 = 0;  // sums over 1..u-1
    for (std::uint64_t i = 1; i < u; ++i) {
      const Real di = static_cast<Real>(i);
      const Real inv = 1 / (theta + di * alpha);
      a += inv;
      b += di * inv;
      a2 += inv * inv;
      b1 += di * inv * inv;
      b2 += di * di * inv * inv;
    }
    Real h = 0, h2 = 0;  // sums over 1..n-1
    for (std::uint64_t i = 1; i < n; ++i) {
      const Real inv = 1 / (theta + static_cast<Real>(i));
      h += inv;
      h2 += inv * inv;
    }
    Real g = 0, g2 = 0;  // sum over classes of size k >= 2 of sum_{j<k} 1/(j - alpha) (and squared)
    for (const auto& [size, classes] : sizes)
      for (std::uint64_t j = 1; j < size; ++j) {
        const Real inv = 1 / (static_cast<Real>(j) - alpha);
        g += static_cast<Real>(classes) * inv;
        g2 += static_cast<Real>(classes) * inv * inv;
      }
    s.f = {a - h, b - g};
    s.j = {h2 - a2, -b1, -b1, -b2 - g2};
    return s;
  };
  // Hoshino's starting point (s2 taken as 1 when 0), then a fixed grid.
  const Real s2 = c.s2 == 0 ? 1 : c.s2;
  const Real cc = c.s1 * (c.s1 - 1) / s2;
  const Real theta0 = (c.n * c.u * cc - c.s1 * (c.n - 1) * (2 * c.u + cc)) / (2 * c.s1 * c.u + c.s1 * cc - c.n * cc);
  const Real alpha0 = (theta0 * (c.s1 - c.n) + (c.n - 1) * c.s1) / (c.n * c.u);
  std::vector<std::array<Real, 2>> starts{{theta0, alpha0}};
  for (Real theta : {1.0L, 10.0L, 100.0L, 1000.0L, 10000.0L})
    for (Real alpha : {0.1L, 0.3L, 0.5L, 0.7L, 0.9L}) starts.push_back({theta, alpha});
  for (const auto& [theta_start, alpha_start] : starts) {
    const auto root = newton(eq, theta_start, alpha_start, 1e-10L, 500);
    if (!root) continue;
    const Real theta = (*root)[0], alpha = (*root)[1];
    // (1): Gamma(theta + 1) / Gamma(theta + alpha) * N^alpha.
    const Real uniques =
        std::exp(std::lgamma(theta + 1) - std::lgamma(theta + alpha) + alpha * std::log(population));
    if (!std::isfinite(uniques) || uniques < 0 || uniques > population) continue;
    out.uniques = uniques;
    return out;
  }
  out.why = "Newton-Raphson found no root with a finite estimate";
  return out;
}

UniquesEstimate snb_uniques(const ClassSizes& sizes, long double population) {
  const Counts c = counts_of(sizes);
  if (c.s1 == 0) return no_sample_uniques("snb");
  UniquesEstimate out;
  out.model = "snb";
  const Real f = c.n / population;
  // K, the non-empty classes of the population (Shlosser, as ARX computes it).
  Real A = 0, B = 0, C = 0, D = 0;
  for (const auto& [size, classes] : sizes) {
    const Real k = static_cast<Real>(size), s = static_cast<Real>(classes);
    A += k * f * f * std::pow(1 - f * f, k - 1) * s;
    B += std::pow(1 - f, k) * s * std::pow(1 + f, k) - 1;
    C += std::pow(1 - f, k) * s;
    D += k * f * std::pow(1 - f, k - 1) * s;
  }
  const Real K = c.u + c.s1 * (A / B) * (C / D) * (C / D);
  auto value = [&](Real alpha, Real beta) {
    const Real d = (1 - f) * (1 - beta), q = 1 - d;
    return std::array<Real, 2>{
        K * f * std::pow(beta / q, alpha) * (alpha * d / q + 1) - c.s1,
        K * alpha * std::pow(beta, alpha) * f * f * (1 - beta) / 2 * std::pow(q, alpha + 2) * (2 - (1 - alpha) * d) -
            c.s2};
  };
  const Equations eq = [&](Real alpha, Real beta) {
    System s;
    if (!(beta > 0) || !(beta <= 1)) {
      s.defined = false;
      return s;
    }
    const auto v = value(alpha, beta);
    s.f = v;
    const Real h = 1e-7L;  // central differences
    const auto xa = value(alpha + h, beta), xb = value(alpha - h, beta);
    const auto ya = value(alpha, std::min<Real>(1, beta + h)), yb = value(alpha, beta - h);
    const Real dy = std::min<Real>(1, beta + h) - (beta - h);
    s.j = {(xa[0] - xb[0]) / (2 * h), (ya[0] - yb[0]) / dy, (xa[1] - xb[1]) / (2 * h), (ya[1] - yb[1]) / dy};
    s.defined = std::isfinite(v[0]) && std::isfinite(v[1]);
    return s;
  };
  const auto root = newton(eq, 1, 1, 1e-6L, 1000);
  if (root) {
    const Real uniques = K * std::pow((*root)[1], (*root)[0]);
    if (std::isfinite(uniques) && uniques > 0) {
      out.uniques = uniques;
      return out;
    }
  }
  out.why = "Newton-Raphson found no root with a positive estimate";
  return out;
}

UniquesEstimate dankar_uniques(const ClassSizes& sizes, long double population) {
  const Counts c = counts_of(sizes);
  if (c.s1 == 0) return no_sample_uniques("dankar");
  if (c.n / population <= 0.1L) return pitman_uniques(sizes, population);
  UniquesEstimate zayatz = zayatz_uniques(sizes, population);
  const UniquesEstimate snb = snb_uniques(sizes, population);
  if (snb.uniques && zayatz.uniques && *snb.uniques < *zayatz.uniques) return snb;
  return zayatz;
}

UniquesEstimate estimate_uniques(PopulationUniqueness::Estimator estimator, const ClassSizes& sizes,
                                 long double population) {
  switch (estimator) {
    case PopulationUniqueness::Estimator::pitman: return pitman_uniques(sizes, population);
    case PopulationUniqueness::Estimator::zayatz: return zayatz_uniques(sizes, population);
    case PopulationUniqueness::Estimator::snb: return snb_uniques(sizes, population);
    case PopulationUniqueness::Estimator::dankar: break;
  }
  return dankar_uniques(sizes, population);
}

bool population_uniqueness_holds(const PopulationUniqueness& requirement, const ClassSizes& sizes,
                                 long double* fraction, std::string* why) {
  *fraction = 0;
  if (sizes.empty()) return true;  // every record suppressed
  const long double N = requirement.population_size;
  const UniquesEstimate e = estimate_uniques(requirement.estimator, sizes, N);
  if (e.uniques) *fraction = *e.uniques / N;
  const long double threshold = requirement.threshold;
  if (*fraction > 0 && *fraction <= threshold * (1 + kUniquenessTolerance)) return true;
  const auto unique = sizes.find(1);
  const std::uint64_t s1 = unique == sizes.end() ? 0 : unique->second;
  if (*fraction == 0 && s1 == 0) return true;
  std::ostringstream text;
  if (*fraction > 0) {
    text << "the estimated population uniqueness (" << e.model << ") is " << static_cast<double>(*fraction)
         << ", above the threshold " << requirement.threshold;
  } else {
    text << "the output has " << s1 << " sample unique(s) and " << e.model << " gives no estimate (" << e.why << ")";
  }
  *why = text.str();
  return false;
}

namespace {

void records_and_classes(const ClassSizes& sizes, long double* records, long double* classes) {
  *records = *classes = 0;
  for (const auto& [size, count] : sizes) {
    *records += static_cast<long double>(size) * static_cast<long double>(count);
    *classes += static_cast<long double>(count);
  }
}

}  // namespace

bool average_risk_holds(const AverageRisk& requirement, const ClassSizes& sizes, long double* value,
                        std::string* why) {
  *value = 0;
  if (sizes.empty()) return true;
  long double records = 0, classes = 0;
  records_and_classes(sizes, &records, &classes);
  *value = classes / records;
  std::ostringstream text;
  if (*value > requirement.threshold + kTolerance) {
    text << "the average risk (classes / records) is " << static_cast<double>(*value) << ", above the threshold "
         << requirement.threshold;
    *why = text.str();
    return false;
  }
  if (!requirement.highest_risk) return true;
  const long double h = *requirement.highest_risk;
  long double at_risk = 0;
  for (const auto& [size, count] : sizes)
    if (1.0L / static_cast<long double>(size) >= 1.01L * h)
      at_risk += static_cast<long double>(size) * static_cast<long double>(count);
  if (at_risk / records <= requirement.records_at_risk + kTolerance) return true;
  text << static_cast<double>(at_risk) << " records (a share of " << static_cast<double>(at_risk / records)
       << ") are in classes whose risk exceeds the highest risk " << *requirement.highest_risk
       << ", more than the share " << requirement.records_at_risk << " allowed";
  *why = text.str();
  return false;
}

bool sample_uniqueness_holds(const SampleUniqueness& requirement, const ClassSizes& sizes, long double* value,
                             std::string* why) {
  *value = 0;
  if (sizes.empty()) return true;
  long double records = 0, classes = 0;
  records_and_classes(sizes, &records, &classes);
  const auto unique = sizes.find(1);
  const long double uniques = unique == sizes.end() ? 0 : static_cast<long double>(unique->second);
  *value = uniques / records;
  if (*value <= requirement.threshold + kTolerance) return true;
  std::ostringstream text;
  text << static_cast<double>(uniques) << " of " << static_cast<double>(records)
       << " records are unique in the output, a share of " << static_cast<double>(*value) << ", above the threshold "
       << requirement.threshold;
  *why = text.str();
  return false;
}

std::uint64_t k_map_derived_k(const KMap& requirement, std::uint64_t records) {
  const long double lambda = static_cast<long double>(records) / requirement.population_size *
                             static_cast<long double>(requirement.k);
  // P(X = i) for X ~ Poisson(lambda).
  auto pmf = [&](std::uint64_t i) {
    const long double x = static_cast<long double>(i);
    return std::exp(x * std::log(lambda) - lambda - std::lgamma(x + 1));
  };
  // Compared with a margin of 1e-12 in the release's favour: at a
  // significance of 0 the engine (as ARX) stops where the cumulative
  // probability rounds to 1 in double precision.
  const long double need = 1.0L - requirement.significance - 1e-12L;
  if (requirement.significance >= 1) return 1;  // ARX's loops do not run
  // Smallest j whose (truncated) cumulative probability reaches 1 - alpha,
  // looking no further than k (ARX stops there: k' never exceeds k).
  std::uint64_t quantile = requirement.k;
  long double cumulative = requirement.zero_truncated ? 0 : pmf(0);
  const long double scale = requirement.zero_truncated ? 1.0L - pmf(0) : 1.0L;
  for (std::uint64_t j = requirement.zero_truncated ? 1 : 0; j < requirement.k; ++j) {
    if (j > 0) cumulative += pmf(j);
    if (cumulative / scale >= need) {
      quantile = j;
      break;
    }
  }
  // ARX's loops end one (zero-truncated) or two (Poisson) past the quantile.
  const std::uint64_t derived = quantile + (requirement.zero_truncated ? 1 : 2);
  return std::min({derived, records, requirement.k});
}

}  // namespace verify
