// The custodian's view of deid share (docs/web.md, "Sharing"): the REST
// paths under /api/v1/share, answered when the server was started with
// --share CONFIG (store_share.h), 404 otherwise. Behind the same security
// gate as every path (Server::Impl::admit: token, Host, Origin).
#include <chrono>
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "server_impl.h"
#include "store_share.h"

namespace deid::serve {

using nlohmann::json;

namespace {

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A query parameter that is a whole number from 0 to `max`, or `otherwise`.
std::size_t count_param(const httplib::Request& req, const char* name, std::size_t otherwise, std::size_t max) {
  if (!req.has_param(name)) return otherwise;
  const std::string text = req.get_param_value(name);
  std::size_t n = 0;
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos ||
      (n = std::stoul(text)) > max)
    throw HttpError(400, fmt::format("'{}' must be a whole number from 0 to {}", name, max));
  return n;
}

std::string text_param(const httplib::Request& req, const char* name) {
  const std::string text = req.get_param_value(name);
  if (!valid_utf8(text) || text.size() > 256)
    throw HttpError(400, fmt::format("'{}' must be UTF-8 text of at most 256 bytes", name));
  return text;
}

constexpr std::size_t kMaxPage = 1000;
constexpr std::size_t kMaxOffset = 999'999'999;

}  // namespace

ShareView& Server::Impl::share_view() const {
  if (!share)
    throw HttpError(404, "the server was started without --share: it shows no share (docs/web.md, \"Sharing\")");
  return *share;
}

void Server::Impl::share_routes() {
  using httplib::Request;
  using httplib::Response;
  http.Get("/api/v1/share", guarded([this](const Request&, Response& res) {
             send_json(res, 200, share_view().summary());
           }));
  http.Get("/api/v1/share/recipients", guarded([this](const Request&, Response& res) {
             send_json(res, 200, share_view().recipients(now_seconds()));
           }));
  http.Get("/api/v1/share/sessions", guarded([this](const Request& req, Response& res) {
             ShareView& view = share_view();
             const std::string state = text_param(req, "state");
             if (!state.empty() && state != "running" && state != "ended" && state != "refused" &&
                 state != "connecting")
               throw HttpError(400, "'state' is one of running, ended, refused, connecting");
             send_json(res, 200,
                       view.sessions(text_param(req, "recipient"), state, count_param(req, "offset", 0, kMaxOffset),
                                     count_param(req, "limit", 100, kMaxPage)));
           }));
  http.Get("/api/v1/share/audit", guarded([this](const Request& req, Response& res) {
             ShareView& view = share_view();
             AuditQuery q;
             q.recipient = text_param(req, "recipient");
             q.session = text_param(req, "session");
             q.event = text_param(req, "event");
             q.offset = count_param(req, "offset", 0, kMaxOffset);
             q.limit = count_param(req, "limit", 100, kMaxPage);
             send_json(res, 200, view.audit(q));
           }));
  // Revoking: {"recipient": NAME}. The proxy re-reads the store and ends
  // the recipient's running session (docs/share.md).
  http.Post("/api/v1/share/revoke",
            guarded_reader([this](const Request& req, Response& res, const httplib::ContentReader& reader) {
              ShareView& view = share_view();
              const json spec = parse_json_body(read_body(req, reader, json_limits.max_bytes), json_limits);
              if (!spec.is_object() || spec.size() != 1 || !spec.contains("recipient") || !spec["recipient"].is_string())
                throw HttpError(400, "send {\"recipient\": NAME}");
              send_json(res, 200, view.revoke(spec["recipient"].get<std::string>(), now_seconds()));
            }));
}

}  // namespace deid::serve
