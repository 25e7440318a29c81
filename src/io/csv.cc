#include "deid/csv.h"

#include <fmt/format.h>

#include <boost/locale/utf.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "deid/error.h"
#include "io/csv_parse.h"

namespace deid {
namespace csv_detail {
namespace {

// Line (1-based) and byte column (1-based) of offset `at` in `text`, with LF,
// CRLF and lone CR as line ends. Only used to report an error.
std::pair<std::uint64_t, std::size_t> position_of(std::string_view text, std::size_t at) {
  std::uint64_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, at - line_start + 1};
}

}  // namespace

[[noreturn]] void throw_failure(const Failure& f, const std::string& name, std::uint64_t base_line,
                                const std::vector<std::string>& header, bool has_header, std::size_t expected,
                                std::uint64_t first_line) {
  auto field_name = [&](std::size_t field) -> std::string {  // 1-based
    if (field == 0 || field > header.size()) return {};
    return header[field - 1];
  };
  const std::uint64_t record_line = base_line + f.record_line;
  const std::string first = has_header ? fmt::format("the header (line {})", first_line)
                                       : fmt::format("the first record (line {})", first_line);
  switch (f.kind) {
    case Failure::Kind::too_few: {
      const std::size_t n = f.fields;
      const std::size_t missing = n + 1;
      const std::string col = field_name(missing);
      throw InputError(Location{name, record_line, missing, col},
                       fmt::format("record has {} field{}, expected {} as in {}; field {}{} is missing", n,
                                   n == 1 ? "" : "s", expected, first, missing,
                                   col.empty() ? std::string() : fmt::format(" ('{}')", col)));
    }
    case Failure::Kind::too_many:
      throw InputError(Location{name, record_line, expected + 1, {}},
                       fmt::format("record has {} fields, expected {} as in {}; field {} is extra (is a value "
                                   "containing the delimiter not quoted?)",
                                   f.fields, expected, first, expected + 1));
    case Failure::Kind::unterminated: {
      const std::size_t field = f.fields + 1;
      throw InputError(Location{name, record_line, field, field_name(field)},
                       fmt::format("field {}: unterminated quoted field (the closing quote is missing; the field "
                                   "runs to the end of the file)",
                                   field));
    }
    case Failure::Kind::stray_quote:
    case Failure::Kind::after_quote: {
      const std::size_t field = f.fields + 1;
      const std::string where = fmt::format("line {}, character {}", base_line + f.line, f.character);
      throw InputError(
          Location{name, record_line, field, field_name(field)},
          f.kind == Failure::Kind::stray_quote
              ? fmt::format("field {}: quote inside an unquoted field ({}); enclose the field in quotes "
                            "and double the quote (\"\")",
                            field, where)
              : fmt::format("field {}: unexpected character '{}' after the closing quote ({}); a quote "
                            "inside a quoted field must be doubled (\"\")",
                            field, f.bad, where));
    }
    case Failure::Kind::none:
      break;
  }
  throw Error("csv: no failure to report");
}

// Nearly every byte of a CSV file is ASCII, so those are skipped eight at a
// time (this keeps the check at a few percent of the read time). A NUL byte
// is no text either: it marks a binary file (or /dev/zero), never a value.
std::size_t find_invalid_utf8(std::string_view text) {
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin;
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  while (p < end) {
    if (end - p >= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, 8);
      // No byte with its high bit set, and no zero byte.
      if ((word & kHighs) == 0 && ((word - kOnes) & ~word & kHighs) == 0) {
        p += 8;
        continue;
      }
    }
    if (*p == '\0') return static_cast<std::size_t>(p - begin);
    if (static_cast<unsigned char>(*p) < 0x80) {
      ++p;
      continue;
    }
    const char* q = p;
    const auto cp = boost::locale::utf::utf_traits<char>::decode(q, end);
    if (cp == boost::locale::utf::illegal || cp == boost::locale::utf::incomplete)
      return static_cast<std::size_t>(p - begin);
    p = q;
  }
  return std::string_view::npos;
}

[[noreturn]] void throw_invalid_utf8(std::string_view text, std::size_t at, const std::string& name,
                                     std::uint64_t base_line) {
  const auto [rel, column] = position_of(text, at);
  const std::uint64_t line = base_line + rel - 1;
  if (text[at] == '\0')
    throw InputError(Location{name, line, 0, {}},
                     fmt::format("the file is not text: a NUL byte (0x00) at character {} of line {}; deid reads "
                                 "CSV text in UTF-8 (is this a binary file, a spreadsheet or a compressed file?)",
                                 column, line));
  throw InputError(Location{name, line, 0, {}},
                   fmt::format("the file is not valid UTF-8: byte 0x{:02X} at character {} of line {}; "
                               "convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
                               static_cast<unsigned char>(text[at]), column, line));
}

