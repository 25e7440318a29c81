#include "connections.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "connection.h"
#include "connection_stream.h"
#include "request_head.h"
#include "sockets.h"

namespace deid::serve {

namespace {

using std::chrono::milliseconds;

// The threads that serve requests run httplib's parser, nlohmann's and
// yaml-cpp's (on bodies whose nesting is limited before they are parsed,
// endpoints.cc) and the library's dataset reader: 2 MiB is several times what
// they use. Smaller than the default 8 MiB so that hundreds of threads
// reserve little address space; ASan's frames are larger.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kThreadStack = std::size_t{16} << 20;
#else
constexpr std::size_t kThreadStack = std::size_t{2} << 20;
#endif
// An idle thread of the pool ends after this.
constexpr auto kIdleThread = std::chrono::seconds(10);
// What a lingering connection may still send before it is closed.
constexpr std::size_t kLingerBytes = std::size_t{1} << 20;
// Connections answered 503 (over a limit) that may linger at once; beyond,
// they are closed at once.
constexpr std::size_t kMaxRefusedLingering = 256;

}  // namespace

struct ConnectionServer::Impl {
  ConnectionLimits limits;
  Handler handler;
  int listen_fd = -1;
  int wake_fd = -1;  // the pool's threads wake the epoll thread (drained)
  int stop_fd = -1;  // readable once stop() ran (never drained)
  std::atomic<bool> stopping{false};

  // The epoll thread's own: connections waiting for a head or lingering.
  int epoll_fd = -1;
  std::unordered_map<Connection*, std::unique_ptr<Connection>> front;
  std::size_t open = 0, refused_lingering = 0;
  std::map<std::string, std::size_t> clients;
  bool listen_paused = false;

  // The pool.
  std::mutex pool_m;
  std::condition_variable pool_cv, pool_ended;
  std::deque<std::unique_ptr<Connection>> ready;
  std::size_t threads = 0, idle = 0;
  bool pool_stop = false;

  // Connections the pool gives back (kept alive or to close).
  std::mutex returned_m;
  std::vector<std::pair<std::unique_ptr<Connection>, bool>> returned;

  ~Impl() {
    for (int fd : {listen_fd, wake_fd, stop_fd, epoll_fd})
      if (fd >= 0) ::close(fd);
  }

