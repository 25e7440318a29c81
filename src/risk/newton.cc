#include "risk/newton.h"

#include <cmath>

namespace deid::risk {
namespace {

// SplitMix64: a small, fixed pseudo-random sequence for the restarts. ARX
// draws them from Math.random(), which makes its results vary between runs
// when the first try fails; a fixed sequence keeps deid deterministic.
class Restarts {
 public:
  double next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  }

 private:
  std::uint64_t state_ = 0x5EED;
};

bool is_nan(const Vec2& v) { return std::isnan(v.x) || std::isnan(v.y); }

}  // namespace

NewtonResult solve_newton(const System& system, Vec2 start, const RestartBox& box, const SolverOptions& options,
                          const Constraint& constraint, const Acceptance& accept) {
  NewtonResult out;
  Restarts restarts;
  // The loop structure (when iterations are counted, when a try ends) is
  // ARX's, so that the same limits give the same verdicts.
  while (out.iterations <= options.iterations_total) {
    Vec2 v = start;
    if (out.tries > 0) {
      const double rx = restarts.next(), ry = restarts.next();
      v = {box.lower.x + rx * (box.upper.x - box.lower.x), box.lower.y + ry * (box.upper.y - box.lower.y)};
    }
    ++out.tries;
    int steps = 0;
    while (true) {
      ++out.iterations;
      const SystemValue s = system(v);
      if (std::abs(s.f.x) <= options.accuracy && std::abs(s.f.y) <= options.accuracy) {
        if (!accept || accept(v)) {
          out.converged = true;
          out.root = v;
          return out;
        }
        break;  // a root the model cannot use: try elsewhere
      }
      // v -= J^-1 f, with the inverse of the 2x2 Jacobian written out.
      const Jacobian2& j = s.j;
      const double det = j.x1 * j.y2 - j.x2 * j.y1;
      const double dx = (j.y2 * s.f.x - j.x2 * s.f.y) / det;
      const double dy = (-j.y1 * s.f.x + j.x1 * s.f.y) / det;
      Vec2 next{v.x - dx, v.y - dy};
      if (is_nan(next)) break;
      if (constraint) {
        double scale = 1.0;
        for (int halvings = 0; !constraint(next) && halvings < 40; ++halvings) {
          scale /= 2;
          next = {v.x - scale * dx, v.y - scale * dy};
        }
        if (!constraint(next)) break;
      }
      v = next;
      if (is_nan(v) || steps++ > options.iterations_per_try) break;
    }
  }
  return out;
}

}  // namespace deid::risk
