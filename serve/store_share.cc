// The custodian's view of deid share (store_share.h): the token store's
// recipients, and the audit log indexed as it grows.
#include "store_share.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "deid/error.h"
#include "deid/share.h"
#include "security.h"

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;
// A line longer than this is not one the proxy writes (its longest, a
// SetEncodings line, is a few kB): indexed as unreadable, never held whole.
constexpr std::size_t kLongestLine = std::size_t{1} << 20;

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '@' || c == '-';
  });
}

std::string field(const json& line, const char* key) {
  const auto it = line.find(key);
  return it != line.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The token store's problem without the server's path.
HttpError store_error(const fs::path& path, const deid::InputError& e) {
  return HttpError(500, fmt::format("the share's token store ({}): {}", path.filename().string(), e.problem()));
}

}  // namespace

ShareView::ShareView(const fs::path& config) {
  const share::ShareConfig c = share::read_share_config(config);
  tokens_ = c.proxy.tokens;
  audit_ = c.proxy.audit;
  events_.push_back("");  // 0: unreadable
}

std::uint32_t ShareView::intern(std::map<std::string, std::uint32_t>& ids, std::vector<std::string>& names,
                                const std::string& name) {
  const auto [it, added] = ids.emplace(name, static_cast<std::uint32_t>(names.size()));
  if (added) names.push_back(name);
  return it->second;
}

void ShareView::index_line(const std::string& text, std::uint64_t offset) {
  Line line;
  line.offset = offset;
  line.length = static_cast<std::uint32_t>(std::min<std::size_t>(text.size(), UINT32_MAX));
  const json j = text.size() > kLongestLine ? json() : json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("event") || !j["event"].is_string()) {
    ++unreadable_;
    lines_.push_back(line);
    return;
  }
  const std::string event = j["event"].get<std::string>();
  line.event = static_cast<std::uint16_t>(std::min<std::uint32_t>(intern(event_ids_, events_, event), UINT16_MAX));
  const std::string recipient = field(j, "recipient");
  if (!recipient.empty()) line.recipient = intern(name_ids_, names_, recipient) + 1;
  const std::string id = field(j, "session");
  if (!id.empty()) {
    auto [it, added] = session_ids_.emplace(id, static_cast<std::uint32_t>(sessions_.size()));
    if (added) {
      sessions_.push_back(Session{});
      sessions_.back().id = id;
      sessions_.back().first = field(j, "time");
    }
    line.session = it->second + 1;
    Session& s = sessions_[it->second];
    ++s.events[event];
    if (!recipient.empty()) s.recipient = recipient;
    if (s.peer.empty()) s.peer = field(j, "peer");
    if (event == "session-start") {
      s.start = field(j, "time");
      s.recording = fs::path(field(j, "recording")).filename().string();
    } else if (event == "session-end") {
      s.end = field(j, "time");
      s.reason = field(j, "reason");
      for (const auto& [key, value] : j.items())
        if (value.is_number()) s.counts[key] = value;
    } else if (event == "refused") {
      s.end = field(j, "time");
      s.refusal = field(j, "reason");
    }
  }
  lines_.push_back(line);
}

void ShareView::reset(std::uint64_t device, std::uint64_t inode) {
  lines_.clear();
  sessions_.clear();
  session_ids_.clear();
  names_.clear();
  name_ids_.clear();
  events_.assign(1, "");
  event_ids_.clear();
  unreadable_ = 0;
  indexed_ = 0;
  device_ = device;
  inode_ = inode;
}