  // --- the epoll thread ---
  void watch(Connection* c) {
    epoll_event e{};
    e.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
    e.data.ptr = c;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->fd, &e);
  }
  std::unique_ptr<Connection> unwatch(Connection* c) {
    ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, nullptr);
    auto it = front.find(c);
    std::unique_ptr<Connection> owned = std::move(it->second);
    front.erase(it);
    return owned;
  }
  void forget(Connection& c) {
    if (c.counted) {
      --open;
      auto it = clients.find(c.peer);
      if (it != clients.end() && --it->second == 0) clients.erase(it);
    } else {
      --refused_lingering;
    }
    ::close(c.fd);
  }
  void close_front(Connection* c) {
    auto owned = unwatch(c);
    forget(*owned);
  }
  void adopt(std::unique_ptr<Connection> c) {
    Connection* raw = c.get();
    front.emplace(raw, std::move(c));
    watch(raw);
  }

  // Answers `status` from this thread (a head refused before httplib sees it).
  void answer(Connection& c, int status, const char* reason, const std::string& message,
              const std::string& extra_headers = {}) {
    const std::string body = fmt::format("{{\"error\": \"{}\"}}\n", message);  // message: no quote, no backslash
    const std::string text = fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n"
        "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nContent-Security-Policy: default-src 'none'; "
        "frame-ancestors 'none'\r\nReferrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n{}{}\r\n{}",
        status, reason, body.size(), status == 503 ? "Retry-After: 1\r\n" : "", extra_headers, body);
    // A few hundred bytes into an empty send buffer: written at once or not at all.
    (void)::send(c.fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  }

  // Closes the sending side and reads what the client still sends, for a
  // moment: closing a socket with unread bytes sends a reset, which can
  // reach the client before it has read the answer.
  void linger(Connection* c) {
    ::shutdown(c->fd, SHUT_WR);
    c->lingering = true;
    c->deadline = Clock::now() + limits.linger;
    drain(c);
  }
  void drain(Connection* c) {
    char scratch[16384];
    for (;;) {
      const ssize_t n = ::recv(c->fd, scratch, sizeof scratch, 0);
      if (n > 0) {
        c->drained += static_cast<std::size_t>(n);
        if (c->drained > kLingerBytes) return close_front(c);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      return close_front(c);  // end of stream or error
    }
  }

  void accept_all() {
    for (;;) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          // Out of descriptors: the listening socket stays readable, so it
          // is left out of epoll until the next sweep instead of spinning.
          ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
          listen_paused = true;
        }
        return;
      }
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      address_text(addr, c->peer, c->port);
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      c->deadline = Clock::now() + limits.head_timeout;
      const bool over_total = open >= limits.max_connections;
      const bool over_client = !over_total && clients[c->peer] >= limits.max_per_client;
      if (over_total || over_client) {
        if (clients[c->peer] == 0) clients.erase(c->peer);
        if (refused_lingering >= kMaxRefusedLingering) {
          ::close(fd);
          continue;
        }
        c->counted = false;
        ++refused_lingering;
        answer(*c, 503, "Service Unavailable",
               over_total ? fmt::format("the server has {} connections open, its limit; try again", open)
                          : fmt::format("this client has {} connections open, the limit per client; close some",
                                        limits.max_per_client));
        Connection* raw = c.get();
        adopt(std::move(c));
        linger(raw);
        continue;
      }
      ++open;
      ++clients[c->peer];
      Connection* raw = c.get();
      adopt(std::move(c));
      read_head(raw);
    }
  }

  // Reads what the client sent, up to a whole head; hands the connection
  // to the pool once the head is complete.
  void read_head(Connection* c) {
    char chunk[8192];
    for (;;) {
      if (head_complete(*c)) return dispatch(c);
      if (c->buffer.size() >= limits.max_head_bytes) {
        answer(*c, 431, "Request Header Fields Too Large",
               fmt::format("the request head is larger than {} bytes", limits.max_head_bytes));
        return linger(c);
      }
      const std::size_t room = std::min(sizeof chunk, limits.max_head_bytes - c->buffer.size());
      const ssize_t n = ::recv(c->fd, chunk, room, 0);
      if (n > 0) {
        if (c->buffer.empty()) c->deadline = Clock::now() + limits.head_timeout;
        c->buffer.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n == 0 && head_complete(*c)) {
        c->peer_closed = true;  // a half-closed client still gets its answer
        return dispatch(c);
      }
      return close_front(c);
    }
  }

  bool head_complete(const Connection& c) const {
    return c.buffer.find("\r\n\r\n") != std::string::npos;
  }

  void dispatch(Connection* c) {
    const std::size_t end = c->buffer.find("\r\n\r\n");
    const RequestHead head = scan_head(std::string_view(c->buffer).substr(0, end + 2), limits.max_body_bytes);
    // httplib answers a method it does not know with 400; the client is
    // told which methods the path takes instead.
    const std::string_view line = std::string_view(c->buffer).substr(0, c->buffer.find('\r'));
    const std::string_view method = line.substr(0, line.find(' '));
    if (method != "GET" && method != "HEAD" && method != "POST" && method != "PUT" && method != "DELETE" &&
        method != "OPTIONS" && method != "PATCH") {
      std::string path(line.substr(std::min(line.size(), method.size() + 1)));
      path = path.substr(0, path.find_first_of(" ?"));
      const std::string allow = limits.allow ? limits.allow(path) : std::string();
      const bool printable = std::all_of(method.begin(), method.end(), [](char ch) { return ch > 0x20 && ch < 0x7f && ch != '"' && ch != '\\'; });
      answer(*c, 405, "Method Not Allowed",
             printable && method.size() <= 32 ? fmt::format("{} is not a method of this server", method)
                                               : std::string("the method is not one of this server"),
             allow.empty() ? std::string() : "Allow: " + allow + "\r\n");
      return linger(c);
    }
    if (head.length_too_large) {
      answer(*c, 413, "Payload Too Large",
             fmt::format("the request body is larger than the server's limit of {} bytes (--max-upload-mb)",
                         limits.max_body_bytes));
      return linger(c);
    }
    c->close_after = head.has_body || c->peer_closed;
    auto owned = unwatch(c);
    std::lock_guard lock(pool_m);
    ready.push_back(std::move(owned));
    if (ready.size() > idle && threads < limits.max_threads) spawn();
    pool_cv.notify_one();
  }

  void take_returned() {
    std::vector<std::pair<std::unique_ptr<Connection>, bool>> back;
    {
      std::lock_guard lock(returned_m);
      back.swap(returned);
    }
    for (auto& [c, keep] : back) {
      Connection* raw = c.get();
      raw->deadline = Clock::now() + (raw->buffer.empty() ? limits.idle_timeout : limits.head_timeout);
      adopt(std::move(c));
      if (keep)
        read_head(raw);
      else
        linger(raw);
    }
  }

  void sweep() {
    const auto now = Clock::now();
    std::vector<Connection*> late;
    for (auto& [raw, c] : front)
      if (c->deadline <= now) late.push_back(raw);
    for (Connection* c : late) {
      if (c->lingering || c->buffer.empty()) {
        close_front(c);
      } else {
        answer(*c, 408, "Request Timeout",
               fmt::format("the request head did not arrive within {} s", limits.head_timeout.count() / 1000));
        linger(c);
      }
    }
    if (listen_paused) {
      epoll_event e{};
      e.events = EPOLLIN;
      e.data.ptr = nullptr;
      ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &e);
      listen_paused = false;
    }
  }

  // --- the pool ---
  static void* thread_main(void* self) {
    static_cast<Impl*>(self)->work();
    return nullptr;
  }
  // Under pool_m.
  void spawn() {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kThreadStack);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    if (::pthread_create(&t, &attr, &Impl::thread_main, this) == 0) ++threads;
    pthread_attr_destroy(&attr);
    // When no thread can be made the connection waits for one that ends.
  }
  void work() {
    std::unique_lock lock(pool_m);
    for (;;) {
      ++idle;
      const bool woken = pool_cv.wait_for(lock, kIdleThread, [&] { return !ready.empty() || pool_stop; });
      --idle;
      if (ready.empty()) {
        if (pool_stop || !woken) break;
        continue;
      }
      std::unique_ptr<Connection> c = std::move(ready.front());
      ready.pop_front();
      lock.unlock();
      serve(std::move(c));
      lock.lock();
    }
    --threads;
    pool_ended.notify_all();
  }

  void serve(std::unique_ptr<Connection> c);

  void give_back(std::unique_ptr<Connection> c, bool keep) {
    {
      std::lock_guard lock(returned_m);
      returned.emplace_back(std::move(c), keep);
    }
    const std::uint64_t one = 1;
    (void)!::write(wake_fd, &one, sizeof one);
  }
};

