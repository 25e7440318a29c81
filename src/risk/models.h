// The equations of the super-population models, exposed for the tests.
// Internal to risk/; include/deid/risk.h has the estimators built on them.
#pragma once

#include "deid/risk.h"
#include "risk/newton.h"

namespace deid::risk {

// Pitman's model (Hoshino 2001; papers/002, VI-D). With theta = v.x and
// alpha = v.y, the maximum-likelihood equations (2) and (3):
//   f1 = sum_{i=1}^{u-1} 1/(theta + i alpha) - sum_{i=1}^{n-1} 1/(theta + i)
//   f2 = sum_{i=1}^{u-1} i/(theta + i alpha) - sum_{k>=2} s_k sum_{j=1}^{k-1} 1/(j - alpha)
// and their Jacobian
//   df1/dtheta = sum 1/(theta+i)^2 - sum 1/(theta+i alpha)^2
//   df1/dalpha = df2/dtheta = -sum i/(theta+i alpha)^2
//   df2/dalpha = -sum i^2/(theta+i alpha)^2 - sum_k s_k sum_j 1/(j-alpha)^2.

// Everything by the digamma (psi) and trigamma (psi') closed forms of
// papers/002, VI-H, with r = theta/alpha:
//   sum_{i=1}^{u-1} 1/(theta+i alpha)   = (psi(u+r) - psi(1+r)) / alpha            (p1)
//   sum_{i=1}^{u-1} i/(theta+i alpha)   = ((u-1) - theta p1) / alpha               (p2)
//   sum_{i=1}^{u-1} 1/(theta+i alpha)^2 = (psi'(1+r) - psi'(u+r)) / alpha^2        (q0)
//   sum_{i=1}^{u-1} i/(theta+i alpha)^2 = (p1 - theta q0) / alpha                  (q1)
//   sum_{i=1}^{u-1} i^2/(theta+i alpha)^2 = (p2 - theta q1) / alpha                (q2)
//   sum_{i=1}^{n-1} 1/(theta+i)   = psi(n+theta) - psi(1+theta)
//   sum_{i=1}^{n-1} 1/(theta+i)^2 = psi'(1+theta) - psi'(n+theta)
//   sum_{j=1}^{k-1} 1/(j-alpha)   = psi(k-alpha) - psi(1-alpha)
//   sum_{j=1}^{k-1} 1/(j-alpha)^2 = psi'(1-alpha) - psi'(k-alpha)
// ARX evaluates them in one pass (ModelPitman.getMasterFunctionClosed):
// the polygamma values of u+r and 1+r serve all of p1, p2, q0, q1, q2.
// Cost: O(number of distinct class sizes). deid computes them as ARX does,
// with ARX's approximations of psi and psi' (arx_gamma.h), whose trigamma
// is not psi' below 12: the equations are exact (to ARX's digamma), the
// Jacobian is the one ARX steers Newton-Raphson by. Where r >> u the
// differences lose about log10(r/u) digits, as in ARX; the estimator
// verifies every root with the exact sums.
SystemValue pitman_closed(const ClassSizeFrequencies& freq, const Vec2& v);
// The same by the exact sums (ARX's getMasterFunctionIterative): one loop
// over 1..u-1, one over the class sizes (the inner sums cumulated up to the
// largest size) and one over 1..n-1. Cost: O(u + n + largest class size).
SystemValue pitman_exact(const ClassSizeFrequencies& freq, const Vec2& v);
// f1 and f2 alone by the exact sums (the verification of papers/002, VI-H).
Vec2 pitman_equations_exact(const ClassSizeFrequencies& freq, const Vec2& v);
// Hoshino's initial guess (theta, alpha) from n, u, s_1 and s_2, as ARX
// computes it (s_2 taken as 1 when 0).
Vec2 pitman_start(const ClassSizeFrequencies& freq);
// Equation (1): Gamma(theta+1)/Gamma(theta+alpha) * N^alpha, computed via
// log-gamma and via gamma; like ARX, the larger of the results that lie in
// [0, N]; NaN when none does or alpha is 0.
double pitman_uniques(const Vec2& theta_alpha, double population);

// Zayatz: P(X = 1) for X hypergeometric (population N, K successes, n
// draws), computed as (K n / (N-K+1)) prod_{j=0}^{K-2} (N-n-j)/(N-j).
double hypergeometric_one(double population, std::uint64_t successes, std::uint64_t draws);

// SNB, as ARX 3.9.2 computes it (ModelSNB), with alpha = v.x, beta = v.y,
// f = n/N, d = (1-f)(1-beta), q = 1-d:
//   f1 = K f (beta/q)^alpha (alpha d/q + 1) - s_1
//   f2 = K alpha beta^alpha f^2 (1-beta)/2 * q^(alpha+2) * (2 - (1-alpha) d) - s_2
// K from snb_classes(). The Jacobian ARX pairs with it is that of f1 and of
// f2 with q^(alpha+2) as a divisor rather than a factor; deid reproduces the
// pair, and with it ARX's verdicts (docs/risk-models.md, "SNB").
SystemValue snb_system(double k, double f, double s1, double s2, const Vec2& v);
// f2 with q^(alpha+2) as a divisor: the function whose derivatives
// snb_system() returns in its second row (for the tests).
double snb_f2_divided(double k, double f, double s2, const Vec2& v);
// ARX's estimate of the number of non-empty classes in the population K
// (after Shlosser and Haas), with f = n/N:
//   K = u + s_1 (A/B) (C/D)^2,  A = sum_k k f^2 (1-f^2)^(k-1) s_k,
//   B = sum_k ((1-f)^k s_k (1+f)^k - 1),  C = sum_k (1-f)^k s_k,
//   D = sum_k k f (1-f)^(k-1) s_k.
double snb_classes(const ClassSizeFrequencies& freq, double f);

}  // namespace deid::risk
