// The parallel CSV reader and dataset encoder against a reference: the
// reader deid used before (libcsv fed one physical line at a time), kept here
// as the oracle. Random tables (quotes, delimiters, line breaks inside
// quotes, CRLF and lone CR, blank lines, empty fields, UTF-8), well formed
// and broken, must give the same records, lines, codes, dictionaries, first
// lines and errors (file, line, column, message), with tiny blocks and
// pieces so that every boundary case is crossed, and for 1, 2 and 8 threads.
#include <csv.h>  // libcsv, for the reference only
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <tbb/global_control.h>

#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "data/dataset_read.h"
#include "deid/csv.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "support/reference.h"

namespace deid {
namespace {

// --- The reference: libcsv, one physical line at a time ---------------------

struct RefRecord {
  std::vector<std::string> fields;
  std::uint64_t line;
};

// What a read gives: the records, or the error's location and problem.
struct Outcome {
  std::vector<RefRecord> records;
  char delimiter = 0;
  std::optional<Location> error_at;
  std::string error;
};

struct RefState {
  std::vector<std::string> fields;
  std::vector<RefRecord>* out = nullptr;
  std::uint64_t line = 1, record_line = 0;
  bool record_ended = false;
};

void ref_field(void* data, std::size_t len, void* user) {
  static_cast<RefState*>(user)->fields.emplace_back(static_cast<const char*>(data), len);
}
void ref_record(int, void* user) {
  auto& st = *static_cast<RefState*>(user);
  st.record_ended = true;
  if (st.fields.empty()) return;
  st.out->push_back({std::move(st.fields), st.record_line});
  st.fields.clear();
}
int ref_no_space(unsigned char) { return 0; }

std::pair<std::uint64_t, std::size_t> ref_position(std::string_view text, std::size_t at) {
  std::uint64_t line = 1;
  std::size_t start = 0;
  for (std::size_t i = 0; i < at; ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
      ++line;
      start = i + 1;
    }
  return {line, at - start + 1};
}

// The reader before the parallel one, reduced to what it reports: UTF-8 and
// UTF-16 checks first, delimiter, then libcsv (strict) line by line, with the
// field count checked against the first record.
Outcome reference_read(std::string_view text, const std::string& name, std::optional<char> delimiter, bool header,
                       bool ragged) {
  Outcome o;
  auto error = [&](Location at, std::string problem) {
    o.error_at = std::move(at);
    o.error = std::move(problem);  // the records before it stay: they were handed over
    return o;
  };
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) return error({name, 1, 1, {}}, "UTF-16");
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 2;
    if (ok && len == 2) ok = c >= 0xC2;
    if (ok && len == 3) {
      const std::uint32_t cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
                               (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
      ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (ok && len == 4) {
      const std::uint32_t cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 12) |
                               ((static_cast<unsigned char>(text[i + 2]) & 0x3Fu) << 6) |
                               (static_cast<unsigned char>(text[i + 3]) & 0x3Fu);
      ok = cp >= 0x10000 && cp <= 0x10FFFF;
    }
    if (!ok) {
      const auto [line, column] = ref_position(text, i);
      return error({name, line, 0, {}}, fmt::format("not valid UTF-8: byte 0x{:02X} at character {} of line {}", c,
                                                    column, line));
    }
    i += len;
  }
  const char delim = delimiter ? *delimiter : detect_delimiter(text);
  o.delimiter = delim;
  csv_parser p;
  csv_init(&p, CSV_STRICT | CSV_STRICT_FINI);
  csv_set_delim(&p, static_cast<unsigned char>(delim));
  csv_set_space_func(&p, ref_no_space);
  RefState st;
  st.out = &o.records;
  bool open = false;
  std::size_t pos = 0;
  std::vector<std::string> names;
  auto name_of = [&](std::size_t field) { return field >= 1 && field <= names.size() ? names[field - 1] : std::string(); };
  std::optional<std::pair<Location, std::string>> parse_error;
  while (pos < text.size() && !parse_error) {
    std::size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    if (end < text.size()) end += (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ? 2 : 1;
    const std::string_view chunk = text.substr(pos, end - pos);
    if (!open) st.record_line = st.line;
    st.record_ended = false;
    const std::size_t before = o.records.size();
    const std::size_t used = csv_parse(&p, chunk.data(), chunk.size(), ref_field, ref_record, &st);
    if (header && before == 0 && !o.records.empty())
      for (const auto& f : o.records[0].fields) names.push_back(f);
    if (used != chunk.size()) {
      const std::size_t field = st.fields.size() + 1;
      const char bad = chunk[used];
      const std::string where = fmt::format("line {}, character {}", st.line, used + 1);
      parse_error.emplace(Location{name, st.record_line, field, name_of(field)},
                          bad == '"' ? fmt::format("field {}: quote inside an unquoted field ({})", field, where)
                                     : fmt::format("field {}: unexpected character '{}' after the closing quote ({})",
                                                   field, bad, where));
      break;
    }
    open = !st.record_ended && (open || chunk.find_first_not_of("\r\n") != std::string_view::npos);
    pos = end;
    ++st.line;
  }
  if (!parse_error && csv_fini(&p, ref_field, ref_record, &st) != 0) {
    const std::size_t field = st.fields.size() + 1;
    parse_error.emplace(Location{name, st.record_line, field, name_of(field)},
                        fmt::format("field {}: unterminated quoted field", field));
  }
  csv_free(&p);
  // Field counts, in record order, up to the parse error (records before it
  // were handed over first, so a count error among them wins).
  if (!o.records.empty() && !ragged) {
    const std::size_t expected = o.records[0].fields.size();
    const std::string first = fmt::format("{} (line {})", header ? "the header" : "the first record", o.records[0].line);
    for (const RefRecord& r : o.records) {
      const std::size_t n = r.fields.size();
      if (n < expected)
        return error({name, r.line, n + 1, name_of(n + 1)},
                     fmt::format("record has {} field{}, expected {} as in {}; field {}", n, n == 1 ? "" : "s",
                                 expected, first, n + 1));
      if (n > expected)
        return error({name, r.line, expected + 1, {}},
                     fmt::format("record has {} fields, expected {} as in {}; field {} is extra", n, expected, first,
                                 expected + 1));
    }
  }
  if (parse_error) return error(parse_error->first, parse_error->second);
  return o;
}

// --- The readers under test, as Outcomes -------------------------------------

Outcome deid_read(std::string_view text, const std::string& name, std::optional<char> delimiter, bool header,
                  bool ragged) {
  Outcome o;
  CsvOptions opt;
  opt.delimiter = delimiter;
  opt.header = header;
  opt.ragged = ragged;
  try {
    o.delimiter = read_csv_text(text, name, opt, [&](const CsvRecord& rec) {
      o.records.push_back({std::vector<std::string>(rec.fields.begin(), rec.fields.end()), rec.line});
    });
  } catch (const InputError& e) {
    o.error_at = e.where();
    o.error = e.problem();
    o.records.clear();
  }
  return o;
}

// The same place, and the reference's message is a prefix of deid's (deid
// adds advice).
void expect_same_error(const Location& want_at, const std::string& want, const Location& got_at,
                       const std::string& got, const std::string& shown) {
  EXPECT_EQ(want_at.file, got_at.file) << shown;
  EXPECT_EQ(want_at.line, got_at.line) << shown << "\n" << got;
  EXPECT_EQ(want_at.column, got_at.column) << shown << "\n" << got;
  EXPECT_EQ(want_at.column_name, got_at.column_name) << shown;
  if (want != "UTF-16") {
    EXPECT_NE(got.find(want), std::string::npos) << shown << "\nreference: " << want << "\ndeid: " << got;
  }
}

void expect_same(const Outcome& want, const Outcome& got, const std::string& text) {
  const std::string shown = fmt::format("text: {:?}", text);
  ASSERT_EQ(want.error_at.has_value(), got.error_at.has_value()) << shown << "\nreference: " << want.error
                                                                 << "\ndeid: " << got.error;
  if (want.error_at) {
    expect_same_error(*want.error_at, want.error, *got.error_at, got.error, shown);
    return;
  }
  EXPECT_EQ(want.delimiter, got.delimiter) << shown;
  ASSERT_EQ(want.records.size(), got.records.size()) << shown;
  for (std::size_t i = 0; i < want.records.size(); ++i) {
    EXPECT_EQ(want.records[i].fields, got.records[i].fields) << shown << " record " << i;
    EXPECT_EQ(want.records[i].line, got.records[i].line) << shown << " record " << i;
  }
}

// A dataset as plain data: per column its name, codes, values, first lines.
struct PlainColumn {
  std::string name;
  std::vector<std::uint32_t> codes;
  std::vector<std::string> values;
  std::vector<std::uint64_t> first_line;
  bool operator==(const PlainColumn&) const = default;
};
struct PlainDataset {
  std::vector<PlainColumn> columns;
  std::uint64_t rows = 0;
  char delimiter = 0;
  std::optional<Location> error_at;
  std::string error;
};

PlainDataset plain(const Dataset& ds) {
  PlainDataset p;
  p.rows = ds.rows;
  p.delimiter = ds.delimiter;
  for (const Column& c : ds.columns) {
    PlainColumn pc{c.name, c.codes.to_vector(), {}, c.first_line};
    for (std::uint32_t v = 0; v < c.dictionary.size(); ++v) pc.values.push_back(c.dictionary.value(v));
    EXPECT_EQ(c.codes.width(), code_width(c.dictionary.size())) << c.name;
    p.columns.push_back(std::move(pc));
  }
  return p;
}

// The dataset the reference reader implies (header checks as read_dataset's).
PlainDataset reference_dataset(std::string_view text, std::optional<char> delimiter) {
  PlainDataset d;
  const std::string name = "d.csv";
  const Outcome o = reference_read(text, name, delimiter, true, false);
  // The header is checked when it is handed over, before any later error.
  if (o.records.empty() && o.error_at) {
    d.error_at = o.error_at;
    d.error = o.error;
    return d;
  }
  d.delimiter = o.delimiter;
  if (o.records.empty()) {
    d.error_at = Location{name, 0, 0, {}};
    d.error = "the file is empty";
    return d;
  }
  const RefRecord& h = o.records[0];
  for (std::size_t c = 0; c < h.fields.size(); ++c) {
    if (h.fields[c].empty()) {
      d.error_at = Location{name, h.line, c + 1, {}};
      d.error = fmt::format("column {} has an empty name", c + 1);
      return d;
    }
    for (std::size_t e = 0; e < c; ++e)
      if (h.fields[e] == h.fields[c]) {
        d.error_at = Location{name, h.line, c + 1, h.fields[c]};
        d.error = fmt::format("duplicate column name '{}'", h.fields[c]);
        return d;
      }
    d.columns.push_back({h.fields[c], {}, {}, {}});
  }
  if (o.error_at) {
    d.columns.clear();
    d.error_at = o.error_at;
    d.error = o.error;
    return d;
  }
  std::vector<std::map<std::string, std::uint32_t>> index(h.fields.size());
  for (std::size_t r = 1; r < o.records.size(); ++r) {
    for (std::size_t c = 0; c < h.fields.size(); ++c) {
      PlainColumn& col = d.columns[c];
      auto [it, inserted] = index[c].try_emplace(o.records[r].fields[c], static_cast<std::uint32_t>(col.values.size()));
      if (inserted) {
        col.values.push_back(o.records[r].fields[c]);
        col.first_line.push_back(o.records[r].line);
      }
      col.codes.push_back(it->second);
    }
    ++d.rows;
  }
  if (d.rows == 0) {
    d.columns.clear();
    d.error_at = Location{name, h.line, 0, {}};
    d.error = "the file has a header row but no data records";
  }
  return d;
}

PlainDataset deid_dataset(std::string_view text, std::optional<char> delimiter, const detail::ReadTuning& tuning) {
  try {
    return plain(detail::read_dataset_text(text, "d.csv", CsvOptions{delimiter}, tuning));
  } catch (const InputError& e) {
    PlainDataset d;
    d.error_at = e.where();
    d.error = e.problem();
    return d;
  }
}

void expect_same_dataset(const PlainDataset& want, const PlainDataset& got, const std::string& text) {
  const std::string shown = fmt::format("text: {:?}", text);
  ASSERT_EQ(want.error_at.has_value(), got.error_at.has_value()) << shown << "\nreference: " << want.error
                                                                 << "\ndeid: " << got.error;
  if (want.error_at) {
    expect_same_error(*want.error_at, want.error, *got.error_at, got.error, shown);
    return;
  }
  EXPECT_EQ(want.rows, got.rows) << shown;
  EXPECT_EQ(want.delimiter, got.delimiter) << shown;
  EXPECT_EQ(want.columns, got.columns) << shown;
}

// --- Random tables ------------------------------------------------------------

// Writes a random table: fields from characters that matter to the format,
// quoted when needed (or at random), CRLF, LF or lone CR line ends, blank
// lines, an optional BOM; with `breakage`, one random defect.
std::string random_csv(std::mt19937& rng, char delim, int breakage) {
  static const std::vector<std::string> alphabet = {"a", "b", "7", ",", ";", "\"", "\n", "\r", "\r\n", " ", "\t",
                                                    "é", "|", "李", "", "x"};
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::size_t cols = 1 + pick(4);
  const std::size_t rows = pick(12);
  const std::vector<std::string> ends = {"\n", "\r\n", "\r"};
  const std::string& eol = ends[pick(3)];
  std::string out;
  if (pick(8) == 0) out += "\xEF\xBB\xBF";
  if (pick(6) == 0) out += eol;
  for (std::size_t r = 0; r <= rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      if (c) out.push_back(delim);
      std::string f;
      if (r == 0) {
        f = fmt::format("h{}", c);
        if (pick(10) == 0) f = "h0";  // duplicate
      } else {
        const std::size_t len = pick(4);
        for (std::size_t i = 0; i < len; ++i) f += alphabet[pick(alphabet.size())];
        if (pick(3) == 0) f = std::string(1, "abc"[pick(3)]);  // repeated values
        if (pick(6) == 0) f += std::string(pick(20), 'y');      // longer than a word
      }
      if (pick(5) == 0) {  // quoted even when not needed
        out.push_back('"');
        for (char ch : f) {
          if (ch == '"') out.push_back('"');
          out.push_back(ch);
        }
        out.push_back('"');
      } else {
        append_csv_field(out, f, delim);
      }
    }
    if (r < rows || pick(2)) out += eol;
    if (pick(7) == 0) out += ends[pick(3)];  // a blank line
  }
  if (breakage && !out.empty()) {
    const std::size_t at = pick(out.size());
    switch (pick(6)) {
      case 0: out.insert(at, "\""); break;                   // a stray or unbalanced quote
      case 1: out.insert(at, std::string(1, delim)); break;  // an extra field
      case 2: out.erase(at, 1); break;                       // a lost character
      case 3: out.insert(at, "\xE9"); break;                 // Latin-1, not UTF-8
      case 4: out.insert(at, "\"x\"y"); break;               // text after a closing quote
      default: out.insert(at, eol); break;                   // a broken record
    }
  }
  return out;
}

TEST(CsvParallel, RandomTablesReadAsTheReferenceReadsThem) {
  std::mt19937 rng(4401);
  int failed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const char delim = ",;\t|"[trial % 4];
    const std::string text = random_csv(rng, delim, trial % 2);
    const std::optional<char> given = trial % 3 == 0 ? std::nullopt : std::optional<char>(delim);
    for (bool header : {false, true}) {
      for (bool ragged : {false, true}) {
        const Outcome want = reference_read(text, "t.csv", given, header, ragged);
        failed += want.error_at.has_value();
        expect_same(want, deid_read(text, "t.csv", given, header, ragged), text);
        if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) return;
      }
    }
  }
  // Both kinds of table were drawn.
  EXPECT_GT(failed, 3000);
  EXPECT_LT(failed, 9000);
}

