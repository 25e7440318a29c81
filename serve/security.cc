#include "security.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>

#include <fmt/format.h>

namespace deid::serve {

namespace fs = std::filesystem;

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> buffer(bytes);
  if (RAND_bytes(buffer.data(), static_cast<int>(buffer.size())) != 1)
    throw std::runtime_error("the random number generator failed (OpenSSL RAND_bytes)");
  std::string hex;
  hex.reserve(2 * bytes);
  for (unsigned char b : buffer) hex += fmt::format("{:02x}", b);
  return hex;
}

bool tokens_equal(std::string_view given, std::string_view expected) {
  // The lengths are not secret (every token the server makes has 64
  // characters); the bytes are compared in constant time.
  if (given.size() != expected.size() || expected.empty()) return false;
  return CRYPTO_memcmp(given.data(), expected.data(), expected.size()) == 0;
}

fs::path confine(const fs::path& root, const std::string& relative) {
  const fs::path rel(relative);
  if (relative.empty()) throw HttpError(403, "an empty path is not a file under the data directory");
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    throw HttpError(403, fmt::format("'{}': an absolute path; give a path relative to the data directory", relative));
  for (const auto& part : rel)
    if (part == "..") throw HttpError(403, fmt::format("'{}': '..' is not allowed in a path", relative));
  std::error_code ec;
  // Resolves every link of the part that exists, so a link that points
  // out of the data directory is caught by the prefix check below.
  const fs::path resolved = fs::weakly_canonical(root / rel, ec);
  if (ec) throw HttpError(403, fmt::format("'{}': {}", relative, ec.message()));
  auto r = root.begin();
  auto p = resolved.begin();
  for (; r != root.end(); ++r, ++p)
    if (p == resolved.end() || *p != *r)
      throw HttpError(403, fmt::format("'{}' resolves to a file outside the data directory", relative));
  if (p == resolved.end()) throw HttpError(403, fmt::format("'{}' is the data directory, not a file", relative));
  return resolved;
}

std::vector<std::string> allowed_hosts(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  std::vector<std::string> hosts{v6 ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port)};
  if (host == "127.0.0.1" || host == "::1" || host == "localhost") {
    for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) {
      std::string h = fmt::format("{}:{}", name, port);
      if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(std::move(h));
    }
  }
  return hosts;
}

bool host_allowed(const std::vector<std::string>& allowed, const std::string& host) {
  return std::find(allowed.begin(), allowed.end(), host) != allowed.end();
}

bool origin_allowed(const std::vector<std::string>& allowed, const std::string& origin) {
  if (origin.empty()) return true;
  constexpr std::string_view scheme = "http://";
  if (origin.compare(0, scheme.size(), scheme) != 0) return false;
  return host_allowed(allowed, origin.substr(scheme.size()));
}

std::string cookie_value(const std::string& header, const std::string& name) {
  std::size_t pos = 0;
  while (pos < header.size()) {
    std::size_t end = header.find(';', pos);
    if (end == std::string::npos) end = header.size();
    std::string_view pair(header.data() + pos, end - pos);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) return std::string(pair.substr(eq + 1));
    pos = end + 1;
  }
  return {};
}

}  // namespace deid::serve
