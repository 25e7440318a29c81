// The connection model of `deid serve` (docs/web.md, "Connections"): who
// reads from and writes to the sockets, for how long, and how many at once.
// httplib parses requests and writes responses (Server::process_request);
// this file decides when a connection is handed to it:
//
// - one thread (run()) accepts connections and waits, with epoll, until a
//   connection has sent a whole request head. A client that sends its head
//   slowly, or never, costs a file descriptor and a few bytes here, never a
//   thread; its head must be complete within `head_timeout` (else 408), and
//   within `max_head_bytes` (else 431).
// - a complete head goes to a pool of threads that grows on demand up to
//   `max_threads` (idle threads end). A request reads and writes through
//   ConnectionStream, which bounds every wait (`io_timeout`) and the
//   average rate (`min_rate` after `rate_grace`), so a slow client frees
//   its thread within bounded time.
// - a kept-alive connection goes back to the epoll thread between requests.
// - connections beyond `max_connections`, or beyond `max_per_client` from
//   one address, are answered 503 at once and closed.
// - a connection is closed by shutting down its sending side and reading
//   what the client still sends for a moment (`linger`), so that a client
//   reads the answer (413, 503, ...) instead of a reset.
//
// Internal to serve/: it includes httplib, which no public header does.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "connection.h"

namespace httplib {
class Stream;
}

namespace deid::serve {

class ConnectionServer {
 public:
  // Serves one request read from `stream`; `close` asks it to close the
  // connection after the response, `closed` tells whether it did. False
  // when the connection is broken.
  using Handler = std::function<bool(httplib::Stream& stream, bool close, bool& closed)>;

  ConnectionServer(ConnectionLimits limits, Handler handler);
  ~ConnectionServer();  // stop(), then waits for every thread
  ConnectionServer(const ConnectionServer&) = delete;
  ConnectionServer& operator=(const ConnectionServer&) = delete;

  // Binds and listens; returns the port (`port` 0: any free one). Throws
  // std::runtime_error with the reason when it cannot.
  int bind(const std::string& host, int port);
  // Serves until stop(); false when it was never bound. Returns once every
  // request has ended.
  bool run();
  // Safe from any thread, also before run().
  void stop();
  bool stopping() const;
  // The listening socket (for httplib's view of a running server), -1 before bind().
  int listening_socket() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace deid::serve
