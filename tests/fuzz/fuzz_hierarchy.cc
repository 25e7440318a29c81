// libFuzzer target: the hierarchy reader, the binder and the hierarchy
// builders (docs/fuzzing.md).
//
// Input: `DATA \0 HIERARCHY`, the last bytes taken as options
// (FuzzedDataProvider consumes integers from the end). DATA is a CSV with a
// header; without a NUL byte, or when DATA is not a valid table, a fixed
// small table is used and the whole input is the hierarchy. HIERARCHY is an
// ARX hierarchy CSV, read with its delimiter detected or given.
//
// The hierarchy is bound to every column (at most four). A binding that
// succeeds must be consistent: one level per hierarchy column, level 0 the
// column's own codes, every generalized code within its level's domain and
// labelled as the hierarchy row says, the leaves of each level summing to
// the hierarchy's rows. Then each builder (masking, dates, intervals,
// grouping) runs on the first column's distinct values with fuzzed
// parameters; a table it builds must bind to that column and must read back
// unchanged from the CSV it is written as (what `deid hierarchy` writes).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/hierarchy.h"
#include "deid/hierarchy_builder.h"
#include "fuzz_common.h"

namespace {

using deid_fuzz::fuzz_fail;

constexpr const char kFixedData[] =
    "age;sex;zip;admitted\n"
    "34;F;81675;2019-03-02\n"
    "45;M;81667;2019-11-30\n"
    "29;F;81925;2020-02-29\n"
    "34;M;81931;2018-07-14\n"
    "61;F;81675;2019-03-02\n";

// Binds `table` to `column` and checks what the binding promises.
void bind_and_check(const deid::HierarchyTable& table, const deid::Column& column) {
  const deid::Generalization g = deid::Generalization::build(table, column, "data.csv");
  const std::size_t height = table.rows.front().size();
  const std::uint32_t n = column.dictionary.size();
  FUZZ_CHECK(static_cast<std::size_t>(g.height()) == height, "one level per hierarchy column");
  FUZZ_CHECK(g.hierarchy_rows() == table.rows.size(), "hierarchy rows");
  for (int level = 0; level < g.height(); ++level) {
    const auto& map = g.map(level);
    FUZZ_CHECK(map.size() == n, "a generalized code per column code");
    std::uint64_t leaves = 0;
    for (std::uint32_t v = 0; v < g.domain_size(level); ++v) leaves += g.leaves(level, v);
    FUZZ_CHECK(leaves == table.rows.size(), "the leaves of a level sum to the hierarchy's rows");
    for (std::uint32_t c = 0; c < n; ++c) {
      FUZZ_CHECK(map[c] < g.domain_size(level), "generalized code within the level's domain");
      if (level == 0) FUZZ_CHECK(map[c] == c, "level 0 is the identity");
    }
  }
  for (std::uint32_t c = 0; c < n; ++c) {
    const std::string& value = column.dictionary.value(c);
    const std::vector<std::string>* row = nullptr;
    for (const auto& r : table.rows)
      if (r.front() == value) row = &r;
    FUZZ_CHECK(row != nullptr, "a bound value is in the hierarchy");
    for (int level = 0; level < g.height(); ++level)
      FUZZ_CHECK(g.label(level, g.map(level)[c]) == (*row)[static_cast<std::size_t>(level)],
                 "the label of a generalized code is the hierarchy's value");
  }
}

// A table a builder made: it binds, and it survives being written and read.
void check_built(const deid::HierarchyTable& table, const deid::Column& column, const char* builder) {
  try {
    bind_and_check(table, column);
  } catch (const deid::Error& e) {
    fuzz_fail(std::string(builder) + " built a hierarchy that does not bind to its own values: " + e.what());
  }
  const std::string csv = deid::hierarchy_to_csv(table);
  deid::HierarchyTable back;
  try {
    back = deid::read_hierarchy_text(csv, "built.csv", deid::CsvOptions{';'});
  } catch (const deid::Error& e) {
    fuzz_fail(std::string(builder) + " built a hierarchy whose CSV does not read back: " + e.what());
  }
  FUZZ_CHECK(back.rows == table.rows, std::string(builder) + ": the CSV reads back unchanged");
}

template <class Build>
void try_builder(const deid::Column& column, const char* name, Build&& build) {
  std::optional<deid::HierarchyTable> table;
  try {
    table = build();
  } catch (const deid::Error&) {
    return;  // parameters or values the builder rejects
  }
  check_built(*table, column, name);
}

void run_builders(FuzzedDataProvider& fdp, const deid::Column& column) {
  std::vector<std::string> values;
  for (std::uint32_t c = 0; c < column.dictionary.size(); ++c) values.push_back(column.dictionary.value(c));

  deid::MaskingSpec masking;
  masking.mask_char = fdp.ConsumeIntegral<char>();
  masking.from_left = fdp.ConsumeBool();
  masking.levels = fdp.ConsumeIntegralInRange<int>(-1, 12);
  try_builder(column, "masking", [&] { return deid::build_masking_hierarchy(values, masking); });

  deid::DateSpec dates;
  dates.month = fdp.ConsumeBool();
  dates.year = fdp.ConsumeBool();
  dates.decade = fdp.ConsumeBool();
  try_builder(column, "dates", [&] { return deid::build_date_hierarchy(values, dates); });

  // Bounds and widths as small integers scaled by a power of ten, so that
  // fractional widths (0.1, 0.3, ...) occur as a user would write them.
  deid::IntervalSpec intervals;
  const double scale = std::pow(10.0, -fdp.ConsumeIntegralInRange<int>(0, 3));
  intervals.min = fdp.ConsumeIntegralInRange<int>(-100, 100) * scale;
  intervals.max = intervals.min + fdp.ConsumeIntegralInRange<int>(-1, 400) * scale;
  const int nwidths = fdp.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < nwidths; ++i) intervals.widths.push_back(fdp.ConsumeIntegralInRange<int>(0, 64) * scale);
  intervals.bottom_coding = fdp.ConsumeBool();
  intervals.top_coding = fdp.ConsumeBool();
  try_builder(column, "intervals", [&] { return deid::build_interval_hierarchy(values, intervals); });

