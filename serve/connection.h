// One client connection of ConnectionServer (connections.h): the limits
// every connection is held to, and a connection's socket, the bytes read
// ahead of httplib, its deadline and what it has done so far. Internal to
// serve/.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace deid::serve {

using Clock = std::chrono::steady_clock;

struct ConnectionLimits {
  std::size_t max_threads = 512;
  std::size_t max_connections = 2048;
  std::size_t max_per_client = 1024;
  std::size_t max_head_bytes = 64 << 10;
  // A request whose Content-Length is above this is answered 413 before any
  // of its body is read.
  std::size_t max_body_bytes = std::size_t{512} << 20;
  std::size_t max_requests_per_connection = 1000;
  std::chrono::milliseconds head_timeout{10'000};
  std::chrono::milliseconds idle_timeout{5'000};
  std::chrono::milliseconds io_timeout{10'000};
  std::chrono::milliseconds rate_grace{30'000};
  std::size_t min_rate = 16 << 10;  // bytes per second, on average, after rate_grace
  std::chrono::milliseconds linger{2'000};
  int backlog = 4096;  // the kernel caps it at net.core.somaxconn
  // The methods a path takes (for Allow), asked for a request whose method
  // httplib does not parse (QUERY, TRACE, ...), which is answered 405 here.
  std::function<std::string(const std::string& path)> allow;
};

struct Connection {
  int fd = -1;
  std::string peer;
  int port = 0;
  // Bytes read from the socket that httplib has not read yet: the head the
  // epoll thread waited for, and what followed it.
  std::string buffer;
  Clock::time_point deadline;
  bool lingering = false;
  bool counted = true;      // in open_ and clients_ (not a refused connection)
  bool close_after = false; // the request has a body: closed after its response
  bool peer_closed = false; // the client shut down its sending side
  std::size_t requests = 0;
  std::size_t drained = 0;
};

}  // namespace deid::serve
