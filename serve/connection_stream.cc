#include "connection_stream.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sockets.h"

namespace deid::serve {

using std::chrono::milliseconds;

ssize_t ConnectionStream::read(char* ptr, size_t size) {
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

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
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

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = c_.peer;
  port = c_.port;
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ip.clear();
  port = 0;
  if (::getsockname(c_.fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;
  address_text(addr, ip, port);
}

bool ConnectionStream::wait(short events) const {
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

}  // namespace deid::serve
