// The desktop of a session (share.h): Xvfb, x11vnc and the kiosk browser,
// started, supervised and stopped together.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <openssl/rand.h>

#include "deid/share.h"

extern char** environ;

namespace deid::share {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

IoError desktop_error(const std::string& problem) { return IoError(Location{}, "the desktop: " + problem); }

std::string random_password() {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string p;
  while (p.size() < 8) {
    unsigned char b = 0;
    if (RAND_bytes(&b, 1) != 1) throw desktop_error("no random bytes for a password");
    if (b < 248) p.push_back(kAlphabet[b % 62]);
  }
  return p;
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) ::close(fd);
    throw desktop_error(fmt::format("no free port: {}", std::strerror(errno)));
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

bool accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

std::string status_text(int status) {
  if (WIFEXITED(status)) return fmt::format("status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("signal {}", WTERMSIG(status));
  return "stopped";
}

}  // namespace

std::string url_origin(const std::string& url) {
  const std::size_t scheme = url.find("://");
  const std::string head = scheme == std::string::npos ? "" : url.substr(0, scheme);
  if (head != "http" && head != "https")
    throw InputError(Location{}, fmt::format("desktop.url '{}' is not an http:// or https:// address", url));
  const std::size_t path = url.find_first_of("/?#", scheme + 3);
  const std::string origin = url.substr(0, path);
  if (origin.size() == scheme + 3 || origin.find_first_of(" \"*") != std::string::npos)
    throw InputError(Location{}, fmt::format("desktop.url '{}' has no host", url));
  return origin;
}

nlohmann::json kiosk_policy(const std::string& url) {
  return {
      // Every address but the explorer's. "*" alone leaves the browser's
      // own pages open (Ctrl+J showed chrome://downloads in the test):
      // their schemes are listed too.
      {"URLBlocklist", {"*", "chrome://*", "chrome-untrusted://*", "chrome-extension://*", "devtools://*",
                        "view-source:*", "file://*"}},
      {"URLAllowlist", {url_origin(url)}},       // ... the origin of the page shown
      {"DeveloperToolsAvailability", 2},         // no developer tools
      {"DownloadRestrictions", 3},               // no downloads
      {"PrintingEnabled", false},
      {"AllowFileSelectionDialogs", false},      // no open or save dialogs
      {"IncognitoModeAvailability", 2},          // incognito only: nothing kept
      {"BrowserAddPersonEnabled", false},
      {"BrowserGuestModeEnabled", false},
      {"PasswordManagerEnabled", false},
      {"AutofillAddressEnabled", false},
      {"AutofillCreditCardEnabled", false},
      {"TranslateEnabled", false},
      {"SpellcheckEnabled", false},
      {"SearchSuggestEnabled", false},
      {"DefaultPopupsSetting", 2},               // no pop-up windows
      {"DefaultNotificationsSetting", 2},
      {"DefaultClipboardSetting", 2},            // pages may not read the clipboard
      {"ScreenCaptureAllowed", false},
      {"ExternalProtocolDialogShowAlwaysOpenCheckbox", false},
  };
}

Desktop::Desktop(DesktopOptions options) : options_(std::move(options)) {}

Desktop::~Desktop() {
  try {
    stop();
  } catch (...) {
  }
}

std::string Desktop::vnc_address() const { return fmt::format("127.0.0.1:{}", port_); }

std::vector<std::pair<std::string, int>> Desktop::components() const {
  std::vector<std::pair<std::string, int>> out;
  for (const Component& c : components_) out.emplace_back(c.name, c.pid);
  return out;
}

int Desktop::spawn(const std::string& name, const std::vector<std::string>& argv, int fd3) {
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&files);
  posix_spawnattr_init(&attr);
  const std::string log = (state_ / (name + ".log")).string();
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  if (fd3 >= 0) posix_spawn_file_actions_adddup2(&files, fd3, 3);
  // A process group of its own (stopped as a whole, with what it starts),
  // and default signals: the CLI blocks SIGINT and SIGTERM in its threads,
  // and a blocked mask would be inherited through exec.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // This process's environment, with DISPLAY the desktop's once it has one.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "DISPLAY=", 8) != 0) env_text.emplace_back(*e);
  if (!display_.empty()) env_text.push_back("DISPLAY=" + display_);
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &files, &attr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw desktop_error(fmt::format("cannot start {} ({}): {}", name, argv[0], std::strerror(rc)));
  components_.push_back(Component{name, pid, true});
  return pid;
}

