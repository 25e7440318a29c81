// Pitman's equations and Jacobian by the exact sums (papers/002, VI-H;
// ARX's ModelPitman.getMasterFunctionIterative and
// getObjectFunctionsIterative), the costly half of the estimate: where the
// closed forms find no root or a root the exact sums reject, every
// Newton-Raphson step sums u + n terms (bench/README.md, population
// uniqueness).
//
// The sums over i = 1..u-1 of 1/(theta + i alpha) and its relatives are the
// ones the closed forms get wrong (r = theta/alpha is large near alpha = 0,
// and the digamma differences cancel): they are summed term by term in
// ARX's order, so that their values are ARX's to the last bit. What is
// vectorized is the costly part of a term, its two divisions: a block of
// terms is computed first (the loop without reductions vectorizes, with
// AVX2 where the processor has it, chosen at run time, with the same IEEE
// results either way, as divisions are exact-rounded and products are not
// contracted), then added up in order.
//
// The sums over i = 1..n-1 of 1/(theta + i) and its square depend on theta
// alone. On tables of up to 2^18 records they are summed in ARX's order
// too. On larger ones they are the well-conditioned polygamma differences
// psi(n + theta) - psi(1 + theta) and psi'(1 + theta) - psi'(n + theta)
// (Boost's, not ARX's approximations) for theta <= 1000 n, and the
// Euler-Maclaurin formula beyond: accurate to about 1e-15, closer to the
// true sums than ARX's loop of n terms, and O(1) instead of O(n). The
// difference moves Newton-Raphson's iterates in their last bits, so the
// root an exact solve stops at can differ from ARX's within the solver's
// tolerance (about 1e-7 of the estimate). At that size ARX's own results
// depend on the machine (its time limits end the exact solves: an
// evaluation sums millions of terms), and on the 1.2 M-row survey table
// the closed forms cut the estimate's cost by a quarter
// (docs/risk-models.md, "Numerics").
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "risk/models.h"

namespace deid::risk {
namespace {

constexpr std::size_t kBlock = 256;
// Below this many terms on each side, one core sums both (a task costs a few µs).
constexpr std::uint64_t kParallelTerms = 1 << 15;

// Terms i = first .. first + count - 1 of the sums over 1..u-1: r1 = 1/v,
// r2 = 1/v^2, and the products i r2, i (i r2), i r1, with v = t + i a.
[[gnu::target_clones("avx2", "default")]] void u_terms(double t, double a, double first, int count, double* r1,
                                                       double* r2, double* ir2, double* iir2, double* ir1) {
  for (int k = 0; k < count; ++k) {
    const double di = first + static_cast<double>(k);
    const double val0 = t + di * a;
    r1[k] = 1.0 / val0;
    r2[k] = 1.0 / (val0 * val0);
    ir2[k] = di * r2[k];
    iir2[k] = di * ir2[k];
    ir1[k] = di * r1[k];
  }
}

// Terms of the sums over 1..n-1: 1/(t+i) and 1/(t+i)^2.
[[gnu::target_clones("avx2", "default")]] void n_terms(double t, double first, int count, double* r1, double* r2) {
  for (int k = 0; k < count; ++k) {
    const double val0 = t + (first + static_cast<double>(k));
    r1[k] = 1.0 / val0;
    r2[k] = 1.0 / (val0 * val0);
  }
}

struct USums {
  double d1 = 0, d3 = 0, d5 = 0, o1 = 0, o3 = 0;
};

// sum_{i=1}^{u-1} of 1/(t+ia)^2 (d1), i^2/(t+ia)^2 (d3), i/(t+ia)^2 (d5),
// 1/(t+ia) (o1), i/(t+ia) (o3); only o1 and o3 when !jacobian.
// Over i = first .. last-1 only, for the halves of a long sum. `lanes`: in
// four interleaved partial sums, added at the end (the adds vectorize);
// only where ARX's order is not kept anyway (tables of 2^18 records or
// more, see all_sums()).
USums u_sums(std::uint64_t first, std::uint64_t last, double t, double a, bool jacobian, bool lanes = false) {
  USums s;
  std::array<double, kBlock> r1, r2, ir2, iir2, ir1;
  std::array<double, 4> d1{}, d3{}, d5{}, o1{}, o3{};
  for (std::uint64_t i = first; i < last; i += kBlock) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kBlock, last - i));
    u_terms(t, a, static_cast<double>(i), count, r1.data(), r2.data(), ir2.data(), iir2.data(), ir1.data());
    if (lanes) {
      // count is a multiple of 4 except in the last block; pad it with zeros.
      const int padded = (count + 3) & ~3;
      for (int k = count; k < padded; ++k) r1[k] = r2[k] = ir2[k] = iir2[k] = ir1[k] = 0.0;
      for (int k = 0; k < padded; k += 4) {
        for (int l = 0; l < 4; ++l) {
          if (jacobian) {
            d1[l] += r2[k + l];
            d5[l] += ir2[k + l];
            d3[l] += iir2[k + l];
          }
          o1[l] += r1[k + l];
          o3[l] += ir1[k + l];
        }
      }
    } else if (jacobian) {
      for (int k = 0; k < count; ++k) {
        s.d1 += r2[k];
        s.d5 += ir2[k];
        s.d3 += iir2[k];
        s.o1 += r1[k];
        s.o3 += ir1[k];
      }
    } else {
      for (int k = 0; k < count; ++k) {
        s.o1 += r1[k];
        s.o3 += ir1[k];
      }
    }
  }
  if (lanes) {
    auto total = [](const std::array<double, 4>& x) { return (x[0] + x[1]) + (x[2] + x[3]); };
    s = {total(d1), total(d3), total(d5), total(o1), total(o3)};
  }
  return s;
}

