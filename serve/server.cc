#include "server.h"

#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "httplib_include.h"

#include "connections.h"
#include "deid/error.h"
#include "web_assets.h"
#include "security.h"
#include "store.h"

#ifndef DEID_VERSION
#define DEID_VERSION "unknown"
#endif

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kCookie = "deid_token";
constexpr const char* kId = "([0-9a-f]{32})";
// Every response: nothing but this server's own files, no framing, no
// sniffing, no referrer, no caching of identifiable data.
constexpr const char* kCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
// The HTML report carries its styles inline; it is shown sandboxed (an
// origin of its own, no script), so it can reach nothing of this server.
constexpr const char* kReportCsp =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; sandbox";

// Written with invalid UTF-8 replaced (dump_json): a message that quotes
// a client's bytes (a Host header, a JSON parser's last token) is still
// answered with its status, never a 500.
void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump_json(body, 2) + "\n", "application/json");
}

// httplib that is served by ConnectionServer (connections.h): its request
// parser and response writer, one request at a time.
class HttpServer : public httplib::Server {
 public:
  bool serve_request(httplib::Stream& stream, bool close, bool& closed) {
    return process_request(stream, close, closed, nullptr);
  }
  // httplib ends its chunked responses (the event streams) once this is
  // not a socket; it never listens on it itself.
  void set_listening_socket(int fd) { svr_sock_ = fd < 0 ? INVALID_SOCKET : fd; }
  ~HttpServer() override { svr_sock_ = INVALID_SOCKET; }
};