void Desktop::reap(std::chrono::milliseconds wait) {
  const auto until = Clock::now() + wait;
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (Component& c : components_)
        if (c.pid == pid && c.running) {
          c.running = false;
          exits_.push_back(fmt::format("{} exited ({})", c.name, status_text(status)));
        }
      continue;  // more may be waiting, orphans of the components too
    }
    if (!exits_.empty() || Clock::now() >= until) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void Desktop::start() {
  // Orphans of the components (the browser's helpers) become ours, so
  // that they are reaped and none is left behind.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  std::string dir = (fs::temp_directory_path() / "deid-share-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) throw desktop_error(fmt::format("no state directory: {}", std::strerror(errno)));
  state_ = dir;
  try {
    // Xvfb picks a free display and writes its number to fd 3.
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw desktop_error(std::strerror(errno));
    spawn("Xvfb", {"Xvfb", "-displayfd", "3", "-screen", "0", fmt::format("{}x{}x24", options_.width, options_.height),
                   "-nolisten", "tcp"},
          pipe_fds[1]);
    ::close(pipe_fds[1]);
    std::string number;
    const auto until = Clock::now() + options_.start_timeout;
    for (char c = 0; Clock::now() < until;) {
      pollfd p{pipe_fds[0], POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      if (::read(pipe_fds[0], &c, 1) != 1 || c == '\n') break;
      number.push_back(c);
    }
    ::close(pipe_fds[0]);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos)
      throw desktop_error("Xvfb did not start (no display number)");
    display_ = ":" + number;

    // x11vnc: 127.0.0.1 only, its password in a file it removes on
    // reading, no selection exchange (the proxy drops it anyway).
    password_ = random_password();
    const fs::path pass = state_ / "x11vnc.pass";
    {
      const int fd = ::open(pass.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0 || ::write(fd, (password_ + "\n").data(), password_.size() + 1) != static_cast<ssize_t>(password_.size() + 1))
        throw desktop_error("cannot write x11vnc's password file");
      ::close(fd);
    }
    port_ = free_loopback_port();
    spawn("x11vnc", {"x11vnc", "-display", display_, "-rfbport", std::to_string(port_), "-localhost", "-noipv6",
                     "-passwdfile", "rm:" + pass.string(), "-forever", "-shared", "-nosel", "-noxdamage",
                     "-noxrecord", "-nobell"});
    bool up = false;
    while (!up && Clock::now() < until) {
      reap(std::chrono::milliseconds(0));
      if (!exits_.empty()) throw desktop_error(exits_.front() + " while starting (see its log)");
      up = accepts(port_);
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!up) throw desktop_error("x11vnc did not listen in time");

    // The kiosk's lock-down (papers/002: the user "securely locked into
    // the browser"): Chromium takes it only as policies, and on Linux only
    // from /etc/chromium/policies/managed/, machine-wide. bubblewrap gives
    // the browser a mount namespace in which that directory is this
    // desktop's own (everything else is the machine's file system,
    // unchanged), so no other Chromium of the machine is affected.
    // The namespace's /etc/chromium is a copy of the machine's (Debian's
    // chromium package ships it: master_preferences) with the policy
    // added: binding over a directory that exists creates nothing on the
    // machine's file system (bwrap would make a missing mount point).
    const std::string url = options_.table.empty() ? options_.url : start_explorer(until);
    const fs::path etc = state_ / "etc-chromium";
    const fs::path system_etc = "/etc/chromium";
    std::error_code absent;
    if (!fs::is_directory(system_etc, absent))
      throw desktop_error("/etc/chromium is missing (is Debian's chromium package installed?)");
    fs::create_directories(etc / "policies" / "managed");
    for (const fs::directory_entry& e : fs::directory_iterator(system_etc))
      if (e.path().filename() != "policies")
        fs::copy(e.path(), etc / e.path().filename(), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    {
      std::ofstream out(etc / "policies" / "managed" / "deid-share.json");
      out << kiosk_policy(url).dump(2) << "\n";
      if (!out) throw desktop_error("cannot write the kiosk's policy");
    }
    std::vector<std::string> browser{"bwrap", "--dev-bind", "/", "/", "--ro-bind", etc.string(),
                                     system_etc.string(), "--die-with-parent", "--"};
    browser.insert(browser.end(), options_.browser.begin(), options_.browser.end());
    for (const char* flag : {"--kiosk", "--incognito", "--no-first-run", "--no-default-browser-check",
                             "--disable-gpu", "--noerrdialogs", "--disable-translate", "--disable-sync"})
      browser.push_back(flag);
    browser.push_back("--user-data-dir=" + (state_ / "browser").string());
    browser.push_back("--window-position=0,0");
    browser.push_back(fmt::format("--window-size={},{}", options_.width, options_.height));
    // Chromium refuses to run as root with its sandbox; deid should not run
    // as root (docs/share.md), but when it does the browser still starts.
    if (::geteuid() == 0) browser.push_back("--no-sandbox");
    browser.push_back(url);
    spawn("browser", browser);

    if (!options_.recordings.empty()) {
      // One file per desktop, named by its start (UTC); created here with
      // mode 0600, which ffmpeg keeps when it truncates it. Matroska stays
      // readable up to its last frame if the recorder is killed; a
      // keyframe every 2 s.
      std::error_code made;
      fs::create_directories(options_.recordings, made);
      const std::time_t now = std::time(nullptr);
      std::tm tm{};
      ::gmtime_r(&now, &tm);
      char stamp[32];
      std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
      recording_ = fs::absolute(options_.recordings) / fmt::format("deid-share-{}-{}.mkv", stamp, display_.substr(1));
      const int fd = ::open(recording_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0)
        throw desktop_error(fmt::format("cannot create the recording {}: {}", recording_.string(), std::strerror(errno)));
      ::close(fd);
      spawn("recorder", {"ffmpeg", "-nostdin", "-loglevel", "warning", "-f", "x11grab", "-draw_mouse", "1",
                         "-framerate", "5", "-video_size", fmt::format("{}x{}", options_.width, options_.height), "-i",
                         display_, "-c:v", "libx264", "-preset", "ultrafast", "-crf", "28", "-g", "10", "-pix_fmt",
                         "yuv420p", "-f", "matroska", "-y", recording_.string()});
    }
  } catch (...) {
    stop();
    throw;
  }
}

// ------------------------------------------------------------ the explorer

// The data explorer as a component (`deid serve --explore`): on 127.0.0.1
// only, its token in a file of the state directory that it reads and
// removes (never on a command line), and the kiosk's address carrying the
// token, which the explorer takes once (explore.h: the browser then holds a
// cookie, and the token is spent).
std::string Desktop::start_explorer(Clock::time_point until) {
  if (options_.explorer.empty()) throw desktop_error("no command to serve the explorer with");
  std::string token;
  for (int i = 0; i < 4; ++i) token += random_password();
  const fs::path file = state_ / "explorer.token";
  {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    const bool ok = fd >= 0 && ::write(fd, (token + "\n").data(), token.size() + 1) == static_cast<ssize_t>(token.size() + 1);
    if (fd >= 0) ::close(fd);
    if (!ok) throw desktop_error("cannot write the explorer's token file");
  }
  const int port = options_.explorer_port != 0 ? options_.explorer_port : free_loopback_port();
  std::vector<std::string> argv = options_.explorer;
  for (const std::string& a : {std::string("serve"), std::string("--explore"),
                               fs::absolute(options_.table).string(), std::string("--host"), std::string("127.0.0.1"),
                               std::string("--port"), std::to_string(port), std::string("--token-file"), file.string()})
    argv.push_back(a);
  spawn("explorer", argv);
  for (;;) {
    reap(std::chrono::milliseconds(0));
    if (!exits_.empty()) {
      // Its log says why (a table that cannot be read, a port in use).
      std::ifstream log(state_ / "explorer.log");
      std::string line, last;
      while (std::getline(log, line))
        if (!line.empty()) last = line;
      throw desktop_error(exits_.front() + " while starting" + (last.empty() ? "" : ": " + last));
    }
    if (accepts(port)) break;
    if (Clock::now() >= until) throw desktop_error("the explorer did not listen in time");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return fmt::format("http://127.0.0.1:{}/?token={}", port, token);
}

std::optional<std::string> Desktop::wait_exit(std::chrono::milliseconds wait) {
  reap(wait);
  if (exits_.empty()) return std::nullopt;
  return exits_.front();
}

void Desktop::stop() {
  for (auto it = components_.rbegin(); it != components_.rend(); ++it)
    if (it->pid > 0) ::kill(-it->pid, SIGTERM);
  auto any_left = [&] {
    for (int status = 0; ::waitpid(-1, &status, WNOHANG) > 0;) {
    }  // our children and adopted orphans, reaped as they go
    for (const Component& c : components_)
      if (c.pid > 0 && ::kill(-c.pid, 0) == 0) return true;
    return false;
  };
  auto wait_until = [&](Clock::time_point until) {
    while (any_left() && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  };
  wait_until(Clock::now() + std::chrono::seconds(3));
  for (const Component& c : components_)
    if (c.pid > 0) ::kill(-c.pid, SIGKILL);
  wait_until(Clock::now() + std::chrono::seconds(3));
  components_.clear();
  if (!state_.empty()) {
    std::error_code ignored;
    fs::remove_all(state_, ignored);
    state_.clear();
  }
}

}  // namespace deid::share
