// The paths `deid serve` answers and the methods each takes (docs/web.md),
// for the 405 answers with Allow: asked by the security gate for every
// request httplib parses (server.cc) and by the connection server for a
// method httplib does not parse (connections.h). Internal to serve/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace deid::serve {

// The methods each path answers; any other method on it is 405 with Allow.
// A path's pattern is its segments: a word, words separated by '|' (any of
// them), ID (32 lowercase hexadecimal digits, a dataset's or job's id) or
// FILE (an asset's name: [a-z0-9_-]+ '.' [a-z]+). Matched segment by segment
// rather than with std::regex, whose instantiation GCC 12 warns about
// (-Wmaybe-uninitialized) in the sanitizer build.
struct Route {
  std::vector<std::string> segments;
  const char* allow;
};

const std::vector<Route>& routes_table();
bool route_matches(const Route& route, std::string_view path);
// Whether `method` is one of `allow` ("GET, HEAD").
bool allows(const char* allow, const std::string& method);
// The methods `path` takes, for Allow: its route's, or every method of
// the server when no route has it.
std::string allowed_methods(const std::string& path);

}  // namespace deid::serve