TEST(CsvParallel, RandomTablesEncodeAsTheReferenceWithAnyBlockAndPieceSize) {
  std::mt19937 rng(4402);
  const std::vector<detail::ReadTuning> tunings = {{1, 1}, {7, 3}, {64, 16}, {std::size_t{16} << 20, 512 << 10}};
  int failed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const char delim = ",;\t|"[trial % 4];
    const std::string text = random_csv(rng, delim, trial % 2);
    const std::optional<char> given = trial % 3 == 0 ? std::nullopt : std::optional<char>(delim);
    const PlainDataset want = reference_dataset(text, given);
    failed += want.error_at.has_value();
    for (const auto& tuning : tunings) {
      expect_same_dataset(want, deid_dataset(text, given, tuning), text);
      if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) return;
    }
  }
  EXPECT_GT(failed, 500);
  EXPECT_LT(failed, 2500);
}

// A larger table with many distinct values per column (codes wider than a
// byte) read with 1, 2 and 8 threads, in pieces of a few hundred bytes.
TEST(CsvParallel, SameDatasetForAnyThreadCount) {
  std::mt19937 rng(4403);
  std::string text = "id;age;city;note\n";
  for (int r = 0; r < 20000; ++r) {
    text += fmt::format("{};{};", r, rng() % 100);
    text += (rng() % 7 == 0) ? std::string("\"Z\xC3\xBCrich, CH\"") : fmt::format("c{}", rng() % 300);
    text += (rng() % 5 == 0) ? ";\"two\r\nlines\"\r\n" : ";n\n";
  }
  std::vector<PlainDataset> results;
  for (int threads : {1, 2, 8}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    results.push_back(deid_dataset(text, std::nullopt, detail::ReadTuning{std::size_t{64} << 10, 700}));
  }
  ASSERT_FALSE(results[0].error_at) << results[0].error;
  EXPECT_EQ(results[0].rows, 20000u);
  ASSERT_EQ(results[0].columns.size(), 4u);
  EXPECT_EQ(results[0].columns[0].values.size(), 20000u);  // id: 2-byte codes
  for (std::size_t i = 1; i < results.size(); ++i) EXPECT_EQ(results[i].columns, results[0].columns) << i;
  expect_same_dataset(reference_dataset(text, std::nullopt), results[0], "(20000 rows)");
  // And the default tuning, from a file.
  const auto path = deid::testing::write_temp_csv("deid_csv_parallel_test", text);
  ASSERT_FALSE(path.empty());
  const PlainDataset from_file = plain(read_dataset(path.string(), {}));
  std::filesystem::remove(path);
  EXPECT_EQ(from_file.columns, results[0].columns);
  const Dataset ds = read_dataset_text(text, "d.csv", {});
  EXPECT_EQ(ds.columns[0].codes.width(), 2u);
  EXPECT_EQ(ds.columns[1].codes.width(), 1u);
}

