// Keyed pseudonyms, masks, date shifts and the secret they are keyed with
// (docs/identifiers.md).
#include "deid/identifiers.h"

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "deid/digest.h"
#include "deid/error.h"
#include "deid/job.h"

namespace deid {

bool releases_identifiers(const Job& job) {
  for (const AttributeSpec& a : job.attributes)
    if (a.role == Role::identifying && a.identifier.action != IdentifierAction::remove) return true;
  return false;
}

std::array<unsigned char, 32> hmac_sha256(std::string_view key, std::string_view message) {
  std::array<unsigned char, 32> out{};
  unsigned int n = 0;
  // An empty message has no data() to speak of: hand OpenSSL a valid pointer.
  static const unsigned char kEmpty = 0;
  const auto* data = message.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(message.data());
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data, message.size(), out.data(), &n) == nullptr ||
      n != out.size())
    throw Error("HMAC-SHA-256: libcrypto failed");
  return out;
}

struct Hmac::State {
  EVP_MAC* mac = nullptr;
  EVP_MAC_CTX* ctx = nullptr;
  ~State() {
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
  }
};

Hmac::Hmac(std::string_view key) : state_(std::make_unique<State>()) {
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  static const unsigned char kEmpty = 0;
  const auto* k = key.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key.data());
  state_->mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (state_->mac == nullptr || (state_->ctx = EVP_MAC_CTX_new(state_->mac)) == nullptr ||
      EVP_MAC_init(state_->ctx, k, key.size(), params) != 1)
    throw Error("HMAC-SHA-256: libcrypto failed to set the key");
}

Hmac::~Hmac() = default;

