#include "request_head.h"

#include <cctype>

namespace deid::serve {

namespace {

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

}  // namespace

RequestHead scan_head(std::string_view head, std::size_t max_body) {
  RequestHead h;
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

}  // namespace deid::serve