// Errors are reported where a sequential reader reports them, even when the
// piece that fails is not the first to finish, and invalid UTF-8 later in
// the file wins over an earlier malformed record (read_csv checks UTF-8
// first).
TEST(CsvParallel, ErrorsNameTheLineAndColumnForAnyPieceSize) {
  std::string good = "a,b\n";
  for (int r = 0; r < 2000; ++r) good += fmt::format("x{},{}\n", r % 17, r);
  struct Case {
    std::string text;
    std::uint64_t line;
    std::size_t column;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {good + "1,2,3\n" + good.substr(4), 2002, 3, "field 3 is extra"},
      {good + "1\n", 2002, 2, "field 2 ('b') is missing"},
      {good + "1,x\"y\n" + good.substr(4), 2002, 2, "quote inside an unquoted field (line 2002, character 4)"},
      {good + "1,\"x\n\ny\"z\n", 2002, 2, "unexpected character 'z' after the closing quote (line 2004, character 3)"},
      {good + "1,\"x\n" + good.substr(4), 2002, 2, "unterminated quoted field"},
      {"a,b\n1,x\"y\n" + good.substr(4) + "2,Jos\xE9\n", 2003, 0, "byte 0xE9 at character 6 of line 2003"},
  };
  for (const Case& c : cases)
    for (const detail::ReadTuning& tuning : {detail::ReadTuning{}, detail::ReadTuning{4096, 100}}) {
      const PlainDataset d = deid_dataset(c.text, std::nullopt, tuning);
      ASSERT_TRUE(d.error_at) << c.problem;
      EXPECT_EQ(d.error_at->line, c.line) << d.error;
      EXPECT_EQ(d.error_at->column, c.column) << d.error;
      EXPECT_NE(d.error.find(c.problem), std::string::npos) << d.error;
    }
}

