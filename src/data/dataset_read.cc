// Reading a CSV text into a Dataset (deid/dataset.h, dataset_read.h): the
// text is read in blocks of whole records (record_source.h), each block cut
// into pieces that are parsed and encoded in parallel with their own
// dictionaries (piece.h), and the pieces merged in file order, so codes are
// numbered in order of first appearance for any thread count.
#include <fmt/format.h>

#include <boost/locale/utf.hpp>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>

#include "data/dataset_read.h"
#include "data/piece.h"
#include "data/record_source.h"
#include "deid/csv.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "io/csv_parse.h"

namespace deid {
namespace {

using detail::HeaderSink;
using detail::Piece;
using detail::PieceSink;
using detail::FileSource;
using detail::Source;
using detail::split_records;
using detail::StreamSource;
using detail::TextSource;

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
