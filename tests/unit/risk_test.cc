// Unit tests of the risk estimators, their numerics (papers/002, VI-H) and
// risk-based suppression (VI-G).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include <cstring>

#include "deid/check.h"
#include "deid/pipeline.h"
#include "deid/risk.h"
#include "privacy/population_uniqueness.h"
#include "risk/arx_gamma.h"
#include "risk/models.h"
#include "risk/newton.h"
#include "risk/suppression.h"

namespace {

using deid::ClassSizeFrequencies;
using deid::UniquenessEstimate;
using deid::risk::Vec2;

// Class-size frequencies with u classes and n records: s_1 = u/2 uniques,
// the other classes sized 2, 3, ... cyclically, the last one taking the
// rest of the records.
ClassSizeFrequencies synthetic(std::uint64_t u, std::uint64_t n) {
  std::vector<std::uint64_t> sizes;
  std::uint64_t used = 0;
  for (std::uint64_t c = 0; c + 1 < u; ++c) {
    const std::uint64_t s = c < u / 2 ? 1 : 2 + c % 7;
    sizes.push_back(s);
    used += s;
  }
  sizes.push_back(n > used ? n - used : 1);
  return ClassSizeFrequencies::from_class_sizes(sizes);
}

double scale_of(double a, double b) { return std::max({std::abs(a), std::abs(b), 1.0}); }

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// A system without a root: every Newton-Raphson step moves by (-1, -1).
deid::risk::SystemValue no_root(const Vec2&) {
  deid::risk::SystemValue s;
  s.f = {1, 1};
  s.j = {1, 0, 0, 1};
  return s;
}

// papers/002, VI-H: the equations by the digamma closed forms (ARX's, with
// ARX's digamma) equal the exact sums over a grid of (alpha, theta, u, n)
// where the differences of polygamma values are well conditioned
// (theta/alpha <= 1000 u, theta <= 1000 n: models.h). Their Jacobian is the
// one ARX steers by (trigamma without its tail below 12): symmetric, but
// not the derivative (next tests).
TEST(PitmanNumerics, ClosedFormEquationsEqualExactSumsOverGrid) {
  int compared = 0;
  for (std::uint64_t u : {2u, 5u, 40u, 700u, 5000u})
    for (std::uint64_t extra : {1u, 3u, 10u}) {
      const ClassSizeFrequencies f = synthetic(u, u * extra + 3);
      const double n = static_cast<double>(f.records());
      for (double alpha : {0.001, 0.05, 0.3, 0.7, 0.99})
        for (double theta : {0.0, 0.5, 7.0, 250.0, 1e4, 1e7}) {
          const Vec2 v{theta, alpha};
          const auto exact = deid::risk::pitman_exact(f, v);
          const auto eq = deid::risk::pitman_equations_exact(f, v);
          EXPECT_EQ(eq.x, exact.f.x);
          EXPECT_EQ(eq.y, exact.f.y);
          const auto closed = deid::risk::pitman_closed(f, v);
          EXPECT_EQ(closed.j.x2, closed.j.y1);
          if (theta / alpha <= 1000.0 * static_cast<double>(u) && theta <= 1000.0 * n) {
            EXPECT_LE(relative(closed.f.x, exact.f.x), 1e-8) << "f1 u=" << u << " a=" << alpha << " t=" << theta;
            EXPECT_LE(relative(closed.f.y, exact.f.y), 1e-8) << "f2 u=" << u << " a=" << alpha << " t=" << theta;
            ++compared;
          }
        }
    }
  EXPECT_GT(compared, 5 * 3 * 5 * 6 / 2);
}

// ARX's polygamma approximations (arx_gamma.h): digamma is digamma; trigamma
// is trigamma from 12 on, and below 12 the sum of its recurrence down to 8
// without the tail; the reflection formulas for negative arguments.
TEST(ArxGamma, DigammaIsDigammaAndTrigammaDropsItsTailBelow12) {
  for (double x : {1e-7, 1e-3, 0.3, 1.0, 2.5, 7.9, 8.0, 11.99, 12.0, 40.0, 1e4, 3e7}) {
    EXPECT_NEAR(deid::risk::arx::digamma(x), boost::math::digamma(x), 1e-13 * std::max(1.0, std::abs(boost::math::digamma(x))))
        << x;
    if (x >= 12.0) {
      EXPECT_NEAR(deid::risk::arx::trigamma(x), boost::math::trigamma(x), 1e-13 * boost::math::trigamma(x)) << x;
    } else if (x > 1e-4) {
      // The terms 1/(x+j)^2 until x+j >= 8, and nothing for the rest.
      double expected = 0, y = x;
      for (; y < 8.0; y += 1.0) expected += 1.0 / (y * y);
      EXPECT_DOUBLE_EQ(deid::risk::arx::trigamma(x), expected) << x;
      EXPECT_LT(deid::risk::arx::trigamma(x), boost::math::trigamma(x) - 0.08) << x;  // the tail psi'(y) > 1/8.1
    }
  }
  for (double x : {-0.5, -2.3, -17.75}) {
    EXPECT_NEAR(deid::risk::arx::digamma(x), boost::math::digamma(x), 1e-12 * std::abs(boost::math::digamma(x))) << x;
    EXPECT_NEAR(deid::risk::arx::trigamma(x), -deid::risk::arx::trigamma(1.0 - x) +
                                                  std::pow(M_PI / std::sin(M_PI * x), 2), 1e-9 * std::abs(deid::risk::arx::trigamma(x)))
        << x;
  }
}

// Java's StrictMath.log (fdlibm), bit for bit, on arguments where the C
// library's log rounds the other way (values printed by Java 17).
TEST(ArxGamma, StrictLogIsJavas) {
  const std::pair<std::uint64_t, std::uint64_t> java[] = {
      {0x3fe41b9072a52c24ULL, 0xbfddbc9208eb7c6eULL},  // log(0.62836477653161582)
      {0x4016936bc0197882ULL, 0x3ffbb07bf3f3682cULL},  // log(5.6439657226129629)
      {0x402a5e09ed4a951cULL, 0x4004a1bfb0fec264ULL},  // log(13.183669486383728)
      {0x40250780604d8550ULL, 0x4002d278e48d0bc0ULL},  // log(10.514651307547553)
      {0x4086ecff602aa326ULL, 0x401a64597a7decb6ULL},  // log(733.62469514189138)
      {0x402bc84b4ca2d49eULL, 0x40050ccfb03f0156ULL},  // log(13.891199488522314)
      {0x4008e4a81abdac30ULL, 0x3ff22995e993972eULL},  // log(3.1116487588056074)
      {0x40170e2282a8b570ULL, 0x3ffc068b31e8e312ULL},  // log(5.7638035216781276)
      {0x400656f474ec8283ULL, 0x3ff06e46278f6064ULL},  // log(2.7924584517170969)
      {0x401c0bc2b87d2f2cULL, 0x3fff2929aeb53afeULL},  // log(7.0114849878698742)
      {0x3fd879adbaccbf10ULL, 0xbfeec24cf9aafdeeULL},  // log(0.38242667429129629)
      {0x3fe4dee710dbc4b0ULL, 0xbfdb5a576987b9ccULL},  // log(0.65220979015989222)
  };
  auto from_bits = [](std::uint64_t b) {
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
  };
  for (const auto& [x, log_x] : java) EXPECT_EQ(deid::risk::arx::strict_log(from_bits(x)), from_bits(log_x)) << from_bits(x);
  // Special values and a spread of magnitudes, against the C library within an ulp.
  EXPECT_EQ(deid::risk::arx::strict_log(1.0), 0.0);
  EXPECT_TRUE(std::isinf(deid::risk::arx::strict_log(0.0)));
  EXPECT_TRUE(std::isnan(deid::risk::arx::strict_log(-1.0)));
  for (double x : {1e-310, 1e-20, 0.999999, 1.0000001, 2.0, 1e5, 6.02e23, 1e300})
    EXPECT_NEAR(deid::risk::arx::strict_log(x), std::log(x), 2.3e-16 * std::abs(std::log(x)) + 1e-300) << x;
}

// The exact sums (pitman_sums.cc) are added in ARX's order, bit for bit the
// plain loops, on one core and on two; from 2^18 records on, the sums over
// 1..n-1 are taken from polygamma values (theta <= 1000 n) or
// Euler-Maclaurin (beyond), the sums over 1..u-1 in two halves, and all
// equal the loops to 1e-13.
TEST(PitmanNumerics, ExactSumsAreThePlainLoops) {
  for (const auto& [u, n] :
       {std::pair<std::uint64_t, std::uint64_t>{700, 2100}, {40000, 40100}, {20, 40}, {70000, 300000}}) {
    const bool closed = n >= (1u << 18);
    const ClassSizeFrequencies f = synthetic(u, n);
    for (const Vec2 v : {Vec2{3.0, 0.2}, Vec2{8000.0, -0.3}, Vec2{0.5, 0.9}, Vec2{2e9, 0.4}, Vec2{3e6, 0.7}}) {
      double d1 = 0, d3 = 0, d5 = 0, o1 = 0, o3 = 0, d2 = 0, o2 = 0;
      for (std::uint64_t i = 1; i < f.classes(); ++i) {
        const double di = static_cast<double>(i), val0 = v.x + di * v.y;
        const double val1 = 1.0 / val0, val3 = 1.0 / (val0 * val0);
        d1 += val3;
        d5 += di * val3;
        d3 += di * (di * val3);
        o1 += val1;
        o3 += di * val1;
      }
      for (std::uint64_t i = 1; i < f.records(); ++i) {
        const double val0 = v.x + static_cast<double>(i);
        d2 += 1.0 / (val0 * val0);
        o2 += 1.0 / val0;
      }
      double o4 = 0, d4 = 0, h = 0, h2 = 0;
      std::uint64_t j = 1;
      for (const auto& [size, count] : f.sizes) {
        for (; j < size; ++j) {
          const double inv = 1.0 / (static_cast<double>(j) - v.y);
          h += inv;
          h2 += inv * inv;
        }
        if (size < 2) continue;
        o4 += static_cast<double>(count) * h;
        d4 += static_cast<double>(count) * h2;
      }
      const auto s = deid::risk::pitman_exact(f, v);
      const std::string at = "u=" + std::to_string(u) + " t=" + std::to_string(v.x);
      if (closed) {
        EXPECT_NEAR(s.f.x, o1 - o2, 1e-13 * std::max(o1, o2)) << at;
        EXPECT_NEAR(s.j.x1, d2 - d1, 1e-13 * std::max(d1, d2)) << at;
      } else {
        EXPECT_EQ(s.f.x, o1 - o2) << at;
        EXPECT_EQ(s.j.x1, d2 - d1) << at;
      }
      const Vec2 eq = deid::risk::pitman_equations_exact(f, v);
      EXPECT_EQ(eq.x, s.f.x) << at;
      EXPECT_EQ(eq.y, s.f.y) << at;
      if (closed) {  // and the u-sums in two halves
        EXPECT_NEAR(s.f.y, o3 - o4, 1e-13 * std::max(std::abs(o3), std::abs(o4))) << at;
        EXPECT_NEAR(s.j.x2, 0.0 - d5, 1e-13 * std::abs(d5)) << at;
        EXPECT_NEAR(s.j.y2, 0.0 - d3 - d4, 1e-13 * std::abs(d3 + d4)) << at;
      } else {
        EXPECT_EQ(s.f.y, o3 - o4) << at;
        EXPECT_EQ(s.j.x2, 0.0 - d5) << at;
        EXPECT_EQ(s.j.y2, 0.0 - d3 - d4) << at;
      }
    }
  }
}

// The Jacobian of the exact sums is the derivative of the equations
// (central differences).
TEST(PitmanNumerics, JacobianIsDerivativeOfEquations) {
  const ClassSizeFrequencies f = synthetic(300, 1000);
  for (const Vec2 v : {Vec2{3.0, 0.2}, Vec2{80.0, 0.6}, Vec2{0.5, 0.05}}) {
    const auto s = deid::risk::pitman_exact(f, v);
    const double h = 1e-6;
    const Vec2 fxp = deid::risk::pitman_equations_exact(f, {v.x + h, v.y});
    const Vec2 fxm = deid::risk::pitman_equations_exact(f, {v.x - h, v.y});
    const Vec2 fyp = deid::risk::pitman_equations_exact(f, {v.x, v.y + h});
    const Vec2 fym = deid::risk::pitman_equations_exact(f, {v.x, v.y - h});
    EXPECT_NEAR(s.j.x1, (fxp.x - fxm.x) / (2 * h), 1e-5 * scale_of(s.j.x1, 1));
    EXPECT_NEAR(s.j.x2, (fyp.x - fym.x) / (2 * h), 1e-5 * scale_of(s.j.x2, 1));
    EXPECT_NEAR(s.j.y1, (fxp.y - fxm.y) / (2 * h), 1e-5 * scale_of(s.j.y1, 1));
    EXPECT_NEAR(s.j.y2, (fyp.y - fym.y) / (2 * h), 1e-5 * scale_of(s.j.y2, 1));
  }
}

// A root of the closed forms is a root of the exact sums: Pitman's estimate
// on a realistic table converges, and the equations vanish there.
TEST(PitmanEstimator, RootSatisfiesExactEquations) {
  const ClassSizeFrequencies f = synthetic(2000, 9000);
  const UniquenessEstimate e = deid::estimate_pitman(f, 1e7);
  ASSERT_EQ(e.status, UniquenessEstimate::Status::ok);
  ASSERT_TRUE(e.parameters.has_value());
  const Vec2 root{e.parameters->first, e.parameters->second};
  const Vec2 eq = deid::risk::pitman_equations_exact(f, root);
  EXPECT_LE(std::abs(eq.x), 1e-6);
  EXPECT_LE(std::abs(eq.y), 1e-6);
  EXPECT_GT(root.y, 0.0);
  EXPECT_LT(root.y, 1.0);
  // Equation (1) with the fitted parameters.
  const double expected = std::exp(std::lgamma(root.x + 1) - std::lgamma(root.x + root.y)) * std::pow(1e7, root.y);
  EXPECT_NEAR(*e.uniques, expected, 1e-9 * expected);
}

// An estimate that did not converge is not a number: with a budget of one
// Newton step no root is found, and the estimate says so.
TEST(PitmanEstimator, NonConvergenceIsReportedWithoutANumber) {
  const ClassSizeFrequencies f = synthetic(2000, 9000);
  deid::SolverOptions tight;
  tight.iterations_total = 0;
  tight.iterations_per_try = 0;
  const UniquenessEstimate e = deid::estimate_pitman(f, 1e7, tight);
  EXPECT_EQ(e.status, UniquenessEstimate::Status::not_converged);
  EXPECT_FALSE(e.uniques.has_value());
  EXPECT_FALSE(e.available());
  EXPECT_TRUE(e.exact_sums);  // the closed forms failed, so the exact sums were tried
  const nlohmann::json j = deid::to_json(e);
  EXPECT_TRUE(j["uniques"].is_null());
  EXPECT_EQ(j["converged"], false);
  EXPECT_EQ(j["status"], "not-converged");
  // Dankar's rule then takes Zayatz's estimate, or none without fallback.
  const UniquenessEstimate d = deid::estimate_dankar(f, 1e7, tight, true);
  ASSERT_TRUE(d.selected.has_value());
  EXPECT_EQ(*d.selected, deid::UniquenessEstimator::zayatz);
  EXPECT_TRUE(d.available());
  EXPECT_FALSE(deid::estimate_dankar(f, 1e7, tight, false).available());
}

TEST(Estimators, NoSampleUniquesGiveZero) {
  const ClassSizeFrequencies f = ClassSizeFrequencies::from_class_sizes(std::vector<std::uint64_t>{2, 3, 3, 7});
  for (auto e : {deid::UniquenessEstimator::zayatz, deid::UniquenessEstimator::pitman, deid::UniquenessEstimator::snb,
                 deid::UniquenessEstimator::dankar}) {
    const UniquenessEstimate r = deid::estimate_uniques(e, f, 1000);
    EXPECT_EQ(r.status, UniquenessEstimate::Status::no_sample_uniques);
    ASSERT_TRUE(r.uniques.has_value());
    EXPECT_EQ(*r.uniques, 0.0);
  }
}

// P(X = 1) of the hypergeometric distribution, against the binomial
// coefficients computed directly.
TEST(Zayatz, HypergeometricProbabilityOfOneMatchesBinomials) {
  auto choose = [](double n, double k) { return std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1)); };
  for (double N : {20.0, 57.0, 300.0})
    for (std::uint64_t K : {1u, 2u, 5u, 13u})
      for (std::uint64_t n : {1u, 4u, 10u, 19u}) {
        const double expected = static_cast<double>(K) * choose(N - static_cast<double>(K), static_cast<double>(n - 1)) /
                                choose(N, static_cast<double>(n));
        EXPECT_NEAR(deid::risk::hypergeometric_one(N, K, n), expected, 1e-10 * std::max(expected, 1e-300))
            << N << " " << K << " " << n;
      }
  // Outside the support: with N = 10, K = 8, n = 5 at least 3 successes.
  EXPECT_EQ(deid::risk::hypergeometric_one(10, 8, 5), 0.0);
}

