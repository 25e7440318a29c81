// The RFB proxy (share.h): an accept loop that also watches the token
// store, and per connection a thread that authenticates the recipient,
// logs in to the VNC server and relays both directions (rfb.h) until
// either side closes, a relay finds a violation, the token stops being
// valid, or the proxy stops.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <list>
#include <thread>

#include <fmt/format.h>
#include <openssl/crypto.h>

#include "deid/share.h"
#include "rfb.h"
#include "sockets.h"
#include "wire.h"

namespace deid::share {

namespace {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

// One connection, from its handshake to its end.
struct Session {
  std::string id;
  std::string peer;
  std::string recipient, token;
  std::atomic<bool> holds_slot{false};  // counted in Impl::active (recipient and token are set before)
  std::thread thread;
  std::atomic<bool> finished{false};

  std::mutex mutex;
  int client_fd = -1, upstream_fd = -1;
  bool ended = false;
  std::string end_reason;

  // Ends the session for `reason` (the first reason given stays): both
  // sockets are shut down, which wakes the relays.
  void end(const std::string& reason) {
    std::lock_guard lock(mutex);
    if (!ended) {
      ended = true;
      end_reason = reason;
    }
    if (client_fd >= 0) ::shutdown(client_fd, SHUT_RDWR);
    if (upstream_fd >= 0) ::shutdown(upstream_fd, SHUT_RDWR);
  }
  bool is_ended() {
    std::lock_guard lock(mutex);
    return ended;
  }
  void close_sockets() {
    std::lock_guard lock(mutex);
    if (client_fd >= 0) ::close(client_fd);
    if (upstream_fd >= 0) ::close(upstream_fd);
    client_fd = upstream_fd = -1;
  }
};

struct Proxy::Impl {
  explicit Impl(ProxyOptions o) : options(std::move(o)), audit(options.audit), store(options.tokens) {}

  ProxyOptions options;
  AuditLog audit;
  TokenStore store;
  int listen_fd = -1;
  std::string address;
  std::atomic<bool> stopping{false};
  std::string stop_reason = "the proxy stopped";  // under `mutex`

  // The token store as last read; `tokens_error` when it could not be
  // read, in which case nobody is admitted and every session ends (fail
  // closed).
  std::mutex tokens_mutex;
  std::string fingerprint = "-";
  std::vector<RecipientToken> tokens;
  std::string tokens_error;

  mutable std::mutex mutex;
  std::list<std::shared_ptr<Session>> sessions;
  std::vector<SessionSummary> ended;
  std::size_t active = 0, handshaking = 0;
  std::uint64_t next_id = 1;

  void refresh_tokens() {
    std::lock_guard lock(tokens_mutex);
    const std::string now = store.fingerprint();
    if (now == fingerprint) return;
    try {
      tokens = store.load();
      tokens_error.clear();
    } catch (const Error& e) {
      tokens.clear();
      tokens_error = e.what();
    }
    fingerprint = now;
  }

  // Why `recipient`'s `token` no longer admits it, or nothing.
  std::optional<std::string> still_valid(const Session& s, std::int64_t now) {
    std::lock_guard lock(tokens_mutex);
    if (!tokens_error.empty()) return "token store unreadable: " + tokens_error;
    for (const RecipientToken& t : tokens)
      if (t.recipient == s.recipient && t.token == s.token) return t.refusal(now);
    return std::string("token removed from the store");
  }

  void log(const Session& s, const char* event, nlohmann::ordered_json fields = {}) {
    nlohmann::ordered_json line;
    line["session"] = s.id;
    if (!s.recipient.empty()) line["recipient"] = s.recipient;
    line["event"] = event;
    for (const auto& [key, value] : fields.items()) line[key] = value;
    audit.append(line);
  }