void ShareView::refresh() {
  const int fd = ::open(audit_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {  // no connection yet
      reset(0, 0);
      return;
    }
    throw HttpError(500, fmt::format("the share's audit log ({}): {}", audit_.filename().string(), std::strerror(errno)));
  }
  struct stat st {};
  ::fstat(fd, &st);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  // Replaced or cut: indexed again from its start.
  if (st.st_dev != device_ || st.st_ino != inode_ || size < indexed_) reset(st.st_dev, st.st_ino);
  std::string pending;
  std::uint64_t at = indexed_;
  std::string buffer(kChunk, '\0');
  while (at < size) {
    const ssize_t n = ::pread(fd, buffer.data(), std::min<std::uint64_t>(kChunk, size - at), static_cast<off_t>(at));
    if (n <= 0) break;
    std::size_t from = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
      if (buffer[i] != '\n') continue;
      const std::uint64_t start = indexed_;
      if (pending.size() <= kLongestLine) pending.append(buffer, from, i - from);
      index_line(pending, start);
      lines_.back().length = static_cast<std::uint32_t>(std::min<std::uint64_t>(at + i - start, UINT32_MAX));
      pending.clear();
      indexed_ = at + i + 1;
      from = i + 1;
    }
    // A line not ended yet: kept (up to the longest line read) for the next chunk.
    if (pending.size() <= kLongestLine) pending.append(buffer, from, static_cast<std::size_t>(n) - from);
    at += static_cast<std::uint64_t>(n);
  }
  ::close(fd);
}

const char* ShareView::state_of(const Session& s) {
  if (!s.refusal.empty() || (s.start.empty() && !s.end.empty())) return "refused";
  if (!s.end.empty()) return "ended";
  if (s.start.empty()) return "connecting";
  return "running";
}

json ShareView::session_json(const Session& s) const {
  auto text = [](const std::string& t) { return t.empty() ? json(nullptr) : json(t); };
  return {{"id", s.id},
          {"recipient", text(s.recipient)},
          {"peer", text(s.peer)},
          {"state", state_of(s)},
          {"connected", text(s.first)},
          {"start", text(s.start)},
          {"end", text(s.end)},
          {"reason", text(s.refusal.empty() ? s.reason : s.refusal)},
          {"recording", text(s.recording)},
          {"counts", s.counts},
          {"events", s.events}};
}

json ShareView::summary() {
  std::lock_guard lock(m_);
  refresh();
  std::size_t running = 0;
  for (const Session& s : sessions_) running += std::string(state_of(s)) == "running";
  return {{"tokens", tokens_.filename().string()},
          {"audit", audit_.filename().string()},
          {"audit_lines", lines_.size()},
          {"unreadable_lines", unreadable_},
          {"sessions", sessions_.size()},
          {"sessions_running", running},
          {"recipients", names_.size()}};
}

json ShareView::recipients(std::int64_t now) {
  std::vector<share::RecipientToken> tokens;
  try {
    tokens = share::TokenStore(tokens_).load();
  } catch (const deid::InputError& e) {
    throw store_error(tokens_, e);
  }
  std::lock_guard lock(m_);
  refresh();
  std::map<std::string, json> by_name;
  for (const share::RecipientToken& t : tokens) {
    const auto refusal = t.refusal(now);
    const std::string state = refusal ? refusal->substr(6) : "valid";  // "token revoked" -> "revoked"
    json& r = by_name[t.recipient];
    if (r.is_null()) r = {{"name", t.recipient}, {"state", state}, {"tokens", json::array()}};
    // A recipient is valid with any valid token, else revoked when any was revoked.
    if (state == "valid" || (state == "revoked" && r["state"] == "expired")) r["state"] = state;
    r["tokens"].push_back({{"created", t.created == 0 ? json(nullptr) : json(share::utc_text(t.created))},
                           {"expires", t.expires == 0 ? json(nullptr) : json(share::utc_text(t.expires))},
                           {"revoked", t.revoked == 0 ? json(nullptr) : json(share::utc_text(t.revoked))},
                           {"state", state}});
  }
  json out = json::array();
  for (auto& [name, r] : by_name) {
    std::size_t count = 0;
    bool running = false;
    std::string last;
    for (const Session& s : sessions_) {
      if (s.recipient != name || s.start.empty()) continue;
      ++count;
      running = running || std::string(state_of(s)) == "running";
      last = std::max(last, s.start);
    }
    r["sessions"] = count;
    r["running"] = running;
    r["last_session"] = last.empty() ? json(nullptr) : json(last);
    out.push_back(std::move(r));
  }
  return {{"recipients", out}};
}