// Zayatz's estimate is not monotone under generalization: merging two
// classes of size 2 into one of size 4 keeps the sample uniques and raises
// the estimate. This is why deid declares population uniqueness
// non-monotonic even without suppression, where ARX declares Zayatz
// monotonic (privacy/population_uniqueness.h).
TEST(Zayatz, MergingClassesCanRaiseTheEstimate) {
  const ClassSizeFrequencies before = ClassSizeFrequencies::from_class_sizes(std::vector<std::uint64_t>{1, 1, 1, 2, 2, 5});
  const ClassSizeFrequencies after = ClassSizeFrequencies::from_class_sizes(std::vector<std::uint64_t>{1, 1, 1, 4, 5});
  const double N = 1000;
  const UniquenessEstimate b = deid::estimate_zayatz(before, N);
  const UniquenessEstimate a = deid::estimate_zayatz(after, N);
  ASSERT_TRUE(b.uniques && a.uniques);
  EXPECT_GT(*a.uniques, *b.uniques);

  deid::PopulationUniquenessSpec spec;
  spec.estimator = deid::UniquenessEstimator::zayatz;
  spec.population_size = N;
  spec.threshold = (*a.uniques + *b.uniques) / 2 / N;  // between the two
  const deid::PopulationUniqueness model(spec);
  EXPECT_TRUE(model.fulfilled(before));
  EXPECT_FALSE(model.fulfilled(after));
  EXPECT_FALSE(model.monotonic());
}

