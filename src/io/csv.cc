#include "deid/csv.h"

#include <csv.h>
#include <fmt/format.h>

#include <boost/locale/utf.hpp>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <utility>

#include "deid/error.h"

namespace deid {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// State shared with libcsv's callbacks while one text is parsed. libcsv is C:
// an exception must not unwind through its frames, so the callbacks catch
// everything into `error`, ignore what follows, and the caller rethrows once
// csv_parse has returned.
struct ParseState {
  const std::string* name = nullptr;
  const CsvOptions* options = nullptr;
  const std::function<void(const CsvRecord&)>* on_record = nullptr;
  std::vector<std::string> fields;   // owned copies of the current record's fields (reused)
  std::vector<std::string_view> views;
  std::vector<std::string> header;   // the first record, when options->header
  std::size_t field_count = 0;       // fields of the current record so far
  std::size_t expected = 0;          // fields per record, from the first record
  std::uint64_t first_line = 0;      // line of the first record
  std::uint64_t line = 1;            // physical line being fed to the parser
  std::uint64_t record_line = 0;     // line on which the current record started
  std::uint64_t index = 0;           // records handed over so far
  bool record_ended = false;         // a record ended in the current line
  std::exception_ptr error;
};

std::string field_name(const ParseState& st, std::size_t field) {  // 1-based
  if (field == 0 || field > st.header.size()) return {};
  return st.header[field - 1];
}

void on_field(void* data, std::size_t len, void* user) {
  auto& st = *static_cast<ParseState*>(user);
  if (st.error) return;
  if (st.field_count == st.fields.size()) st.fields.emplace_back();
  st.fields[st.field_count].assign(static_cast<const char*>(data), len);
  ++st.field_count;
}

void check_field_count(const ParseState& st) {
  const std::size_t n = st.field_count;
  if (st.options->ragged || n == st.expected) return;
  const std::string first = st.options->header ? fmt::format("the header (line {})", st.first_line)
                                               : fmt::format("the first record (line {})", st.first_line);
  if (n < st.expected) {
    const std::size_t missing = n + 1;
    const std::string col = field_name(st, missing);
    throw InputError(Location{*st.name, st.record_line, missing, col},
                     fmt::format("record has {} field{}, expected {} as in {}; field {}{} is missing", n,
                                 n == 1 ? "" : "s", st.expected, first, missing,
                                 col.empty() ? std::string() : fmt::format(" ('{}')", col)));
  }
  throw InputError(Location{*st.name, st.record_line, st.expected + 1, {}},
                   fmt::format("record has {} fields, expected {} as in {}; field {} is extra (is a value "
                               "containing the delimiter not quoted?)",
                               n, st.expected, first, st.expected + 1));
}

void on_record_end(int, void* user) {
  auto& st = *static_cast<ParseState*>(user);
  st.record_ended = true;
  if (st.error) return;
  if (st.field_count == 0) return;  // libcsv reports no empty records without CSV_REPALL_NL; be safe
  try {
    if (st.index == 0) {
      st.expected = st.field_count;
      st.first_line = st.record_line;
      if (st.options->header) st.header.assign(st.fields.begin(), st.fields.begin() + static_cast<std::ptrdiff_t>(st.field_count));
    } else {
      check_field_count(st);
    }
    st.views.assign(st.fields.begin(), st.fields.begin() + static_cast<std::ptrdiff_t>(st.field_count));
    const CsvRecord rec{std::span<const std::string_view>(st.views), st.record_line, st.index};
    (*st.on_record)(rec);
  } catch (...) {
    st.error = std::current_exception();
  }
  ++st.index;
  st.field_count = 0;
}

// libcsv trims spaces and tabs around unquoted fields by default; RFC 4180
// says they are part of the field, so nothing counts as space.
int no_space(unsigned char) { return 0; }

// Owns a libcsv parser for the duration of one parse.
class Parser {
 public:
  explicit Parser(char delimiter) {
    if (csv_init(&p_, CSV_STRICT | CSV_STRICT_FINI) != 0) throw Error("libcsv: cannot initialise the parser");
    csv_set_delim(&p_, static_cast<unsigned char>(delimiter));
    csv_set_space_func(&p_, no_space);
  }
  ~Parser() { csv_free(&p_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
  csv_parser* get() { return &p_; }

 private:
  csv_parser p_{};
};

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

// Rejects text that is not UTF-8, naming the line and byte of the first bad
// sequence. Checked up front because the values end up in the output and in
// the JSON result, which must be UTF-8. Nearly every byte of a CSV file is
// ASCII, so those are skipped eight at a time (this keeps the check at a few
// percent of the read time on examples/adult).
void check_utf8(std::string_view text, const std::string& name) {
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"))
    throw InputError(Location{name, 1, 1, {}}, "the file is UTF-16 encoded; convert it to UTF-8");
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin;
  while (p < end) {
    if (end - p >= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        p += 8;
        continue;
      }
    }
    if (static_cast<unsigned char>(*p) < 0x80) {
      ++p;
      continue;
    }
    const char* q = p;
    const auto cp = boost::locale::utf::utf_traits<char>::decode(q, end);
    if (cp == boost::locale::utf::illegal || cp == boost::locale::utf::incomplete) {
      const auto [line, column] = position_of(text, static_cast<std::size_t>(p - begin));
      throw InputError(Location{name, line, 0, {}},
                       fmt::format("the file is not valid UTF-8: byte 0x{:02X} at character {} of line {}; "
                                   "convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
                                   static_cast<unsigned char>(*p), column, line));
    }
    p = q;
  }
}

// End of the physical line that starts at `pos`: after its LF, its CRLF, or a
// lone CR (old Mac line ends), or the end of the text.
std::size_t line_end(std::string_view text, std::size_t pos) {
  const char* const base = text.data();
  const std::size_t n = text.size();
  const void* lf = std::memchr(base + pos, '\n', n - pos);
  const std::size_t stop = lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - base) : n;
  // A CR before the LF ends the line unless it is the CR of a CRLF.
  if (const void* cr = std::memchr(base + pos, '\r', stop - pos)) {
    const auto i = static_cast<std::size_t>(static_cast<const char*>(cr) - base);
    if (i + 1 != stop || !lf) return i + 1;
  }
  return lf ? stop + 1 : n;
}

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
  check_utf8(text, name);
  const char delim = options.delimiter ? *options.delimiter : detect_delimiter(text);
  if (delim == '"' || delim == '\r' || delim == '\n')
    throw InputError(Location{name, 0, 0, {}}, "the delimiter cannot be a quote or a line break");

