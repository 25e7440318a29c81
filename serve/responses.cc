#include "responses.h"

#include <fstream>
#include <memory>

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump_json(body, 2) + "\n", "application/json");
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

}  // namespace deid::serve
