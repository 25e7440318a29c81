// Two-dimensional Newton-Raphson, the solver behind Pitman's and the SNB
// model (papers/002, VI-D and VI-H). Internal to risk/.
//
// It follows the solver ARX uses (de.linearbits.newtonraphson.NewtonRaphson2D
// with ARX's default configuration, include/deid/risk.h SolverOptions):
// a system is evaluated together with its Jacobian in one call (so that
// shared terms are computed once); converged when both equations are within
// the accuracy of 0; a try ends after too many steps, on NaN or when the
// iterate cannot be kept in the model's domain (a constraint); later tries
// start at pseudo-random points of a box. The pseudo-random sequence is
// fixed, so the solver is deterministic.
#pragma once

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
// Whether a root is one the model can use; a try that ends at a root that
// is not acceptable counts as failed, and the solver restarts.
using Acceptance = std::function<bool(const Vec2&)>;

struct NewtonResult {
  bool converged = false;
  Vec2 root;          // when converged
  int iterations = 0; // evaluations of the system, over all tries
  int tries = 0;
};

// Where tries after the first start: uniformly at random in the box
// [lower, upper] (componentwise).
struct RestartBox {
  Vec2 lower, upper;
};

// Solves system(v) = 0 from `start`. `constraint` (optional) must hold for
// every iterate: a step that leaves it is halved until the iterate
// satisfies it (at most 40 times, then the try ends). ARX ends the try at
// once; backtracking finds the root from ARX's starting point in cases
// where ARX's path, computed with its approximate polygamma functions,
// happens to stay feasible (docs/risk-models.md, "Numerics").
NewtonResult solve_newton(const System& system, Vec2 start, const RestartBox& restarts,
                          const SolverOptions& options, const Constraint& constraint = {},
                          const Acceptance& accept = {});

}  // namespace deid::risk