// SNB: row 1 of the Jacobian is the derivative of ARX's first equation;
// row 2 is the derivative of the second equation with q^(a+2) as a divisor,
// not of ARX's second equation (models.h).
TEST(Snb, JacobianRowsAreDerivativesOfArxsPair) {
  const double k = 900, f = 0.2, s1 = 150, s2 = 60;
  for (const Vec2 v : {Vec2{0.8, 0.3}, Vec2{1.5, 0.6}, Vec2{0.3, 0.9}}) {
    const auto s = deid::risk::snb_system(k, f, s1, s2, v);
    const double h = 1e-6;
    auto f1 = [&](Vec2 p) { return deid::risk::snb_system(k, f, s1, s2, p).f.x; };
    auto f2 = [&](Vec2 p) { return deid::risk::snb_f2_divided(k, f, s2, p); };
    EXPECT_NEAR(s.j.x1, (f1({v.x + h, v.y}) - f1({v.x - h, v.y})) / (2 * h), 1e-5 * scale_of(s.j.x1, 1));
    EXPECT_NEAR(s.j.x2, (f1({v.x, v.y + h}) - f1({v.x, v.y - h})) / (2 * h), 1e-5 * scale_of(s.j.x2, 1));
    EXPECT_NEAR(s.j.y1, (f2({v.x + h, v.y}) - f2({v.x - h, v.y})) / (2 * h), 1e-5 * scale_of(s.j.y1, 1));
    EXPECT_NEAR(s.j.y2, (f2({v.x, v.y + h}) - f2({v.x, v.y - h})) / (2 * h), 1e-5 * scale_of(s.j.y2, 1));
    // ARX's second equation differs from the divided one by the factor q^(2a+4).
    const double q = 1 - (1 - f) * (1 - v.y);
    EXPECT_NEAR(s.f.y + s2, (f2(v) + s2) * std::pow(q, 2 * v.x + 4), 1e-9 * std::abs(s.f.y + s2));
  }
}

