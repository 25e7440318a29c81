#include "risk/newton.h"

#include <cmath>

namespace deid::risk {
namespace {

bool is_nan(const Vec2& v) { return std::isnan(v.x) || std::isnan(v.y); }

}  // namespace

const std::array<Vec2, 16>& arx_start_values() {
  static const std::array<Vec2, 16> values = [] {
    std::array<Vec2, 16> out;
    std::size_t i = 0;
    // The accumulated steps give ARX's doubles (0.99 is 0.9900000000000001).
    for (double x = 0; x < 1; x += 0.33)
      for (double y = 0; y < 1; y += 0.33) out[i++] = {x, y};
    return out;
  }();
  return values;
}

NewtonResult solve_newton(const System& system, Vec2 start, const SolverOptions& options, double cost,
                          const Constraint& constraint) {
  NewtonResult out;
  const auto& prepared = arx_start_values();
  std::size_t next_start = 0;
  // The loop's structure (when an evaluation is counted, in which order the
  // ends of a try are tested) is ARX's, so that the same limits give the
  // same verdicts.
  while (out.iterations <= options.iterations_total) {
    Vec2 v = out.tries == 0 ? start : prepared[next_start++];
    ++out.tries;
    int steps = 0;
    double try_cost = 0;
    while (true) {
      ++out.iterations;
      out.cost += cost;
      try_cost += cost;
      const SystemValue s = system(v);
      if (std::abs(s.f.x) <= options.accuracy && std::abs(s.f.y) <= options.accuracy) {
        out.converged = true;
        out.root = v;
        return out;
      }
      // v -= J^-1 f, J^-1 = (1/det) (y2 -x2; -y1 x1), as ARX rounds it.
      const Jacobian2& j = s.j;
      const double inv_det = 1.0 / (j.x1 * j.y2 - j.x2 * j.y1);
      const double i11 = j.y2 * inv_det, i12 = -j.x2 * inv_det, i21 = -j.y1 * inv_det, i22 = j.x1 * inv_det;
      const double dx = i11 * s.f.x + i12 * s.f.y;
      const double dy = i21 * s.f.x + i22 * s.f.y;
      v = {v.x - dx, v.y - dy};
      if (cost > 0 && out.cost > options.cost_total) return out;  // ARX: 1 s in total
      if (next_start == prepared.size()) return out;              // the last start value had its step
      if (constraint && !constraint(v)) break;
      if (is_nan(v) || steps++ >= options.iterations_per_try) break;
      if (cost > 0 && try_cost > options.cost_per_try) break;  // ARX: 100 ms per try
    }
  }
  return out;
}

}  // namespace deid::risk
