// The REST API of `deid serve` (docs/web.md): the web app's files, the
// datasets and the jobs, each path with its handler, behind the security
// gate (Server::Impl::admit, server.cc).
#include <chrono>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "server_impl.h"
#include "web_assets.h"

#ifndef DEID_VERSION
#define DEID_VERSION "unknown"
#endif

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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

}  // namespace

void Server::Impl::routes() {
  using httplib::Request;
  using httplib::Response;
  http.set_common_handlers(kCsp, [this](const Request& req, Response& res) { return admit(req, res); });
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
  http.Get("/api/v1/version", guarded([this](const Request&, Response& res) {
    // Whether jobs may pseudonymize and shift dates: the fingerprint of the
    // server's secret (never the secret), or null.
    const std::string& fingerprint = store->secret_fingerprint();
    send_json(res, 200,
              {{"name", "deid"},
               {"version", DEID_VERSION},
               {"api", "v1"},
               {"secret_fingerprint", fingerprint.empty() ? nlohmann::json(nullptr) : nlohmann::json(fingerprint)},
               // Whether the /share paths answer (--share; endpoints_share.cc).
               {"share", share != nullptr}});
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
  // The inspection (store_inspect.cc): an empty body or
  // {"max_combination_size": N}.
  http.Post(fmt::format("/api/v1/datasets/{}/inspect", kId),
            guarded_reader([this](const Request& req, Response& res, const httplib::ContentReader& reader) {
              const std::string body = read_body(req, reader, json_limits.max_bytes);
              int size = 3;
              if (body.find_first_not_of(" \t\r\n") != std::string::npos) {
                const json spec = parse_json_body(body, json_limits);
                if (!spec.is_object()) throw HttpError(400, "send {} or {\"max_combination_size\": 1 to 8}");
                for (const auto& [key, value] : spec.items())
                  if (key != "max_combination_size")
                    throw HttpError(400, fmt::format("unknown key '{}' (allowed: max_combination_size)", key));
                if (spec.contains("max_combination_size")) {
                  const json& n = spec["max_combination_size"];
                  if (!n.is_number_integer() || n.get<std::int64_t>() < 1 || n.get<std::int64_t>() > 8)
                    throw HttpError(400, "'max_combination_size' must be an integer from 1 to 8");
                  size = n.get<int>();
                }
              }
              send_json(res, 200, store->inspect(req.matches[1], size));
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
  share_routes();
}

}  // namespace deid::serve
