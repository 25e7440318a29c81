// The verifier on grouped tables (verify::Table::weights, used by
// deid.spark.verify): each pair of input and output rows counted once with
// its weight gives the same findings as the rows one by one. Oracle: the
// same release checked expanded, on random releases (valid and broken).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "verify.h"

namespace {

using verify::Table;

// The hierarchy of a value 0..19: itself, its decade, '*'.
Table hierarchy() {
  Table h;
  for (int v = 0; v < 20; ++v) h.rows.push_back({std::to_string(v), v < 10 ? "0-9" : "10-19", "*"});
  return h;
}

struct Release {
  Table input, output;
};

// A random release: two quasi-identifiers at random levels, some records
// suppressed, and sometimes a broken cell (a copied value changed, or a
// quasi-identifier at another level).
Release random_release(std::mt19937& rng) {
  Release r;
  r.input.header = {"a", "b", "disease", "note"};
  r.output.header = r.input.header;
  const int levels[2] = {static_cast<int>(rng() % 3), static_cast<int>(rng() % 3)};
  const std::size_t n = 20 + rng() % 60;
  const std::vector<std::string> diseases = {"flu", "cold", "asthma"};
  const Table h = hierarchy();
  for (std::size_t i = 0; i < n; ++i) {
    const int a = static_cast<int>(rng() % 20), b = static_cast<int>(rng() % 4);
    std::vector<std::string> in = {std::to_string(a), std::to_string(b), diseases[rng() % 3],
                                   rng() % 2 ? "x" : "y"};
    std::vector<std::string> out = in;
    out[0] = h.rows[a][levels[0]];
    out[1] = h.rows[b][levels[1]];
    if (rng() % 10 == 0) out[0] = out[1] = "*";
    if (rng() % 50 == 0) out[3] = "z";
    if (rng() % 60 == 0) out[0] = h.rows[a][(levels[0] + 1) % 3];
    r.input.rows.push_back(std::move(in));
    r.output.rows.push_back(std::move(out));
  }
  return r;
}

// The pairs of rows with equal values, each once with its count, in the
// order of their first row.
Release grouped(const Release& r) {
  Release g;
  g.input.header = r.input.header;
  g.output.header = r.output.header;
  std::map<std::pair<std::vector<std::string>, std::vector<std::string>>, std::size_t> at;
  for (std::size_t i = 0; i < r.input.rows.size(); ++i) {
    const auto [it, added] = at.try_emplace({r.input.rows[i], r.output.rows[i]}, g.input.rows.size());
    if (added) {
      g.input.rows.push_back(r.input.rows[i]);
      g.output.rows.push_back(r.output.rows[i]);
      g.input.weights.push_back(0);
    }
    ++g.input.weights[it->second];
  }
  g.output.weights = g.input.weights;
  return g;
}

verify::Options random_options(std::mt19937& rng) {
  verify::Options o;
  o.quasi_identifiers = {{"a", "a.csv"}, {"b", "b.csv"}};
  o.k = 1 + rng() % 5;
  o.suppression_limit = (rng() % 5) * 0.05;
  if (rng() % 2) o.class_requirements.push_back(verify::DistinctLDiversity{"disease", 1 + rng() % 3});
  if (rng() % 2) {
    verify::TCloseness t;
    t.attribute = "disease";
    t.distance = verify::TCloseness::Distance::equal;
    t.t = 0.2 + (rng() % 5) * 0.1;
    o.class_requirements.push_back(t);
  }
  if (rng() % 2) o.average_risk = verify::AverageRisk{0.1 + (rng() % 5) * 0.1, std::nullopt, 0};
  return o;
}

TEST(VerifyWeights, GroupedTablesGiveTheFindingsOfTheRows) {
  std::mt19937 rng(20261128);
  const Table h = hierarchy();
  int with_violations = 0;
  for (int round = 0; round < 300; ++round) {
    const Release rows = random_release(rng);
    const Release groups = grouped(rows);
    ASSERT_LT(groups.input.rows.size(), rows.input.rows.size() + 1);
    const verify::Options options = random_options(rng);
    const verify::Report want = verify::check_tables(options, rows.input, rows.output, {h, h});
    const verify::Report got = verify::check_tables(options, groups.input, groups.output, {h, h});
    SCOPED_TRACE(want.to_string());
    EXPECT_EQ(got.input_rows, want.input_rows);
    EXPECT_EQ(got.output_rows, want.output_rows);
    EXPECT_EQ(got.suppressed_records, want.suppressed_records);
    EXPECT_EQ(got.max_suppressed, want.max_suppressed);
    EXPECT_EQ(got.classes, want.classes);
    EXPECT_EQ(got.smallest_class, want.smallest_class);
    EXPECT_EQ(got.levels, want.levels);
    EXPECT_EQ(got.fitting_levels, want.fitting_levels);
    EXPECT_EQ(got.average_risk, want.average_risk);
    ASSERT_EQ(got.violations.size(), want.violations.size()) << got.to_string();
    for (std::size_t v = 0; v < want.violations.size(); ++v) {
      EXPECT_EQ(got.violations[v].kind, want.violations[v].kind);
      EXPECT_EQ(got.violations[v].count, want.violations[v].count);
      EXPECT_EQ(got.violations[v].column, want.violations[v].column);
    }
    with_violations += !want.violations.empty();
  }
  // Both kinds of release were met: valid ones and broken ones.
  EXPECT_GT(with_violations, 30);
  EXPECT_LT(with_violations, 290);
}

TEST(VerifyWeights, WeightsMustPairAndFitTheChecks) {
  Release r;
  r.input.header = r.output.header = {"a"};
  r.input.rows = r.output.rows = {{"1"}, {"2"}};
  r.input.weights = {2, 3};
  r.output.weights = {2, 4};
  verify::Options options;
  options.quasi_identifiers = {{"a", "a.csv"}};
  const Table h = hierarchy();
  verify::Report report = verify::check_tables(options, r.input, r.output, {h});
  ASSERT_EQ(report.violations.size(), 1u);
  EXPECT_EQ(report.violations[0].kind, verify::Violation::Kind::bad_options);
  EXPECT_NE(report.violations[0].message.find("weights differ"), std::string::npos);
  r.output.weights = r.input.weights;
  options.subset = {1, 0};
  report = verify::check_tables(options, r.input, r.output, {h});
  ASSERT_EQ(report.violations.size(), 1u);
  EXPECT_NE(report.violations[0].message.find("research subset"), std::string::npos);
  options.subset.clear();
  report = verify::check_tables(options, r.input, r.output, {h});
  EXPECT_TRUE(report.violations.empty()) << report.to_string();
  EXPECT_EQ(report.input_rows, 5u);
  EXPECT_EQ(report.smallest_class, 2u);
}

}  // namespace