json ShareView::sessions(const std::string& recipient, const std::string& state, std::size_t offset,
                         std::size_t limit) {
  std::lock_guard lock(m_);
  refresh();
  json page = json::array();
  std::size_t total = 0;
  for (auto it = sessions_.rbegin(); it != sessions_.rend(); ++it) {
    if (!recipient.empty() && it->recipient != recipient) continue;
    if (!state.empty() && state != state_of(*it)) continue;
    if (total >= offset && page.size() < limit) page.push_back(session_json(*it));
    ++total;
  }
  return {{"total", total}, {"offset", offset}, {"limit", limit}, {"sessions", page}};
}

json ShareView::audit(const AuditQuery& q) {
  std::lock_guard lock(m_);
  refresh();
  // The filters as indexes; a name never seen matches nothing.
  auto find = [](const std::map<std::string, std::uint32_t>& ids, const std::string& name, std::uint32_t plus) {
    if (name.empty()) return std::optional<std::uint32_t>();
    const auto it = ids.find(name);
    return std::optional<std::uint32_t>(it == ids.end() ? UINT32_MAX : it->second + plus);
  };
  const auto recipient = find(name_ids_, q.recipient, 1);
  const auto session = find(session_ids_, q.session, 1);
  const auto event = q.event == "unreadable" ? std::optional<std::uint32_t>(0) : find(event_ids_, q.event, 0);
  std::vector<std::size_t> shown;
  std::size_t total = 0;
  for (std::size_t i = lines_.size(); i-- > 0;) {
    const Line& l = lines_[i];
    if ((recipient && l.recipient != *recipient) || (session && l.session != *session) ||
        (event && l.event != *event))
      continue;
    if (total >= q.offset && shown.size() < q.limit) shown.push_back(i);
    ++total;
  }
  json page = json::array();
  const int fd = ::open(audit_.c_str(), O_RDONLY | O_CLOEXEC);
  for (const std::size_t i : shown) {
    const Line& l = lines_[i];
    std::string text(std::min<std::size_t>(l.length, kLongestLine), '\0');
    const bool read = fd >= 0 && ::pread(fd, text.data(), text.size(), static_cast<off_t>(l.offset)) ==
                                     static_cast<ssize_t>(text.size());
    json j = read && l.event != 0 ? json::parse(text, nullptr, false) : json();
    if (!j.is_object()) {
      // Shown as it is (at most 200 bytes), for the custodian to look at.
      j = {{"event", "unreadable"}, {"text", text.substr(0, 200)}};
    }
    json line = {{"line", i + 1}};
    for (auto& [key, value] : j.items()) line[key] = std::move(value);
    page.push_back(std::move(line));
  }
  if (fd >= 0) ::close(fd);
  return {{"total", total}, {"offset", q.offset}, {"limit", q.limit}, {"lines", page}};
}

json ShareView::revoke(const std::string& recipient, std::int64_t now) {
  if (!valid_name(recipient))
    throw HttpError(400, fmt::format("'{}' is not a recipient's name (1 to 64 letters, digits and . _ @ -)", recipient));
  share::TokenStore store(tokens_);
  std::size_t n = 0;
  try {
    const auto tokens = store.load();
    if (std::none_of(tokens.begin(), tokens.end(), [&](const auto& t) { return t.recipient == recipient; }))
      throw HttpError(404, fmt::format("no recipient '{}' in the token store", recipient));
    n = store.revoke(recipient, now);
  } catch (const deid::InputError& e) {
    throw store_error(tokens_, e);
  }
  if (n == 0) throw HttpError(409, fmt::format("'{}' has no token left to revoke", recipient));
  return {{"recipient", recipient}, {"revoked", n}};
}

}  // namespace deid::serve
