// `deid serve`: the REST API of docs/web.md on this machine, until Ctrl-C
// or SIGTERM. The server itself is serve/ (deid_serve); this file parses
// the options, prints the address to open and shuts the server down on a
// signal.
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "signal_wait.h"
#include "deid/error.h"
#include "explore.h"
#include "server.h"

namespace deid::cli {

namespace {

// `deid serve --explore TABLE.csv`: the read-only data explorer of one
// released table (serve/explore.h, docs/share.md "The data explorer"),
// until a signal. The token may come from a file, which is read and
// removed (as `deid share run` hands it over: never on a command line).
int run_explore(serve::ExploreOptions options, const std::string& token_file, const sigset_t& signals) {
  if (!token_file.empty()) {
    std::ifstream in(token_file);
    std::getline(in, options.token);
    std::error_code ec;
    std::filesystem::remove(token_file, ec);
    if (!in || options.token.size() < 16)
      throw IoError(Location{token_file, 0, 0, {}}, "--token-file: no token of at least 16 characters");
  }
  serve::ExploreServer server(std::move(options));
  server.bind();
  fmt::print("deid serve: exploring {} ({} rows); open {}\n", server.table().name(), server.table().rows(),
             server.url());
  std::fflush(stdout);
  bool ok = false;
  serve_until_signal(signals, [&] { ok = server.listen(); }, [&](const auto&) { server.stop(); });
  return ok ? 0 : 3;
}

}  // namespace

Command add_serve_command(CLI::App& app, const bool& quiet) {
  struct Options {
    serve::ServeOptions serve;
    std::size_t max_upload_mb = 512;
    std::string explore, token_file;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve the REST API (docs/web.md) on this machine until Ctrl-C");
  cmd->add_option("--host", opts->serve.host,
                  "Address to listen on (default 127.0.0.1, this machine only; any other is reachable by others)");
  cmd->add_option("--port", opts->serve.port, "Port (default 8787; 0: any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--data-dir", opts->serve.data_dir,
                  "Directory whose hierarchy files jobs may name (relative paths, nothing outside it)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--token", opts->serve.token, "Access token (default: a random one, printed in the address)");
  cmd->add_option("--max-upload-mb", opts->max_upload_mb, "Largest request body in MiB (default 512)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  cmd->add_option("--workers", opts->serve.workers, "Jobs run at once (default 2; more wait in a queue)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
  cmd->add_option("--max-datasets", opts->serve.max_datasets, "Datasets held at once (default 100)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  cmd->add_option("--max-jobs", opts->serve.max_jobs, "Jobs held at once, in any state (default 1000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  cmd->add_option("--max-connections", opts->serve.max_connections,
                  "Connections open at once (default 2048; also at most the open-files limit less 64)")
      ->check(CLI::Range(std::size_t{16}, std::size_t{1} << 20));
  cmd->add_option("--max-connections-per-client", opts->serve.max_connections_per_client,
                  "Connections open at once from one address (default 1024)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  cmd->add_option("--max-threads", opts->serve.max_threads,
                  "Threads serving requests (default 512; event streams may hold half of them)")
      ->check(CLI::Range(std::size_t{4}, std::size_t{1} << 14));
  cmd->add_option("--secret-file", opts->serve.secret_file,
                  "Secret that keys the pseudonyms and date shifts of jobs (docs/identifiers.md): a file of at "
                  "least 16 bytes that only its owner can read")
      ->check(CLI::ExistingFile);
  cmd->add_option("--state-dir", opts->serve.state_parent,
                  "Directory to keep uploads and outputs in, as deid-serve-XXXXXX (default: the current "
                  "directory); removed when the server stops")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--share", opts->serve.share_config,
                  "deid share's configuration (docs/share.md): show its recipients, sessions and audit log, and "
                  "revoke tokens, in the web app")
      ->check(CLI::ExistingFile);
  // The data explorer (run_explore above): one table, read-only; none of
  // the options of the full server but the address and the token apply.
  CLI::Option* explore =
      cmd->add_option("--explore", opts->explore,
                      "Serve only the read-only data explorer of this released CSV table (docs/share.md)")
          ->check(CLI::ExistingFile);
  cmd->add_option("--token-file", opts->token_file,
                  "With --explore: read the access token from this file, and remove it")
      ->needs(explore)
      ->check(CLI::ExistingFile);
  for (const char* name : {"--data-dir", "--max-upload-mb", "--workers", "--max-datasets", "--max-jobs",
                           "--secret-file", "--state-dir", "--max-threads", "--max-connections",
                           "--max-connections-per-client", "--share"})
    explore->excludes(cmd->get_option(name));
  auto run = [opts, &quiet]() {
    opts->serve.max_upload_bytes = opts->max_upload_mb << 20;
    // The signals are taken by a thread of ours (sigwait), not by the
    // handler of main.cc that exits at once: the server stops, running jobs
    // are cancelled and the state directory is removed. Blocked before any
    // thread starts, so that every thread inherits the mask.
    sigset_t signals;
    sigemptyset(&signals);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, sig);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    if (!opts->explore.empty()) {
      serve::ExploreOptions explore;
      explore.table = opts->explore;
      explore.host = opts->serve.host;
      explore.port = opts->serve.port;
      explore.token = opts->serve.token;
      return run_explore(std::move(explore), opts->token_file, signals);
    }

    // Each connection is a descriptor: the soft limit (often 1024) is
    // raised to the hard one, and the server keeps 64 for its files.
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0) {
      if (files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
        ::getrlimit(RLIMIT_NOFILE, &files);
      }
      if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur > 128)
        opts->serve.max_connections =
            std::min<std::size_t>(opts->serve.max_connections, static_cast<std::size_t>(files.rlim_cur) - 64);
    }
    // Buffers of 1 MiB and more mapped on their own, so that they go back
    // to the system when freed. glibc otherwise raises this threshold (up
    // to 32 MiB) as such buffers are freed, and then each thread's jobs
    // leave tens of MiB in its arena, freed but resident: the load test
    // (bench/serve-load.py, 20 clients, 6 s) peaked at 451 MB that way and
    // at 70 MB with the threshold fixed.
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    serve::Server server(opts->serve);
    server.bind();
    if (!server.loopback())
      fmt::print(stderr,
                 "deid: warning: listening on {}, reachable from other machines: the data is served over plain "
                 "HTTP to anyone holding the token\n",
                 opts->serve.host);
    fmt::print("deid serve: open {}\n", server.url());
    if (!quiet) fmt::print("deid serve: data kept in {} until the server stops (Ctrl-C)\n", server.state_dir().string());
    std::fflush(stdout);
    bool ok = false;
    serve_until_signal(signals, [&] { ok = server.listen(); }, [&](const auto&) { server.stop(); });
    return ok ? 0 : 3;
  };
  return {cmd, run};
}

}  // namespace deid::cli
