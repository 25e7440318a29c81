#include "routes.h"

namespace deid::serve {

namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path.front() != '/') return {std::string_view("\x01")};  // matches no pattern
  path.remove_prefix(1);
  while (true) {
    const std::size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

bool segment_matches(std::string_view pattern, std::string_view s) {
  const auto all = [&](auto ok) {
    for (const char c : s)
      if (!ok(c)) return false;
    return true;
  };
  if (pattern == "ID")
    return s.size() == 32 && all([](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  if (pattern == "FILE") {
    const std::size_t dot = s.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size()) return false;
    const std::string_view stem = s.substr(0, dot), ext = s.substr(dot + 1);
    for (const char c : stem)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
    for (const char c : ext)
      if (!(c >= 'a' && c <= 'z')) return false;
    return true;
  }
  for (std::size_t from = 0;;) {
    const std::size_t bar = pattern.find('|', from);
    if (pattern.substr(from, bar == std::string_view::npos ? pattern.npos : bar - from) == s) return true;
    if (bar == std::string_view::npos) return false;
    from = bar + 1;
  }
}

}  // namespace

bool route_matches(const Route& route, std::string_view path) {
  const std::vector<std::string_view> parts = split_path(path);
  if (parts.size() != route.segments.size()) return false;
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (!segment_matches(route.segments[i], parts[i])) return false;
  return true;
}

const std::vector<Route>& routes_table() {
  static const std::vector<Route> table = {
      {{""}, "GET, HEAD"},
      {{"assets", "FILE"}, "GET, HEAD"},
      {{"api", "v1", "version|files"}, "GET, HEAD"},
      {{"api", "v1", "datasets|jobs"}, "POST"},
      {{"api", "v1", "datasets", "ID", "hierarchy-preview|inspect"}, "POST"},
      {{"api", "v1", "datasets|jobs", "ID"}, "GET, HEAD, DELETE"},
      {{"api", "v1", "jobs", "ID", "events|result|job.yaml|output|report"}, "GET, HEAD"},
      {{"api", "v1", "share"}, "GET, HEAD"},
      {{"api", "v1", "share", "recipients|sessions|audit"}, "GET, HEAD"},
      {{"api", "v1", "share", "revoke"}, "POST"},
  };
  return table;
}

bool allows(const char* allow, const std::string& method) {
  const std::string list = std::string(", ") + allow + ",";
  return list.find(", " + method + ",") != std::string::npos;
}

std::string allowed_methods(const std::string& path) {
  for (const Route& route : routes_table())
    if (route_matches(route, path)) return std::string(route.allow);
  return std::string("GET, HEAD, POST, DELETE");
}

}  // namespace deid::serve
