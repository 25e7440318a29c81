// Internal to the CSV reader (dataset_read.cc): where its bytes come from
// (a file, a stream, a text in memory) and how a block of text is cut into
// pieces of whole records for parallel encoding.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "deid/digest.h"

namespace deid::detail {

// Where the bytes come from: a file, or a text in memory (tests, tools).
class Source {
 public:
  virtual ~Source() = default;
  // Reads up to `n` bytes into `dst`; returns 0 at the end.
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  // Total size when known (for reserving), else 0.
  virtual std::uint64_t size_hint() const = 0;
};

class TextSource final : public Source {
 public:
  explicit TextSource(std::string_view text) : text_(text) {}
  std::size_t read(char* dst, std::size_t n) override {
    n = std::min(n, text_.size() - pos_);
    std::memcpy(dst, text_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::uint64_t size_hint() const override { return text_.size(); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

class StreamSource final : public Source {
 public:
  explicit StreamSource(const std::function<std::size_t(char*, std::size_t)>& read) : read_(read) {}
  std::size_t read(char* dst, std::size_t n) override { return read_(dst, n); }
  std::uint64_t size_hint() const override { return 0; }

 private:
  const std::function<std::size_t(char*, std::size_t)>& read_;
};

// A file read with read(2); the SHA-256 and the count of the bytes read are
// those of exactly what was parsed. Throws IoError for a directory or a
// file that cannot be opened or read.
class FileSource final : public Source {
 public:
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  std::size_t read(char* dst, std::size_t n) override;
  std::uint64_t size_hint() const override { return size_; }
  std::string digest() { return sha_.hex(); }
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  Sha256 sha_;
  std::uint64_t bytes_ = 0;
};

// Cuts `text`, which starts at a record boundary, into pieces of whole
// records of at least `piece` bytes. Appends the piece ends to `cuts` (the
// last one is the block end) and returns the block end: the end of the last
// complete record, or the end of the text when `at_eof`; 0 when the text
// holds no complete record. A record ends at a line end outside quotes;
// counting quotes (a doubled quote toggles twice) tells inside from outside
// in well-formed CSV, and where the count goes wrong the parser reports an
// error at or before that place, in a piece whose start is still right.
std::size_t split_records(std::string_view text, std::size_t piece, bool at_eof, std::vector<std::size_t>& cuts);

}  // namespace deid::detail
