// A request's view of its connection (connection.h): the head the epoll
// thread read, then the socket. Every wait is bounded by io_timeout, by the
// average rate (min_rate after rate_grace: a client that sends or reads
// more slowly has its request ended) and by stop() (`stop_fd` readable).
// Internal to serve/.
#pragma once

#include <poll.h>

#include <cstddef>
#include <string>

#include "httplib_include.h"

#include "connection.h"

namespace deid::serve {

class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(Connection& c, const ConnectionLimits& limits, int stop_fd)
      : c_(c), limits_(limits), stop_fd_(stop_fd), start_(Clock::now()) {}

  bool is_readable() const override { return !c_.buffer.empty() || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return c_.fd; }

 private:
  // Waits until the socket is ready for `events`; false on a timeout, on
  // stop() or when the rate has fallen below min_rate.
  bool wait(short events) const;

  Connection& c_;
  const ConnectionLimits& limits_;
  int stop_fd_;
  Clock::time_point start_;
  std::size_t bytes_ = 0;
};

}  // namespace deid::serve