  Parser parser(delim);
  ParseState st;
  st.name = &name;
  st.options = &options;
  st.on_record = &on_record;

  // Feed one physical line at a time so that every record knows the line on
  // which it starts: a record always starts at the beginning of a line, and
  // it is still open after a line that ended no record and held something
  // (a quoted field spanning lines).
  bool open = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = line_end(text, pos);
    const std::string_view chunk = text.substr(pos, end - pos);
    if (!open) st.record_line = st.line;
    st.record_ended = false;
    const std::size_t used = csv_parse(parser.get(), chunk.data(), chunk.size(), on_field, on_record_end, &st);
    if (st.error) std::rethrow_exception(st.error);
    if (used != chunk.size()) {
      if (csv_error(parser.get()) != CSV_EPARSE)
        throw Error(fmt::format("libcsv: {}", csv_strerror(csv_error(parser.get()))));
      const std::size_t field = st.field_count + 1;
      const char bad = chunk[used];
      const std::string where = fmt::format("line {}, character {}", st.line, used + 1);
      throw InputError(
          Location{name, st.record_line, field, field_name(st, field)},
          bad == '"' ? fmt::format("field {}: quote inside an unquoted field ({}); enclose the field in quotes "
                                   "and double the quote (\"\")",
                                   field, where)
                     : fmt::format("field {}: unexpected character '{}' after the closing quote ({}); a quote "
                                   "inside a quoted field must be doubled (\"\")",
                                   field, bad, where));
    }
    const bool content = chunk.find_first_not_of("\r\n") != std::string_view::npos;
    open = !st.record_ended && (open || content);
    pos = end;
    ++st.line;
  }
  if (csv_fini(parser.get(), on_field, on_record_end, &st) != 0) {
    const std::size_t field = st.field_count + 1;
    throw InputError(Location{name, st.record_line, field, field_name(st, field)},
                     fmt::format("field {}: unterminated quoted field (the closing quote is missing; the field "
                                 "runs to the end of the file)",
                                 field));
  }
  if (st.error) std::rethrow_exception(st.error);
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
  const bool quote = field.find_first_of(std::string_view(special, 4)) != std::string_view::npos;
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
