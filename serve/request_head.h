// What the epoll thread of ConnectionServer (connections.h) needs of a
// request head before it hands the connection to httplib, which parses the
// head in full. Internal to serve/.
#pragma once

#include <cstddef>
#include <string_view>

namespace deid::serve {

struct RequestHead {
  bool has_body = false;
  bool length_too_large = false;  // Content-Length above the limit
};

// Reads the header lines of `head` (the request line first, then lines up
// to the blank one): a Transfer-Encoding, or a Content-Length that is not 0,
// means a body; a Content-Length above `max_body` is too large.
RequestHead scan_head(std::string_view head, std::size_t max_body);

}  // namespace deid::serve