void ConnectionServer::Impl::serve(std::unique_ptr<Connection> c) {
  if (stopping) return give_back(std::move(c), false);
  const bool close = c->close_after || c->requests + 1 >= limits.max_requests_per_connection;
  bool closed = false, ok = false;
  {
    ConnectionStream stream(*c, limits, stop_fd);
    try {
      ok = handler(stream, close, closed);
    } catch (...) {
      ok = false;
    }
  }
  ++c->requests;
  give_back(std::move(c), ok && !close && !closed && !stopping);
}

ConnectionServer::ConnectionServer(ConnectionLimits limits, Handler handler) : impl_(std::make_unique<Impl>()) {
  impl_->limits = limits;
  impl_->handler = std::move(handler);
  impl_->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  impl_->stop_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  impl_->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (impl_->wake_fd < 0 || impl_->stop_fd < 0 || impl_->epoll_fd < 0)
    throw std::runtime_error(fmt::format("cannot make the server's event descriptors: {}", std::strerror(errno)));
}

ConnectionServer::~ConnectionServer() { stop(); }

int ConnectionServer::bind(const std::string& host, int port) {
  const int fd = listen_on(host, port, impl_->limits.backlog);
  impl_->listen_fd = fd;
  return local_port(fd);
}

int ConnectionServer::listening_socket() const { return impl_->listen_fd; }
bool ConnectionServer::stopping() const { return impl_->stopping; }

void ConnectionServer::stop() {
  if (impl_->stopping.exchange(true)) return;
  const std::uint64_t one = 1;
  (void)!::write(impl_->stop_fd, &one, sizeof one);
}

bool ConnectionServer::run() {
  Impl& s = *impl_;
  if (s.listen_fd < 0) return false;
  epoll_event e{};
  e.events = EPOLLIN;
  e.data.ptr = nullptr;  // the listening socket
  ::epoll_ctl(s.epoll_fd, EPOLL_CTL_ADD, s.listen_fd, &e);
  e.data.ptr = &s.wake_fd;
  ::epoll_ctl(s.epoll_fd, EPOLL_CTL_ADD, s.wake_fd, &e);
  e.data.ptr = &s.stop_fd;
  ::epoll_ctl(s.epoll_fd, EPOLL_CTL_ADD, s.stop_fd, &e);
  std::vector<epoll_event> events(256);
  auto next_sweep = Clock::now();
  while (!s.stopping) {
    const int n = ::epoll_wait(s.epoll_fd, events.data(), static_cast<int>(events.size()), 100);
    for (int i = 0; i < n; ++i) {
      void* tag = events[i].data.ptr;
      if (tag == nullptr) {
        s.accept_all();
      } else if (tag == &s.wake_fd) {
        std::uint64_t count;
        (void)!::read(s.wake_fd, &count, sizeof count);
        s.take_returned();
      } else if (tag == &s.stop_fd) {
        break;
      } else {
        auto* c = static_cast<Connection*>(tag);
        if (s.front.count(c) == 0) continue;
        if (c->lingering)
          s.drain(c);
        else
          s.read_head(c);
      }
    }
    if (Clock::now() >= next_sweep) {
      s.sweep();
      next_sweep = Clock::now() + milliseconds(100);
    }
  }
  // Stopping: no new connection; the requests in progress see stop_fd and
  // end; then every connection is closed.
  ::epoll_ctl(s.epoll_fd, EPOLL_CTL_DEL, s.listen_fd, nullptr);
  ::close(s.listen_fd);
  s.listen_fd = -1;
  {
    std::unique_lock lock(s.pool_m);
    s.pool_stop = true;
    s.pool_cv.notify_all();
    s.pool_ended.wait(lock, [&] { return s.threads == 0; });
    for (auto& c : s.ready) s.give_back(std::move(c), false);
    s.ready.clear();
  }
  for (auto& [raw, c] : s.front) ::close(c->fd);
  s.front.clear();
  std::lock_guard lock(s.returned_m);
  for (auto& [c, keep] : s.returned) ::close(c->fd);
  s.returned.clear();
  return true;
}

}  // namespace deid::serve
