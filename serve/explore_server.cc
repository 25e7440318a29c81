// The HTTP side of the data explorer (explore.h): its routes, its security
// gate and the query string of its API. It shares with `deid serve` the
// connection model (connections.h), the security checks (security.h) and
// the way answers are written (responses.h), but none of its routes.
#include "explore.h"

#include <atomic>
#include <mutex>
#include <string_view>

#include <fmt/format.h>

#include "deid/error.h"
#include "routes.h"
#include "server_impl.h"
#include "web_assets.h"

namespace deid::serve {

using nlohmann::json;

namespace {

constexpr const char* kExploreCookie = "deid_explore";
constexpr std::size_t kMaxBody = 64 << 10;
// As `deid serve`'s, and no form may be sent anywhere.
constexpr const char* kExploreCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
// The only files of serve/web the explorer serves.
constexpr std::string_view kAssets[] = {"explore.js", "explore.css", "explore_charts.js", "favicon.svg"};

const std::vector<Route>& explore_routes() {
  static const std::vector<Route> table = {
      {{""}, "GET, HEAD"},
      {{"assets", "FILE"}, "GET, HEAD"},
      {{"api", "v1", "table|rows|frequencies|crosstab"}, "GET, HEAD"},
  };
  return table;
}

std::string explore_allow(const std::string&) { return "GET, HEAD"; }

std::size_t count_param(const httplib::Request& req, const char* name) {
  const std::string text = req.get_param_value(name);
  std::size_t n = 0;
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    throw HttpError(400, fmt::format("'{}' must be a whole number, got '{}'", name, text));
  for (const char c : text) n = n * 10 + static_cast<std::size_t>(c - '0');
  return n;
}

// The query string as an ExploreQuery: offset=N, limit=N, sort=asc:COLUMN
// or desc:COLUMN (repeated, in order), OP.COLUMN=VALUE filters (OP one of
// eq, has, min, max); `extra` names the route's own parameters. Anything
// else is 400, so that a typing mistake is not a silently ignored filter.
ExploreQuery parse_query(const httplib::Request& req, std::initializer_list<std::string_view> extra) {
  ExploreQuery q;
  for (const auto& [key, value] : req.params) {
    if (!valid_utf8(key) || !valid_utf8(value)) throw HttpError(400, "a parameter is not valid UTF-8");
    if (key == "offset") {
      q.offset = count_param(req, "offset");
    } else if (key == "limit") {
      q.limit = count_param(req, "limit");
      if (q.limit == 0) throw HttpError(400, "'limit' must be at least 1");
    } else if (key == "sort") {
      const std::size_t colon = value.find(':');
      const std::string direction = value.substr(0, colon);
      if (colon == std::string::npos || (direction != "asc" && direction != "desc"))
        throw HttpError(400, fmt::format("sort '{}' is not asc:COLUMN or desc:COLUMN", value));
      q.sort.push_back({value.substr(colon + 1), direction == "desc"});
    } else if (std::find(extra.begin(), extra.end(), key) != extra.end()) {
      continue;
    } else {
      const std::size_t dot = key.find('.');
      const std::string op = key.substr(0, dot);
      if (dot == std::string::npos || (op != "eq" && op != "has" && op != "min" && op != "max"))
        throw HttpError(400, fmt::format("unknown parameter '{}' (allowed: offset, limit, sort, eq.COLUMN, "
                                         "has.COLUMN, min.COLUMN, max.COLUMN{})",
                                         key, extra.size() == 0 ? "" : ", and this route's own"));
      q.filters.push_back({op, key.substr(dot + 1), value});
    }
  }
  return q;
}

std::string required_param(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) throw HttpError(400, fmt::format("'{}' (a column's name) is missing", name));
  if (req.get_param_value_count(name) != 1) throw HttpError(400, fmt::format("'{}' is given more than once", name));
  return req.get_param_value(name);
}

}  // namespace

struct ExploreServer::Impl {
  ExploreOptions options;
  ExploreTable table;
  HttpServer http;
  std::unique_ptr<ConnectionServer> connections;
  int port = 0;
  std::vector<std::string> allowed;
  std::string token, session;
  std::mutex m;
  bool link_used = false;

  explicit Impl(ExploreOptions o) : options(std::move(o)), table(options.table, options.limits) {}

