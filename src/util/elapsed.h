#pragma once
// Milliseconds since a point of the steady clock: the phase timings of the
// JSON result (`time_ms`).

#include <chrono>

namespace deid {

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace deid
