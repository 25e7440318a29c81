// The custodian's view of `deid share` in `deid serve --share CONFIG`
// (docs/web.md, "Sharing"): the recipients of the share's token store
// (never a token itself), the sessions and the lines of its audit log, and
// revoking a recipient's tokens (the proxy re-reads the store and ends the
// recipient's running session). Read-only but for revoke: nothing here
// writes the audit log, and the token store is changed only through
// deid::share::TokenStore (locked, written whole).
//
// The audit log is append-only (docs/share.md), so it is indexed once and
// then only its new lines are read: each request looks at the file's
// identity and size, reads what was appended since (whole lines only; a
// line being written is read next time) and starts over when the file was
// replaced or shrank. The index keeps 24 bytes a line (where it is, its
// session, recipient and event), the session summaries and no line's text;
// the lines a page shows are read back from the file. A line that is not a
// JSON object is counted and shown as unreadable, never skipped silently.
// Thread-safe; nothing here prints or exits; errors are HttpError.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace deid::serve {

struct AuditQuery {
  std::string recipient, session, event;  // empty: any
  std::size_t offset = 0;                 // lines skipped, newest first
  std::size_t limit = 100;
};

class ShareView {
 public:
  // Reads the share's configuration (docs/share.md, "Settings") for its
  // token store and audit log. Throws deid::InputError / IoError as
  // read_share_config does.
  explicit ShareView(const std::filesystem::path& config);

  // {"tokens": file name, "audit": file name, "audit_lines", "unreadable_lines",
  //  "sessions", "sessions_running", "recipients"}.
  nlohmann::json summary();
  // {"recipients": [{"name", "state": valid|expired|revoked, "tokens": [{"created",
  //  "expires", "revoked", "state"}], "sessions", "running", "last_session"}]}, by name.
  // Throws HttpError(500) with the store's problem when it cannot be read.
  nlohmann::json recipients(std::int64_t now);
  // {"total", "offset", "limit", "sessions": [...]}, newest first; `recipient` and
  // `state` (running|ended|refused) filter when not empty.
  nlohmann::json sessions(const std::string& recipient, const std::string& state, std::size_t offset,
                          std::size_t limit);
  // {"total", "offset", "limit", "lines": [{"line": N, ...the line}]}, newest first.
  nlohmann::json audit(const AuditQuery& query);
  // Revokes every token of `recipient`: {"recipient", "revoked": N}. Throws
  // HttpError 400 (not a recipient's name), 404 (no such recipient), 409
  // (nothing left to revoke), 500 (the store cannot be read or written).
  nlohmann::json revoke(const std::string& recipient, std::int64_t now);

 private:
  struct Line {
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    std::uint32_t session = 0;    // index into sessions_ + 1; 0: none
    std::uint32_t recipient = 0;  // index into names_ + 1; 0: none
    std::uint16_t event = 0;      // index into events_; 0: unreadable
  };
  struct Session {
    std::string id, recipient, peer, first, start, end, reason, refusal, recording;
    nlohmann::json counts = nlohmann::json::object();  // of its session-end line
    std::map<std::string, std::uint64_t> events;       // lines by event
  };
  void refresh();  // under m_
  void reset(std::uint64_t device, std::uint64_t inode);
  void index_line(const std::string& text, std::uint64_t offset);
  std::uint32_t intern(std::map<std::string, std::uint32_t>& ids, std::vector<std::string>& names,
                       const std::string& name);
  static const char* state_of(const Session& s);
  nlohmann::json session_json(const Session& s) const;

  std::filesystem::path tokens_, audit_;
  std::mutex m_;
  // What is indexed: the file's identity and the bytes read.
  std::uint64_t device_ = 0, inode_ = 0, indexed_ = 0;
  std::vector<Line> lines_;
  std::uint64_t unreadable_ = 0;
  std::vector<Session> sessions_;
  std::map<std::string, std::uint32_t> session_ids_;
  std::vector<std::string> names_, events_;
  std::map<std::string, std::uint32_t> name_ids_, event_ids_;
};

}  // namespace deid::serve
