#include "connections.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
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

#include "httplib_include.h"

namespace deid::serve {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The threads that serve requests run httplib's parser, nlohmann's and
// yaml-cpp's (on bodies whose nesting is limited before they are parsed,
// server.cc) and the library's dataset reader: 2 MiB is several times what
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

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// What the epoll thread needs of a request head; httplib parses it in full.
struct Head {
  bool has_body = false;
  bool length_too_large = false;
};

Head scan_head(std::string_view head, std::size_t max_body) {
  Head h;
  std::size_t pos = head.find('\n');
  while (pos != std::string_view::npos && pos + 1 < head.size()) {
    const std::size_t next = head.find('\n', pos + 1);
    const std::string_view line = head.substr(pos + 1, next == std::string_view::npos ? head.npos : next - pos - 1);
    pos = next;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (iequals(name, "Transfer-Encoding")) h.has_body = true;
    if (iequals(name, "Content-Length")) {
      // Digits only, as httplib reads it; anything else is httplib's to refuse.
      unsigned long long n = 0;
      bool digits = !value.empty();
      for (const char c : value) {
        if (c < '0' || c > '9') {
          digits = false;
          break;
        }
        if (n > (~0ULL - 9) / 10) {
          n = ~0ULL;
          break;
        }
        n = n * 10 + static_cast<unsigned>(c - '0');
      }
      if (!digits || n > 0) h.has_body = true;
      if (digits && n > max_body) h.length_too_large = true;
    }
  }
  return h;
}

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
      char ip[INET6_ADDRSTRLEN] = "";
      if (addr.ss_family == AF_INET) {
        const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
        ::inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        c->port = ntohs(a->sin_port);
      } else if (addr.ss_family == AF_INET6) {
        const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
        ::inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        c->port = ntohs(a->sin6_port);
      }
      c->peer = ip;
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
    const Head head = scan_head(std::string_view(c->buffer).substr(0, end + 2), limits.max_body_bytes);
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

namespace {

// A request's view of its connection: the head the epoll thread read, then
// the socket. Every wait is bounded by io_timeout, by the average rate
// (min_rate after rate_grace: a client that sends or reads more slowly has
// its request ended) and by stop().
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(Connection& c, const ConnectionLimits& limits, int stop_fd)
      : c_(c), limits_(limits), stop_fd_(stop_fd), start_(Clock::now()) {}

  bool is_readable() const override { return !c_.buffer.empty() || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }

  ssize_t read(char* ptr, size_t size) override {
    if (!c_.buffer.empty()) {
      const std::size_t n = std::min(size, c_.buffer.size());
      std::memcpy(ptr, c_.buffer.data(), n);
      c_.buffer.erase(0, n);
      return static_cast<ssize_t>(n);
    }
    for (;;) {
      const ssize_t n = ::recv(c_.fd, ptr, size, 0);
      if (n >= 0) {
        bytes_ += static_cast<std::size_t>(n);
        return n;
      }
      if (errno == EINTR) continue;
      if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait(POLLIN)) return -1;
    }
  }

  ssize_t write(const char* ptr, size_t size) override {
    for (;;) {
      const ssize_t n = ::send(c_.fd, ptr, size, MSG_NOSIGNAL);
      if (n >= 0) {
        bytes_ += static_cast<std::size_t>(n);
        return n;
      }
      if (errno == EINTR) continue;
      if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait(POLLOUT)) return -1;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = c_.peer;
    port = c_.port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ip.clear();
    port = 0;
    if (::getsockname(c_.fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;
    char text[INET6_ADDRSTRLEN] = "";
    if (addr.ss_family == AF_INET) {
      const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
      ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
      port = ntohs(a->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
      ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
      port = ntohs(a->sin6_port);
    }
    ip = text;
  }
  socket_t socket() const override { return c_.fd; }

 private:
  // Waits until the socket is ready for `events`; false on a timeout, on
  // stop() or when the rate has fallen below min_rate.
  bool wait(short events) const {
    const auto now = Clock::now();
    auto limit = now + limits_.io_timeout;
    if (limits_.min_rate > 0) {
      const auto allowed = start_ + limits_.rate_grace + milliseconds(bytes_ * 1000 / limits_.min_rate);
      limit = std::min(limit, allowed);
    }
    const auto left = std::chrono::duration_cast<milliseconds>(limit - now).count();
    pollfd fds[2] = {{c_.fd, events, 0}, {stop_fd_, POLLIN, 0}};
    for (;;) {
      const int r = ::poll(fds, 2, static_cast<int>(std::max<long long>(0, left)));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0 || fds[1].revents != 0) return false;
      return fds[0].revents != 0;  // ready, or an error the next call reports
    }
  }

  Connection& c_;
  const ConnectionLimits& limits_;
  int stop_fd_;
  Clock::time_point start_;
  std::size_t bytes_ = 0;
};

}  // namespace

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
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    throw std::runtime_error(fmt::format("cannot resolve '{}': {}", host, ::gai_strerror(rc)));
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // Connections arrive faster than one thread accepts them under a burst;
    // the queue holds them instead of resetting them.
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, impl_->limits.backlog) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) throw std::runtime_error(why);
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  impl_->listen_fd = fd;
  return addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                    : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
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