// The solver converges on a system it can solve, and is deterministic.
TEST(Newton, SolvesALinearSystemAndIsDeterministic) {
  const deid::risk::System sys = [](const Vec2& v) {
    deid::risk::SystemValue s;
    s.f = {2 * v.x + v.y - 5, v.x - v.y - 1};
    s.j = {2, 1, 1, -1};
    return s;
  };
  const auto r = deid::risk::solve_newton(sys, {10, 10}, deid::SolverOptions{});
  ASSERT_TRUE(r.converged);
  EXPECT_NEAR(r.root.x, 2, 1e-12);
  EXPECT_NEAR(r.root.y, 1, 1e-12);
  EXPECT_EQ(r.tries, 1);
  // A system without a root: ARX's solver tries its start, then its 16
  // prepared start values, and gives up after the first step of the last
  // one; with 5 steps per try that is 1 + 15 * 6 + 1 evaluations.
  const deid::risk::System none = no_root;
  deid::SolverOptions o;
  o.iterations_per_try = 5;
  const auto a = deid::risk::solve_newton(none, {1, 1}, o);
  const auto b = deid::risk::solve_newton(none, {1, 1}, o);
  EXPECT_FALSE(a.converged);
  EXPECT_EQ(a.tries, 17);
  EXPECT_EQ(a.iterations, 6 + 15 * 6 + 1);
  EXPECT_EQ(a.iterations, b.iterations);
}

