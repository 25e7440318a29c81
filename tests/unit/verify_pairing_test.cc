// Pairing of released rows with input rows by their values (src/verify/
// pairing.h), as deid verify does for database tables: a release in any
// row order verifies, a changed cell is named at its own row, ties between
// levels are tried in turn.
#include "pairing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "verify.h"

namespace {

// age (quasi-identifier, levels: value, decade, *), sex (quasi-identifier,
// value, *), diagnosis copied.
verify::Table hierarchy_age() {
  verify::Table t;
  for (int a = 20; a < 40; ++a)
    t.rows.push_back({std::to_string(a), a < 30 ? "20-29" : "30-39", "*"});
  return t;
}
verify::Table hierarchy_sex() {
  verify::Table t;
  t.rows = {{"f", "*"}, {"m", "*"}};
  return t;
}

verify::Options options() {
  verify::Options o;
  o.quasi_identifiers = {{"age", "age.csv"}, {"sex", "sex.csv"}};
  o.k = 2;
  o.suppression_limit = 0.2;
  return o;
}

// Ten records; the release at age level 1, sex level 0, the last two
// records suppressed (the limit allows two).
void tables(verify::Table& input, verify::Table& output) {
  input.header = {"age", "sex", "diagnosis"};
  output.header = {"age", "sex", "diagnosis"};
  const std::vector<std::vector<std::string>> rows = {
      {"21", "f", "a"}, {"25", "f", "b"}, {"27", "f", "a"}, {"33", "m", "c"}, {"35", "m", "c"},
      {"38", "m", "a"}, {"22", "m", "b"}, {"29", "m", "b"}, {"31", "f", "c"}, {"39", "f", "a"}};
  input.rows = rows;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int age = std::stoi(rows[r][0]);
    output.rows.push_back({age < 30 ? "20-29" : "30-39", rows[r][1], rows[r][2]});
  }
  output.rows[8] = {"*", "*", "c"};
  output.rows[9] = {"*", "*", "a"};
}

verify::Report check_paired(const verify::Table& input, const verify::Table& output, verify::Pairing* p = nullptr) {
  const std::vector<verify::Table> h = {hierarchy_age(), hierarchy_sex()};
  const auto pairing = verify::pair_rows(options(), input, output, h);
  EXPECT_TRUE(pairing.has_value());
  if (p) *p = *pairing;
  return verify::check_tables(options(), input, verify::in_input_order(output, *pairing), h);
}

TEST(VerifyPairing, ShuffledReleaseVerifies) {
  verify::Table input, output;
  tables(input, output);
  const std::vector<verify::Table> h = {hierarchy_age(), hierarchy_sex()};
  ASSERT_TRUE(verify::check_tables(options(), input, output, h).valid());
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(output.rows.begin(), output.rows.end(), rng);
    verify::Pairing p;
    const verify::Report report = check_paired(input, output, &p);
    EXPECT_TRUE(report.valid()) << report.to_string();
    EXPECT_EQ(p.unexplained, 0u);
    ASSERT_EQ(report.levels.size(), 2u);
    EXPECT_EQ(report.levels[0], 1);
    EXPECT_EQ(report.levels[1], 0);
  }
  // In order, the check without pairing fails: rows are compared in order.
  std::shuffle(output.rows.begin(), output.rows.end(), rng);
  EXPECT_FALSE(verify::check_tables(options(), input, output, h).valid());
}

TEST(VerifyPairing, ChangedCellIsNamedAtItsOwnRow) {
  verify::Table input, output;
  tables(input, output);
  output.rows[4][0] = "35";  // un-generalized: the input row 5's own age
  std::reverse(output.rows.begin(), output.rows.end());
  verify::Pairing p;
  const verify::Report report = check_paired(input, output, &p);
  EXPECT_EQ(p.unexplained, 1u);
  ASSERT_TRUE(report.has(verify::Violation::Kind::not_single_level)) << report.to_string();
  for (const auto& v : report.violations)
    if (v.kind == verify::Violation::Kind::not_single_level) {
      EXPECT_EQ(v.column, "age");
      EXPECT_EQ(v.row, 5u);  // paired with the input row it came from
    }
}

TEST(VerifyPairing, ChangedCopiedValueFails) {
  verify::Table input, output;
  tables(input, output);
  output.rows[0][2] = "z";
  const verify::Report report = check_paired(input, output);
  EXPECT_FALSE(report.valid());
  EXPECT_TRUE(report.has(verify::Violation::Kind::value_changed)) << report.to_string();
}

TEST(VerifyPairing, NoPairingWhenRowCountsDiffer) {
  verify::Table input, output;
  tables(input, output);
  output.rows.pop_back();
  EXPECT_FALSE(verify::pair_rows(options(), input, output, {hierarchy_age(), hierarchy_sex()}).has_value());
}

TEST(VerifyPairing, EqualLevelsAreTriedInTurn) {
  // One class and one suppressed record: only age level 1 and sex level 0
  // explain the class, the starred record pairs with the input row left.
  verify::Table input, output;
  input.header = output.header = {"age", "sex", "diagnosis"};
  input.rows = {{"21", "f", "a"}, {"22", "f", "a"}, {"33", "m", "b"}};
  output.rows = {{"*", "*", "b"}, {"20-29", "f", "a"}, {"20-29", "f", "a"}};
  verify::Options o = options();
  o.suppression_limit = 0.5;
  const std::vector<verify::Table> h = {hierarchy_age(), hierarchy_sex()};
  const auto pairing = verify::pair_rows(o, input, output, h);
  ASSERT_TRUE(pairing.has_value());
  EXPECT_EQ(pairing->unexplained, 0u);
  const verify::Report report = verify::check_tables(o, input, verify::in_input_order(output, *pairing), h);
  EXPECT_TRUE(report.valid()) << report.to_string();
}

}  // namespace