void check_not_utf16(std::string_view text, const std::string& name) {
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"))
    throw InputError(Location{name, 1, 1, {}}, "the file is UTF-16 encoded; convert it to UTF-8");
}

std::uint64_t count_lines(std::string_view text) {
  std::uint64_t n = 0;
  const std::size_t size = text.size();
  for (std::size_t i = 0; i < size; ++i) {
    const char c = text[i];
    n += c == '\n' || (c == '\r' && (i + 1 == size || text[i + 1] != '\n'));
  }
  return n;
}

}  // namespace csv_detail

namespace {

using csv_detail::kUtf8Bom;

// Hands each record of the sequential reader to the caller's callback.
struct CallbackSink {
  const CsvOptions* options;
  const std::function<void(const CsvRecord&)>* on_record;
  std::vector<std::string_view> views;
  std::vector<std::string> header;  // the first record, when options->header
  std::uint64_t first_line = 0;     // line of the first record
  std::uint64_t index = 0;

  void field(std::size_t i, std::string_view v, std::uint64_t) {
    if (views.size() <= i) views.resize(i + 1);
    views[i] = v;
  }
  void record(std::uint64_t line, std::size_t n) {
    if (index == 0) {
      first_line = line + 1;
      if (options->header) header.assign(views.begin(), views.begin() + static_cast<std::ptrdiff_t>(n));
    }
    const CsvRecord rec{std::span<const std::string_view>(views.data(), n), line + 1, index};
    ++index;
    (*on_record)(rec);
  }
};

}  // namespace

char detect_delimiter(std::string_view sample) {
  if (sample.starts_with(kUtf8Bom)) sample.remove_prefix(kUtf8Bom.size());
  constexpr char kCandidates[] = {';', ',', '\t', '|'};
  std::size_t counts[4] = {0, 0, 0, 0};
  bool quoted = false;
  for (char c : sample) {
    if (c == '"') quoted = !quoted;  // a doubled quote toggles twice
    if (quoted) continue;
    if (c == '\n' || c == '\r') break;
    for (int i = 0; i < 4; ++i) counts[i] += (c == kCandidates[i]);
  }
  int best = -1;
  for (int i = 0; i < 4; ++i)
    if (counts[i] > 0 && (best < 0 || counts[i] > counts[best])) best = i;
  return best < 0 ? ',' : kCandidates[best];
}

char read_csv_text(std::string_view text, const std::string& name, const CsvOptions& options,
                   const std::function<void(const CsvRecord&)>& on_record) {
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  csv_detail::check_not_utf16(text, name);
  // Checked up front because the values end up in the output and in the JSON
  // result, which must be UTF-8.
  if (const std::size_t bad = csv_detail::find_invalid_utf8(text); bad != std::string_view::npos)
    csv_detail::throw_invalid_utf8(text, bad, name, 1);
  const char delim = options.delimiter ? *options.delimiter : detect_delimiter(text);
  if (delim == '"' || delim == '\r' || delim == '\n')
    throw InputError(Location{name, 0, 0, {}}, "the delimiter cannot be a quote or a line break");

  CallbackSink sink{&options, &on_record, {}, {}, 0, 0};
  csv_detail::Scratch scratch;
  std::size_t expected = 0;
  const csv_detail::ParseResult res =
      csv_detail::parse_records(text, delim, expected, options.ragged, sink, scratch);
  if (res.failure)
    csv_detail::throw_failure(res.failure, name, 1, sink.header, options.header, expected, sink.first_line);
  return delim;
}

char read_csv(const std::string& path, const CsvOptions& options,
              const std::function<void(const CsvRecord&)>& on_record) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw IoError(Location{path, 0, 0, {}}, "cannot read: this is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(Location{path, 0, 0, {}}, fmt::format("cannot open file for reading ({})", std::strerror(errno)));
  std::string text;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size > 0) {
    text.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(text.data(), size);
  }
  if (!in && !in.eof()) throw IoError(Location{path, 0, 0, {}}, "cannot read file");
  return read_csv_text(text, path, options, on_record);
}

void append_csv_field(std::string& out, std::string_view field, char delimiter) {
  const char special[] = {delimiter, '"', '\r', '\n'};
  // A leading byte-order mark is quoted too: as the first field of a file,
  // a reader would take it for the file's BOM and drop it (found by
  // fuzz_hierarchy: a hierarchy whose first value starts with U+FEFF).
  const bool quote = field.find_first_of(std::string_view(special, 4)) != std::string_view::npos ||
                     field.starts_with(kUtf8Bom);
  if (!quote) {
    out.append(field);
    return;
  }
  out.push_back('"');
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

}  // namespace deid
