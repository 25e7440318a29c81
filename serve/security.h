// The security checks of `deid serve` (docs/web.md, "Security"), apart
// from the HTTP layer so that they can be tested alone. None of them
// prints or exits; the confinement check throws HttpError(403).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace deid::serve {

// An error the server answers with `status` and {"error": message}.
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// `bytes` random bytes (OpenSSL's RAND_bytes) as lower-case hex. Throws
// std::runtime_error when the generator fails.
std::string random_hex(std::size_t bytes);

// Whether `given` equals `expected`, in time that depends on their lengths
// only, never on where they differ (CRYPTO_memcmp).
bool tokens_equal(std::string_view given, std::string_view expected);

// The file `relative` names under `root` (a canonical directory), with every
// symbolic link resolved. Throws HttpError(403) when `relative` is empty,
// absolute, has a `..` component, or resolves (through links) outside
// `root`. The file need not exist.
std::filesystem::path confine(const std::filesystem::path& root, const std::string& relative);

// The Host header values a server bound to `host`:`port` answers: host:port,
// and for a loopback address also localhost:port (IPv6 addresses in brackets).
std::vector<std::string> allowed_hosts(const std::string& host, int port);

// Whether a request with these Host and Origin headers (empty: absent) comes
// to this server from a page of this server: Host must be one of `allowed`
// and Origin, when present, "http://" + one of `allowed`.
bool host_allowed(const std::vector<std::string>& allowed, const std::string& host);
bool origin_allowed(const std::vector<std::string>& allowed, const std::string& origin);

// The value of cookie `name` in a Cookie header, empty when absent.
std::string cookie_value(const std::string& header, const std::string& name);

// Whether `text` is valid UTF-8 (what nlohmann::json can write).
bool valid_utf8(const std::string& text);

// `value` as JSON text, every invalid UTF-8 sequence of a string replaced
// by U+FFFD (nlohmann's dump throws on one otherwise): an answer that
// echoes a client's bytes never fails to be written.
std::string dump_json(const nlohmann::json& value, int indent = -1);

// The limits on a JSON body, checked by a linear pass over the text before
// it is parsed (a document nested thousands deep costs the parsers, the
// pretty-printed job file and yaml-cpp far more than its size).
struct JsonLimits {
  std::size_t max_bytes = std::size_t{8} << 20;
  std::size_t max_depth = 32;
  std::size_t max_values = 250'000;
};

// Parses a request body as JSON within `limits`. Throws HttpError: 413 for
// a body over max_bytes or with more than max_values values, 400 for one
// nested deeper than max_depth or that is not JSON (nlohmann's message).
nlohmann::json parse_json_body(const std::string& text, const JsonLimits& limits);

}  // namespace deid::serve
