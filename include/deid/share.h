// deid share: the controlled data-sharing environment of papers/002,
// section V (docs/share.md). This header is the library's contract for the
// part that stands between a recipient and the VNC server showing the
// analytics interface:
//
//   recipient's VNC client ──RFB──► Proxy ──RFB──► VNC server (x11vnc, Xvnc)
//                                     │              on 127.0.0.1 or a Unix
//                          TokenStore ┘└ AuditLog    socket, its own secret
//
// The proxy terminates the RFB handshake itself: it offers the recipient
// VNC Authentication only (security type 2), where the recipient's token
// is the password, checks it against the token store, and then logs in to
// the VNC server with the server's own password, which the recipient never
// sees. It parses every message in both directions: clipboard messages are
// dropped both ways, the encodings the client may ask for are cut down to
// those the proxy parses, keyboard and pointer input is rate-limited, and
// every input event is appended to the audit log. A token revoked or
// expired while its session runs ends the session.
//
// The library never prints and never exits: configuration problems are
// deid::InputError (with the file), protocol violations by a peer end that
// peer's session only (they are ProtocolError inside the proxy and reach
// the caller as audit lines, never as exceptions from Proxy::run).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/error.h"

namespace deid::share {

// A peer broke the RFB protocol or one of the proxy's limits (a length too
// large, a message type it does not know, an encoding it did not offer).
// The session ends; the message says what the peer sent.
class ProtocolError : public Error {
 public:
  using Error::Error;
};

// The peer closed its connection (or the session was ended, which shuts
// the sockets down): not an error of anyone's, the end of a relay.
class ConnectionClosed : public Error {
 public:
  using Error::Error;
};

// ---------------------------------------------------------------- limits

// A rate limit of one kind of input: at most `burst` events at once, then
// `per_second` on average, and at most `per_minute` in any minute (0: no
// per-minute bound). Two token buckets: one of `burst` tokens refilled at
// `per_second`, one of `per_minute` tokens refilled at `per_minute`/60 per
// second; an event passes only when both hold a token, and takes one of
// each.
struct RateLimit {
  double burst = 10;
  double per_second = 5;
  double per_minute = 0;
};

// The limits of one session (docs/share.md, "Settings").
struct InputLimits {
  RateLimit keys{10, 5, 150};      // key presses (a release follows its press)
  RateLimit buttons{10, 5, 150};   // button presses: clicks, wheel steps
  double moves_per_second = 30;    // pointer moves; extra moves are coalesced
  std::uint32_t max_cut_text = 1 << 20;  // longest clipboard message read (and dropped) before the session ends
};

// Checks the limits; throws InputError naming `source` and the setting.
void check_limits(const InputLimits& limits, const std::string& source);

// ----------------------------------------------------------- token store

// One recipient's token. Times are seconds since the epoch (UTC); 0 in
// `expires` means it never expires.
struct RecipientToken {
  std::string recipient;
  std::string token;
  std::int64_t created = 0;
  std::int64_t expires = 0;
  std::int64_t revoked = 0;  // when it was revoked; 0: not revoked

  // Why the token does not admit its recipient at `now` ("revoked",
  // "expired"), or nothing when it does.
  std::optional<std::string> refusal(std::int64_t now) const;
};

// The custodian's list of tokens: a JSON file (mode 0600, written whole
// and renamed into place, so a reader sees the old or the new list, never
// half of one) that `deid share token add|revoke|list` edits and the proxy
// re-reads when it changes. Edits are serialized by an advisory lock on
// `PATH.lock`. Tokens are kept in clear text: VNC Authentication needs the
// password itself (docs/share.md, "Tokens").
class TokenStore {
 public:
  explicit TokenStore(std::filesystem::path path);
  const std::filesystem::path& path() const { return path_; }

  // Every token of the file; none when the file does not exist. Throws
  // InputError for a file that cannot be read or is not a token list.
  std::vector<RecipientToken> load() const;

