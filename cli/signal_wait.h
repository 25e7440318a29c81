// The long-running commands (serve, serve --explore, share run, share
// proxy): a server runs on the calling thread until a signal, or until a
// supervised component is gone.
#pragma once

#include <signal.h>

#include <atomic>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace deid::cli {

// Runs `serve` (it returns once the server has stopped) while another
// thread waits for one of `signals` (blocked by the caller before any
// thread started, so that no other thread takes them) and, every `tick`,
// asks `gone` whether a supervised component has exited. Either calls
// `stop` once: with nullopt for a signal, with `gone`'s reason otherwise.
// Returns that reason (nullopt: a signal, or the server stopped by itself).
inline std::optional<std::string> serve_until_signal(
    const sigset_t& signals, const std::function<void()>& serve,
    const std::function<void(const std::optional<std::string>&)>& stop,
    const std::function<std::optional<std::string>()>& gone = {}, long tick_ns = 200'000'000) {
  std::atomic<bool> done{false};
  std::optional<std::string> reason;
  std::thread waiter([&] {
    const timespec tick{0, tick_ns};
    while (!done) {
      if (sigtimedwait(&signals, nullptr, &tick) > 0) {
        stop(std::nullopt);
        return;
      }
      if (gone) {
        if (std::optional<std::string> why = gone()) {
          reason = why;
          stop(why);
          return;
        }
      }
    }
  });
  serve();
  done = true;
  waiter.join();
  return reason;
}

}  // namespace deid::cli
