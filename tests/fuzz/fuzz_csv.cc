// libFuzzer target: the CSV reader (docs/fuzzing.md).
//
// Input: the CSV text; its last bytes are taken as options (FuzzedDataProvider
// consumes integers from the end): whether the delimiter is given or
// detected (and which), `header` and `ragged` for read_csv_text, and the
// block and piece sizes of the parallel dataset reader. Each input is read
// four ways, and their results must agree:
//   1. read_csv_text with the fuzzed options (records handed over in order,
//      with increasing lines; as many fields as the first record unless
//      ragged);
//   2. read_csv_text with header = true, as read_dataset reads;
//   3. read_dataset_text with the default block and piece sizes (one piece
//      for a small input);
//   4. detail::read_dataset_text with blocks and pieces of a few bytes, so
//      that records cross blocks and pieces and the parallel merge runs.
// 3 and 4 must give the same table (values, codes in order of first
// appearance, first lines) or the same error; when 2 succeeds, 3 holds its
// records, and when 2 fails, 3 fails with the same message (dataset.h).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "data/dataset_read.h"
#include "deid/csv.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "fuzz_common.h"

namespace {

using deid_fuzz::fuzz_fail;

// The whole message: what() would stop at a NUL byte of a quoted value.
std::string message(const deid::Error& e) {
  if (const auto* in = dynamic_cast<const deid::InputError*>(&e)) return in->where().to_string() + ": " + in->problem();
  return e.what();
}

// The problem without its location: rules are matched on these words only,
// since the location may quote a column name holding any text (a fuzzed
// header once held "is UTF-16 encoded; convert it").
std::string problem(const deid::Error& e) {
  if (const auto* in = dynamic_cast<const deid::InputError*>(&e)) return in->problem();
  return e.what();
}

struct Records {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::uint64_t> lines;
  char delimiter = 0;
  std::optional<std::string> error;
  std::string problem;  // error's problem, without its location
};

Records read_records(const std::string& text, const deid::CsvOptions& options) {
  Records r;
  try {
    r.delimiter = deid::read_csv_text(text, "fuzz.csv", options, [&](const deid::CsvRecord& rec) {
      FUZZ_CHECK(rec.index == r.rows.size(), "records are numbered in order");
      FUZZ_CHECK(rec.line >= 1, "lines are 1-based");
      FUZZ_CHECK(r.lines.empty() || rec.line > r.lines.back(), "each record starts on a later line");
      if (!options.ragged && !r.rows.empty())
        FUZZ_CHECK(rec.fields.size() == r.rows.front().size(), "records have as many fields as the first");
      r.rows.emplace_back(rec.fields.begin(), rec.fields.end());
      r.lines.push_back(rec.line);
    });
  } catch (const deid::Error& e) {
    r.error = message(e);
    r.problem = problem(e);
  }
  return r;
}

// A dataset decoded back to strings, or the error it threw.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;             // row-major values
  std::vector<std::vector<std::uint64_t>> first_lines;    // per column, per code
  char delimiter = 0;
  std::optional<std::string> error;
  std::string problem;  // error's problem, without its location
  bool operator==(const Table&) const = default;
};

Table decode(const deid::Dataset& ds) {
  Table t;
  t.delimiter = ds.delimiter;
  for (const deid::Column& c : ds.columns) {
    t.header.push_back(c.name);
    FUZZ_CHECK(c.codes.size() == ds.rows, "a code per row");
    FUZZ_CHECK(c.first_line.size() == c.dictionary.size(), "a first line per code");
    t.first_lines.push_back(c.first_line);
    // Codes are numbered in order of first appearance.
    std::uint32_t next = 0;
    for (std::uint32_t code : c.codes) {
      FUZZ_CHECK(code <= next, "codes in order of first appearance");
      if (code == next) ++next;
    }
    FUZZ_CHECK(next == c.dictionary.size(), "every code occurs");
    for (std::uint32_t v = 0; v < c.dictionary.size(); ++v)
      FUZZ_CHECK(c.dictionary.find(c.dictionary.value(v)) == v, "the dictionary finds its values");
  }
  t.rows.resize(ds.rows);
  for (std::uint64_t r = 0; r < ds.rows; ++r)
    for (const deid::Column& c : ds.columns) t.rows[r].push_back(c.dictionary.value(c.codes[r]));
  return t;
}

