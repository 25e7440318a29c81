// The verifier's RFC 4180 reader and delimiter detection (verify.h), written
// apart from the engine's (src/io/csv.cc) so that a bug in one cannot hide
// itself in the other.
#include <algorithm>
#include <fstream>

#include "verify.h"

namespace verify {

std::optional<Table> parse_csv(std::string_view text, char delimiter, bool has_header, std::string* error) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());

  Table table;
  std::vector<std::vector<std::string>> records;
  std::vector<std::uint64_t> lines;  // of each record
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;        // inside a quoted field
  bool field_quoted = false;  // the current field was quoted (it is over once the quote closes)
  bool record_started = false;
  std::uint64_t line = 1, record_line = 1;
  std::size_t expected = 0;

  auto fail = [&](std::uint64_t at, const std::string& what) {
    if (error) *error = "line " + std::to_string(at) + ": " + what;
    return std::nullopt;
  };
  auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
    field_quoted = false;
  };
  // Returns false when the record has the wrong number of fields.
  auto end_record = [&]() -> bool {
    end_field();
    const bool blank = record.size() == 1 && record[0].empty() && !record_started;
    if (!blank) {
      if (records.empty()) expected = record.size();
      if (record.size() != expected) return false;
      records.push_back(std::move(record));
      lines.push_back(record_line);
    }
    record.clear();
    record_started = false;
    return true;
  };

  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n' || (c == '\r' && !(i + 1 < text.size() && text[i + 1] == '\n'))) ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == delimiter) {
      record_started = true;
      end_field();
    } else if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (!end_record())
        return fail(record_line, "record has " + std::to_string(record.size()) + " fields, expected " +
                                     std::to_string(expected));
      ++line;
      record_line = line;
    } else if (c == '"') {
      if (!field.empty() || field_quoted)
        return fail(line, "quote inside a field that does not start with a quote");
      quoted = true;
      field_quoted = true;
      record_started = true;
    } else {
      if (field_quoted) return fail(line, "character after the closing quote of a field");
      field.push_back(c);
      record_started = true;
    }
  }
  if (quoted) return fail(record_line, "quoted field not closed at the end of the file");
  if (record_started || !field.empty() || !record.empty()) {
    if (!end_record())
      return fail(record_line, "record has " + std::to_string(record.size()) + " fields, expected " +
                                   std::to_string(expected));
  }
  if (has_header) {
    if (records.empty()) return fail(1, "no header");
    table.header = std::move(records.front());
    table.rows.assign(std::make_move_iterator(records.begin() + 1), std::make_move_iterator(records.end()));
    table.lines.assign(lines.begin() + 1, lines.end());
  } else {
    table.rows = std::move(records);
    table.lines = std::move(lines);
  }
  return table;
}

std::optional<Table> read_csv_file(const std::string& path, char delimiter, bool has_header, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path + ": cannot open";
    return std::nullopt;
  }
  // In pieces, stopping at the first NUL byte: what holds one is no CSV text
  // (a binary file), and /dev/zero would otherwise be read until memory
  // runs out.
  std::string text;
  char piece[65536];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    const std::string_view got(piece, static_cast<std::size_t>(in.gcount()));
    if (const std::size_t nul = got.find('\0'); nul != std::string_view::npos) {
      const auto line = std::count(text.begin(), text.end(), '\n') + std::count(got.begin(), got.begin() + nul, '\n');
      if (error) *error = path + ":" + std::to_string(line + 1) + ": the file is not text (a NUL byte)";
      return std::nullopt;
    }
    text.append(got);
  }
  std::string why;
  auto table = parse_csv(text, delimiter, has_header, &why);
  if (!table && error) *error = path + ": " + why;
  return table;
}

char detect_delimiter(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  constexpr char kCandidates[] = {';', ',', '\t', '|'};
  std::size_t counts[4] = {0, 0, 0, 0};
  bool quoted = false;
  for (const char c : text) {
    if (c == '"') quoted = !quoted;  // a doubled quote toggles twice
    if (quoted) continue;
    if (c == '\n' || c == '\r') break;
    for (int i = 0; i < 4; ++i) counts[i] += c == kCandidates[i];
  }
  int best = -1;
  for (int i = 0; i < 4; ++i)
    if (counts[i] > 0 && (best < 0 || counts[i] > counts[best])) best = i;
  return best < 0 ? ',' : kCandidates[best];
}

std::optional<char> detect_file_delimiter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // The first record: up to the first line end outside quotes (a header is
  // short; 1 MiB bounds a file without line ends).
  std::string text;
  bool quoted = false;
  char c;
  while (text.size() < (1u << 20) && in.get(c)) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == '\n' || c == '\r')) break;
    text.push_back(c);
  }
  return detect_delimiter(text);
}

}  // namespace verify
