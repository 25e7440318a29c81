// SHA-256 of a file, for `deid verify` to tie a released table to the
// result that describes it (the result's "files" array, docs/verify.md).
// Computed with OpenSSL's libcrypto (EVP interface), the one library besides
// the C++ standard library that the verifier links; nothing of the engine
// is used.
//
// Thread-safety: no shared state; call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace verify {

struct FileDigest {
  std::string sha256;      // 64 lowercase hex digits
  std::uint64_t bytes = 0; // size of the file
};

// The digest of the file at `path`, read in binary. nullopt, with `*error`
// naming the file and the system's reason, when it cannot be opened or read.
std::optional<FileDigest> sha256_file(const std::string& path, std::string* error);

// The digest of `data` (for tests and known-answer checks).
std::string sha256_hex(std::string_view data);

}  // namespace verify
