// How `deid serve` answers (server.cc, endpoints.cc): JSON bodies, error
// statuses with their message, request bodies read within a limit, and
// files of finished jobs streamed. Internal to serve/.
#pragma once

#include <exception>
#include <filesystem>
#include <functional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "httplib_include.h"

#include "security.h"

namespace deid::serve {

// Written with invalid UTF-8 replaced (dump_json): a message that quotes
// a client's bytes (a Host header, a JSON parser's last token) is still
// answered with its status, never a 500.
void send_json(httplib::Response& res, int status, const nlohmann::json& body);

// The message of an error status httplib answers itself (400, 404, ...).
const char* reason(int status);

// Runs `body`, answering HttpError with its status and message and any
// other exception with 500, instead of letting it reach httplib; no
// message names a directory of the server (`redact`).
template <class F>
void answer(httplib::Response& res, const std::function<std::string(std::string)>& redact, F&& body) {
  try {
    body();
  } catch (const HttpError& e) {
    send_json(res, e.status(), {{"error", redact(e.what())}});
    // Over a limit: the connection goes too, rather than holding a thread
    // of the pool for the idle timeout.
    if (e.status() == 503) res.set_header("Connection", "close");
  } catch (const std::exception& e) {
    send_json(res, 500, {{"error", fmt::format("internal error: {}", redact(e.what()))}});
  }
}

// Reads the whole body through `reader`, at most `limit` bytes, for every
// transfer encoding (chunked too) and content encoding (the count is of
// the bytes httplib hands over, after decompression): 413 beyond, and the
// rest is not read (the connection is then closed).
std::string read_body(const httplib::Request& req, const httplib::ContentReader& reader, std::size_t limit);

// Streams a file of a finished job as the response.
void send_file(httplib::Response& res, const std::filesystem::path& path, const std::string& type);

}  // namespace deid::serve
