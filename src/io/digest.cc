#include "deid/digest.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "deid/error.h"

namespace deid {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw IoError(Location{path, 0, 0, {}}, problem);
}

std::string reason(int err) { return std::strerror(err); }

}  // namespace

struct Sha256::State {
  EVP_MD_CTX* ctx = nullptr;
  ~State() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  if (state_->ctx == nullptr || EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr) != 1)
    throw Error("SHA-256: libcrypto could not start a digest");
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  if (!bytes.empty() && EVP_DigestUpdate(state_->ctx, bytes.data(), bytes.size()) != 1)
    throw Error("SHA-256: libcrypto failed to update a digest");
}

std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(state_->ctx, md, &n) != 1) throw Error("SHA-256: libcrypto failed to finish a digest");
  std::string out;
  out.reserve(2 * n);
  for (unsigned int i = 0; i < n; ++i) out += fmt::format("{:02x}", md[i]);
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

std::string sha256_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, fmt::format("cannot open file for reading ({})", reason(errno)));
  Sha256 h;
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t got = ::read(fd, buf.data(), buf.size());
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      fail(path, fmt::format("cannot read file ({})", reason(err)));
    }
    h.update(std::string_view(buf.data(), static_cast<std::size_t>(got)));
  }
  ::close(fd);
  return h.hex();
}

nlohmann::json to_json(const std::vector<FileDigest>& files) {
  nlohmann::json out = nlohmann::json::array();
  for (const FileDigest& f : files) {
    out.push_back({{"role", f.role}, {"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}});
    if (f.pushdown.empty()) continue;
    out.back()["pushdown"] = f.pushdown;
    if (f.pushdown == "database") {
      out.back()["sha256"] = nullptr;
      out.back()["rows"] = f.rows;
    }
  }
  return out;
}

}  // namespace deid
