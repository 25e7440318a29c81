// The progress display of `deid anonymize` on a terminal: what one line
// shows for a state of the run (a pure function, unit-tested in
// tests/unit/progress_test.cc), and the display that draws it on standard
// error while the library reports phases and search progress through
// RunOptions.
//
// The line names the phase (reading, encoding, search, writing). In the
// search it shows a bar, the percentage and the estimated time left when the
// algorithm estimates how far it is (exhaustive and optimal search set
// fraction_done); otherwise (best-first) the checks made, the best loss so
// far and the time elapsed.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "deid/pipeline.h"

namespace deid::cli {

// What the display knows of the run at one moment.
struct ProgressState {
  Phase phase = Phase::reading;
  double elapsed_seconds = 0;             // since the run started
  double phase_seconds = 0;               // since the phase started
  std::optional<double> fraction_done;    // of the search, when the algorithm estimates it
  std::uint64_t checked = 0;              // transformations checked so far
  std::optional<double> best_loss;        // of the best solution so far
};

// The pure functions are defined here, inline, so that the unit tests
// compile them without the rest of the command line.

// "0:07", "12:34", "1:02:03" (hours appear from one hour on).
inline std::string format_duration(double seconds) {
  const auto s = static_cast<std::uint64_t>(std::max(0.0, std::floor(seconds)));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

// "30,058".
inline std::string format_count(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// Seconds left in the search by linear extrapolation of fraction_done over
// phase_seconds; none before 1 % is done and half a second has passed (the
// estimate is noise before), nor outside the search.
inline std::optional<double> eta_seconds(const ProgressState& state) {
  if (state.phase != Phase::search || !state.fraction_done) return std::nullopt;
  const double f = std::min(*state.fraction_done, 1.0);
  if (!(f >= 0.01) || state.phase_seconds < 0.5) return std::nullopt;
  return state.phase_seconds * (1.0 - f) / f;
}

// The line for `state`, at most `width` - 1 characters (so that the cursor
// never wraps on a terminal `width` columns wide), without a line end.
inline std::string progress_line(const ProgressState& state, int width) {
  const std::size_t limit = static_cast<std::size_t>(std::max(width, 2) - 1);
  std::string line = fmt::format("deid: {:<8}", to_string(state.phase));
  if (state.phase == Phase::search) {
    std::string tail;
    if (state.fraction_done) {
      const double f = std::clamp(*state.fraction_done, 0.0, 1.0);
      const auto eta = eta_seconds(state);
      tail = fmt::format(" {:5.1f} %  ETA {}  checked {}", 100.0 * f, eta ? format_duration(*eta) : "-:--",
                         format_count(state.checked));
      if (state.best_loss) tail += fmt::format("  best loss {:.6g}", *state.best_loss);
      // The bar takes what the text leaves, between 10 and 40 cells.
      const std::size_t text = line.size() + tail.size() + 3;
      const std::size_t cells = limit > text + 10 ? std::min<std::size_t>(limit - text, 40) : 10;
      const auto full = static_cast<std::size_t>(std::floor(f * static_cast<double>(cells)));
      line += fmt::format(" [{}{}]{}", std::string(full, '#'), std::string(cells - full, '.'), tail);
    } else {
      line += fmt::format(" checked {}  best loss {}  elapsed {}", format_count(state.checked),
                          state.best_loss ? fmt::format("{:.6g}", *state.best_loss) : "none yet",
                          format_duration(state.phase_seconds));
    }
  } else {
    line += fmt::format(" elapsed {}", format_duration(state.elapsed_seconds));
  }
  if (line.size() > limit) line.resize(limit);
  return line;
}

// Draws progress_line() on standard error, redrawing it in place about four
// times a second from its own thread, from one second after the run started
// (shorter runs show nothing). Only construct it when standard error is a
// terminal and the user did not ask for quiet. Thread-safe: the hooks may be
// called from the thread that runs the job while the display redraws.
class ProgressDisplay {
 public:
  ProgressDisplay();
  ~ProgressDisplay();  // finish()es
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // Hooks for deid::anonymize(), bound to this display.
  RunOptions run_options();
  // Stops redrawing and erases the line, if one was drawn.
  void finish();

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace deid::cli