  // Host and Origin, then the token: the cookie, Authorization: Bearer, or
  // ?token= on the page's address (which sets the cookie).
  httplib::Server::HandlerResponse admit(const httplib::Request& req, httplib::Response& res) {
    using R = httplib::Server::HandlerResponse;
    if (!host_allowed(allowed, req.get_header_value("Host"))) {
      send_json(res, 403, {{"error", fmt::format("Host '{}' is not this server ({})", req.get_header_value("Host"),
                                                 allowed.front())}});
      return R::Handled;
    }
    if (!origin_allowed(allowed, req.get_header_value("Origin"))) {
      send_json(res, 403, {{"error", fmt::format("Origin '{}' is not this server (http://{})",
                                                 req.get_header_value("Origin"), allowed.front())}});
      return R::Handled;
    }
    bool ok = req.has_header("Cookie") &&
              tokens_equal(cookie_value(req.get_header_value("Cookie"), kExploreCookie), session);
    if (!ok) {
      std::string given;
      const std::string auth = req.get_header_value("Authorization");
      constexpr std::string_view bearer = "Bearer ";
      const bool link = auth.empty() && req.path == "/" && req.has_param("token");
      if (auth.compare(0, bearer.size(), bearer) == 0) given = auth.substr(bearer.size());
      if (link) given = req.get_param_value("token");
      std::lock_guard lock(m);
      ok = !(options.link_once && link_used) && tokens_equal(given, token);
      if (ok && link) {
        res.set_header("Set-Cookie",
                       fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict", kExploreCookie, session));
        if (options.link_once) link_used = true;
      }
    }
    if (!ok) {
      send_json(res, 401, {{"error", "the access token is missing, wrong or already used: open the address deid "
                                     "serve --explore printed"}});
      return R::Handled;
    }
    for (const Route& route : explore_routes()) {
      if (!route_matches(route, req.path)) continue;
      if (allows(route.allow, req.method)) return R::Unhandled;
      res.set_header("Allow", route.allow);
      send_json(res, 405, {{"error", fmt::format("{} is not a method of {}: the explorer is read-only ({})",
                                                 req.method, req.path, route.allow)}});
      return R::Handled;
    }
    send_json(res, 404, {{"error", fmt::format("no such path: {} (this is deid's data explorer)", req.path)}});
    return R::Handled;
  }

  template <class F>
  httplib::Server::Handler guarded(F f) {
    return [f = std::move(f)](const httplib::Request& req, httplib::Response& res) {
      answer(res, [](std::string m) { return m; }, [&] {
        try {
          f(req, res);
        } catch (const ExploreTable::QueryError& e) {
          throw HttpError(400, e.what());
        }
      });
    };
  }

  void routes() {
    using httplib::Request;
    using httplib::Response;
    http.set_common_handlers(kExploreCsp, [this](const Request& req, Response& res) { return admit(req, res); });
    http.set_exception_handler([](const Request&, Response& res, std::exception_ptr) {
      send_json(res, 500, {{"error", "internal error"}});
    });
    // No request of the explorer has a body: a small one is read and the
    // request answered by its route (404, 405), a larger one is 413.
    http.set_payload_max_length(kMaxBody);

    http.Get("/", guarded([](const Request&, Response& res) {
      const WebAsset* page = find_web_asset("explore.html");
      if (page == nullptr) throw HttpError(404, "no explore.html");
      res.set_content(reinterpret_cast<const char*>(page->data), page->size, page->type);
    }));
    http.Get("/assets/([a-z0-9_-]+\\.[a-z]+)", guarded([](const Request& req, Response& res) {
      const std::string name = req.matches[1].str();
      const WebAsset* asset = std::find(std::begin(kAssets), std::end(kAssets), name) == std::end(kAssets)
                                  ? nullptr
                                  : find_web_asset(name);
      if (asset == nullptr) throw HttpError(404, fmt::format("no asset '{}'", name));
      res.set_content(reinterpret_cast<const char*>(asset->data), asset->size, asset->type);
    }));
    http.Get("/api/v1/table", guarded([this](const Request& req, Response& res) {
      if (!req.params.empty()) throw HttpError(400, "/api/v1/table takes no parameters");
      send_json(res, 200, table.describe());
    }));
    http.Get("/api/v1/rows", guarded([this](const Request& req, Response& res) {
      send_json(res, 200, table.page(parse_query(req, {})));
    }));
    http.Get("/api/v1/frequencies", guarded([this](const Request& req, Response& res) {
      const ExploreQuery q = parse_query(req, {"column"});
      send_json(res, 200, table.frequencies(required_param(req, "column"), q));
    }));
    http.Get("/api/v1/crosstab", guarded([this](const Request& req, Response& res) {
      const ExploreQuery q = parse_query(req, {"row", "column"});
      send_json(res, 200, table.crosstab(required_param(req, "row"), required_param(req, "column"), q));
    }));
  }
};

ExploreServer::ExploreServer(ExploreOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl& s = *impl_;
  s.token = s.options.token.empty() ? random_hex(32) : s.options.token;
  s.session = random_hex(32);
  ConnectionLimits limits;
  limits.max_threads = std::max<std::size_t>(2, s.options.max_threads);
  limits.max_connections = s.options.max_connections;
  limits.max_per_client = s.options.max_connections;
  limits.max_body_bytes = kMaxBody;
  limits.head_timeout = s.options.request_timeout;
  limits.io_timeout = s.options.request_timeout;
  limits.allow = explore_allow;
  s.connections = std::make_unique<ConnectionServer>(
      limits, [&http = s.http](httplib::Stream& stream, bool close, bool& closed) {
        return http.serve_request(stream, close, closed);
      });
  s.routes();
}

ExploreServer::~ExploreServer() { stop(); }

int ExploreServer::bind() {
  Impl& s = *impl_;
  try {
    s.port = s.connections->bind(s.options.host, s.options.port);
  } catch (const std::runtime_error& e) {
    throw IoError(Location{}, fmt::format("cannot listen on {}:{} ({}: in use, or not an address of this machine)",
                                          s.options.host, s.options.port, e.what()));
  }
  s.http.set_listening_socket(s.connections->listening_socket());
  s.allowed = allowed_hosts(s.options.host, s.port);
  return s.port;
}

bool ExploreServer::listen() { return impl_->connections->run(); }

void ExploreServer::stop() {
  impl_->http.set_listening_socket(-1);
  impl_->connections->stop();
}

std::string ExploreServer::url() const {
  const auto& h = impl_->options.host;
  const std::string host = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  return fmt::format("http://{}:{}/?token={}", host, impl_->port, impl_->token);
}

const std::string& ExploreServer::token() const { return impl_->token; }
const ExploreTable& ExploreServer::table() const { return impl_->table; }

}  // namespace deid::serve
