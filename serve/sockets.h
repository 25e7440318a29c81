// The socket calls of `deid serve` that are not its connection model
// (connections.h): a listening socket on an address, and the text of a
// socket's address. Internal to serve/.
#pragma once

#include <sys/socket.h>

#include <string>

namespace deid::serve {

// A non-blocking socket listening on `host`:`port` (`port` 0: any free
// one) with a queue of `backlog` connections. Throws std::runtime_error
// with the reason when it cannot.
int listen_on(const std::string& host, int port, int backlog);
// The port a socket is bound to.
int local_port(int fd);
// An IPv4 or IPv6 socket address as text and port; other families leave
// `ip` empty and `port` 0.
void address_text(const sockaddr_storage& addr, std::string& ip, int& port);

}  // namespace deid::serve
