#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace deid::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int terminal_width() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace

struct ProgressDisplay::Impl {
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  bool drawn = false;
  const Clock::time_point start = Clock::now();
  Clock::time_point phase_start = start;
  ProgressState state;
  std::thread ticker;

  // Seconds into the run before the line appears: 1, or DEID_PROGRESS_AFTER
  // (docs/job-file.md; the tests set 0 so that a short run draws it too).
  const double after = [] {
    const char* v = std::getenv("DEID_PROGRESS_AFTER");
    if (!v || !*v) return 1.0;
    char* end = nullptr;
    const double d = std::strtod(v, &end);
    return end && *end == '\0' && d >= 0 ? d : 1.0;
  }();

  // Redraws the line, from `after` seconds after the start. REQUIRES: mutex held.
  void draw(Clock::time_point now) {
    state.elapsed_seconds = seconds_between(start, now);
    if (state.elapsed_seconds < after) return;
    state.phase_seconds = seconds_between(phase_start, now);
    const std::string line = progress_line(state, terminal_width());
    std::fprintf(stderr, "\r%s\033[K", line.c_str());
    std::fflush(stderr);
    drawn = true;
  }

  void run() {
    std::unique_lock lock(mutex);
    while (!stop) {
      wake.wait_for(lock, std::chrono::milliseconds(250));
      if (!stop) draw(Clock::now());
    }
  }
};

ProgressDisplay::ProgressDisplay() : impl_(new Impl) {
  impl_->ticker = std::thread([this] { impl_->run(); });
}

ProgressDisplay::~ProgressDisplay() {
  finish();
  delete impl_;
}

void ProgressDisplay::finish() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stop = true;
  }
  impl_->wake.notify_all();
  if (impl_->ticker.joinable()) impl_->ticker.join();
  std::lock_guard lock(impl_->mutex);
  if (impl_->drawn) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    impl_->drawn = false;
  }
}

RunOptions ProgressDisplay::run_options() {
  RunOptions options;
  Impl* impl = impl_;
  options.phase = [impl](Phase phase) {
    std::lock_guard lock(impl->mutex);
    impl->state = ProgressState{};
    impl->state.phase = phase;
    impl->phase_start = Clock::now();
    if (impl->drawn) impl->draw(impl->phase_start);
  };
  options.progress = [impl](const SearchProgress& p) {
    std::lock_guard lock(impl->mutex);
    impl->state.phase = Phase::search;
    impl->state.fraction_done = p.fraction_done;
    impl->state.checked = p.checked;
    impl->state.best_loss = p.best_loss;
  };
  return options;
}

}  // namespace deid::cli