// The methods each path answers; any other method on it is 405 with Allow.
// A path's pattern is its segments: a word, words separated by '|' (any of
// them), ID (32 lowercase hexadecimal digits, a dataset's or job's id) or
// FILE (an asset's name: [a-z0-9_-]+ '.' [a-z]+). Matched segment by segment
// rather than with std::regex, whose instantiation GCC 12 warns about
// (-Wmaybe-uninitialized) in the sanitizer build.
struct Route {
  std::vector<std::string> segments;
  const char* allow;
};

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path.front() != '/') return {std::string_view("\x01")};  // matches no pattern
  path.remove_prefix(1);
  while (true) {
    const std::size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

bool segment_matches(std::string_view pattern, std::string_view s) {
  const auto all = [&](auto ok) {
    for (const char c : s)
      if (!ok(c)) return false;
    return true;
  };
  if (pattern == "ID")
    return s.size() == 32 && all([](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  if (pattern == "FILE") {
    const std::size_t dot = s.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size()) return false;
    const std::string_view stem = s.substr(0, dot), ext = s.substr(dot + 1);
    for (const char c : stem)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
    for (const char c : ext)
      if (!(c >= 'a' && c <= 'z')) return false;
    return true;
  }
  for (std::size_t from = 0;;) {
    const std::size_t bar = pattern.find('|', from);
    if (pattern.substr(from, bar == std::string_view::npos ? pattern.npos : bar - from) == s) return true;
    if (bar == std::string_view::npos) return false;
    from = bar + 1;
  }
}

bool route_matches(const Route& route, std::string_view path) {
  const std::vector<std::string_view> parts = split_path(path);
  if (parts.size() != route.segments.size()) return false;
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (!segment_matches(route.segments[i], parts[i])) return false;
  return true;
}

const std::vector<Route>& routes_table() {
  static const std::vector<Route> table = {
      {{""}, "GET, HEAD"},
      {{"assets", "FILE"}, "GET, HEAD"},
      {{"api", "v1", "version|files"}, "GET, HEAD"},
      {{"api", "v1", "datasets|jobs"}, "POST"},
      {{"api", "v1", "datasets", "ID", "hierarchy-preview"}, "POST"},
      {{"api", "v1", "datasets|jobs", "ID"}, "GET, HEAD, DELETE"},
      {{"api", "v1", "jobs", "ID", "events|result|job.yaml|output|report"}, "GET, HEAD"},
  };
  return table;
}

bool allows(const char* allow, const std::string& method) {
  const std::string list = std::string(", ") + allow + ",";
  return list.find(", " + method + ",") != std::string::npos;
}

const char* reason(int status) {
  switch (status) {
    case 400: return "bad request: the request line, a header or the body could not be parsed";
    case 408: return "the request did not arrive in time";
    case 401: return "the access token is missing or wrong";
    case 403: return "forbidden";
    case 404: return "not found";
    case 405: return "method not allowed";
    case 409: return "conflict";
    case 413: return "the request body is larger than the server's limit (--max-upload-mb)";
    case 415: return "unsupported media type";
    default: return status >= 500 ? "internal error" : "error";
  }
}

// Runs `body`, answering HttpError with its status and message and any
// other exception with 500, instead of letting it reach httplib; no
// message names a directory of the server (`redact`).
template <class F>
void answer(httplib::Response& res, const std::function<std::string(std::string)>& redact, F&& body) {
  try {
    body();
  } catch (const HttpError& e) {
    send_json(res, e.status(), {{"error", redact(e.what())}});
  } catch (const std::exception& e) {
    send_json(res, 500, {{"error", fmt::format("internal error: {}", redact(e.what()))}});
  }
}

// Reads the whole body through `reader`, at most `limit` bytes, for every
// transfer encoding (chunked too) and content encoding (the count is of
// the bytes httplib hands over, after decompression): 413 beyond, and the
// rest is not read (the connection is then closed).
std::string read_body(const httplib::Request& req, const httplib::ContentReader& reader, std::size_t limit) {
  if (req.is_multipart_form_data())
    throw HttpError(415, "multipart/form-data is not taken: send the table as the body (text/csv), or JSON");
  std::string body;
  bool over = false;
  const bool ok = reader([&](const char* data, std::size_t n) {
    if (body.size() + n > limit) {
      over = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  if (over) throw HttpError(413, fmt::format("the request body is larger than the server's limit of {} bytes", limit));
  if (!ok) throw HttpError(400, "the request body could not be read (a broken chunked or compressed encoding, or the "
                                "client stopped sending)");
  return body;
}

// Streams a file of a finished job as the response.
void send_file(httplib::Response& res, const fs::path& path, const std::string& type) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw HttpError(404, "the job wrote no such file");
  auto in = std::make_shared<std::ifstream>(path, std::ios::binary);
  if (!*in) throw HttpError(404, "the job wrote no such file");
  res.set_content_provider(static_cast<std::size_t>(size), type,
                           [in](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                             char buffer[1 << 16];
                             in->seekg(static_cast<std::streamoff>(offset));
                             const std::size_t n = std::min(length, sizeof buffer);
                             in->read(buffer, static_cast<std::streamsize>(n));
                             const auto got = static_cast<std::size_t>(in->gcount());
                             return got > 0 && sink.write(buffer, got);
                           });
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

struct Server::Impl {
  ServeOptions options;
  fs::path state_dir;
  std::unique_ptr<Store> store;
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
  httplib::Server::HandlerResponse admit(const httplib::Request& req, httplib::Response& res) const;
  std::shared_ptr<JobState> finished_job(const std::string& id) const;
};

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

void Server::Impl::routes() {
  using httplib::Request;
  using httplib::Response;
  http.set_default_headers({{"Content-Security-Policy", kCsp},
                            {"X-Content-Type-Options", "nosniff"},
                            {"Referrer-Policy", "no-referrer"},
                            {"Cache-Control", "no-store"},
                            {"X-Frame-Options", "DENY"}});
  http.set_pre_routing_handler([this](const Request& req, Response& res) { return admit(req, res); });
  http.set_error_handler(httplib::Server::HandlerWithResponse([](const Request&, Response& res) {
    if (res.body.empty() && !res.is_chunked_content_provider_ && res.content_length_ == 0)
      send_json(res, res.status, {{"error", reason(res.status)}});
    return httplib::Server::HandlerResponse::Handled;
  }));
  // An exception out of httplib's own code (no handler lets one through).
  http.set_exception_handler([this](const Request&, Response& res, std::exception_ptr error) {
    std::string what = "unknown";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_json(res, 500, {{"error", fmt::format("internal error: {}", store->redact(what))}});
  });
  http.set_payload_max_length(options.max_upload_bytes);

  // The web app (serve/web, compiled in by cmake/embed.cmake): index.html
  // at /, every file at /assets/NAME.
  http.Get("/", guarded([this](const Request& req, Response& res) {
    // Opened with ?token=: from now on the browser sends the cookie, to
    // this server only, never from another site's page.
    if (req.has_param("token"))
      res.set_header("Set-Cookie", fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict", kCookie, token));
    const WebAsset* index = find_web_asset("index.html");
    if (index == nullptr) throw HttpError(404, "no index.html");
    res.set_content(reinterpret_cast<const char*>(index->data), index->size, index->type);
  }));
  http.Get("/assets/([a-z0-9_-]+\\.[a-z]+)", guarded([](const Request& req, Response& res) {
    const WebAsset* asset = find_web_asset(req.matches[1].str());
    if (asset == nullptr) throw HttpError(404, fmt::format("no asset '{}'", req.matches[1].str()));
    res.set_content(reinterpret_cast<const char*>(asset->data), asset->size, asset->type);
  }));
  http.Get("/api/v1/version", guarded([](const Request&, Response& res) {
    send_json(res, 200, {{"name", "deid"}, {"version", DEID_VERSION}, {"api", "v1"}});
  }));

  http.Get("/api/v1/files", guarded([this](const Request&, Response& res) { send_json(res, 200, store->files()); }));

  http.Post("/api/v1/datasets",
            guarded_reader([this](const Request& req, Response& res, const httplib::ContentReader& reader) {
              const std::string type = req.get_header_value("Content-Type");
              if (type.rfind("application/json", 0) == 0) {
                // {"file": "relative/path.csv"}: a file of the data directory.
                const json spec = parse_json_body(read_body(req, reader, json_limits.max_bytes), json_limits);
                if (!spec.is_object() || !spec.contains("file") || !spec["file"].is_string())
                  throw HttpError(400, "send {\"file\": \"PATH\"}, a CSV file under the data directory (GET /api/v1/files)");
                send_json(res, 201, {{"id", store->add_dataset_file(spec["file"].get<std::string>())}});
                return;
              }
              if (type.rfind("text/csv", 0) != 0)
                throw HttpError(415, fmt::format("send the table as Content-Type: text/csv, or {{\"file\": PATH}} as "
                                                 "application/json (got '{}')",
                                                 type));
              if (req.is_multipart_form_data())
                throw HttpError(415, "multipart/form-data is not taken: send the table itself as the body (text/csv)");
              const std::string name = req.get_param_value("name");
              if (!valid_utf8(name)) throw HttpError(400, "the name (?name=) is not valid UTF-8");
              const fs::path upload = store->upload_path();
              bool ok = false, over = false;
              {
                // Counted as received, whatever the transfer encoding: a
                // chunked body has no Content-Length for httplib to check.
                std::size_t received = 0;
                std::ofstream out(upload, std::ios::binary);
                ok = reader([&](const char* data, std::size_t n) {
                  received += n;
                  if (received > options.max_upload_bytes) {
                    over = true;
                    return false;
                  }
                  out.write(data, static_cast<std::streamsize>(n));
                  return static_cast<bool>(out);
                });
                out.close();
                ok = ok && !over && static_cast<bool>(out);
              }
              if (!ok) {
                std::error_code ec;
                fs::remove(upload, ec);
                if (over || res.status == 413)
                  throw HttpError(413, fmt::format("the upload is larger than the server's limit of {} bytes "
                                                   "(--max-upload-mb)",
                                                   options.max_upload_bytes));
                throw HttpError(400, "the upload could not be received or stored");
              }
              send_json(res, 201, {{"id", store->add_dataset(upload, name)}});
            }));
  http.Get(fmt::format("/api/v1/datasets/{}", kId), guarded([this](const Request& req, Response& res) {
             send_json(res, 200, store->dataset(req.matches[1]));
           }));
  http.Post(fmt::format("/api/v1/datasets/{}/hierarchy-preview", kId),
            guarded_reader([this](const Request& req, Response& res, const httplib::ContentReader& reader) {
              const json spec = parse_json_body(read_body(req, reader, json_limits.max_bytes), json_limits);
              if (!spec.is_object() || !spec.contains("column") || !spec["column"].is_string() ||
                  !spec.contains("builder"))
                throw HttpError(400, "send {\"column\": NAME, \"builder\": {\"type\": ..., ...}}");
              send_json(res, 200, store->hierarchy_preview(req.matches[1], spec["column"].get<std::string>(),
                                                           spec["builder"]));
            }));
  // DELETE takes no body: the reader is never called, so none is read
  // (httplib would read one into memory for a plain handler).
  http.Delete(fmt::format("/api/v1/datasets/{}", kId),
              guarded_reader([this](const Request& req, Response& res, const httplib::ContentReader&) {
                store->delete_dataset(req.matches[1]);
                res.status = 204;
              }));

  http.Post("/api/v1/jobs",
            guarded_reader([this](const Request& req, Response& res, const httplib::ContentReader& reader) {
              json spec = parse_json_body(read_body(req, reader, json_limits.max_bytes), json_limits);
              send_json(res, 202, {{"id", store->add_job(std::move(spec))}});
            }));
  http.Get(fmt::format("/api/v1/jobs/{}", kId), guarded([this](const Request& req, Response& res) {
             const auto job = store->job(req.matches[1]);
             std::lock_guard lock(job->m);
             send_json(res, 200, job->status_json());
           }));
  http.Delete(fmt::format("/api/v1/jobs/{}", kId),
              guarded_reader([this](const Request& req, Response& res, const httplib::ContentReader&) {
                const std::string id = req.matches[1];
                if (!store->cancel_job(id)) throw HttpError(409, fmt::format("job '{}' has finished", id));
                const auto job = store->job(id);
                std::lock_guard lock(job->m);
                send_json(res, 202, job->status_json());
              }));
  http.Get(fmt::format("/api/v1/jobs/{}/events", kId), guarded([this](const Request& req, Response& res) {
             auto job = store->job(req.matches[1]);
             Store* store_ptr = store.get();
             // Released when httplib drops the provider, as the response ends.
             auto slot = open_stream(req.remote_addr);
             res.set_chunked_content_provider(
                 "text/event-stream",
                 [job, store_ptr, slot, last = ~std::uint64_t{0}](std::size_t, httplib::DataSink& sink) mutable {
                   std::unique_lock lock(job->m);
                   job->changed.wait_for(lock, std::chrono::seconds(1),
                                         [&] { return job->version != last || store_ptr->stopping(); });
                   if (job->version == last) {
                     lock.unlock();
                     if (store_ptr->stopping()) {
                       sink.done();
                       return true;
                     }
                     // A comment: finds a closed connection, keeps proxies open.
                     static constexpr char keep_alive[] = ": keep-alive\n\n";
                     return sink.write(keep_alive, sizeof keep_alive - 1);
                   }
                   last = job->version;
                   const json status = job->status_json();
                   const bool end = finished(job->status);
                   lock.unlock();
                   const std::string event = fmt::format("event: {}\ndata: {}\n\n",
                                                         end ? status["status"].get<std::string>() : "status",
                                                         dump_json(status));
                   if (!sink.write(event.data(), event.size())) return false;
                   if (end) sink.done();
                   return true;
                 });
           }));
  http.Get(fmt::format("/api/v1/jobs/{}/result", kId), guarded([this](const Request& req, Response& res) {
             send_file(res, finished_job(req.matches[1])->dir / "result.json", "application/json");
           }));
  http.Get(fmt::format("/api/v1/jobs/{}/job.yaml", kId), guarded([this](const Request& req, Response& res) {
             res.set_content(store->job_yaml(req.matches[1]), "application/yaml; charset=utf-8");
           }));
  http.Get(fmt::format("/api/v1/jobs/{}/output", kId), guarded([this](const Request& req, Response& res) {
             const auto job = finished_job(req.matches[1]);
             if (job->command == Command::risk)
               throw HttpError(404, "a risk job releases no table: its figures are /result and /report");
             if (!job->releases_table())
               throw HttpError(404, "no transformation satisfies the job, so nothing was released (see /result)");
             send_file(res, job->dir / "output.csv", "text/csv; charset=utf-8");
           }));
  http.Get(fmt::format("/api/v1/jobs/{}/report", kId), guarded([this](const Request& req, Response& res) {
             const auto job = finished_job(req.matches[1]);
             if (!job->writes_report())
               throw HttpError(404, "a suppress job writes no report (as deid suppress): its figures are /result");
             send_file(res, job->dir / "report.html", "text/html; charset=utf-8");
             res.headers.erase("Content-Security-Policy");
             res.set_header("Content-Security-Policy", kReportCsp);
           }));
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
  s.store = std::make_unique<Store>(std::move(store));
  s.json_limits.max_bytes = std::min(s.json_limits.max_bytes, s.options.max_upload_bytes);
  ConnectionLimits limits;
  limits.max_threads = std::max<std::size_t>(2, s.options.max_threads);
  limits.max_connections = s.options.max_connections;
  limits.max_per_client = s.options.max_connections_per_client;
  limits.max_body_bytes = s.options.max_upload_bytes;
  limits.head_timeout = s.options.request_timeout;
  limits.io_timeout = s.options.request_timeout;
  limits.allow = [](const std::string& path) {
    for (const Route& route : routes_table())
      if (route_matches(route, path)) return std::string(route.allow);
    return std::string("GET, HEAD, POST, DELETE");
  };
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
