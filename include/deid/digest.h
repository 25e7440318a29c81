// SHA-256 digests of the files a run reads and writes: the result names
// the digest of its input and of every output (FileDigest), so that a table
// can always be tied to the result that describes it. Thread-safety: the
// functions have no shared state; a Sha256 object is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace deid {

// SHA-256 (FIPS 180-4) through OpenSSL's libcrypto, incrementally.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  // The digest as 64 lowercase hexadecimal digits; ends the computation.
  std::string hex();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_hex(std::string_view bytes);
// Of a file's content; throws IoError when it cannot be read.
std::string sha256_file(const std::string& path);

// A file a run read or wrote, for the result's "files" list: the result
// names the SHA-256 of its input and of every output, so that a table can
// always be tied to the result that describes it (and `deid verify
// --result` checks the tie).
struct FileDigest {
  std::string role;    // "input", "output", "report", "sample"
  std::string path;    // as the job resolved it
  std::string sha256;  // 64 lowercase hex digits
  std::uint64_t bytes = 0;
  // A table the database grouped or wrote itself (docs/databases.md,
  // "Pushdown"): "histogram" for the input (sha256 and bytes: of the
  // grouped text received), "database" for the output (no bytes passed
  // through deid: sha256 empty, bytes 0; rows: the rows written).
  std::string pushdown;
  std::uint64_t rows = 0;
};
nlohmann::json to_json(const std::vector<FileDigest>& files);

}  // namespace deid