// From this many records on, n_sums() takes closed forms rather than the
// loop (see the file comment).
constexpr std::uint64_t kClosedNSums = 1 << 18;

bool n_sums_closed(std::uint64_t n, double t) { return n >= kClosedNSums && t >= 0; }

// sum_{i=1}^{n-1} of 1/(t+i) (o2) and 1/(t+i)^2 (d2; only when wanted).
// For t <= 1000 n by Boost's polygamma values; beyond, where their
// difference cancels, by the Euler-Maclaurin formula for f(x) = 1/(t+x)
// (and its square) on [1, n-1]: the integral (log1p, exact in form), the
// mean of the end points and the B2 and B4 terms; the remainder is below
// 4e-3 / (t+1)^6, 1e-18 at t = 1000 (t > 1000 n there). Smaller tables
// add the terms in ARX's order.
void n_sums(std::uint64_t n, double t, double& o2, double* d2) {
  const double dn = static_cast<double>(n);
  if (n_sums_closed(n, t) && t <= 1000.0 * dn) {
    o2 = boost::math::digamma(dn + t) - boost::math::digamma(1.0 + t);
    if (d2) *d2 = boost::math::trigamma(1.0 + t) - boost::math::trigamma(dn + t);
    return;
  }
  if (n_sums_closed(n, t)) {
    const double a = t + 1.0, b = t + dn - 1.0;  // t + x at the ends x = 1 and x = n - 1
    const double ia = 1.0 / a, ib = 1.0 / b;
    const double ia2 = ia * ia, ib2 = ib * ib;
    // f = 1/(t+x): integral log(b/a); f' = -1/(t+x)^2, f''' = -6/(t+x)^4.
    o2 = std::log1p((dn - 2.0) / a) + 0.5 * (ia + ib) + (ia2 - ib2) / 12.0 - (ia2 * ia2 - ib2 * ib2) / 120.0;
    if (d2) {
      // f = 1/(t+x)^2: integral 1/a - 1/b; f' = -2/(t+x)^3, f''' = -24/(t+x)^5.
      *d2 = (dn - 2.0) / (a * b) + 0.5 * (ia2 + ib2) + (ia2 * ia - ib2 * ib) / 6.0 -
            (ia2 * ia2 * ia - ib2 * ib2 * ib) / 30.0;
    }
    return;
  }
  std::array<double, kBlock> r1, r2;
  double sum1 = 0, sum2 = 0;  // in registers: o2 and d2 may alias
  for (std::uint64_t i = 1; i < n; i += kBlock) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kBlock, n - i));
    n_terms(t, static_cast<double>(i), count, r1.data(), r2.data());
    for (int k = 0; k < count; ++k) {
      sum2 += r2[k];
      sum1 += r1[k];
    }
  }
  o2 = sum1;
  if (d2) *d2 = sum2;
}