// Later tries start at ARX's prepared values in ARX's order, and a step that
// leaves the constraint ends the try (no backtracking, as in ARX).
TEST(Newton, RestartsAtArxsStartValuesAndEndsATryAtTheConstraint) {
  const auto& starts = deid::risk::arx_start_values();
  EXPECT_EQ(starts[0].x, 0.0);
  EXPECT_EQ(starts[1].y, 0.33);
  EXPECT_EQ(starts[2].y, 0.33 + 0.33);
  EXPECT_EQ(starts[3].y, 0.33 + 0.33 + 0.33);
  EXPECT_EQ(starts[4].x, 0.33);
  EXPECT_EQ(starts[15].x, starts[15].y);
  // f = (x - 0.66, y - 0.99): one step from anywhere. From (-5, 0) the step
  // lands on the root, but a constraint x <= -1 fails there: the first try
  // ends; the next starts at (0, 0), steps to the root, fails again, ...
  // Only a start that is itself the root converges: the 12th prepared one,
  // (0.66, 0.99), in the 13th try.
  std::vector<Vec2> visited;
  const deid::risk::System sys = [&](const Vec2& v) {
    visited.push_back(v);
    deid::risk::SystemValue s;
    s.f = {v.x - 0.66, v.y - (0.33 + 0.33 + 0.33)};
    s.j = {1, 0, 0, 1};
    return s;
  };
  const auto r = deid::risk::solve_newton(sys, {-5, 0}, deid::SolverOptions{}, 0.0,
                                          [](const Vec2& v) { return v.x <= -1; });
  ASSERT_TRUE(r.converged);
  EXPECT_EQ(r.tries, 13);
  ASSERT_EQ(visited.size(), 13u);
  for (std::size_t i = 1; i < visited.size(); ++i) {
    EXPECT_EQ(visited[i].x, starts[i - 1].x) << i;
    EXPECT_EQ(visited[i].y, starts[i - 1].y) << i;
  }
}

