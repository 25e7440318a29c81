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

bool valid_utf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

std::string dump_json(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// Counts depth and values as nlohmann's SAX parser reads the text (no
// document is built), and stops it at the first limit passed.
class JsonShape final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit JsonShape(const JsonLimits& limits) : limits_(limits) {}
  int status = 0;  // of the refusal, 0: none
  std::string problem;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    status = 400;
    problem = fmt::format("the body is not valid JSON: {}", e.what());
    return false;
  }

 private:
  bool value() {
    if (++values_ <= limits_.max_values) return true;
    status = 413;
    problem = fmt::format("the body has more than {} JSON values, the server's limit", limits_.max_values);
    return false;
  }
  bool open() {
    if (++depth_ > limits_.max_depth) {
      status = 400;
      problem = fmt::format("the body nests arrays and objects more than {} deep, the server's limit", limits_.max_depth);
      return false;
    }
    return value();
  }
  bool close() {
    --depth_;
    return true;
  }
  const JsonLimits& limits_;
  std::size_t depth_ = 0, values_ = 0;
};

}  // namespace

nlohmann::json parse_json_body(const std::string& text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw HttpError(413, fmt::format("the JSON body has {} bytes, more than the server's limit of {}", text.size(),
                                     limits.max_bytes));
  JsonShape shape(limits);
  const bool ok = nlohmann::json::sax_parse(text, &shape);
  if (!ok || shape.status != 0)
    throw HttpError(shape.status != 0 ? shape.status : 400,
                    shape.problem.empty() ? "the body is not valid JSON" : shape.problem);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw HttpError(400, fmt::format("the body is not valid JSON: {}", e.what()));
  }
}

}  // namespace deid::serve
