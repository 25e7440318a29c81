// SHA-256 through OpenSSL's EVP interface (sha256.h).
#include "sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace verify {
namespace {

struct CtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct FileClose {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string hex(const unsigned char* digest, unsigned int size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(kDigits[digest[i] >> 4]);
    out.push_back(kDigits[digest[i] & 0xF]);
  }
  return out;
}

// Feeds chunks from `next` (returns the bytes read, 0 at the end, -1 on an
// error) to SHA-256; nullopt when OpenSSL or `next` fails.
template <typename Next>
std::optional<std::string> digest_of(Next next) {
  std::unique_ptr<EVP_MD_CTX, CtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return std::nullopt;
  std::vector<unsigned char> buffer(1 << 16);
  for (;;) {
    const long n = next(buffer.data(), buffer.size());
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    if (EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(n)) != 1) return std::nullopt;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &size) != 1) return std::nullopt;
  return hex(digest, size);
}

}  // namespace

std::optional<FileDigest> sha256_file(const std::string& path, std::string* error) {
  std::unique_ptr<std::FILE, FileClose> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    if (error) *error = path + ": cannot open: " + std::strerror(errno);
    return std::nullopt;
  }
  FileDigest out;
  int read_errno = 0;
  auto digest = digest_of([&](unsigned char* data, std::size_t size) -> long {
    const std::size_t n = std::fread(data, 1, size, file.get());
    if (n == 0 && std::ferror(file.get())) {
      read_errno = errno;
      return -1;
    }
    out.bytes += n;
    return static_cast<long>(n);
  });
  if (!digest) {
    if (error)
      *error = path + ": cannot read" + (read_errno ? std::string(": ") + std::strerror(read_errno) : std::string(" (SHA-256 failed)"));
    return std::nullopt;
  }
  out.sha256 = std::move(*digest);
  return out;
}

std::string sha256_hex(std::string_view data) {
  bool done = false;
  auto digest = digest_of([&](unsigned char* buffer, std::size_t size) -> long {
    if (done) return 0;
    // One chunk at a time, as the file reader does.
    const std::size_t n = std::min(size, data.size());
    std::memcpy(buffer, data.data(), n);
    data.remove_prefix(n);
    done = data.empty();
    return static_cast<long>(n);
  });
  return digest.value_or(std::string());
}

}  // namespace verify