// The cost budgets stand for ARX's time limits: a try ends when its
// evaluations' cost exceeds cost_per_try, the solve when the total exceeds
// cost_total.
TEST(Newton, CostBudgetsEndTriesAndTheSolve) {
  const deid::risk::System none = no_root;
  deid::SolverOptions o;
  o.cost_per_try = 10;     // a try ends after its 11th evaluation
  o.cost_total = 1000;     // more than 17 tries need
  auto r = deid::risk::solve_newton(none, {1, 1}, o, 1.0);
  EXPECT_EQ(r.iterations, 16 * 11 + 1);
  o.cost_total = 30;  // the solve ends after the 31st evaluation, in the third try
  r = deid::risk::solve_newton(none, {1, 1}, o, 1.0);
  EXPECT_EQ(r.iterations, 31);
  EXPECT_EQ(r.tries, 3);
  EXPECT_FALSE(r.converged);
}

// Sample risks and the attacker models on a small table worked by hand:
// classes of sizes 1, 1, 2, 4 (n = 8, u = 4).
TEST(SampleRisk, WorkedExample) {
  const ClassSizeFrequencies f = ClassSizeFrequencies::from_class_sizes(std::vector<std::uint64_t>{4, 1, 2, 1});
  EXPECT_EQ(f.records(), 8u);
  EXPECT_EQ(f.classes(), 4u);
  const deid::SampleRisks s = deid::sample_risks(f);
  EXPECT_DOUBLE_EQ(s.highest_risk, 1.0);
  EXPECT_DOUBLE_EQ(s.lowest_risk, 0.25);
  EXPECT_DOUBLE_EQ(s.average_risk, 0.5);
  EXPECT_EQ(s.records_affected_by_highest_risk, 2u);
  EXPECT_EQ(s.records_affected_by_lowest_risk, 4u);
  const deid::AttackerRisks a = deid::attacker_risks(f, 0.3);
  EXPECT_DOUBLE_EQ(a.prosecutor.records_at_risk, 4.0 / 8.0);  // risks 1, 1, 0.5 exceed 0.3
  EXPECT_DOUBLE_EQ(a.journalist.records_at_risk, a.prosecutor.records_at_risk);
  EXPECT_DOUBLE_EQ(a.marketer_success_rate, 0.5);
  const auto profile = deid::risk_profile(f);
  ASSERT_EQ(profile.size(), 24u);
  EXPECT_DOUBLE_EQ(profile.back().records, 2.0 / 8.0);          // risk 1 in (0.5, 1]
  EXPECT_DOUBLE_EQ(profile[profile.size() - 2].records, 0.25);  // risk 0.5 in (0.334, 0.5]
  EXPECT_DOUBLE_EQ(profile[20].records, 0.5);                    // risk 0.25 in (0.2, 0.25]
  EXPECT_DOUBLE_EQ(profile.back().cumulative, 1.0);
  EXPECT_TRUE(deid::sample_risks(ClassSizeFrequencies{}).highest_risk == 0.0);
}

