// Two-dimensional Newton-Raphson, the solver behind Pitman's and the SNB
// model (papers/002, VI-D and VI-H). Internal to risk/.
//
// It is the solver ARX 3.9.2 uses (de.linearbits.newtonraphson 0.0.1,
// NewtonRaphson2D, configured by ARXSolverConfiguration's defaults), step
// for step, so that deid reaches ARX's verdicts (root or none) on the same
// tables:
//
//  - a system is evaluated together with its Jacobian in one call;
//    converged when both equations are within the accuracy of 0;
//  - the first try starts at the model's initial guess, later tries at
//    ARX's 16 prepared start values (arx_start_values(), its deterministic
//    default) in order; the solver gives up after the first step from the
//    16th;
//  - a step is v - J^-1 f with J^-1 = (1/det) (y2 -x2; -y1 x1), in ARX's
//    order of operations;
//  - a try ends when the iterate leaves the constraint (theta >= 0 for
//    Pitman), is NaN, or after `iterations_per_try` steps, and the solver
//    ends after `iterations_total` evaluations;
//  - ARX also ends a try after 100 ms and the solve after 1 s. deid counts
//    instead: each evaluation costs what the system declares (the terms an
//    exact-sum evaluation adds), a try ends when its cost exceeds
//    `cost_per_try` and the solve when the total exceeds `cost_total`
//    (include/deid/risk.h), so results do not depend on the machine.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "deid/risk.h"

namespace deid::risk {

struct Vec2 {
  double x = 0, y = 0;
};

// Row-major: (x1 x2; y1 y2) = (df1/dx df1/dy; df2/dx df2/dy).
struct Jacobian2 {
  double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
};

struct SystemValue {
  Vec2 f;      // the equations at the point
  Jacobian2 j; // their partial derivatives
};

using System = std::function<SystemValue(const Vec2&)>;
using Constraint = std::function<bool(const Vec2&)>;

struct NewtonResult {
  bool converged = false;
  Vec2 root;          // when converged
  int iterations = 0; // evaluations of the system, over all tries
  int tries = 0;
  double cost = 0;    // the evaluations' cost, over all tries
};

// ARX's prepared start values (ARXSolverConfiguration.getDefaultStartValues):
// x and y each 0, 0.33, 0.66, 0.99 (accumulated in steps of 0.33, as ARX
// does), x in the outer loop.
const std::array<Vec2, 16>& arx_start_values();

// Solves system(v) = 0 from `start`; every evaluation costs `cost` against
// the options' budgets (0: no budget applies). `constraint` (optional) must
// hold after every step, or the try ends.
NewtonResult solve_newton(const System& system, Vec2 start, const SolverOptions& options, double cost = 0,
                          const Constraint& constraint = {});

}  // namespace deid::risk