  void serve(const std::shared_ptr<Session>& s);
  void relay(const std::shared_ptr<Session>& s, FdReader& client_in, FdWriter& client_out, int upstream_fd,
             const ServerInit& init);
};

void Proxy::Impl::serve(const std::shared_ptr<Session>& s) {
  const int client_fd = s->client_fd;
  FdReader client_in(client_fd);
  FdWriter client_out(client_fd);
  const auto deadline = Clock::now() + options.handshake_timeout;
  client_in.set_deadline(deadline);
  bool counted_handshake = true;
  auto done_handshaking = [&] {
    if (!counted_handshake) return;
    std::lock_guard lock(mutex);
    --handshaking;
    counted_handshake = false;
  };
  try {
    log(*s, "connection", {{"peer", s->peer}});
    refresh_tokens();
    const TokenCheck check = [&](const std::array<std::uint8_t, 16>& challenge,
                                 const std::array<std::uint8_t, 16>& response) -> std::optional<std::string> {
      std::lock_guard lock(tokens_mutex);
      if (!tokens_error.empty()) return std::string("the token store cannot be read");
      for (const RecipientToken& t : tokens) {
        const auto expected = vnc_auth_response(challenge, t.token);
        if (CRYPTO_memcmp(expected.data(), response.data(), 16) != 0) continue;
        s->recipient = t.recipient;
        s->token = t.token;
        if (auto refusal = t.refusal(unix_now())) return refusal;
        std::lock_guard sessions_lock(mutex);
        if (active >= options.max_sessions) return std::string("another session is running");
        ++active;
        s->holds_slot = true;
        return std::nullopt;
      }
      return std::string("unknown token");
    };
    const ClientHandshake hs = client_handshake(client_in, client_out, check, options.auth_failure_delay);
    if (!hs.admitted) {
      log(*s, "refused", {{"peer", s->peer}, {"reason", hs.refusal}});
      done_handshaking();
      return;
    }
    // The VNC server, logged in to before the recipient hears that it is
    // admitted, so that an unavailable desktop is a refusal with a reason.
    ServerInit init;
    try {
      const int fd = connect_to(options.upstream);
      {
        std::lock_guard lock(s->mutex);
        s->upstream_fd = fd;
      }
      FdReader up_in(fd);
      FdWriter up_out(fd);
      up_in.set_deadline(deadline);
      init = server_handshake(up_in, up_out, options.upstream_password);
    } catch (const Error& e) {
      log(*s, "refused", {{"peer", s->peer}, {"reason", "the VNC server is not available"}, {"detail", e.what()}});
      send_security_result(client_out, hs.minor, std::string("the shared desktop is not available"));
      done_handshaking();
      return;
    }
    send_security_result(client_out, hs.minor, std::nullopt);
    read_u8(client_in);  // ClientInit's shared flag: the proxy asked the server for a shared session already
    // The server's name (often its host name) is not passed on.
    ServerInit shown = init;
    shown.name = "deid share";
    const auto bytes = shown.bytes();
    client_out.write(bytes.data(), bytes.size());
    client_out.flush();
    client_in.clear_deadline();
    done_handshaking();
    relay(s, client_in, client_out, s->upstream_fd, init);
  } catch (const Error& e) {
    // A handshake that failed or timed out.
    log(*s, "refused", {{"peer", s->peer}, {"reason", e.what()}});
  }
  done_handshaking();
}

void Proxy::Impl::relay(const std::shared_ptr<Session>& s, FdReader& client_in, FdWriter& client_out, int upstream_fd,
                        const ServerInit& init) {
  StreamState state;
  state.width = init.width;
  state.height = init.height;
  state.bytes_per_pixel = init.pixel_format[0] / 8u;
  state.raw_padding = raw_padding_byte(init.pixel_format.data());
  nlohmann::ordered_json start{{"peer", s->peer}, {"width", init.width}, {"height", init.height}};
  if (!options.recording.empty()) start["recording"] = options.recording;
  log(*s, "session-start", start);
  audit.sync();

  auto listener = [this, &s](const InputEvent& e) {
    nlohmann::ordered_json f;
    f["verdict"] = verdict_name(e.verdict);
    switch (e.kind) {
      case InputEvent::Kind::key:
        f["down"] = e.down;
        f["keysym"] = fmt::format("0x{:04x}", e.keysym);
        break;
      case InputEvent::Kind::pointer:
        f["buttons"] = e.buttons;
        f["x"] = e.x;
        f["y"] = e.y;
        break;
      case InputEvent::Kind::client_cut_text:
      case InputEvent::Kind::server_cut_text:
        f["length"] = e.length;
        break;
      case InputEvent::Kind::encodings:
        f["asked"] = e.asked;
        f["kept"] = e.kept;
        break;
    }
    log(*s, kind_name(e.kind), f);
  };
  ClientRelay client_relay(options.limits, state, listener);
  ServerRelay server_relay(state, options.limits.max_cut_text, listener);

  std::thread from_server([&] {
    FdReader up_in(upstream_fd);
    try {
      for (;;) server_relay.relay_one(up_in, client_out);
    } catch (const ConnectionClosed&) {
      s->end("the VNC server closed the connection");
    } catch (const ProtocolError& e) {
      s->end(std::string("the VNC server broke the protocol: ") + e.what());
    } catch (const Error& e) {
      s->end(e.what());
    }
  });
  FdWriter up_out(upstream_fd);
  try {
    for (;;) {
      if (client_in.readable(options.coalesce_interval))
        client_relay.relay_one(client_in, up_out, Clock::now());
      else
        client_relay.tick(up_out, Clock::now());
    }
  } catch (const ConnectionClosed&) {
    s->end("the recipient disconnected");
  } catch (const ProtocolError& e) {
    s->end(std::string("the recipient broke the protocol: ") + e.what());
  } catch (const Error& e) {
    s->end(e.what());
  }
  from_server.join();

  SessionSummary summary = client_relay.counts;
  summary.id = s->id;
  summary.recipient = s->recipient;
  summary.peer = s->peer;
  summary.server_cut_text_dropped = server_relay.cut_text_dropped;
  {
    std::lock_guard lock(s->mutex);
    summary.end_reason = s->end_reason;
  }
  log(*s, "session-end",
      {{"reason", summary.end_reason},
       {"keys", summary.keys},
       {"keys-dropped", summary.keys_dropped},
       {"buttons", summary.buttons},
       {"buttons-dropped", summary.buttons_dropped},
       {"moves", summary.moves},
       {"moves-coalesced", summary.moves_coalesced},
       {"client-cut-text-dropped", summary.client_cut_text_dropped},
       {"server-cut-text-dropped", summary.server_cut_text_dropped}});
  audit.sync();
  std::lock_guard lock(mutex);
  ended.push_back(std::move(summary));
}

Proxy::Proxy(ProxyOptions options) {
  check_limits(options.limits, "the share's settings");
  impl_ = std::make_unique<Impl>(std::move(options));
}

Proxy::~Proxy() {
  stop();
  // run() joins the sessions; a proxy destroyed without run() has none.
  if (impl_->listen_fd >= 0) ::close(impl_->listen_fd);
}

void Proxy::bind() {
  const Listener l = listen_on(impl_->options.listen);
  impl_->listen_fd = l.fd;
  impl_->address = l.address;
}

std::string Proxy::address() const { return impl_->address; }

void Proxy::stop(const std::string& reason) {
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->stopping) impl_->stop_reason = reason;
  }
  impl_->stopping = true;
}

