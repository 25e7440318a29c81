// What server.cc and endpoints.cc share: the Server's state (Server::Impl)
// and the httplib server it drives. Internal to serve/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "httplib_include.h"

#include "connections.h"
#include "responses.h"
#include "security.h"
#include "server.h"
#include "store.h"
#include "store_share.h"

namespace deid::serve {

// The cookie that carries the token once the page was opened with ?token=.
inline constexpr const char* kCookie = "deid_token";

// httplib that is served by ConnectionServer (connections.h): its request
// parser and response writer, one request at a time.
class HttpServer : public httplib::Server {
 public:
  bool serve_request(httplib::Stream& stream, bool close, bool& closed) {
    closing() = false;
    const bool ok = process_request(stream, close, closed, nullptr);
    if (closing()) closed = true;
    return ok;
  }
  // Set while a request is served when its response says `Connection:
  // close` (routes(): a 503 over a limit), which httplib writes but does
  // not act on: the connection is then closed, not kept for the next request.
  static bool& closing() {
    thread_local bool c = false;
    return c;
  }
  // httplib ends its chunked responses (the event streams) once this is
  // not a socket; it never listens on it itself.
  void set_listening_socket(int fd) { svr_sock_ = fd < 0 ? INVALID_SOCKET : fd; }
  ~HttpServer() override { svr_sock_ = INVALID_SOCKET; }

  // What every server of serve (the web app's, the explorer's) installs:
  // the security headers with its own Content-Security-Policy, `admit`
  // before routing, the connection closed after a response that says so
  // (closing()), and a JSON body for an error answered without one.
  void set_common_handlers(const char* csp, httplib::Server::HandlerWithResponse admit) {
    using httplib::Request;
    using httplib::Response;
    set_default_headers({{"Content-Security-Policy", csp},
                         {"X-Content-Type-Options", "nosniff"},
                         {"Referrer-Policy", "no-referrer"},
                         {"Cache-Control", "no-store"},
                         {"X-Frame-Options", "DENY"}});
    set_pre_routing_handler(std::move(admit));
    set_post_routing_handler([](const Request&, Response& res) {
      if (res.get_header_value("Connection") == "close") closing() = true;
    });
    set_error_handler(httplib::Server::HandlerWithResponse([](const Request&, Response& res) {
      if (res.body.empty() && !res.is_chunked_content_provider_ && res.content_length_ == 0)
        send_json(res, res.status, {{"error", reason(res.status)}});
      return httplib::Server::HandlerResponse::Handled;
    }));
  }
};

struct Server::Impl {
  ServeOptions options;
  std::filesystem::path state_dir;
  std::unique_ptr<Store> store;
  // deid share's view (--share CONFIG; endpoints_share.cc), or none.
  std::unique_ptr<ShareView> share;
  HttpServer http;
  std::unique_ptr<ConnectionServer> connections;
  int port = 0;
  std::vector<std::string> allowed;
  std::string token;
  JsonLimits json_limits;

  // Event streams open, in all and per client address: each holds a thread
  // of the pool while it lasts, so they are held below the pool's size and
  // the rest of the pool serves every other request.
  std::mutex streams_m;
  std::size_t streams = 0;
  std::map<std::string, std::size_t> client_streams;
  std::size_t max_streams() const { return std::max<std::size_t>(1, options.max_threads / 2); }
  std::size_t max_client_streams() const { return std::max<std::size_t>(1, max_streams() / 2); }
  std::shared_ptr<void> open_stream(const std::string& client);

  template <class F>
  httplib::Server::Handler guarded(F f) {
    return [this, f = std::move(f)](const httplib::Request& req, httplib::Response& res) {
      answer(res, redactor(), [&] { f(req, res); });
    };
  }
  template <class F>
  httplib::Server::HandlerWithContentReader guarded_reader(F f) {
    return [this, f = std::move(f)](const httplib::Request& req, httplib::Response& res,
                                    const httplib::ContentReader& reader) {
      answer(res, redactor(), [&] { f(req, res, reader); });
    };
  }
  std::function<std::string(std::string)> redactor() const {
    return [this](std::string m) { return store->redact(std::move(m)); };
  }

  void routes();
  void share_routes();
  // The share's view; throws HttpError(404) without --share.
  ShareView& share_view() const;
  httplib::Server::HandlerResponse admit(const httplib::Request& req, httplib::Response& res) const;
  std::shared_ptr<JobState> finished_job(const std::string& id) const;
};

}  // namespace deid::serve