// papers/002, VI-G: binary search over a monotone risk finds the same
// cut-off as a linear scan, on random inputs, with few probes.
TEST(RiskBasedSuppression, BinarySearchEqualsLinearScanOnRandomInputs) {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t candidates = 1 + rng() % 300;
    // A monotone risk: the first fulfilled prefix is `first` (in 1..n);
    // abort at unfulfilled prefixes above `limit`.
    const std::size_t first = 1 + rng() % candidates;
    const std::size_t limit = trial % 3 == 0 ? rng() % (candidates + 1) : candidates + 1;
    std::size_t binary_probes = 0;
    auto probe = [&](std::size_t p) {
      if (p >= first) return deid::ProbeState::fulfilled;
      return p > limit ? deid::ProbeState::abort : deid::ProbeState::not_fulfilled;
    };
    const deid::PrefixSearch b = deid::find_suppression_prefix(candidates, [&](std::size_t p) {
      ++binary_probes;
      return probe(p);
    });
    const deid::PrefixSearch l = deid::find_suppression_prefix_linear(candidates, probe);
    ASSERT_EQ(b.aborted, l.aborted) << candidates << " " << first << " " << limit;
    if (!b.aborted) {
      EXPECT_EQ(b.prefix, first);
      EXPECT_EQ(b.prefix, l.prefix);
    }
    EXPECT_LE(binary_probes, static_cast<std::size_t>(std::ceil(std::log2(candidates + 1.0))) + 1);
  }
}

// The same with the population-uniqueness model as the risk, suppressing
// the smallest classes of random tables. Zayatz's estimate shrinks as
// uniques are removed, so binary search and linear scan agree. Pitman's
// (Dankar's rule here) need not: like ARX's solver, deid's finds no root on
// some of the shrinking tables and a root on the next, so the verdicts are
// not monotone in the prefix; binary search then finds, as ARX's does, a
// fulfilled prefix whose predecessor is not fulfilled.
TEST(RiskBasedSuppression, BinarySearchEqualsLinearScanWithPopulationUniqueness) {
  std::mt19937_64 rng(7);
  int compared = 0, pitman = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::uint64_t> sizes;
    const int classes = 50 + static_cast<int>(rng() % 300);
    for (int c = 0; c < classes; ++c) {
      const std::uint64_t r = rng() % 100;
      sizes.push_back(r < 40 ? 1 : r < 60 ? 2 : r < 75 ? 3 : 4 + rng() % 40);
    }
    std::sort(sizes.begin(), sizes.end());
    deid::PopulationUniquenessSpec spec;
    const bool zayatz = trial % 2;
    spec.estimator = zayatz ? deid::UniquenessEstimator::zayatz : deid::UniquenessEstimator::dankar;
    spec.population_size = 1e5 + static_cast<double>(rng() % 1000000);
    // A threshold below the table's own estimate, so that some classes must go.
    spec.threshold = 1.0;
    const double initial = deid::PopulationUniqueness(spec).estimated_fraction(ClassSizeFrequencies::from_class_sizes(sizes));
    spec.threshold = initial * (0.05 + 0.9 * static_cast<double>(rng() % 1000) / 1000.0);
    const deid::PopulationUniqueness model(spec);
    auto probe = [&](std::size_t p) {
      const auto f = ClassSizeFrequencies::from_class_sizes(std::vector<std::uint64_t>(sizes.begin() + p, sizes.end()));
      return model.fulfilled(f) ? deid::ProbeState::fulfilled : deid::ProbeState::not_fulfilled;
    };
    if (probe(0) == deid::ProbeState::fulfilled) continue;
    const deid::PrefixSearch b = deid::find_suppression_prefix(sizes.size(), probe);
    EXPECT_LE(b.probes, static_cast<std::size_t>(std::ceil(std::log2(sizes.size() + 1.0))) + 1);
    if (zayatz) {
      const deid::PrefixSearch l = deid::find_suppression_prefix_linear(sizes.size(), probe);
      EXPECT_EQ(b.prefix, l.prefix) << "trial " << trial;
      ++compared;
    } else {
      EXPECT_EQ(probe(b.prefix), deid::ProbeState::fulfilled) << "trial " << trial;
      if (b.prefix > 0) {
        EXPECT_EQ(probe(b.prefix - 1), deid::ProbeState::not_fulfilled) << "trial " << trial;
      }
      ++pitman;
    }
  }
  EXPECT_GT(compared, 15);
  EXPECT_GT(pitman, 15);
}