std::size_t Proxy::active_sessions() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->active;
}

std::vector<SessionSummary> Proxy::ended_sessions() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->ended;
}

void Proxy::run() {
  Impl& p = *impl_;
  if (p.listen_fd < 0) bind();
  auto reap = [&p](bool all) {
    std::list<std::shared_ptr<Session>> done;
    {
      std::lock_guard lock(p.mutex);
      for (auto it = p.sessions.begin(); it != p.sessions.end();) {
        if (all || (*it)->finished) {
          done.push_back(*it);
          it = p.sessions.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& s : done) s->thread.join();
  };
  while (!p.stopping) {
    pollfd fdp{p.listen_fd, POLLIN, 0};
    const int rc = ::poll(&fdp, 1, static_cast<int>(p.options.watch_interval.count()));
    if (rc > 0) {
      sockaddr_storage peer{};
      socklen_t len = sizeof peer;
      const int fd = ::accept4(p.listen_fd, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
      if (fd >= 0) {
        auto s = std::make_shared<Session>();
        s->peer = peer_text(peer);
        s->client_fd = fd;
        bool admit = false;
        {
          std::lock_guard lock(p.mutex);
          s->id = fmt::format("s{}-{}", unix_now(), p.next_id++);
          if (p.handshaking < p.options.max_handshakes) {
            ++p.handshaking;
            admit = true;
          }
        }
        if (!admit) {
          p.log(*s, "refused", {{"peer", s->peer}, {"reason", "too many connections are authenticating"}});
          ::close(fd);
        } else {
          std::lock_guard lock(p.mutex);
          p.sessions.push_back(s);
          s->thread = std::thread([&p, s] {
            try {
              p.serve(s);
            } catch (...) {
              // The audit log failed: nothing more to record it in.
            }
            s->end("ended");
            s->close_sockets();
            if (s->holds_slot) {
              std::lock_guard lock2(p.mutex);
              --p.active;
            }
            s->finished = true;
          });
        }
      }
    }
    // Revocation and expiry: every session's token is checked against the
    // store as re-read now, at least every watch_interval.
    p.refresh_tokens();
    std::vector<std::shared_ptr<Session>> running;
    {
      std::lock_guard lock(p.mutex);
      for (auto& s : p.sessions)
        if (s->holds_slot && !s->finished) running.push_back(s);
    }
    const std::int64_t now = unix_now();
    for (auto& s : running)
      if (auto why = p.still_valid(*s, now)) s->end(*why);
    reap(false);
  }
  {
    std::lock_guard lock(p.mutex);
    for (auto& s : p.sessions) s->end(p.stop_reason);
  }
  reap(true);
}

void check_limits(const InputLimits& limits, const std::string& source) {
  auto check_rate = [&](const RateLimit& r, const char* name) {
    if (!(r.burst >= 1) || !(r.per_second > 0) || r.per_minute < 0 || (r.per_minute > 0 && r.per_minute < 1))
      throw InputError(Location{source, 0, 0, {}},
                       fmt::format("limits.{}: burst must be at least 1, per-second above 0 and per-minute 0 (none) "
                                   "or at least 1; got burst {}, per-second {}, per-minute {}",
                                   name, r.burst, r.per_second, r.per_minute));
  };
  check_rate(limits.keys, "keys");
  check_rate(limits.buttons, "buttons");
  if (!(limits.moves_per_second > 0))
    throw InputError(Location{source, 0, 0, {}}, "limits.moves-per-second must be above 0");
}

}  // namespace deid::share
