// `deid serve`: the REST API of docs/web.md over a Store, with the
// security rules of docs/web.md ("Security"): every request needs the
// token (Authorization: Bearer, or the cookie set when the page is opened
// with ?token=), a Host (and Origin, when sent) of this server, uploads
// within the size limit, hierarchy files confined to the data directory,
// and security headers on every response. httplib stays inside serve/'s
// sources and internal headers, so neither libdeid nor this header depends
// on it.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "deid/pipeline.h"

namespace deid::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8787;               // 0: any free port (bind() returns it)
  std::string data_dir;          // hierarchy files may be named under it; empty: none
  std::string token;             // empty: a random one
  std::size_t max_upload_bytes = std::size_t{512} << 20;
  std::size_t workers = 2;
  // Connections (docs/web.md, "Connections"): threads that serve requests
  // (event streams may hold half of them), connections open at once in all
  // and from one client address, and the time a request head may take to
  // arrive and any one wait for the client may take.
  std::size_t max_threads = 512;
  std::size_t max_connections = 2048;
  std::size_t max_connections_per_client = 1024;
  std::chrono::milliseconds request_timeout{10'000};
  // Quotas (store.h): datasets and jobs held at once.
  std::size_t max_datasets = 100;
  std::size_t max_jobs = 1000;
  // The state directory (datasets, jobs, outputs) is made under this
  // directory as deid-serve-XXXXXX, readable by the user only, and removed
  // by the server's destructor.
  std::string state_parent = ".";
  // The secret that keys pseudonyms and date shifts (docs/identifiers.md),
  // a file of the server's: jobs may then release identifying columns by
  // an action, keyed with it (never a client's secret). Empty: jobs may
  // mask, not pseudonymize or shift.
  std::string secret_file;
  // deid share's configuration (docs/share.md): the server then shows its
  // recipients, sessions and audit log, and revokes tokens (docs/web.md,
  // "Sharing"). Empty: no share.
  std::string share_config;
  // A test hook, called on a worker when a phase of a job starts (store.h).
  std::function<void(const std::string& job_id, Phase phase)> on_phase;
};

class Server {
 public:
  // Makes the state directory and starts the workers. Throws IoError when
  // the data directory does not exist or the state directory cannot be
  // made.
  explicit Server(ServeOptions options);
  ~Server();  // stop(), then removes the state directory
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the listening socket; returns the port. Throws IoError when the
  // address cannot be bound.
  int bind();
  // Serves until stop(); returns false when listening failed.
  bool listen();
  // Stops listening, cancels running jobs, ends event streams. Safe from
  // any thread, also before listen() runs.
  void stop();

  // http://HOST:PORT/?token=TOKEN, the address to open (after bind()).
  std::string url() const;
  const std::string& token() const;
  const std::filesystem::path& state_dir() const;
  // Whether the host is a loopback address (otherwise the CLI warns).
  bool loopback() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace deid::serve
