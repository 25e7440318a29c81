// The append-only audit log (share.h).
#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "deid/share.h"

namespace deid::share {

namespace {

std::string now_text() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  std::tm tm{};
  ::gmtime_r(&ts.tv_sec, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:06d}Z", text, ts.tv_nsec / 1000);
}

}  // namespace

AuditLog::AuditLog(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0)
    throw IoError(Location{path.string(), 0, 0, {}},
                  fmt::format("cannot open the audit log: {}", std::strerror(errno)));
  last_sync_ = std::chrono::steady_clock::now();
}

AuditLog::~AuditLog() {
  if (fd_ >= 0) {
    ::fdatasync(fd_);
    ::close(fd_);
  }
}

void AuditLog::append(const nlohmann::ordered_json& line) {
  nlohmann::ordered_json stamped;
  stamped["time"] = now_text();
  for (const auto& [key, value] : line.items())
    if (key != "time") stamped[key] = value;
  // One write(2) per line: with O_APPEND the kernel puts it at the end
  // whole, whoever else appends.
  const std::string text = stamped.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  std::lock_guard lock(mutex_);
  const ssize_t n = ::write(fd_, text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size()))
    throw IoError(Location{path_.string(), 0, 0, {}},
                  fmt::format("cannot append to the audit log: {}", n < 0 ? std::strerror(errno) : "short write"));
  const auto now = std::chrono::steady_clock::now();
  if (now - last_sync_ >= std::chrono::seconds(1)) {
    ::fdatasync(fd_);
    last_sync_ = now;
  }
}

void AuditLog::sync() {
  std::lock_guard lock(mutex_);
  ::fdatasync(fd_);
  last_sync_ = std::chrono::steady_clock::now();
}

}  // namespace deid::share
