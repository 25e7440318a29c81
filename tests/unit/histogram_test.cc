// The histogram of a table grouped in its database (docs/databases.md,
// "Pushdown" and "Memory"): the grouped rows, in the order of their first
// record, must give the histogram of the records themselves, whether the
// table was grouped by exactly the histogram's columns (hashed by
// build_histogram, or taken row for entry by take_grouped_histogram) or by
// more (sensitive columns: hashed, with distributions).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "deid/dataset.h"
#include "deid/histogram.h"
#include "support/histogram.h"
#include "util/release.h"

namespace deid {
namespace {

// A table of `rows` records and `cols` columns, column c drawn from
// `domain` values, skewed so that many records repeat.
Dataset random_records(std::uint64_t seed, std::size_t rows, std::size_t cols, std::uint32_t domain) {
  std::mt19937_64 rng(seed);
  Dataset d;
  d.rows = rows;
  d.columns.resize(cols);
  for (std::size_t c = 0; c < cols; ++c) d.columns[c].name = "c" + std::to_string(c);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::uint64_t u = rng() % (std::uint64_t{domain} * domain);
      const auto v = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(u)));
      d.columns[c].codes.push_back(d.columns[c].dictionary.intern("v" + std::to_string(v)));
    }
  return d;
}

// What the database sends for `records` grouped by `by`: one row per
// distinct combination, in the order of its first record, with its count
// (the other columns named, without codes).
Dataset grouped(const Dataset& records, const std::vector<int>& by) {
  Dataset g;
  g.columns.resize(records.columns.size());
  for (std::size_t c = 0; c < records.columns.size(); ++c) g.columns[c].name = records.columns[c].name;
  std::map<std::vector<std::uint32_t>, std::size_t> row_of;
  std::vector<std::vector<std::uint32_t>> values;
  for (std::uint64_t r = 0; r < records.rows; ++r) {
    std::vector<std::uint32_t> key;
    for (int c : by) key.push_back(records.columns[static_cast<std::size_t>(c)].codes[r]);
    const auto [it, inserted] = row_of.try_emplace(key, values.size());
    if (inserted) {
      values.push_back(key);
      g.weights.push_back(0);
    }
    ++g.weights[it->second];
  }
  // Codes numbered in order of first appearance in the grouped rows, as
  // the reader numbers them.
  for (std::size_t i = 0; i < by.size(); ++i) {
    Column& col = g.columns[static_cast<std::size_t>(by[i])];
    const Dictionary& original = records.columns[static_cast<std::size_t>(by[i])].dictionary;
    for (const auto& key : values) col.codes.push_back(col.dictionary.intern(original.value(key[i])));
  }
  g.rows = values.size();
  g.grouped_records = records.rows;
  return g;
}

TEST(GroupedHistogram, GroupedByItsColumnsIsTheRecordsHistogram) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Dataset records = random_records(seed, 3000 + 700 * seed, 4, 6 + static_cast<std::uint32_t>(seed));
    const std::vector<int> qis = {0, 2, 3};
    Dataset g = grouped(records, qis);
    ASSERT_LT(g.rows, records.rows) << "records must repeat for the test to mean something";
    const Histogram want = build_histogram(records, qis), got = build_histogram(g, qis);
    testing::expect_same_histogram(want, got);
    // Row r of the grouped table is entry r; its rows are not records.
    EXPECT_EQ(got.size(), g.rows);
    EXPECT_TRUE(got.row_entry.empty());
    EXPECT_EQ(want.row_entry.size(), records.rows);
    const std::optional<Histogram> taken = take_grouped_histogram(g, qis);
    ASSERT_TRUE(taken.has_value());
    testing::expect_same_histogram(want, *taken);
    EXPECT_TRUE(taken->row_entry.empty());
  }
}

// Taking the rows (prepare, with pushdown) gives the same histogram and
// leaves the table its dictionaries and record count, no codes or weights.
TEST(GroupedHistogram, TakingTheRowsGivesTheSameHistogram) {
  const Dataset records = random_records(21, 5000, 4, 8);
  const std::vector<int> qis = {1, 2, 3};
  Dataset g = grouped(records, qis);
  const Histogram want = build_histogram(g, qis);
  std::optional<Histogram> got = take_grouped_histogram(g, qis);
  ASSERT_TRUE(got.has_value());
  testing::expect_same_histogram(want, *got);
  EXPECT_TRUE(g.grouped());
  EXPECT_EQ(g.records(), 5000u);
  EXPECT_EQ(g.weights.capacity(), 0u);
  for (int c : qis) {
    EXPECT_TRUE(g.columns[static_cast<std::size_t>(c)].codes.empty());
    EXPECT_GT(g.columns[static_cast<std::size_t>(c)].dictionary.size(), 0u);
  }
  // Grouped by more columns than asked, or not grouped: nothing is taken.
  Dataset more = grouped(records, {0, 1, 2, 3});
  EXPECT_FALSE(take_grouped_histogram(more, qis).has_value());
  EXPECT_EQ(more.columns[1].codes.size(), more.rows);
  Dataset plain = random_records(21, 5000, 4, 8);
  EXPECT_FALSE(take_grouped_histogram(plain, qis).has_value());
  EXPECT_EQ(plain.columns[1].codes.size(), records.rows);
}

TEST(GroupedHistogram, GroupedByMoreColumnsIsHashedWithDistributions) {
  for (std::uint64_t seed = 11; seed <= 14; ++seed) {
    const Dataset records = random_records(seed, 4000, 4, 7);
    const std::vector<int> qis = {0, 1}, sensitive = {3};
    // The database groups by the quasi-identifiers and the sensitive column:
    // several rows per entry.
    const Dataset g = grouped(records, {0, 1, 3});
    const Histogram want = build_histogram(records, qis, sensitive), got = build_histogram(g, qis, sensitive);
    ASSERT_LT(got.size(), g.rows);
    testing::expect_same_histogram(want, got);
    EXPECT_TRUE(got.row_entry.empty());
    // Without the sensitive column, column 3's codes make the rows more than
    // the entries: hashed too, never taken row for entry.
    testing::expect_same_histogram(build_histogram(records, qis), build_histogram(g, qis));
  }
}

TEST(GroupedHistogram, ReleasedRowsKeepTheRecordCount) {
  const Dataset records = random_records(3, 2000, 3, 5);
  Dataset g = grouped(records, {0, 1, 2});
  const std::uint64_t rows = g.rows;
  g.release_grouped_rows();
  EXPECT_TRUE(g.grouped());
  EXPECT_EQ(g.records(), 2000u);
  EXPECT_EQ(g.rows, rows);
  EXPECT_EQ(g.weights.capacity(), 0u);
  for (const Column& c : g.columns) {
    EXPECT_TRUE(c.codes.empty());
    EXPECT_GT(c.dictionary.size(), 0u) << "the dictionaries stay: the database's release maps them";
  }
  // A table of records is left alone.
  Dataset r = random_records(3, 100, 2, 5);
  r.release_grouped_rows();
  EXPECT_EQ(r.columns[0].codes.size(), 100u);
}

TEST(Release, FreesWhatAssigningBracesKeeps) {
  std::vector<std::uint64_t> v(1000, 1);
  v = {};  // an empty initializer list: the capacity stays
  EXPECT_GE(v.capacity(), 1000u);
  v.resize(1000);
  util::release(v);
  EXPECT_EQ(v.capacity(), 0u);
}

}  // namespace
}  // namespace deid
