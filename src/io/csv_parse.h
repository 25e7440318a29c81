// Internal to libdeid: the RFC 4180 record parser shared by read_csv
// (src/io/csv.cc) and the parallel dataset encoder (src/data/dataset_read.cc).
//
// The parser works on a piece of text that starts at a record boundary and
// hands each field to a sink as a string_view: a view into the text when the
// field has no doubled quote, else a view into scratch memory that stays
// valid until the record ends. It never throws on malformed input; it stops
// and returns a Failure (lines relative to the piece) so that pieces can be
// parsed in parallel and the error of the earliest piece reported, exactly
// as a sequential pass would report it. throw_failure() words the error the
// way read_csv documents it.
//
// Grammar (what libcsv accepts with CSV_STRICT | CSV_STRICT_FINI and no
// space characters, which this parser replaced): a field that starts with a
// quote is quoted and ends at a quote followed by the delimiter, CR, LF or
// the end of the text ("" inside it is one quote; any other character after
// the closing quote is an error); an unquoted field runs to the delimiter,
// CR or LF and must not contain a quote. LF, CRLF and a lone CR end a
// physical line; outside quotes they end the record. Lines holding nothing
// (outside quotes) are skipped.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace deid::csv_detail {

struct Failure {
  enum class Kind : std::uint8_t { none, stray_quote, after_quote, unterminated, too_few, too_many };
  Kind kind = Kind::none;
  std::uint64_t record_line = 0;  // 0-based line, relative to the piece, on which the record starts
  std::uint64_t line = 0;         // relative line of the offending character (quote errors)
  std::size_t character = 0;      // its 1-based byte within that line
  std::size_t fields = 0;         // quote errors: fields completed before; count errors: fields of the record
  char bad = 0;                   // the character after a closing quote
  explicit operator bool() const { return kind != Kind::none; }
};

struct ParseResult {
  Failure failure;
  std::uint64_t lines = 0;    // line ends consumed (the piece's lines when it was parsed to its end)
  std::size_t end = 0;        // offset where parsing stopped
  std::uint64_t records = 0;  // records handed to the sink
};

// Scratch memory for unescaped quoted fields, one string per field index
// (a deque: growing it must not move the strings earlier fields point into).
struct Scratch {
  std::deque<std::string> fields;
};

// Byte classes of the unquoted-field scan: 1 for the delimiter, CR, LF and
// the quote.
struct StopTable {
  bool stop[256];
  explicit StopTable(char delim) {
    std::memset(stop, 0, sizeof stop);
    stop[static_cast<unsigned char>(delim)] = true;
    stop[static_cast<unsigned char>('\r')] = true;
    stop[static_cast<unsigned char>('\n')] = true;
    stop[static_cast<unsigned char>('"')] = true;
  }
};

constexpr std::uint64_t kOnes = 0x0101010101010101ull;
constexpr std::uint64_t kPatCr = kOnes * '\r';
constexpr std::uint64_t kPatLf = kOnes * '\n';
constexpr std::uint64_t kPatQuote = kOnes * '"';
// High bit set in each byte of the result at or below the first zero byte
// of `w` (exact for the lowest one).
inline std::uint64_t zero_bytes(std::uint64_t w) { return (w - kOnes) & ~w & (kOnes << 7); }

