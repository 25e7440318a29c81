// The CSV reader's sources and record cutting (record_source.h).
#include "data/record_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "deid/error.h"

namespace deid::detail {

FileSource::FileSource(const std::string& path) : path_(path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw IoError(Location{path, 0, 0, {}}, "cannot read: this is a directory, not a file");
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw IoError(Location{path, 0, 0, {}}, fmt::format("cannot open file for reading ({})", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
}

FileSource::~FileSource() { ::close(fd_); }

std::size_t FileSource::read(char* dst, std::size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, dst, n);
    if (got >= 0) {
      // The digest of exactly the bytes parsed, for the result's "files".
      sha_.update(std::string_view(dst, static_cast<std::size_t>(got)));
      bytes_ += static_cast<std::uint64_t>(got);
      return static_cast<std::size_t>(got);
    }
    if (errno != EINTR)
      throw IoError(Location{path_, 0, 0, {}}, fmt::format("cannot read file ({})", std::strerror(errno)));
  }
}

std::size_t split_records(std::string_view text, std::size_t piece, bool at_eof, std::vector<std::size_t>& cuts) {
  const char* const base = text.data();
  const std::size_t n = text.size();
  std::size_t block_end = 0;
  if (std::memchr(base, '"', n) == nullptr) {
    // No quotes: every line end is a record end.
    std::size_t i = n;
    while (i > 0) {
      const char c = base[i - 1];
      if (c == '\n' || (c == '\r' && (i < n || at_eof))) break;  // a CR at the very end may be half a CRLF
      --i;
    }
    block_end = at_eof ? n : i;
    std::size_t from = 0;
    while (from + piece < block_end) {
      std::size_t j = from + piece;
      while (j < block_end && base[j] != '\n' && base[j] != '\r') ++j;
      if (j < block_end && base[j] == '\r' && j + 1 < n && base[j + 1] == '\n') ++j;
      if (j >= block_end - 1) break;
      cuts.push_back(j + 1);
      from = j + 1;
    }
  } else {
    bool quoted = false;
    std::size_t from = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const char c = base[i];
      if (c == '"') {
        quoted = !quoted;
      } else if (!quoted && (c == '\n' || c == '\r')) {
        if (c == '\r') {
          if (i + 1 < n && base[i + 1] == '\n')
            ++i;
          else if (i + 1 == n && !at_eof)
            break;
        }
        block_end = i + 1;
        if (block_end - from >= piece) {
          cuts.push_back(block_end);
          from = block_end;
        }
      }
    }
    if (at_eof) block_end = n;
    while (!cuts.empty() && cuts.back() >= block_end) cuts.pop_back();
  }
  if (block_end > 0) cuts.push_back(block_end);
  return block_end;
}

}  // namespace deid::detail