// The sums over the class sizes: o4 = sum_k s_k H_k, d4 = sum_k s_k H2_k
// with H_k = sum_{j=1}^{k-1} 1/(j-alpha) and H2_k its squares, cumulated in
// one pass up to the largest size (sizes are ascending).
void size_sums(const ClassSizeFrequencies& freq, double a, double& o4, double* d4) {
  double h = 0, h2 = 0, sum = 0, sum2 = 0;
  std::uint64_t j = 1;
  for (const auto& [size, count] : freq.sizes) {
    for (; j < size; ++j) {
      const double inv = 1.0 / (static_cast<double>(j) - a);
      h += inv;
      h2 += inv * inv;
    }
    if (size < 2) continue;
    const double s = static_cast<double>(count);
    sum += s * h;
    sum2 += s * h2;
  }
  o4 = sum;
  if (d4) *d4 = sum2;
}

struct AllSums {
  USums u;
  double o2 = 0, d2 = 0, o4 = 0, d4 = 0;
};

// Every sum of the equations (and of the Jacobian when `jacobian`): the
// u-sums and the rest (the n-sums and the class sizes) on two cores when
// both are long; on tables of 2^18 records or more, where the n-sums are
// closed forms, the u-sums split in two halves instead (summed on two
// cores in four lanes each, then added: not ARX's order, which such tables
// no longer keep).
AllSums all_sums(const ClassSizeFrequencies& freq, double t, double a, bool jacobian) {
  const std::uint64_t u = freq.classes(), n = freq.records();
  AllSums s;
  auto rest = [&] {
    n_sums(n, t, s.o2, jacobian ? &s.d2 : nullptr);
    size_sums(freq, a, s.o4, jacobian ? &s.d4 : nullptr);
  };
  const std::uint64_t rest_terms = (n_sums_closed(n, t) ? 0 : n) + (freq.sizes.empty() ? 0 : freq.sizes.back().first);
  if (n >= kClosedNSums && u >= 2 * kParallelTerms) {
    const std::uint64_t mid = 1 + (u - 1) / 2;
    USums low, high;
    tbb::parallel_invoke([&] { low = u_sums(1, mid, t, a, jacobian, true); },
                         [&] {
                           high = u_sums(mid, u, t, a, jacobian, true);
                           rest();
                         });
    s.u = {low.d1 + high.d1, low.d3 + high.d3, low.d5 + high.d5, low.o1 + high.o1, low.o3 + high.o3};
  } else if (std::min(u, rest_terms) >= kParallelTerms) {
    tbb::parallel_invoke([&] { s.u = u_sums(1, u, t, a, jacobian); }, rest);
  } else {
    s.u = u_sums(1, u, t, a, jacobian);
    rest();
  }
  return s;
}

}  // namespace

SystemValue pitman_exact(const ClassSizeFrequencies& freq, const Vec2& v) {
  const AllSums s = all_sums(freq, v.x, v.y, true);
  SystemValue out;
  out.f = {s.u.o1 - s.o2, s.u.o3 - s.o4};
  out.j = {s.d2 - s.u.d1, 0.0 - s.u.d5, 0.0 - s.u.d5, 0.0 - s.u.d3 - s.d4};
  return out;
}

Vec2 pitman_equations_exact(const ClassSizeFrequencies& freq, const Vec2& v) {
  const AllSums s = all_sums(freq, v.x, v.y, false);
  return {s.u.o1 - s.o2, s.u.o3 - s.o4};
}

}  // namespace deid::risk