  // The order: the values, possibly one dropped or duplicated.
  deid::GroupingSpec grouping;
  grouping.order = values;
  const auto change = fdp.ConsumeIntegral<std::uint8_t>();
  if (!grouping.order.empty() && change % 4 == 1) grouping.order.pop_back();
  if (!grouping.order.empty() && change % 4 == 2) grouping.order.push_back(grouping.order.front());
  const int nsizes = fdp.ConsumeIntegralInRange<int>(0, 3);
  for (int i = 0; i < nsizes; ++i) grouping.sizes.push_back(fdp.ConsumeIntegralInRange<std::size_t>(0, 16));
  try_builder(column, "grouping", [&] { return deid::build_grouping_hierarchy(values, grouping); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deid_fuzz::single_thread();
  FuzzedDataProvider fdp(data, size);
  const auto flags = fdp.ConsumeIntegral<std::uint8_t>();
  const auto delim_byte = fdp.ConsumeIntegral<std::uint8_t>();
  const std::string input = fdp.ConsumeBytesAsString(fdp.remaining_bytes() - std::min<std::size_t>(
                                                                                  fdp.remaining_bytes(), 24));
  // What is left (up to 24 bytes) drives the builders' parameters.

  std::string data_text = kFixedData, hierarchy_text = input;
  if (const std::size_t nul = input.find('\0'); nul != std::string::npos) {
    data_text = input.substr(0, nul);
    hierarchy_text = input.substr(nul + 1);
  }
  deid::Dataset ds;
  try {
    ds = deid::read_dataset_text(data_text, "data.csv", {});
  } catch (const deid::Error&) {
    ds = deid::read_dataset_text(kFixedData, "data.csv", {});
  }

  deid::CsvOptions options;
  if (flags & 1) {
    static constexpr char kUsual[] = {';', ',', '\t', '|', ' ', '"'};
    options.delimiter = kUsual[delim_byte % sizeof kUsual];
  }
  try {
    const deid::HierarchyTable table = deid::read_hierarchy_text(hierarchy_text, "hierarchy.csv", options);
    FUZZ_CHECK(!table.rows.empty() && table.lines.size() == table.rows.size(), "a line per hierarchy row");
    for (std::size_t c = 0; c < ds.columns.size() && c < 4; ++c) {
      try {
        bind_and_check(table, ds.columns[c]);
      } catch (const deid::Error&) {
        // A hierarchy that does not fit the column: the expected outcome.
      }
    }
  } catch (const deid::Error&) {
    // Malformed hierarchy CSV.
  }

  if (!ds.columns.empty()) run_builders(fdp, ds.columns[(flags >> 1) % ds.columns.size()]);
  return 0;
}
