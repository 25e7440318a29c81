#include "deid/dataset.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <fcntl.h>
#include <fmt/format.h>

#include <boost/locale/utf.hpp>
#include <sys/stat.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>

#include "data/dataset_read.h"
#include "deid/error.h"
#include "deid/output.h"
#include "io/csv_parse.h"
#include "util/release.h"

namespace deid {

// --- Dictionary --------------------------------------------------------------

// The index is a set of codes hashed and compared through the values, so each
// string is stored once (in values_); `values` is re-pointed when the
// Dictionary moves.
struct Dictionary::Index {
  const std::vector<std::string>* values = nullptr;
  struct Hash {
    using is_transparent = void;
    const Index* ix;
    std::size_t operator()(absl::string_view v) const { return absl::Hash<absl::string_view>{}(v); }
    std::size_t operator()(std::uint32_t c) const { return (*this)(absl::string_view((*ix->values)[c])); }
  };
  struct Eq {
    using is_transparent = void;
    const Index* ix;
    absl::string_view at(std::uint32_t c) const { return (*ix->values)[c]; }
    bool operator()(std::uint32_t a, std::uint32_t b) const { return a == b; }
    bool operator()(std::uint32_t a, absl::string_view b) const { return at(a) == b; }
    bool operator()(absl::string_view a, std::uint32_t b) const { return a == at(b); }
  };
  absl::flat_hash_set<std::uint32_t, Hash, Eq> set{0, Hash{this}, Eq{this}};
};

Dictionary::Dictionary() : index_(std::make_unique<Index>()) { index_->values = &values_; }
Dictionary::~Dictionary() = default;
Dictionary::Dictionary(Dictionary&& o) noexcept : index_(std::move(o.index_)), values_(std::move(o.values_)) {
  if (index_) index_->values = &values_;
}
Dictionary& Dictionary::operator=(Dictionary&& o) noexcept {
  index_ = std::move(o.index_);
  values_ = std::move(o.values_);
  if (index_) index_->values = &values_;
  return *this;
}

std::uint32_t Dictionary::intern(std::string_view value) {
  const absl::string_view v(value.data(), value.size());
  if (auto it = index_->set.find(v); it != index_->set.end()) return *it;
  const auto code = static_cast<std::uint32_t>(values_.size());
  values_.emplace_back(value);
  index_->set.insert(code);
  return code;
}

std::int64_t Dictionary::find(std::string_view value) const {
  auto it = index_->set.find(absl::string_view(value.data(), value.size()));
  return it == index_->set.end() ? -1 : static_cast<std::int64_t>(*it);
}

// --- Codes -------------------------------------------------------------------

unsigned code_width(std::uint32_t n) { return n <= 0x100u ? 1 : n <= 0x10000u ? 2 : 4; }

Codes::Codes(std::size_t n, unsigned width) {
  if (width <= 1)
    storage_.emplace<0>(n);
  else if (width == 2)
    storage_.emplace<1>(n);
  else
    storage_.emplace<2>(n);
}

std::size_t Codes::size() const {
  return std::visit([](const auto& v) { return v.size(); }, storage_);
}

void Codes::widen(unsigned width, std::size_t rows) {
  if (width > this->width()) {
    Codes wider(0, width);
    std::visit(
        [&](auto& to) {
          to.reserve(std::max(rows, size()));
          visit([&](auto from) { to.assign(from.begin(), from.end()); });
        },
        wider.storage_);
    *this = std::move(wider);
  } else {
    std::visit([&](auto& v) { v.reserve(rows); }, storage_);
  }
}

void Codes::resize(std::size_t n) {
  std::visit([&](auto& v) { v.resize(n); }, storage_);
}

void Codes::push_back(std::uint32_t code) {
  if (code > 0xFFu && width() < 2) widen(code > 0xFFFFu ? 4 : 2);
  if (code > 0xFFFFu && width() < 4) widen(4);
  std::visit([&](auto& v) { v.push_back(static_cast<typename std::decay_t<decltype(v)>::value_type>(code)); },
             storage_);
}

std::vector<std::uint32_t> Codes::to_vector() const {
  return visit([](auto s) { return std::vector<std::uint32_t>(s.begin(), s.end()); });
}

// --- Dataset -----------------------------------------------------------------

void Dataset::release_grouped_rows() {
  if (!grouped()) return;
  for (Column& c : columns) c.codes.clear();
  util::release(weights);
}

int Dataset::column_index(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string Dataset::not_a_column() const {
  std::string out = fmt::format("is not a column of {}", source);
  if (columns.size() == 1) {
    const std::string& header = columns.front().name;
    for (const char d : {';', ',', '\t', '|'})
      if (d != delimiter && header.find(d) != std::string::npos)
        return out + fmt::format(": the header was read as one column ('{}') with the delimiter '{}'; set "
                                 "input.delimiter: '{}'",
                                 header.size() > 80 ? header.substr(0, 77) + "..." : header,
                                 delimiter == '\t' ? "\\t" : std::string(1, delimiter),
                                 d == '\t' ? "\\t" : std::string(1, d));
  }
  std::string names;
  for (std::size_t i = 0; i < columns.size() && i < 20; ++i)
    names += fmt::format("{}'{}'", i ? ", " : "", columns[i].name);
  if (columns.size() > 20) names += fmt::format(" and {} more", columns.size() - 20);
  return out + fmt::format(" (its columns: {})", names);
}

namespace {

using csv_detail::Failure;

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

class FileSource final : public Source {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw IoError(Location{path, 0, 0, {}}, "cannot read: this is a directory, not a file");
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      throw IoError(Location{path, 0, 0, {}}, fmt::format("cannot open file for reading ({})", std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  std::size_t read(char* dst, std::size_t n) override {
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

// A piece's dictionary of one column: open addressing over the values'
// bytes with a 64-bit hash kept per value, so a probe compares bytes only
// when the hashes agree. Hand-written because this lookup runs once per
// cell: on the 1.2 M-row survey table (10.7 M cells, one thread) it took
// reading and encoding from 327 ms to 297 ms of CPU against
// absl::flat_hash_map keyed by string_view (medians of 3, csv_bench).
class LocalDictionary {
 public:
  LocalDictionary() : slots_(64, 0), mask_(63) {}

  // The hash intern() takes.
  static std::uint64_t hash(std::string_view v) {
    const char* p = v.data();
    std::size_t n = v.size();
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xFF51AFD7ED558CCDull);
    while (n >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
      p += 8;
      n -= 8;
    }
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < n; ++i) w |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    h = (h ^ w) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
  }
  // Returns the code of `v`, adding it (stored as `stored`, which must equal
  // v and outlive the dictionary) when new; `added` tells which.
  template <class Store>
  std::uint32_t intern(std::string_view v, std::uint64_t h, Store&& store, bool& added) {
    std::size_t i = h & mask_;
    for (;;) {
      const std::uint32_t s = slots_[i];
      if (s == 0) break;
      const std::uint32_t code = s - 1;
      if (hashes_[code] == h && equal(values_[code], v)) {
        added = false;
        return code;
      }
      i = (i + 1) & mask_;
    }
    const auto code = static_cast<std::uint32_t>(values_.size());
    values_.push_back(store(v));
    hashes_.push_back(h);
    slots_[i] = code + 1;
    added = true;
    if (values_.size() * 2 > slots_.size()) grow();
    return code;
  }
  const std::vector<std::string_view>& values() const { return values_; }

 private:
  // Inline: the values are short, and a call to memcmp per cell cost more
  // than the comparison itself (18 % of the read in a profile).
  static bool equal(std::string_view a, std::string_view b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t x, y;
      std::memcpy(&x, a.data() + i, 8);
      std::memcpy(&y, b.data() + i, 8);
      if (x != y) return false;
    }
    for (; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  void grow() {
    std::vector<std::uint32_t> slots(slots_.size() * 2, 0);
    const std::size_t mask = slots.size() - 1;
    for (std::uint32_t code = 0; code < values_.size(); ++code) {
      std::size_t i = hashes_[code] & mask;
      while (slots[i] != 0) i = (i + 1) & mask;
      slots[i] = code + 1;
    }
    slots_ = std::move(slots);
    mask_ = mask;
  }

  std::vector<std::uint32_t> slots_;  // code + 1; 0 = empty
  std::size_t mask_;
  std::vector<std::string_view> values_;
  std::vector<std::uint64_t> hashes_;
};

// One piece of a block, parsed and encoded with its own dictionaries.
struct Piece {
  std::size_t begin = 0, end = 0;  // offsets in the block
  std::size_t bad_utf8 = std::string_view::npos;
  Failure failure;
  std::uint64_t lines = 0;
  std::uint64_t rows = 0;
  std::vector<std::uint32_t> codes;  // row-major, local codes
  struct Local {
    LocalDictionary dictionary;
    std::vector<std::uint64_t> first_line;  // by local code, relative to the piece
  };
  std::vector<Local> columns;
  std::deque<std::string> owned;  // values unescaped from doubled quotes
  std::vector<std::vector<std::uint32_t>> to_global;  // per column: local → global code
};

struct PieceSink {
  Piece* piece;
  const char* text_begin;
  const char* text_end;
  void field(std::size_t c, std::string_view v, std::uint64_t line) {
    Piece::Local& col = piece->columns[c];
    bool added;
    const std::uint32_t code = col.dictionary.intern(v, LocalDictionary::hash(v), [&](std::string_view x) {
      if (x.data() >= text_begin && x.data() < text_end) return x;
      return std::string_view(piece->owned.emplace_back(x));  // unescaped into scratch memory
    }, added);
    if (added) col.first_line.push_back(line);
    piece->codes.push_back(code);
  }
  void record(std::uint64_t, std::size_t) { ++piece->rows; }
};

// Counts the header's record for the sequential first step.
struct HeaderSink {
  std::vector<std::string> names;
  std::uint64_t line = 0;
  void field(std::size_t i, std::string_view v, std::uint64_t) {
    if (names.size() <= i) names.resize(i + 1);
    names[i].assign(v);
  }
  void record(std::uint64_t l, std::size_t n) {
    names.resize(n);
    line = l;
  }
};

// The longest record the reader takes: far beyond any table's row, short of
// what a binary file without line breaks would make it allocate.
constexpr std::size_t kMaxRecordBytes = std::size_t{256} << 20;
// A record this long (and not yet complete) is checked for what is not text
// before the buffer grows further: reached only by records longer than the
// reader's block (16 MiB) in production, and never by the small blocks of
// the tests, whose errors must not depend on the block size.
constexpr std::size_t kCheckPartialBytes = std::size_t{1} << 20;

class Encoder {
 public:
  Encoder(Source& src, const std::string& name, const CsvOptions& options, const detail::ReadTuning& tuning)
      : src_(src), name_(name), options_(options), tuning_(tuning) {
    ds_.source = name;
  }

  Dataset run() {
    const std::uint64_t hint = src_.size_hint();
    std::string buf(hint > 0 ? static_cast<std::size_t>(std::min<std::uint64_t>(tuning_.block_bytes, hint + 1))
                             : tuning_.block_bytes,
                    '\0');
    std::size_t have = 0;
    bool eof = false;
    bool first = true;
    for (;;) {
      while (have < buf.size() && !eof) {
        const std::size_t got = src_.read(buf.data() + have, buf.size() - have);
        if (got == 0) eof = true;
        have += got;
      }
      std::size_t skip = 0;
      if (first) {
        if (have < csv_detail::kUtf8Bom.size() && !eof) {  // too little to tell whether a BOM starts the file
          buf.resize(buf.size() * 2);
          continue;
        }
        first = false;
        const std::string_view all(buf.data(), have);
        if (all.starts_with(csv_detail::kUtf8Bom)) skip = csv_detail::kUtf8Bom.size();
      }
      std::string_view text(buf.data() + skip, have - skip);
      cuts_.clear();
      const std::size_t block_end = split_records(text, tuning_.piece_bytes, eof, cuts_);
      if (block_end == 0 && !eof) {  // no complete record yet: read more
        // What is not text (a NUL byte: a binary file, /dev/zero) or a record
        // no table has is reported before the buffer grows without bound.
        if (text.size() >= kCheckPartialBytes) check_partial_record(text);
        if (text.size() >= kMaxRecordBytes)
          throw InputError(Location{name_, line_ + 1 + csv_detail::count_lines(text), 0, {}},
                           fmt::format("a record longer than {} MiB: is this a CSV file? (a quoted field whose "
                                       "closing quote is missing runs to the end of the file)",
                                       kMaxRecordBytes >> 20));
        if (skip) {
          std::memmove(buf.data(), buf.data() + skip, have - skip);
          have -= skip;
        }
        buf.resize(buf.size() * 2);
        continue;
      }
      const std::string_view block = text.substr(0, block_end);
      const std::string_view rest = text.substr(block_end);
      try {
        if (!delimiter_) start(block);
        encode_block(block);
      } catch (const InputError&) {
        if (!utf8_thrown_) check_utf8_to_end(block, rest, eof);
        throw;
      }
      line_ += block_lines_;
      std::memmove(buf.data(), rest.data(), rest.size());
      have = rest.size();
      if (eof && have == 0) break;
      if (buf.size() > tuning_.block_bytes && have < tuning_.block_bytes) {  // a long record made it grow
        buf.resize(tuning_.block_bytes);
        buf.shrink_to_fit();
      }
    }
    if (!header_seen_) throw InputError(Location{name_, 0, 0, {}}, "the file is empty: a header row is required");
    if (ds_.rows == 0)
      throw InputError(Location{name_, header_line_, 0, {}}, "the file has a header row but no data records");
    return std::move(ds_);
  }

 private:
  // The first block: what the whole file is (UTF-16?) and its delimiter.
  void start(std::string_view block) {
    utf8_thrown_ = true;  // a UTF-16 file is reported as such, as read_csv does
    csv_detail::check_not_utf16(block, name_);
    utf8_thrown_ = false;
    delimiter_ = options_.delimiter ? *options_.delimiter : detect_delimiter(block);
    if (*delimiter_ == '"' || *delimiter_ == '\r' || *delimiter_ == '\n')
      throw InputError(Location{name_, 0, 0, {}}, "the delimiter cannot be a quote or a line break");
    ds_.delimiter = *delimiter_;
  }

  // The start of a record longer than the buffer: the errors the whole
  // record would get, in the same order, as far as they are certain now (a
  // UTF-16 file first; then the first byte that is no UTF-8 text, unless it
  // is a sequence the next read may complete), so that the message does not
  // depend on the block size.
  void check_partial_record(std::string_view text) {
    if (!delimiter_) {
      if (text.size() < 2) return;  // too little to tell UTF-16
      utf8_thrown_ = true;
      csv_detail::check_not_utf16(text, name_);
      utf8_thrown_ = false;
    }
    const std::size_t bad = csv_detail::find_invalid_utf8(text);
    if (bad == std::string_view::npos) return;
    if (text[bad] != '\0') {
      const char* p = text.data() + bad;
      if (boost::locale::utf::utf_traits<char>::decode(p, text.data() + text.size()) == boost::locale::utf::incomplete)
        return;
    }
    throw_utf8(text, bad, line_ + 1);
  }

  [[noreturn]] void throw_utf8(std::string_view text, std::size_t at, std::uint64_t base_line) {
    utf8_thrown_ = true;
    csv_detail::throw_invalid_utf8(text, at, name_, base_line);
  }

  // An error other than invalid UTF-8 is about to be reported from `block`:
  // invalid UTF-8 anywhere in the file is reported instead, as read_csv does
  // (it checks the whole text first).
  void check_utf8_to_end(std::string_view block, std::string_view rest, bool eof) {
    std::uint64_t base = line_ + 1;
    if (const std::size_t bad = csv_detail::find_invalid_utf8(block); bad != std::string_view::npos)
      throw_utf8(block, bad, base);
    base += csv_detail::count_lines(block);
    std::string tail(rest);
    std::string more;  // allocated only when there is more to read (not for a text in memory)
    for (;;) {
      // Check up to the last LF, so that no UTF-8 sequence and no CRLF is cut.
      std::size_t upto = tail.size();
      if (!eof) {
        const std::size_t lf = tail.rfind('\n');
        upto = lf == std::string::npos ? 0 : lf + 1;
      }
      const std::string_view part(tail.data(), upto);
      if (const std::size_t bad = csv_detail::find_invalid_utf8(part); bad != std::string_view::npos)
        throw_utf8(part, bad, base);
      base += csv_detail::count_lines(part);
      tail.erase(0, upto);
      if (eof) return;
      more.resize(tuning_.block_bytes);
      const std::size_t got = src_.read(more.data(), more.size());
      if (got == 0) eof = true;
      tail.append(more.data(), got);
    }
  }

  void encode_block(std::string_view block) {
    block_lines_ = 0;
    std::size_t from = 0;
    if (!header_seen_) {
      from = read_header(block);
      if (!header_seen_) {
        block_lines_ = csv_detail::count_lines(block);
        return;
      }
    }
    // Pieces: [from, cuts_[0]), [cuts_[0], cuts_[1]), ... (cuts_ ends with the block end).
    pieces_.clear();
    for (std::size_t cut : cuts_) {
      if (cut <= from) continue;
      Piece& p = pieces_.emplace_back();
      p.begin = from;
      p.end = cut;
      from = cut;
    }
    const std::size_t ncols = ds_.columns.size();
    const char delim = *delimiter_;
    tbb::parallel_for(std::size_t{0}, pieces_.size(), [&](std::size_t i) {
      Piece& p = pieces_[i];
      const std::string_view text = block.substr(p.begin, p.end - p.begin);
      p.bad_utf8 = csv_detail::find_invalid_utf8(text);
      if (p.bad_utf8 != std::string_view::npos) return;
      p.columns.resize(ncols);
      p.codes.reserve(text.size() / 8);
      PieceSink sink{&p, text.data(), text.data() + text.size()};
      csv_detail::Scratch scratch;
      std::size_t expected = ncols;
      const csv_detail::ParseResult res = csv_detail::parse_records(text, delim, expected, false, sink, scratch);
      p.failure = res.failure;
      p.lines = res.lines;
    });
    for (const Piece& p : pieces_)
      if (p.bad_utf8 != std::string_view::npos) throw_utf8(block, p.begin + p.bad_utf8, line_ + 1);
    std::uint64_t piece_line = line_ + 1 + block_lines_;  // absolute line of the piece's first line
    std::uint64_t rows = ds_.rows;
    std::vector<std::uint64_t> first_row(pieces_.size());
    for (std::size_t i = 0; i < pieces_.size(); ++i) {
      Piece& p = pieces_[i];
      if (p.failure)
        csv_detail::throw_failure(p.failure, name_, piece_line, header_names_, true, ncols, header_line_);
      first_row[i] = rows;
      rows += p.rows;
      // Merge in file order: global codes in order of first appearance.
      p.to_global.resize(ncols);
      for (std::size_t c = 0; c < ncols; ++c) {
        Column& col = ds_.columns[c];
        const Piece::Local& local = p.columns[c];
        auto& map = p.to_global[c];
        const std::vector<std::string_view>& values = local.dictionary.values();
        map.resize(values.size());
        for (std::size_t v = 0; v < values.size(); ++v) {
          const std::uint32_t g = col.dictionary.intern(values[v]);
          if (g == col.first_line.size()) col.first_line.push_back(piece_line + local.first_line[v]);
          map[v] = g;
        }
      }
      piece_line += p.lines;
    }
    block_lines_ = piece_line - (line_ + 1);
    if (reserve_rows_ == 0 && src_.size_hint() > 0 && rows > ds_.rows) {
      // Room for the whole file, estimated from this block (+3 %), so that the
      // code vectors are not copied as they grow.
      const double per_byte = static_cast<double>(rows - ds_.rows) / static_cast<double>(block.size());
      reserve_rows_ = static_cast<std::size_t>(per_byte * 1.03 * static_cast<double>(src_.size_hint())) + 1024;
    }
    for (Column& col : ds_.columns) {
      const std::size_t room = std::max<std::size_t>(reserve_rows_, rows);
      col.codes.widen(code_width(col.dictionary.size()), room);
      col.codes.resize(rows);
    }
    tbb::parallel_for(std::size_t{0}, pieces_.size(), [&](std::size_t i) {
      const Piece& p = pieces_[i];
      // A piece of blank lines has no codes: `p.codes.data() + c` would
      // offset a null pointer (undefined behaviour, found by fuzz_csv).
      if (p.rows == 0) return;
      for (std::size_t c = 0; c < ncols; ++c) {
        const std::uint32_t* map = p.to_global[c].data();
        const std::uint32_t* local = p.codes.data() + c;
        ds_.columns[c].codes.visit_mut([&](auto out) {
          using T = typename decltype(out)::value_type;
          T* dst = out.data() + first_row[i];
          for (std::uint64_t r = 0; r < p.rows; ++r) dst[r] = static_cast<T>(map[local[r * ncols]]);
        });
      }
    });
    ds_.rows = rows;
    pieces_.clear();
  }

  // Parses the header record at the start of `block` (blank lines may come
  // first); returns where the data records start.
  std::size_t read_header(std::string_view block) {
    HeaderSink sink;
    csv_detail::Scratch scratch;
    std::size_t expected = 0;
    const csv_detail::ParseResult res = csv_detail::parse_records(block, *delimiter_, expected, true, sink, scratch, 1);
    const std::string_view header_text = block.substr(0, res.end);
    if (const std::size_t bad = csv_detail::find_invalid_utf8(header_text); bad != std::string_view::npos)
      throw_utf8(header_text, bad, line_ + 1);
    if (res.failure) csv_detail::throw_failure(res.failure, name_, line_ + 1, {}, true, 0, 0);
    block_lines_ = res.lines;
    if (res.records == 0) return res.end;
    header_seen_ = true;
    header_line_ = line_ + 1 + sink.line;
    for (std::size_t c = 0; c < sink.names.size(); ++c) {
      const std::string& h = sink.names[c];
      if (h.empty())
        throw InputError(Location{name_, header_line_, c + 1, {}},
                         fmt::format("column {} has an empty name in the header row; every column needs a name",
                                     c + 1));
      for (std::size_t d = 0; d < c; ++d)
        if (sink.names[d] == h)
          throw InputError(Location{name_, header_line_, c + 1, h},
                           fmt::format("duplicate column name '{}' in the header row (columns {} and {})", h, d + 1,
                                       c + 1));
      ds_.columns.emplace_back();
      ds_.columns.back().name = h;
    }
    header_names_ = std::move(sink.names);
    return res.end;
  }

  Source& src_;
  const std::string& name_;
  const CsvOptions& options_;
  detail::ReadTuning tuning_;
  Dataset ds_;
  std::optional<char> delimiter_;
  bool header_seen_ = false;
  bool utf8_thrown_ = false;
  std::uint64_t header_line_ = 0;
  std::vector<std::string> header_names_;
  std::uint64_t line_ = 0;         // lines of the blocks before the current one
  std::uint64_t block_lines_ = 0;  // lines of the current block handled so far
  std::size_t reserve_rows_ = 0;
  std::vector<std::size_t> cuts_;
  std::deque<Piece> pieces_;
};

}  // namespace

namespace detail {

Dataset read_dataset_text(std::string_view text, const std::string& name, const CsvOptions& options,
                          const ReadTuning& tuning) {
  TextSource src(text);
  return Encoder(src, name, options, tuning).run();
}

}  // namespace detail

Dataset read_dataset(const std::string& path, const CsvOptions& options) {
  FileSource src(path);
  Dataset ds = Encoder(src, path, options, detail::ReadTuning{}).run();
  ds.sha256 = src.digest();
  ds.bytes = src.bytes();
  return ds;
}

Dataset read_dataset_stream(const std::function<std::size_t(char*, std::size_t)>& read, const std::string& name,
                            const CsvOptions& options) {
  StreamSource src(read);
  return Encoder(src, name, options, detail::ReadTuning{}).run();
}

Dataset read_dataset_text(std::string_view text, const std::string& name, const CsvOptions& options) {
  TextSource src(text);
  return Encoder(src, name, options, detail::ReadTuning{}).run();
}

}  // namespace deid
