#include "deid/csv.h"

#include <csv.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "deid/error.h"

namespace deid {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// State shared with libcsv's callbacks while one text is parsed.
struct ParseState {
  const std::string* name = nullptr;
  const std::function<void(const CsvRecord&)>* on_record = nullptr;
  std::vector<std::string> fields;   // owned copies of the current record's fields
  std::vector<std::string_view> views;
  std::size_t field_count = 0;       // fields in the current record so far
  std::size_t expected = 0;          // fields per record, from the first record
  std::uint64_t line = 1;            // physical line being fed to the parser
  std::uint64_t record_line = 0;     // line on which the current record started
  std::uint64_t index = 0;
};

void on_field(void* data, std::size_t len, void* user) {
  auto& st = *static_cast<ParseState*>(user);
  if (st.field_count == 0) st.record_line = st.line;
  if (st.field_count == st.fields.size()) st.fields.emplace_back();
  st.fields[st.field_count].assign(static_cast<const char*>(data), len);
  ++st.field_count;
}

void on_record_end(int, void* user) {
  auto& st = *static_cast<ParseState*>(user);
  if (st.field_count == 0) return;  // blank line
  if (st.index == 0) {
    st.expected = st.field_count;
  } else if (st.field_count != st.expected) {
    throw InputError(Location{*st.name, st.record_line, 0, {}},
                     fmt::format("record has {} fields, expected {} (as in the first record)",
                                 st.field_count, st.expected));
  }
  st.views.assign(st.fields.begin(), st.fields.begin() + static_cast<std::ptrdiff_t>(st.field_count));
  CsvRecord rec{std::span<const std::string_view>(st.views), st.record_line, st.index};
  (*st.on_record)(rec);
  ++st.index;
  st.field_count = 0;
}

// libcsv trims spaces and tabs around unquoted fields by default; RFC 4180
// says they are part of the field, so nothing counts as space.
int no_space(unsigned char) { return 0; }

}  // namespace

char detect_delimiter(std::string_view sample) {
  if (sample.starts_with(kUtf8Bom)) sample.remove_prefix(kUtf8Bom.size());
  constexpr char kCandidates[] = {';', ',', '\t', '|'};
  std::size_t counts[4] = {0, 0, 0, 0};
  bool quoted = false;
  for (char c : sample) {
    if (c == '"') quoted = !quoted;
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
  const char delim = options.delimiter ? *options.delimiter : detect_delimiter(text);

  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0)
    throw Error("libcsv: cannot initialise the parser");
  csv_set_delim(&parser, static_cast<unsigned char>(delim));
  csv_set_space_func(&parser, no_space);

  ParseState st;
  st.name = &name;
  st.on_record = &on_record;
  auto fail = [&](std::uint64_t line) {
    const std::string what = csv_strerror(csv_error(&parser));
    throw InputError(Location{name, line, 0, {}},
                     fmt::format("malformed CSV ({}); check the quotes of this record", what));
  };
  try {
    // Feed one physical line at a time so that every record knows its line.
    std::size_t pos = 0;
    while (pos < text.size()) {
      const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
      const std::size_t end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1
                                 : text.size();
      if (csv_parse(&parser, text.data() + pos, end - pos, on_field, on_record_end, &st) != end - pos)
        fail(st.field_count ? st.record_line : st.line);
      pos = end;
      ++st.line;
    }
    if (csv_fini(&parser, on_field, on_record_end, &st) != 0) fail(st.record_line ? st.record_line : st.line);
  } catch (...) {
    csv_free(&parser);
    throw;
  }
  csv_free(&parser);
  return delim;
}

char read_csv(const std::string& path, const CsvOptions& options,
              const std::function<void(const CsvRecord&)>& on_record) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(Location{path, 0, 0, {}}, "cannot open file for reading");
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
  const bool quote = field.find_first_of(std::string{delimiter, '"', '\r', '\n'}) != std::string_view::npos;
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
