// The token store (share.h): a JSON file the custodian edits through
// `deid share token`, re-read by the proxy when its fingerprint changes.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <fmt/format.h>
#include <openssl/rand.h>

#include "deid/share.h"

namespace deid::share {

namespace fs = std::filesystem;

namespace {

IoError io_error(const fs::path& path, const std::string& problem) {
  return IoError(Location{path.string(), 0, 0, {}}, problem);
}

bool valid_recipient(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// An advisory lock on PATH.lock for the time of an edit.
class EditLock {
 public:
  explicit EditLock(const fs::path& store) {
    const fs::path lock = store.string() + ".lock";
    fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) throw io_error(lock, fmt::format("cannot open the lock file: {}", std::strerror(errno)));
    if (::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      throw io_error(lock, fmt::format("cannot lock: {}", std::strerror(errno)));
    }
  }
  ~EditLock() { ::close(fd_); }
  EditLock(const EditLock&) = delete;
  EditLock& operator=(const EditLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

std::string utc_text(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::int64_t parse_expiry(const std::string& text, std::int64_t now) {
  auto bad = [&] {
    return InputError(Location{}, fmt::format("expiry '{}' is neither a time like 2026-12-01T18:00:00Z nor a "
                                              "duration like 30m, 8h or 7d",
                                              text));
  };
  if (text == "never") return 0;
  if (!text.empty() && (text.back() == 'm' || text.back() == 'h' || text.back() == 'd')) {
    const std::string number = text.substr(0, text.size() - 1);
    if (number.empty() || number.size() > 6 || number.find_first_not_of("0123456789") != std::string::npos)
      throw bad();
    const std::int64_t unit = text.back() == 'm' ? 60 : text.back() == 'h' ? 3600 : 86400;
    const std::int64_t n = std::stoll(number);
    if (n == 0) throw bad();
    return now + n * unit;
  }
  std::tm tm{};
  std::istringstream in(text);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail() || in.get() != 'Z' || in.peek() != EOF) throw bad();
  return static_cast<std::int64_t>(::timegm(&tm));
}

std::optional<std::string> RecipientToken::refusal(std::int64_t now) const {
  if (revoked != 0) return std::string("token revoked");
  if (expires != 0 && now >= expires) return std::string("token expired");
  return std::nullopt;
}

TokenStore::TokenStore(fs::path path) : path_(std::move(path)) {}

std::vector<RecipientToken> TokenStore::load() const {
  std::error_code missing;
  if (!fs::exists(path_, missing) && !missing) return {};
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw io_error(path_, "cannot read the token store");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw io_error(path_, fmt::format("the token store is not JSON: {}", e.what()));
  }
  if (!doc.is_object() || !doc.contains("tokens") || !doc["tokens"].is_array())
    throw io_error(path_, "the token store has no 'tokens' list");
  std::vector<RecipientToken> tokens;
  std::size_t index = 0;
  for (const nlohmann::json& t : doc["tokens"]) {
    ++index;
    try {
      RecipientToken r;
      r.recipient = t.at("recipient").get<std::string>();
      r.token = t.at("token").get<std::string>();
      r.created = t.at("created").get<std::string>().empty() ? 0 : parse_expiry(t.at("created"), 0);
      const std::string expires = t.value("expires", std::string("never"));
      r.expires = parse_expiry(expires, 0);
      const std::string revoked = t.value("revoked", std::string());
      r.revoked = revoked.empty() ? 0 : parse_expiry(revoked, 0);
      if (r.token.empty()) throw io_error(path_, fmt::format("token {} is empty", index));
      tokens.push_back(std::move(r));
    } catch (const nlohmann::json::exception& e) {
      throw io_error(path_, fmt::format("token {} of the store: {}", index, e.what()));
    } catch (const InputError& e) {
      throw io_error(path_, fmt::format("token {} of the store: {}", index, e.problem()));
    }
  }
  return tokens;
}

void TokenStore::save(const std::vector<RecipientToken>& tokens) const {
  nlohmann::ordered_json doc;
  doc["tokens"] = nlohmann::ordered_json::array();
  for (const RecipientToken& t : tokens) {
    nlohmann::ordered_json j;
    j["recipient"] = t.recipient;
    j["token"] = t.token;
    j["created"] = utc_text(t.created);
    j["expires"] = t.expires == 0 ? std::string("never") : utc_text(t.expires);
    if (t.revoked != 0) j["revoked"] = utc_text(t.revoked);
    doc["tokens"].push_back(j);
  }
  const std::string text = doc.dump(2) + "\n";
  const fs::path temp = path_.string() + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw io_error(temp, fmt::format("cannot write: {}", std::strerror(errno)));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw io_error(temp, fmt::format("cannot write: {}", std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0600);
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || ::rename(temp.c_str(), path_.c_str()) != 0)
    throw io_error(path_, fmt::format("cannot replace the token store: {}", std::strerror(errno)));
}

RecipientToken TokenStore::add(const std::string& recipient, std::int64_t expires, std::int64_t now) {
  if (!valid_recipient(recipient))
    throw InputError(Location{}, fmt::format("recipient '{}': use 1 to 64 letters, digits and . _ @ -", recipient));
  EditLock lock(path_);
  std::vector<RecipientToken> tokens = load();
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  RecipientToken t;
  t.recipient = recipient;
  t.created = now;
  t.expires = expires;
  // Tokens identify their recipient (VNC Authentication carries no user
  // name), so no two may be equal; rejection sampling keeps the
  // characters uniform.
  for (;;) {
    t.token.clear();
    while (t.token.size() < 8) {
      unsigned char b = 0;
      if (RAND_bytes(&b, 1) != 1) throw io_error(path_, "no random bytes for a token");
      if (b < 248) t.token.push_back(kAlphabet[b % 62]);
    }
    bool taken = false;
    for (const RecipientToken& other : tokens) taken = taken || other.token == t.token;
    if (!taken) break;
  }
  tokens.push_back(t);
  save(tokens);
  return t;
}

std::size_t TokenStore::revoke(const std::string& recipient, std::int64_t now) {
  EditLock lock(path_);
  std::vector<RecipientToken> tokens = load();
  std::size_t n = 0;
  for (RecipientToken& t : tokens) {
    if (t.recipient == recipient && t.revoked == 0) {
      t.revoked = now;
      ++n;
    }
  }
  if (n > 0) save(tokens);
  return n;
}

std::string TokenStore::fingerprint() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return "absent";
  return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

}  // namespace deid::share
