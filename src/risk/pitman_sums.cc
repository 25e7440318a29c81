// Pitman's equations and Jacobian by the exact sums (papers/002, VI-H;
// ARX's ModelPitman.getMasterFunctionIterative and
// getObjectFunctionsIterative), the costly half of the estimate: on nearly
// unique tables the closed forms find no root and every Newton-Raphson step
// sums u + n terms (bench/README.md, population uniqueness).
//
// Each sum is accumulated term by term in ARX's order, so that the values
// are ARX's to the last bit wherever the terms are (the roots the solver
// accepts are within its 1e-6 of 0, and a different rounding of the sums
// could move a verdict at that edge). What is vectorized is the costly part
// of a term, its two divisions: a block of terms is computed first (the
// loop without reductions vectorizes; with AVX2 where the processor has it,
// chosen at run time, with the same IEEE results either way, as the
// division is exact-rounded and products are not contracted), and then
// added up in order. The sums over 1..u-1 and over 1..n-1 are independent
// and run on two cores when both are long.
#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "risk/models.h"

namespace deid::risk {
namespace {

constexpr std::size_t kBlock = 256;
// Below this many terms in all, one core sums both (a task costs a few µs).
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
USums u_sums(std::uint64_t u, double t, double a, bool jacobian) {
  USums s;
  std::array<double, kBlock> r1, r2, ir2, iir2, ir1;
  for (std::uint64_t i = 1; i < u; i += kBlock) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kBlock, u - i));
    u_terms(t, a, static_cast<double>(i), count, r1.data(), r2.data(), ir2.data(), iir2.data(), ir1.data());
    if (jacobian) {
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
  return s;
}

// sum_{i=1}^{n-1} of 1/(t+i) (o2) and 1/(t+i)^2 (d2; only when wanted).
void n_sums(std::uint64_t n, double t, double& o2, double* d2) {
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

// Runs the u-sums and the n-sums, on two cores when both are long.
template <class U, class N>
void both(std::uint64_t u, std::uint64_t n, U&& u_part, N&& n_part) {
  if (std::min(u, n) >= kParallelTerms) {
    tbb::parallel_invoke(u_part, n_part);
  } else {
    u_part();
    n_part();
  }
}

}  // namespace

SystemValue pitman_exact(const ClassSizeFrequencies& freq, const Vec2& v) {
  const double t = v.x, a = v.y;
  const std::uint64_t u = freq.classes(), n = freq.records();
  USums us;
  double o2 = 0, d2 = 0, o4 = 0, d4 = 0;
  both(
      u, n, [&] { us = u_sums(u, t, a, true); },
      [&] {
        n_sums(n, t, o2, &d2);
        size_sums(freq, a, o4, &d4);
      });
  SystemValue out;
  out.f = {us.o1 - o2, us.o3 - o4};
  out.j = {d2 - us.d1, 0.0 - us.d5, 0.0 - us.d5, 0.0 - us.d3 - d4};
  return out;
}

Vec2 pitman_equations_exact(const ClassSizeFrequencies& freq, const Vec2& v) {
  const double t = v.x, a = v.y;
  const std::uint64_t u = freq.classes(), n = freq.records();
  USums us;
  double o2 = 0, o4 = 0;
  both(
      u, n, [&] { us = u_sums(u, t, a, false); },
      [&] {
        n_sums(n, t, o2, nullptr);
        size_sums(freq, a, o4, nullptr);
      });
  return {us.o1 - o2, us.o3 - o4};
}

}  // namespace deid::risk