std::array<unsigned char, 32> Hmac::operator()(std::string_view message) {
  std::array<unsigned char, 32> out{};
  std::size_t n = 0;
  // Without a key, EVP_MAC_init starts a new message under the key it has.
  if (EVP_MAC_init(state_->ctx, nullptr, 0, nullptr) != 1 ||
      (!message.empty() &&
       EVP_MAC_update(state_->ctx, reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1) ||
      EVP_MAC_final(state_->ctx, out.data(), &n, out.size()) != 1 || n != out.size())
    throw Error("HMAC-SHA-256: libcrypto failed");
  return out;
}

std::string to_hex(const unsigned char* bytes, std::size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    s[2 * i] = kDigits[bytes[i] >> 4];
    s[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return s;
}

Secret load_secret(const Job& job) {
  const IdentifiersSpec& spec = *job.identifiers;
  const Location at{job.path, spec.secret_line, 0, {}};
  Secret s;
  if (!spec.secret_file.empty()) {
    s.source = fmt::format("file {}", spec.secret_file);
    std::ifstream in(spec.secret_file, std::ios::binary);
    if (!in) throw JobError(at, fmt::format("cannot read the secret file '{}'", spec.secret_file));
    std::ostringstream text;
    text << in.rdbuf();
    s.bytes = text.str();
    struct stat st{};
    if (::stat(spec.secret_file.c_str(), &st) == 0 && (st.st_mode & 0077) != 0)
      s.warning = fmt::format("the secret file '{}' can be read by others than its owner (mode {:04o}): anyone who "
                              "reads it can recompute every pseudonym and date shift; chmod 600 it",
                              spec.secret_file, st.st_mode & 07777);
  } else {
    s.source = fmt::format("environment variable {}", spec.secret_env);
    const char* v = std::getenv(spec.secret_env.c_str());
    if (v == nullptr) throw JobError(at, fmt::format("the environment variable {} (the secret) is not set", spec.secret_env));
    s.bytes = v;
  }
  while (!s.bytes.empty() && (s.bytes.back() == '\n' || s.bytes.back() == '\r')) s.bytes.pop_back();
  if (s.bytes.size() < 16)
    throw JobError(at, fmt::format("the secret in the {} is {} bytes long: it must have at least 16 (for example "
                                   "`openssl rand -hex 32`)",
                                   s.source, s.bytes.size()));
  std::string material = "deid secret fingerprint";
  material.push_back('\0');
  material += s.bytes;
  s.fingerprint = sha256_hex(material).substr(0, 16);
  return s;
}

std::string pseudonym(std::string_view secret, std::string_view value, int length) {
  Hmac keyed(secret);
  return pseudonym(keyed, value, length);
}

std::string pseudonym(Hmac& keyed, std::string_view value, int length) {
  const auto mac = keyed(value);
  return to_hex(mac.data(), static_cast<std::size_t>(length + 1) / 2).substr(0, static_cast<std::size_t>(length));
}

int date_offset(std::string_view secret, std::string_view person, int shift_days) {
  Hmac keyed(secret);
  return date_offset(keyed, person, shift_days);
}

int date_offset(Hmac& keyed, std::string_view person, int shift_days) {
  std::string message = "deid date shift";
  message.push_back('\0');
  message += person;
  const auto mac = keyed(message);
  std::uint64_t x = 0;
  for (int i = 0; i < 8; ++i) x = (x << 8) | mac[static_cast<std::size_t>(i)];
  const auto range = static_cast<std::uint64_t>(2 * shift_days + 1);
  return static_cast<int>(x % range) - shift_days;
}

namespace {

// The byte length of the UTF-8 code point starting with `lead` (1 for a
// byte that starts none, so that any bytes advance).
std::size_t code_point_length(unsigned char lead) {
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xE0) return lead < 0xF0 ? 3 : 1;
  if (lead >= 0xC0) return 2;
  return 1;
}

std::vector<std::string_view> code_points(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = std::min(code_point_length(static_cast<unsigned char>(s[i])), s.size() - i);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

Masker::Masker(const MaskSpec& spec) : spec_(spec) {
  if (spec_.regex) regex_.emplace(*spec_.regex, std::regex::ECMAScript);
}

std::string Masker::operator()(std::string_view value) const {
  if (regex_) return std::regex_replace(std::string(value), *regex_, spec_.replacement);
  std::string out;
  out.reserve(value.size());
  if (spec_.digits || spec_.letters) {
    for (char ch : value) {
      const bool digit = ch >= '0' && ch <= '9';
      const bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
      if (digit && spec_.digits) out += *spec_.digits;
      else if (letter && spec_.letters) out += *spec_.letters;
      else out.push_back(ch);
    }
    return out;
  }
  const std::vector<std::string_view> cps = code_points(value);
  const auto first = static_cast<std::size_t>(spec_.keep_first), last = static_cast<std::size_t>(spec_.keep_last);
  for (std::size_t i = 0; i < cps.size(); ++i) {
    if (i < first || i + last >= cps.size()) out += cps[i];
    else out += spec_.symbol;
  }
  return out;
}

DateFormat::DateFormat(std::string format) : format_(std::move(format)) { check_date_format(format_); }

std::optional<std::int64_t> DateFormat::parse(std::string_view value, std::string* rest) const {
  int y = 0;
  unsigned m = 0, d = 0;
  std::size_t at = 0;
  auto digits = [&](std::size_t n, auto& into) {
    if (at + n > value.size()) return false;
    into = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const char ch = value[at + k];
      if (ch < '0' || ch > '9') return false;
      into = into * 10 + static_cast<std::remove_reference_t<decltype(into)>>(ch - '0');
    }
    at += n;
    return true;
  };
  for (std::size_t i = 0; i < format_.size(); ++i) {
    if (format_[i] == '%') {
      const char f = format_[++i];
      const bool ok = f == 'Y' ? digits(4, y) : f == 'm' ? digits(2, m) : f == 'd' ? digits(2, d)
                                                                     : (at < value.size() && value[at++] == '%');
      if (!ok) return std::nullopt;
    } else if (at >= value.size() || value[at++] != format_[i]) {
      return std::nullopt;
    }
  }
  if (at < value.size() && value[at] != ' ' && value[at] != 'T') return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{m}, std::chrono::day{d}};
  if (!ymd.ok() || y < 1) return std::nullopt;
  if (rest) *rest = std::string(value.substr(at));
  return std::chrono::sys_days{ymd}.time_since_epoch().count();
}

std::string DateFormat::format(std::int64_t days) const {
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  const int y = static_cast<int>(ymd.year());
  if (y < 1 || y > 9999) throw std::out_of_range(fmt::format("year {} is outside 1 to 9999", y));
  std::string out;
  for (std::size_t i = 0; i < format_.size(); ++i) {
    if (format_[i] != '%') {
      out.push_back(format_[i]);
      continue;
    }
    switch (format_[++i]) {
      case 'Y': out += fmt::format("{:04d}", y); break;
      case 'm': out += fmt::format("{:02d}", static_cast<unsigned>(ymd.month())); break;
      case 'd': out += fmt::format("{:02d}", static_cast<unsigned>(ymd.day())); break;
      default: out.push_back('%');
    }
  }
  return out;
}

}  // namespace deid