// Unescaped values live in scratch memory until the record ends: a later
// escaped field must not move an earlier one.
TEST(CsvParallel, SeveralEscapedFieldsInOneRecordKeepTheirValues) {
  std::vector<std::string> got;
  read_csv_text("a,b,c\n\"x \"\"\",\"\"\"y\",\"z\"\"\"\n", "t.csv", {}, [&](const CsvRecord& rec) {
    if (rec.index == 1) got.assign(rec.fields.begin(), rec.fields.end());
  });
  EXPECT_EQ(got, (std::vector<std::string>{"x \"", "\"y", "z\""}));
}

TEST(Codes, StoreTheNarrowestWidthAndWidenOnDemand) {
  Codes c;
  EXPECT_EQ(c.width(), 1u);
  c.push_back(3);
  c.push_back(255);
  EXPECT_EQ(c.width(), 1u);
  c.push_back(256);
  EXPECT_EQ(c.width(), 2u);
  c.push_back(70000);
  EXPECT_EQ(c.width(), 4u);
  EXPECT_EQ(c.to_vector(), (std::vector<std::uint32_t>{3, 255, 256, 70000}));
  std::vector<std::uint32_t> seen(c.begin(), c.end());
  EXPECT_EQ(seen, c.to_vector());
  EXPECT_EQ(code_width(256), 1u);
  EXPECT_EQ(code_width(257), 2u);
  EXPECT_EQ(code_width(65536), 2u);
  EXPECT_EQ(code_width(65537), 4u);
  const std::size_t sum = c.visit([](auto s) {
    std::size_t t = 0;
    for (auto v : s) t += v;
    return t;
  });
  EXPECT_EQ(sum, 3u + 255 + 256 + 70000);
}

TEST(Dictionary, InternsFindsAndSurvivesMoves) {
  Dictionary d;
  EXPECT_EQ(d.intern("b"), 0u);
  EXPECT_EQ(d.intern("a"), 1u);
  EXPECT_EQ(d.intern("b"), 0u);
  Dictionary moved(std::move(d));
  EXPECT_EQ(moved.find("a"), 1);
  EXPECT_EQ(moved.intern("c"), 2u);
  Dictionary assigned;
  assigned = std::move(moved);
  for (int i = 0; i < 1000; ++i) assigned.intern(fmt::format("v{}", i));  // rehashes
  EXPECT_EQ(assigned.find("c"), 2);
  EXPECT_EQ(assigned.find("v999"), 1002);
  EXPECT_EQ(assigned.find("zz"), -1);
  EXPECT_EQ(assigned.value(1), "a");
}

}  // namespace
}  // namespace deid
