// Sockets of the RFB proxy: an address is HOST:PORT (a numeric port;
// IPv6 hosts in brackets) or unix:PATH. Errors are IoError naming the
// address.
#pragma once

#include <sys/socket.h>

#include <string>

namespace deid::share {

// Whether `address` names a Unix socket (unix:PATH).
bool is_unix(const std::string& address);

// A connected stream socket to `address` (TCP_NODELAY for TCP).
int connect_to(const std::string& address);

// The peer of an accepted connection as text: HOST:PORT, [HOST]:PORT or
// "unix".
std::string peer_text(const sockaddr_storage& addr);

// A listening socket and the address it is bound to (with the port chosen
// when `address` asked for port 0). A Unix socket left by an earlier run
// is replaced; the new one is mode 0660.
struct Listener {
  int fd = -1;
  std::string address;
};
Listener listen_on(const std::string& address);

}  // namespace deid::share
