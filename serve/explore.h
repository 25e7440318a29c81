// `deid serve --explore TABLE.csv`: the read-only data explorer of one
// released table (docs/share.md, "The data explorer"; papers/002 section V,
// the "analytics interface" the kiosk of `deid share run` shows). It serves
// its page (serve/web/explore.*, compiled in) and a small JSON API over an
// ExploreTable: a page of rows, a frequency table, a cross-tabulation, and
// nothing else: no route of the full `deid serve` (datasets, jobs, uploads,
// downloads) exists here, no answer is a file or carries
// Content-Disposition, and every answer is bounded (explore_table.h).
//
// Security as `deid serve` (docs/web.md, "Security"): Host and Origin of
// this server only, the security headers, the connection limits; and the
// access token. The address printed (http://HOST:PORT/?token=TOKEN) gives
// the browser a cookie of its own (a second random value); with
// `link_once` the token then stops working altogether, so that a token
// seen on a command line (the kiosk's) is worthless once the kiosk has
// opened the page. httplib stays inside serve/.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "explore_table.h"

namespace deid::serve {

struct ExploreOptions {
  std::string table;             // the released CSV file
  std::string host = "127.0.0.1";
  int port = 8788;               // 0: any free port (bind() returns it)
  std::string token;             // empty: a random one
  bool link_once = true;         // the token is good for one opening of the page, then only the cookie is
  ExploreLimits limits;
  std::size_t max_threads = 16;
  std::size_t max_connections = 64;
  std::chrono::milliseconds request_timeout{10'000};
};

class ExploreServer {
 public:
  // Reads the table (throws InputError / IoError naming the file, line and
  // column, as ExploreTable does).
  explicit ExploreServer(ExploreOptions options);
  ~ExploreServer();  // stop()
  ExploreServer(const ExploreServer&) = delete;
  ExploreServer& operator=(const ExploreServer&) = delete;

  // Binds; returns the port. Throws IoError when the address cannot be bound.
  int bind();
  // Serves until stop(); false when listening failed.
  bool listen();
  // Safe from any thread, also before listen() runs.
  void stop();

  std::string url() const;  // http://HOST:PORT/?token=TOKEN (after bind())
  const std::string& token() const;
  const ExploreTable& table() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace deid::serve