// Parses the records of `text`, at most `max_records` of them. `expected`
// is the number of fields per record: 0 means "take it from the first
// record" (it is then set); with `ragged` any count is accepted. The sink
// receives
//   field(index, value, line)    for index < expected (every field when
//                                 expected is 0 or ragged), and
//   record(line, fields)         once the record has been checked,
// where `line` is the 0-based line relative to `text`. A sink may throw
// (the sequential reader's callback); the parser holds no resource.
template <class Sink>
ParseResult parse_records(std::string_view text, char delim, std::size_t& expected, bool ragged, Sink& sink,
                          Scratch& scratch, std::uint64_t max_records = ~std::uint64_t{0}) {
  const StopTable table(delim);
  const bool* const stop = table.stop;
  const std::uint64_t pat_delim = kOnes * static_cast<unsigned char>(delim);

  ParseResult res;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin;
  const char* line_start = begin;
  std::uint64_t line = 0;
  auto fail = [&](Failure::Kind kind, std::uint64_t record_line, std::size_t fields, const char* at) {
    res.failure.kind = kind;
    res.failure.record_line = record_line;
    res.failure.fields = fields;
    res.failure.line = line;
    res.failure.character = at ? static_cast<std::size_t>(at - line_start) + 1 : 0;
    res.failure.bad = at && at < end ? *at : '\0';
    res.lines = line;
    res.end = static_cast<std::size_t>((at ? at : end) - begin);
    return res;
  };

  while (res.records < max_records) {
    // Skip blank lines.
    while (p < end && (*p == '\n' || *p == '\r')) {
      p += (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
      ++line;
      line_start = p;
    }
    if (p == end) break;
    const std::uint64_t record_line = line;
    const bool check = expected != 0 && !ragged;
    std::size_t nf = 0;
    for (;;) {  // one field per iteration; p is at the field's first byte
      std::string_view value;
      if (p < end && *p == '"') {
        ++p;
        const char* start = p;
        bool escaped = false;
        for (;;) {
          while (p < end && *p != '"' && *p != '\n' && *p != '\r') ++p;
          if (p == end) return fail(Failure::Kind::unterminated, record_line, nf, nullptr);
          if (*p == '"') {
            if (p + 1 < end && p[1] == '"') {
              escaped = true;
              p += 2;
              continue;
            }
            break;
          }
          p += (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
          ++line;
          line_start = p;
        }
        if (!escaped) {
          value = std::string_view(start, static_cast<std::size_t>(p - start));
        } else {
          if (scratch.fields.size() <= nf) scratch.fields.resize(nf + 1);
          std::string& s = scratch.fields[nf];
          s.clear();
          for (const char* q = start; q < p; ++q) {
            s.push_back(*q);
            if (*q == '"') ++q;  // the second quote of a pair
          }
          value = s;
        }
        ++p;  // the closing quote
        if (p < end && *p != delim && *p != '\n' && *p != '\r')
          return fail(Failure::Kind::after_quote, record_line, nf, p);
      } else {
        const char* start = p;
        // Eight bytes at a time while they hold none of the four stop bytes
        // (SWAR: a zero byte of w ^ pattern marks a match; the lowest marked
        // byte is exact). Took parsing the survey table (read_csv_text, no
        // encoding) from 130 ms to 117 ms of CPU (csv_bench).
        while (end - p >= 8) {
          std::uint64_t w;
          std::memcpy(&w, p, 8);
          const std::uint64_t m = zero_bytes(w ^ pat_delim) | zero_bytes(w ^ kPatCr) | zero_bytes(w ^ kPatLf) |
                                  zero_bytes(w ^ kPatQuote);
          if (m != 0) {
            p += std::countr_zero(m) / 8;
            goto found;
          }
          p += 8;
        }
        while (p < end && !stop[static_cast<unsigned char>(*p)]) ++p;
      found:
        if (p < end && *p == '"') return fail(Failure::Kind::stray_quote, record_line, nf, p);
        value = std::string_view(start, static_cast<std::size_t>(p - start));
      }
      if (!check || nf < expected) sink.field(nf, value, record_line);
      ++nf;
      if (p < end && *p == delim) {
        ++p;
        continue;
      }
      break;  // CR, LF or the end of the text
    }
    if (p < end) {  // the record's line end
      p += (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
      ++line;
      line_start = p;
    }
    if (check && nf != expected)
      return fail(nf < expected ? Failure::Kind::too_few : Failure::Kind::too_many, record_line, nf, nullptr);
    if (expected == 0) expected = nf;
    sink.record(record_line, nf);
    ++res.records;
  }
  res.lines = line;
  res.end = static_cast<std::size_t>(p - begin);
  return res;
}

// Wording of the errors (csv.h): throws InputError for `f`, a failure of a
// piece whose relative line 0 is absolute line `base_line`. `header` names
// the columns (empty when the file has no header or the failing record is
// the header); `expected` and `first_line` describe the first record.
[[noreturn]] void throw_failure(const Failure& f, const std::string& name, std::uint64_t base_line,
                                const std::vector<std::string>& header, bool has_header, std::size_t expected,
                                std::uint64_t first_line);

// Offset of the first byte of `text` that does not start a valid UTF-8
// sequence, or npos.
std::size_t find_invalid_utf8(std::string_view text);

// Throws the InputError for invalid UTF-8 at offset `at` of `text`, whose
// first line is absolute line `base_line`.
[[noreturn]] void throw_invalid_utf8(std::string_view text, std::size_t at, const std::string& name,
                                     std::uint64_t base_line);

// Throws when `text` (the start of a file, after a UTF-8 BOM) is UTF-16.
void check_not_utf16(std::string_view text, const std::string& name);

// Number of line ends (LF, CRLF, lone CR) in `text`.
std::uint64_t count_lines(std::string_view text);

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

}  // namespace deid::csv_detail