template <class Read>
Table read_table(Read&& read) {
  try {
    return decode(read());
  } catch (const deid::Error& e) {
    Table t;
    t.error = message(e);
    t.problem = problem(e);
    return t;
  }
}

std::string describe(const Table& t) {
  if (t.error) return "error: " + *t.error;
  return "table of " + std::to_string(t.header.size()) + " columns and " + std::to_string(t.rows.size()) + " rows";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deid_fuzz::single_thread();
  FuzzedDataProvider fdp(data, size);
  const auto flags = fdp.ConsumeIntegral<std::uint8_t>();
  const auto delim_byte = fdp.ConsumeIntegral<std::uint8_t>();
  const std::size_t block = fdp.ConsumeIntegralInRange<std::size_t>(1, 96);
  const std::size_t piece = fdp.ConsumeIntegralInRange<std::size_t>(1, 32);
  const std::string text = fdp.ConsumeRemainingBytesAsString();

  deid::CsvOptions options;
  if (flags & 1) {
    // Mostly the usual candidates; sometimes any byte (a quote or a line
    // break must be rejected with an error).
    static constexpr char kUsual[] = {',', ';', '\t', '|', ' ', ':', '"', '\n'};
    options.delimiter = (flags & 2) ? static_cast<char>(delim_byte) : kUsual[delim_byte % sizeof kUsual];
  }
  deid::CsvOptions fuzzed = options;
  fuzzed.header = (flags & 4) != 0;
  fuzzed.ragged = (flags & 8) != 0;
  const Records any = read_records(text, fuzzed);
  if (!any.error && !options.delimiter)
    FUZZ_CHECK(any.delimiter == deid::detect_delimiter(text), "the detected delimiter is used");

  deid::CsvOptions as_dataset = options;
  as_dataset.header = true;
  const Records csv = read_records(text, as_dataset);

  const Table whole = read_table([&] { return deid::read_dataset_text(text, "fuzz.csv", options); });
  const Table pieces = read_table([&] {
    return deid::detail::read_dataset_text(text, "fuzz.csv", options, deid::detail::ReadTuning{block, piece});
  });
  if (!(whole == pieces))
    fuzz_fail("read_dataset_text differs with blocks of " + std::to_string(block) + " and pieces of " +
              std::to_string(piece) + " bytes: " + describe(whole) + " vs " + describe(pieces));

  // The dataset's own rules on the header (dataset.h) are checked when the
  // header is read, before any later record: their errors may come first.
  const auto header_rule = [](const std::string& e) {
    return e.find("empty name in the header") != std::string::npos ||
           e.find("duplicate column name") != std::string::npos;
  };
  if (csv.error) {
    // Invalid UTF-8 anywhere wins over every other error.
    const bool utf = csv.problem.starts_with("the file is not valid UTF-8: byte 0x") ||
                     csv.problem.starts_with("the file is UTF-16 encoded; convert it");
    FUZZ_CHECK(whole.error == csv.error || (whole.error && header_rule(whole.problem) && !utf),
               "read_dataset reports read_csv's error: " + describe(whole) + " vs error: " + *csv.error);
  } else if (!whole.error) {
    FUZZ_CHECK(!csv.rows.empty() && whole.header == csv.rows.front(), "the header is the first record");
    FUZZ_CHECK(whole.rows.size() + 1 == csv.rows.size(), "one dataset row per data record");
    for (std::size_t r = 0; r < whole.rows.size(); ++r)
      FUZZ_CHECK(whole.rows[r] == csv.rows[r + 1], "row " + std::to_string(r + 1) + " as read_csv reads it");
    // First lines: the line of the first record holding each value.
    for (std::size_t c = 0; c < whole.header.size(); ++c) {
      std::set<std::string> seen;
      for (std::size_t r = 0; r < whole.rows.size(); ++r) {
        if (!seen.insert(whole.rows[r][c]).second) continue;
        FUZZ_CHECK(seen.size() <= whole.first_lines[c].size() &&
                       whole.first_lines[c][seen.size() - 1] == csv.lines[r + 1],
                   "first line of a value");
      }
    }
  } else {
    // read_csv takes what read_dataset rejects only for the dataset's own
    // rules (dataset.h).
    const std::string& e = whole.problem;
    FUZZ_CHECK(e.find("the file is empty") != std::string::npos || e.find("no data records") != std::string::npos ||
                   header_rule(e),
               "read_dataset fails where read_csv does not: " + e);
  }
  return 0;
}
