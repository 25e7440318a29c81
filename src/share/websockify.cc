// Browser access (share.h, WebAccess): websockify serving noVNC's files
// and bridging its WebSocket to the proxy's RFB port, supervised like the
// desktop's components.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "deid/share.h"
#include "sockets.h"

extern char** environ;

namespace deid::share {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

IoError web_error(const std::string& problem) { return IoError(Location{}, "the web access: " + problem); }

std::string status_text(int status) {
  if (WIFEXITED(status)) return fmt::format("status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("signal {}", WTERMSIG(status));
  return "stopped";
}

}  // namespace

void check_web_listen(const std::string& listen) {
  // websockify takes the listening socket from deid (--inetd) and wraps it
  // as an IPv4 socket; a Unix socket or an IPv6 address would not work.
  const std::size_t colon = listen.rfind(':');
  if (is_unix(listen) || listen.empty() || listen.front() == '[' || colon == std::string::npos || colon == 0 ||
      colon + 1 == listen.size() || listen.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    throw InputError(Location{}, fmt::format("web.listen '{}' is not HOST:PORT with an IPv4 address or a name "
                                             "(port 0: any free port)",
                                             listen));
}

std::vector<std::string> websockify_command(const WebOptions& options, const std::string& proxy_address) {
  std::vector<std::string> argv = options.command;
  // The listening socket is websockify's standard input (--inetd): deid
  // binds it, so that a port in use is deid's error (exit code 2) and port
  // 0 works. --web serves noVNC's files from the same port.
  argv.insert(argv.end(), {"--inetd", "--web", options.novnc.string()});
  if (is_unix(proxy_address)) {
    argv.push_back("--unix-target=" + proxy_address.substr(5));
  } else {
    // A proxy listening on every address is reached on the loopback one.
    std::string target = proxy_address;
    if (target.rfind("0.0.0.0:", 0) == 0) target = "127.0.0.1" + target.substr(7);
    if (target.rfind("[::]:", 0) == 0) target = "[::1]" + target.substr(4);
    argv.push_back(target);
  }
  return argv;
}

WebAccess::WebAccess(WebOptions options) : options_(std::move(options)) {}

WebAccess::~WebAccess() {
  try {
    stop();
  } catch (...) {
  }
}

std::string WebAccess::url() const {
  return fmt::format("http://{}/vnc.html?autoconnect=true&reconnect=false&resize=scale", address_);
}

void WebAccess::start(const std::string& proxy_address) {
  check_web_listen(options_.listen);
  std::error_code ec;
  if (!fs::is_regular_file(options_.novnc / "vnc.html", ec))
    throw web_error(fmt::format("{} has no vnc.html (is Debian's novnc package installed? web.novnc names the "
                                "directory of noVNC's files)",
                                options_.novnc.string()));
  const Listener listener = listen_on(options_.listen);
  if (!listener.address.empty() && listener.address.front() == '[') {  // a name that resolved to IPv6 first
    ::close(listener.fd);
    throw InputError(Location{}, fmt::format("web.listen '{}' is an IPv6 address ({}): give an IPv4 address",
                                             options_.listen, listener.address));
  }
  address_ = listener.address;
  int log = -1;
  if (!options_.log.empty()) {
    log = ::open(options_.log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (log < 0) {
      const int e = errno;
      ::close(listener.fd);
      throw IoError(Location{options_.log.string(), 0, 0, {}},
                    fmt::format("cannot open websockify's log: {}", std::strerror(e)));
    }
  }
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&files);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&files, listener.fd, 0);
  if (log >= 0) {
    posix_spawn_file_actions_adddup2(&files, log, 1);
    posix_spawn_file_actions_adddup2(&files, log, 2);
  } else {
    posix_spawn_file_actions_adddup2(&files, 2, 1);  // deid's standard error
  }
  // A process group of its own (websockify forks a process per
  // connection: stopped with it), default signals (the CLI blocks them).
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const std::vector<std::string> argv = websockify_command(options_, proxy_address);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &files, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  ::close(listener.fd);  // websockify's now
  if (log >= 0) ::close(log);
  if (rc != 0) throw web_error(fmt::format("cannot start websockify ({}): {}", argv[0], std::strerror(rc)));
  pid_ = pid;
  exit_.reset();
}

std::optional<std::string> WebAccess::wait_exit(std::chrono::milliseconds wait) {
  if (pid_ <= 0) return exit_;
  const auto until = Clock::now() + wait;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_ = fmt::format("websockify exited ({})", status_text(status));
    } else if (r < 0 && errno == ECHILD) {
      // Reaped by someone else: the desktop's supervisor reaps every child
      // of the process (waitpid(-1)).
      exit_ = "websockify exited";
    }
    if (exit_ || Clock::now() >= until) return exit_;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void WebAccess::stop() {
  if (pid_ <= 0) return;
  const pid_t group = pid_;
  ::kill(-group, SIGTERM);
  auto gone = [&](Clock::time_point until) {
    for (;;) {
      // Its children (one per connection) and, under a subreaper, their
      // orphans are reaped as they go.
      for (int status = 0; ::waitpid(-group, &status, WNOHANG) > 0;) {
      }
      if (::kill(-group, 0) != 0) return true;
      if (Clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  if (!gone(Clock::now() + std::chrono::seconds(3))) {
    ::kill(-group, SIGKILL);
    gone(Clock::now() + std::chrono::seconds(3));
  }
  if (!exit_) exit_ = "websockify stopped";
  pid_ = -1;
}

}  // namespace deid::share