// ARX's order of classes for suppression (HashGroupifyDistribution): by
// size, then by the class's Loss (smaller first), then by first record. A
// table where all three matter: zip generalized to {a,b} -> AB (2 of 5
// hierarchy rows) and {c,d,e} -> CDE (3 of 5), sex kept.
TEST(RiskBasedSuppression, OrderIsSizeThenClassLossThenFirstRecord) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("risk_order_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Classes at (zip 1, sex 0), numbered by first record: 0 (CDE,X) size 2,
  // 1 (CDE,M), 2 (AB,M), 3 (CDE,F), 4 (AB,F).
  std::ofstream(dir / "data.csv") << "zip;sex\ne;X\ne;X\nc;M\na;M\nd;F\nb;F\n";
  std::ofstream(dir / "zip.csv") << "a;AB;*\nb;AB;*\nc;CDE;*\nd;CDE;*\ne;CDE;*\n";
  std::ofstream(dir / "sex.csv") << "M;*\nF;*\nX;*\n";
  const deid::Job job = deid::parse_job(
      "input: {path: data.csv, delimiter: ';'}\n"
      "attributes:\n  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
      "  sex: {role: quasi-identifying, hierarchy: sex.csv}\n"
      "privacy:\n  - population-uniqueness: {threshold: 0.1, population-size: 1000}\n"
      "suppression-limit: 1.0\n",
      "order.yaml", dir.string());
  auto prepared = deid::prepare(job);
  const deid::Problem& problem = prepared->problem;
  ASSERT_EQ(problem.qi_names, (std::vector<std::string>{"zip", "sex"}));
  deid::Checker checker(problem);
  deid::Classes classes;
  const deid::Transformation t = {1, 0};
  checker.group(t, classes);
  ASSERT_EQ(classes.size(), 5u);
  ASSERT_EQ(classes.counts, (deid::CountVector{2, 1, 1, 1, 1}));
  // AB's share (2/5) is smaller than CDE's (3/5): its classes lose less and
  // come first; within a share, the first record decides.
  EXPECT_LT(*deid::risk::class_information_loss(problem, t, classes, 2),
            *deid::risk::class_information_loss(problem, t, classes, 1));
  EXPECT_EQ(deid::risk::suppression_order(problem, t, classes), (std::vector<std::uint32_t>{2, 4, 1, 3, 0}));
  // The prefixes without the full order.
  for (std::size_t p = 0; p <= 5; ++p) {
    auto first = deid::risk::first_for_suppression(problem, t, classes, p);
    std::sort(first.begin(), first.end());
    std::vector<std::uint32_t> expected(deid::risk::suppression_order(problem, t, classes));
    expected.resize(p);
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(first, expected) << "prefix " << p;
  }
  // Classes already suppressed are not candidates.
  classes.suppressed[2] = 1;
  EXPECT_EQ(deid::risk::suppression_order(problem, t, classes), (std::vector<std::uint32_t>{4, 1, 3, 0}));

  // The check suppresses the shortest prefix of that order after which the
  // model holds, and no more; within a suppression limit only.
  const auto* model = dynamic_cast<const deid::PopulationUniqueness*>(problem.privacy.at(0).get());
  ASSERT_NE(model, nullptr);
  EXPECT_TRUE(model->dataset_level());
  const deid::CheckResult r = checker.check(t, &classes);
  ASSERT_TRUE(r.solution);
  const std::vector<std::uint32_t> order = {2, 4, 1, 3, 0};
  std::size_t prefix = 0;
  while (prefix < order.size() && classes.suppressed[order[prefix]]) ++prefix;
  for (std::size_t i = prefix; i < order.size(); ++i) EXPECT_FALSE(classes.suppressed[order[i]]) << i;
  ASSERT_GT(prefix, 0u);  // the table as is has too many population uniques
  auto kept_after = [&](std::size_t p) {
    std::vector<std::uint64_t> kept;
    for (std::size_t i = p; i < order.size(); ++i) kept.push_back(classes.counts[order[i]]);
    return ClassSizeFrequencies::from_class_sizes(kept);
  };
  EXPECT_TRUE(model->fulfilled(kept_after(prefix)));
  EXPECT_FALSE(model->fulfilled(kept_after(prefix - 1)));
  std::uint64_t flagged = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) flagged += classes.suppressed[c] ? classes.counts[c] : 0;
  EXPECT_EQ(r.suppressed_records, flagged);
  EXPECT_EQ(classes.suppressed_records, flagged);

  // With a limit below what the model needs, no solution.
  deid::Job strict = job;
  strict.suppression_limit = static_cast<double>(flagged - 1) / 6.0;
  auto prepared_strict = deid::prepare(strict);
  deid::Checker strict_checker(prepared_strict->problem);
  EXPECT_FALSE(strict_checker.check(t).solution);
  fs::remove_all(dir);
}

}  // namespace
