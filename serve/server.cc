#include "server.h"

#include <stdlib.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "deid/error.h"
#include "deid/identifiers.h"
#include "deid/output.h"
#include "routes.h"
#include "server_impl.h"

namespace deid::serve {

namespace fs = std::filesystem;
namespace {

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

std::shared_ptr<void> Server::Impl::open_stream(const std::string& client) {
  std::lock_guard lock(streams_m);
  if (streams >= max_streams())
    throw HttpError(503, fmt::format("{} event streams are open, the server's limit: poll GET /api/v1/jobs/ID instead, "
                                     "or close a stream",
                                     streams));
  std::size_t& mine = client_streams[client];
  if (mine >= max_client_streams())
    throw HttpError(503, fmt::format("this client has {} event streams open, the limit per client: poll GET "
                                     "/api/v1/jobs/ID instead, or close a stream",
                                     mine));
  ++streams;
  ++mine;
  return std::shared_ptr<void>(nullptr, [this, client](void*) {
    std::lock_guard lock(streams_m);
    --streams;
    auto it = client_streams.find(client);
    if (it != client_streams.end() && --it->second == 0) client_streams.erase(it);
  });
}

httplib::Server::HandlerResponse Server::Impl::admit(const httplib::Request& req, httplib::Response& res) const {
  using R = httplib::Server::HandlerResponse;
  // A page of another site (DNS rebinding, cross-site requests) cannot
  // name this server in Host and Origin.
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
  std::string given;
  const std::string auth = req.get_header_value("Authorization");
  constexpr std::string_view bearer = "Bearer ";
  if (auth.compare(0, bearer.size(), bearer) == 0)
    given = auth.substr(bearer.size());
  else if (req.has_header("Cookie"))
    given = cookie_value(req.get_header_value("Cookie"), kCookie);
  if (given.empty() && req.path == "/" && req.has_param("token")) given = req.get_param_value("token");
  if (!tokens_equal(given, token)) {
    res.set_header("WWW-Authenticate", "Bearer");
    send_json(res, 401, {{"error", "the access token is missing or wrong: send 'Authorization: Bearer TOKEN' or "
                                   "open the address deid serve printed"}});
    return R::Handled;
  }
  // Every method httplib parses reaches this point (it answers no other):
  // one a path does not take is 405 with the ones it does, before any
  // body is read; a path no route has is 404 whatever the method.
  for (const Route& route : routes_table()) {
    if (!route_matches(route, req.path)) continue;
    if (allows(route.allow, req.method)) return R::Unhandled;
    res.set_header("Allow", route.allow);
    send_json(res, 405, {{"error", fmt::format("{} is not a method of {}: it takes {}", req.method, req.path,
                                               route.allow)}});
    return R::Handled;
  }
  send_json(res, 404, {{"error", fmt::format("no such path: {}", req.path)}});
  return R::Handled;
}

std::shared_ptr<JobState> Server::Impl::finished_job(const std::string& id) const {
  auto job = store->job(id);
  std::lock_guard lock(job->m);
  if (job->status != JobStatus::done)
    throw HttpError(409, fmt::format("job '{}' is {}{}", id, to_string(job->status),
                                     job->status == JobStatus::failed ? ": " + job->error : ""));
  return job;
}

Server::Server(ServeOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.options = std::move(options);
  s.token = s.options.token.empty() ? random_hex(32) : s.options.token;
  StoreOptions store;
  if (!s.options.data_dir.empty()) {
    std::error_code ec;
    store.data_dir = fs::canonical(s.options.data_dir, ec);
    if (ec || !fs::is_directory(store.data_dir))
      throw IoError(Location{s.options.data_dir, 0, 0, {}}, "--data-dir: not a directory");
  }
  // The secret is read before anything is made, so that a server whose
  // secret cannot be used does not start (load_secret's errors name the
  // file); it is kept in the state directory (owner only), which jobs
  // read: it stays the same while the server runs, and messages name no
  // path of the server's.
  std::optional<Secret> secret;
  if (!s.options.secret_file.empty()) {
    Job probe;
    probe.identifiers.emplace();
    probe.identifiers->secret_file = s.options.secret_file;
    secret = load_secret(probe);
    if (secret->warning) throw IoError(Location{s.options.secret_file, 0, 0, {}}, *secret->warning);
  }
  // The share's configuration too (its errors name the file and line).
  if (!s.options.share_config.empty()) s.share = std::make_unique<ShareView>(s.options.share_config);
  std::error_code ec;
  const fs::path parent = fs::canonical(s.options.state_parent, ec);
  if (ec) throw IoError(Location{s.options.state_parent, 0, 0, {}}, fmt::format("state directory: {}", ec.message()));
  std::string pattern = (parent / "deid-serve-XXXXXX").string();
  // mkdtemp makes it readable and writable by this user only (0700).
  if (::mkdtemp(pattern.data()) == nullptr)
    throw IoError(Location{parent.string(), 0, 0, {}}, "cannot make the state directory deid-serve-XXXXXX here");
  s.state_dir = pattern;
  store.state_dir = s.state_dir;
  store.workers = s.options.workers;
  store.max_datasets = s.options.max_datasets;
  store.max_jobs = s.options.max_jobs;
  store.on_phase = s.options.on_phase;
  if (secret) {
    store.secret_file = s.state_dir / "secret.key";
    try {
      OutputFile kept(store.secret_file.string(), "secret");
      kept.owner_only();
      kept.stream() << secret->bytes;
      kept.finish("secret");
      kept.publish();
    } catch (...) {
      fs::remove_all(s.state_dir, ec);
      throw;
    }
    store.secret_fingerprint = secret->fingerprint;
  }
  s.store = std::make_unique<Store>(std::move(store));

  s.json_limits.max_bytes = std::min(s.json_limits.max_bytes, s.options.max_upload_bytes);
  ConnectionLimits limits;
  limits.max_threads = std::max<std::size_t>(2, s.options.max_threads);
  limits.max_connections = s.options.max_connections;
  limits.max_per_client = s.options.max_connections_per_client;
  limits.max_body_bytes = s.options.max_upload_bytes;
  limits.head_timeout = s.options.request_timeout;
  limits.io_timeout = s.options.request_timeout;
  limits.allow = allowed_methods;
  s.connections = std::make_unique<ConnectionServer>(
      limits, [&http = s.http](httplib::Stream& stream, bool close, bool& closed) {
        return http.serve_request(stream, close, closed);
      });
  s.routes();
}

Server::~Server() {
  stop();
  impl_->store.reset();
  std::error_code ec;
  fs::remove_all(impl_->state_dir, ec);
}

int Server::bind() {
  Impl& s = *impl_;
  int port = -1;
  try {
    port = s.connections->bind(s.options.host, s.options.port);
  } catch (const std::runtime_error& e) {
    throw IoError(Location{}, fmt::format("cannot listen on {}:{} ({}: in use, or not an address of this machine)",
                                          s.options.host, s.options.port, e.what()));
  }
  s.http.set_listening_socket(s.connections->listening_socket());
  s.port = port;
  s.allowed = allowed_hosts(s.options.host, port);
  return port;
}

bool Server::listen() { return impl_->connections->run(); }

void Server::stop() {
  impl_->store->stop();
  impl_->http.set_listening_socket(-1);
  impl_->connections->stop();
}

std::string Server::url() const {
  const auto& h = impl_->options.host;
  const std::string host = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  return fmt::format("http://{}:{}/?token={}", host, impl_->port, impl_->token);
}

const std::string& Server::token() const { return impl_->token; }
const fs::path& Server::state_dir() const { return impl_->state_dir; }
bool Server::loopback() const { return is_loopback(impl_->options.host); }

}  // namespace deid::serve