  // Adds a new random token for `recipient` (a name of letters, digits and
  // . _ @ -), valid until `expires` (0: never), and returns it. A token is
  // 8 characters of [A-Za-z0-9] (VNC Authentication uses 8 bytes).
  RecipientToken add(const std::string& recipient, std::int64_t expires, std::int64_t now);

  // Revokes every token of `recipient` not yet revoked; returns how many.
  std::size_t revoke(const std::string& recipient, std::int64_t now);

  // (device, inode, size, modification time): changes when the file is
  // replaced or edited; used by the proxy to re-read it.
  std::string fingerprint() const;

 private:
  void save(const std::vector<RecipientToken>& tokens) const;
  std::filesystem::path path_;
};

// ------------------------------------------------------------- audit log

// The append-only audit log: one JSON object per line, each written with
// one write(2) to a file opened O_APPEND (so lines of several processes
// never interleave, and nothing is ever overwritten), mode 0600. Each line
// is in the kernel when append() returns; it is on disk (fdatasync) at the
// latest with the next line written a second or more after the last sync,
// and at every session's start and end (`sync()`). Thread-safe.
class AuditLog {
 public:
  explicit AuditLog(const std::filesystem::path& path);  // throws IoError
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Appends `line` with "time" (UTC, microseconds) put first.
  void append(const nlohmann::ordered_json& line);
  void sync();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_sync_;
};

// ----------------------------------------------------------------- proxy

struct ProxyOptions {
  // Where recipients connect: "HOST:PORT" (port 0: any free port) or
  // "unix:PATH".
  std::string listen = "127.0.0.1:5910";
  // The VNC server: "HOST:PORT" or "unix:PATH".
  std::string upstream;
  // The VNC server's own password (VNC Authentication), empty when it
  // asks for none (then it must listen on a Unix socket only the proxy's
  // user can reach).
  std::string upstream_password;
  std::filesystem::path tokens;  // the TokenStore's file
  std::filesystem::path audit;   // the AuditLog's file
  InputLimits limits;
  std::size_t max_sessions = 1;          // sessions at once (one environment, one recipient)
  std::size_t max_handshakes = 8;        // connections not yet authenticated at once
  std::chrono::milliseconds handshake_timeout{10'000};
  std::chrono::milliseconds auth_failure_delay{1'000};  // before a refusal is sent: slows guessing
  std::chrono::milliseconds watch_interval{200};       // token store re-read, revocation checked
  std::chrono::milliseconds coalesce_interval{50};     // a coalesced pointer move is sent this late at most
  // Said in every session-start line of the audit log: the screen
  // recording that shows the session (Desktop::recording), if any.
  std::string recording;
};

// What a session did, for the caller and the audit log.
struct SessionSummary {
  std::string id;
  std::string recipient;
  std::string peer;
  std::string end_reason;
  std::uint64_t keys = 0, keys_dropped = 0;
  std::uint64_t buttons = 0, buttons_dropped = 0;
  std::uint64_t moves = 0, moves_coalesced = 0;
  std::uint64_t client_cut_text_dropped = 0, server_cut_text_dropped = 0;
  std::uint64_t encodings_removed = 0;
};

// The RFB proxy. bind() then run() in one thread; stop() from any thread
// (a signal's thread) makes run() end every session and return. Sessions
// run on threads of their own; a session's failure ends that session only.
class Proxy {
 public:
  explicit Proxy(ProxyOptions options);  // opens the audit log: throws IoError
  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  // Listens on options.listen; throws IoError when it cannot.
  void bind();
  // The address listened on, with the port chosen for port 0.
  std::string address() const;
  // Serves until stop(); returns after every session has ended.
  void run();
  // Makes run() end every session, for `reason` (in the audit log), and
  // return.
  void stop(const std::string& reason = "the proxy stopped");

  // Sessions running now and ended so far.
  std::size_t active_sessions() const;
  std::vector<SessionSummary> ended_sessions() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------- desktop

// The desktop of one session (papers/002, Fig. 4: an X server running
// exactly one application, a browser in kiosk mode): Xvfb, x11vnc, the
// browser (in bubblewrap, locked down by kiosk_policy) and the screen
// recorder (ffmpeg), each started in a process group of its own with default signal
// handling, supervised and stopped together. x11vnc listens on 127.0.0.1
// only (a free port) with a fresh random password (handed to it in a file
// it removes on reading), never exchanges the selection (-nosel), and
// never listens on IPv6. The browser runs in kiosk mode, incognito, with a
// profile of its own in the state directory (with --no-sandbox when deid
// runs as root, which Chromium requires). The calling process becomes a
// child subreaper (PR_SET_CHILD_SUBREAPER), so that what the components
// start is reaped and stopped too; it reaps every child of the process
// (waitpid(-1)), so the process should have no children of its own. Not
// thread-safe: one thread drives it.
struct DesktopOptions {
  unsigned width = 1280, height = 800;
  std::string url;                                   // what the kiosk shows
  std::vector<std::string> browser{"chromium"};      // the browser's command, before deid's flags
  // Where the screen is recorded (papers/002: "record a video of the
  // screen content"): a directory, one file per desktop; empty: no
  // recording. The recorder (ffmpeg) is a component like the others.
  std::filesystem::path recordings;
  std::chrono::milliseconds start_timeout{15'000};   // for Xvfb and x11vnc to come up
  // The data explorer (docs/share.md, "The data explorer"), instead of
  // `url`: the released table it shows, and the command that serves it
  // (`deid`, to which "serve --explore TABLE ..." is added). start() then
  // starts it as a component ("explorer") on 127.0.0.1:`explorer_port` (0:
  // a free port) with a fresh token handed over in a file it removes, and
  // points the kiosk and its policy at it.
  std::filesystem::path table;
  std::vector<std::string> explorer;
  int explorer_port = 0;
};

class Desktop {
 public:
  explicit Desktop(DesktopOptions options);
  ~Desktop();  // stop()
  Desktop(const Desktop&) = delete;
  Desktop& operator=(const Desktop&) = delete;

  // Makes a private state directory (mode 0700, removed by stop()) and
  // starts the components. Throws IoError naming the component that did
  // not start (the others are stopped).
  void start();
  std::string display() const { return display_; }           // ":N"
  std::string vnc_address() const;                           // "127.0.0.1:PORT"
  const std::string& vnc_password() const { return password_; }
  // The recording's file (Matroska, H.264 at 5 frames per second, mode
  // 0600), empty without recordings.
  const std::filesystem::path& recording() const { return recording_; }
  // The components' names and process ids, in starting order.
  std::vector<std::pair<std::string, int>> components() const;
  // Waits up to `wait` for a component to exit; returns "NAME exited
  // (status N | signal N)" for the first that did, or nothing.
  std::optional<std::string> wait_exit(std::chrono::milliseconds wait);
  // SIGTERM to every component's process group, newest first, SIGKILL to
  // what is left after 3 s, every child reaped, the state directory
  // removed. Idempotent.
  void stop();

 private:
  struct Component {
    std::string name;
    int pid = -1;
    bool running = false;
  };
  int spawn(const std::string& name, const std::vector<std::string>& argv, int fd3 = -1);
  // Starts the explorer of options_.table; returns the kiosk's address.
  std::string start_explorer(std::chrono::steady_clock::time_point until);
  void reap(std::chrono::milliseconds wait);

  DesktopOptions options_;
  std::filesystem::path state_;
  std::vector<Component> components_;
  std::string display_, password_;
  std::filesystem::path recording_;
  int port_ = 0;
  std::vector<std::string> exits_;
};

// The origin of an http:// or https:// address ("http://127.0.0.1:8787"
// of "http://127.0.0.1:8787/explorer?x"); throws InputError for another
// scheme or no host.
std::string url_origin(const std::string& url);

// The Chromium policy of the kiosk showing `url` (docs/share.md, "The
// kiosk"): every address blocked but the origin of `url`; no developer
// tools, downloads, printing, file dialogs, pop-ups, clipboard access by
// pages, profiles or guest mode. Throws InputError as url_origin.
nlohmann::json kiosk_policy(const std::string& url);

// ------------------------------------------------------------ web access

// Access from a browser (docs/share.md, "noVNC"): websockify serving
// noVNC's files (Debian's novnc package) and bridging noVNC's WebSocket to
// the proxy's RFB port, so that a browser goes through the proxy like any
// VNC client (the token is the password noVNC asks for; clipboard dropped,
// input limited, everything in the audit log). deid binds the listening
// socket and hands it to websockify (--inetd); websockify runs in a process
// group of its own with default signal handling. No TLS: that is the
// infrastructure's part (a reverse proxy in front, docs/share.md).
struct WebOptions {
  std::string listen = "127.0.0.1:6080";             // HOST:PORT, IPv4 or a name; port 0: any free port
  std::filesystem::path novnc = "/usr/share/novnc";  // noVNC's files, served as they are
  std::vector<std::string> command{"websockify"};    // websockify's command, before deid's arguments
  std::filesystem::path log;  // websockify's output, appended (mode 0600); empty: deid's standard error
};

// Throws InputError when `listen` is not HOST:PORT with an IPv4 address or
// a name (websockify wraps the socket as IPv4).
void check_web_listen(const std::string& listen);
// websockify's command line bridging to the proxy at `proxy_address`
// (HOST:PORT or unix:PATH; 0.0.0.0 and [::] are reached on loopback).
std::vector<std::string> websockify_command(const WebOptions& options, const std::string& proxy_address);

// websockify as a supervised component. Not thread-safe: one thread
// drives it (the one that supervises the share).
class WebAccess {
 public:
  explicit WebAccess(WebOptions options);
  ~WebAccess();  // stop()
  WebAccess(const WebAccess&) = delete;
  WebAccess& operator=(const WebAccess&) = delete;

  // Listens on options.listen and starts websockify with that socket,
  // bridging to `proxy_address`. Throws InputError for a bad address,
  // IoError when it cannot listen, noVNC's files are missing or websockify
  // cannot be started.
  void start(const std::string& proxy_address);
  // The address listened on ("127.0.0.1:6080", the port chosen for 0),
  // and the page to open there (noVNC's vnc.html, connecting at once).
  const std::string& address() const { return address_; }
  std::string url() const;
  int pid() const { return pid_; }
  // Waits up to `wait` for websockify to exit; returns "websockify exited
  // (status N | signal N)" once it has (without the status when another
  // supervisor reaped it), or nothing.
  std::optional<std::string> wait_exit(std::chrono::milliseconds wait);
  // SIGTERM to websockify's process group (its per-connection processes
  // too), SIGKILL to what is left after 3 s, reaped. Idempotent.
  void stop();

 private:
  WebOptions options_;
  std::string address_;
  int pid_ = -1;
  std::optional<std::string> exit_;
};

// Reads a share configuration (YAML, docs/share.md "Settings") into
// ProxyOptions; paths are relative to the file. Throws InputError naming
// the file, line and key. A configuration with a `desktop` section has no
// `upstream`: the desktop is the VNC server (`desktop` is then set).
struct ShareConfig {
  ProxyOptions proxy;
  std::optional<DesktopOptions> desktop;
  std::optional<WebOptions> web;  // the `web` section: browser access through websockify and noVNC
};
ShareConfig read_share_config(const std::filesystem::path& path);

// "2026-11-29T05:00:00Z" for seconds since the epoch; and back (also
// accepts durations from now: "30m", "8h", "7d"). Throws InputError.
std::string utc_text(std::int64_t seconds);
std::int64_t parse_expiry(const std::string& text, std::int64_t now);

}  // namespace deid::share
