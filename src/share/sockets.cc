// Sockets of the RFB proxy (sockets.h): addresses as HOST:PORT or
// unix:PATH, connecting to the VNC server and listening for recipients.
#include "sockets.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <utility>

#include <fmt/format.h>

#include "deid/error.h"

namespace deid::share {

namespace fs = std::filesystem;

namespace {

IoError address_error(const std::string& address, const std::string& problem) {
  return IoError(Location{}, fmt::format("{}: {}", address, problem));
}

sockaddr_un unix_address(const std::string& address) {
  const std::string path = address.substr(5);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof a.sun_path) throw address_error(address, "not a usable socket path");
  std::memcpy(a.sun_path, path.data(), path.size());
  return a;
}

std::pair<std::string, std::string> host_port(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    throw address_error(address, "expected HOST:PORT or unix:PATH");
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, address.substr(colon + 1)};
}

// A stream socket to the first address `address` (HOST:PORT) resolves to
// on which `use` (connect, or bind and listen) succeeds; `use` returns
// false with errno set. `passive`: resolve for listening.
int open_first(const std::string& address, const std::string& host, const std::string& port, bool passive,
               const std::function<bool(int, const addrinfo&)>& use) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw address_error(address, ::gai_strerror(rc));
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (!use(fd, *a)) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) throw address_error(address, why);
  return fd;
}

}  // namespace

bool is_unix(const std::string& address) { return address.rfind("unix:", 0) == 0; }

std::string peer_text(const sockaddr_storage& addr) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    return fmt::format("{}:{}", text, ntohs(a->sin_port));
  }
  if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    return fmt::format("[{}]:{}", text, ntohs(a->sin6_port));
  }
  return "unix";
}

int connect_to(const std::string& address) {
  if (is_unix(address)) {
    const sockaddr_un a = unix_address(address);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw address_error(address, std::strerror(errno));
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
      const int e = errno;
      ::close(fd);
      throw address_error(address, std::strerror(e));
    }
    return fd;
  }
  const auto [host, port] = host_port(address);
  const int fd = open_first(address, host, port, false, [](int fd, const addrinfo& a) {
    return ::connect(fd, a.ai_addr, a.ai_addrlen) == 0;
  });
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

Listener listen_on(const std::string& address) {
  if (is_unix(address)) {
    const sockaddr_un a = unix_address(address);
    const fs::path path = address.substr(5);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0) {
      const int e = errno;
      if (fd >= 0) ::close(fd);
      throw address_error(address, std::strerror(e));
    }
    ::chmod(path.c_str(), 0660);
    return {fd, address};
  }
  const auto [host, port] = host_port(address);
  const int fd = open_first(address, host, port, true, [](int fd, const addrinfo& a) {
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    return ::bind(fd, a.ai_addr, a.ai_addrlen) == 0 && ::listen(fd, 16) == 0;
  });
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  const int bound_port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                                     : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return {fd, fmt::format("{}:{}", host.find(':') != std::string::npos ? "[" + host + "]" : host, bound_port)};
}

}  // namespace deid::share
