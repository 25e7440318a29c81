#include "deid/hierarchy_builder.h"

#include <gtest/gtest.h>

#include "deid/error.h"

namespace deid {
namespace {

using Row = std::vector<std::string>;

Row row_of(const HierarchyTable& t, const std::string& value) {
  for (const auto& r : t.rows)
    if (r[0] == value) return r;
  return {};
}

std::string error_of(auto&& fn) {
  try {
    fn();
  } catch (const JobError& e) {
    return e.what();
  }
  return "";
}

TEST(IntervalHierarchy, BinsNestAndEndWithStar) {
  IntervalSpec s{0, 100, {5, 10, 20}, false, false};
  const auto t = build_interval_hierarchy({"0", "4", "5", "99", "37"}, s);
  EXPECT_EQ(row_of(t, "0"), (Row{"0", "[0, 5)", "[0, 10)", "[0, 20)", "*"}));
  EXPECT_EQ(row_of(t, "4"), (Row{"4", "[0, 5)", "[0, 10)", "[0, 20)", "*"}));
  EXPECT_EQ(row_of(t, "5"), (Row{"5", "[5, 10)", "[0, 10)", "[0, 20)", "*"}));
  EXPECT_EQ(row_of(t, "99"), (Row{"99", "[95, 100)", "[90, 100)", "[80, 100)", "*"}));
  EXPECT_EQ(row_of(t, "37"), (Row{"37", "[35, 40)", "[30, 40)", "[20, 40)", "*"}));
}

TEST(IntervalHierarchy, LastBinIsClippedAtMax) {
  const auto t = build_interval_hierarchy({"95"}, IntervalSpec{0, 97, {10}, false, false});
  EXPECT_EQ(row_of(t, "95"), (Row{"95", "[90, 97)", "*"}));
}

TEST(IntervalHierarchy, BoundsAreHalfOpen) {
  IntervalSpec s{10, 20, {5}, false, false};
  EXPECT_EQ(row_of(build_interval_hierarchy({"10"}, s), "10")[1], "[10, 15)");
  EXPECT_NE(error_of([&] { build_interval_hierarchy({"20"}, s); }).find("'20' is outside [10, 20)"), std::string::npos);
  EXPECT_NE(error_of([&] { build_interval_hierarchy({"9.5"}, s); }).find("bottom coding is off"), std::string::npos);
}

TEST(IntervalHierarchy, TopAndBottomCodingCoverOutsideValues) {
  IntervalSpec s{18, 90, {6, 12}, true, true};
  const auto t = build_interval_hierarchy({"17", "90", "120", "18"}, s);
  EXPECT_EQ(row_of(t, "17"), (Row{"17", "<18", "<18", "*"}));
  EXPECT_EQ(row_of(t, "90"), (Row{"90", ">=90", ">=90", "*"}));
  EXPECT_EQ(row_of(t, "120"), (Row{"120", ">=90", ">=90", "*"}));
  EXPECT_EQ(row_of(t, "18"), (Row{"18", "[18, 24)", "[18, 30)", "*"}));
}

TEST(IntervalHierarchy, RejectsBadParametersAndValues) {
  EXPECT_NE(error_of([] { build_interval_hierarchy({"1"}, IntervalSpec{0, 0, {5}, false, false}); }).find("max"), std::string::npos);
  EXPECT_NE(error_of([] { build_interval_hierarchy({"1"}, IntervalSpec{0, 10, {}, false, false}); }).find("width"), std::string::npos);
  EXPECT_NE(error_of([] { build_interval_hierarchy({"1"}, IntervalSpec{0, 10, {4, 6}, false, false}); }).find("multiple"), std::string::npos);
  EXPECT_NE(error_of([] { build_interval_hierarchy({"abc"}, IntervalSpec{0, 10, {5}, false, false}); }).find("'abc' is not a number"), std::string::npos);
  EXPECT_NE(error_of([] { build_interval_hierarchy({}, IntervalSpec{0, 10, {5}, false, false}); }).find("no values"), std::string::npos);
}

TEST(MaskingHierarchy, MasksFromTheRightThenStar) {
  const auto t = build_masking_hierarchy({"81675", "81677"}, MaskingSpec{});
  EXPECT_EQ(row_of(t, "81675"), (Row{"81675", "8167*", "816**", "81***", "8****", "*****", "*"}));
  EXPECT_EQ(t.rows.size(), 2u);
}

TEST(MaskingHierarchy, ShortValuesAreMaskedEntirelyAndRowsKeepOneLength) {
  const auto t = build_masking_hierarchy({"123", "9"}, MaskingSpec{});
  EXPECT_EQ(row_of(t, "9"), (Row{"9", "*", "*", "*", "*"}));
  EXPECT_EQ(row_of(t, "123"), (Row{"123", "12*", "1**", "***", "*"}));
}

TEST(MaskingHierarchy, LevelsAndDirection) {
  const auto t = build_masking_hierarchy({"ABCD"}, MaskingSpec{'x', true, 2});
  EXPECT_EQ(row_of(t, "ABCD"), (Row{"ABCD", "xBCD", "xxCD", "*"}));
  EXPECT_NE(error_of([] { build_masking_hierarchy({}, MaskingSpec{}); }).find("no values"), std::string::npos);
}

TEST(DateHierarchy, DayMonthYearDecade) {
  const auto t = build_date_hierarchy({"2020-03-15", "1999-12-31"}, DateSpec{});
  EXPECT_EQ(row_of(t, "2020-03-15"), (Row{"2020-03-15", "2020-03", "2020", "2020-2029", "*"}));
  EXPECT_EQ(row_of(t, "1999-12-31"), (Row{"1999-12-31", "1999-12", "1999", "1990-1999", "*"}));
  const auto y = build_date_hierarchy({"2020-02-29"}, DateSpec{false, true, false});
  EXPECT_EQ(row_of(y, "2020-02-29"), (Row{"2020-02-29", "2020", "*"}));
}

TEST(DateHierarchy, RejectsInvalidDates) {
  for (const char* bad : {"2021-02-29", "2020-13-01", "2020-00-10", "2020-1-1", "15.03.2020", "", "2020-04-31"})
    EXPECT_NE(error_of([&] { build_date_hierarchy({bad}, DateSpec{}); }).find("is not a date"), std::string::npos) << bad;
}

TEST(GroupingHierarchy, GroupsConsecutiveCategories) {
  GroupingSpec s{{"none", "primary", "secondary", "bachelor", "master", "doctorate"}, {2, 4}};
  const auto t = build_grouping_hierarchy({"master", "none"}, s);
  ASSERT_EQ(t.rows.size(), 6u);  // every category of the order, so unseen values still have rows
  EXPECT_EQ(row_of(t, "none"), (Row{"none", "none..primary", "none..bachelor", "*"}));
  EXPECT_EQ(row_of(t, "master"), (Row{"master", "master..doctorate", "master..doctorate", "*"}));
}

TEST(GroupingHierarchy, RejectsUnknownValuesAndBadSizes) {
  GroupingSpec s{{"a", "b", "c"}, {2}};
  EXPECT_NE(error_of([&] { build_grouping_hierarchy({"d"}, s); }).find("'d' is not in the order"), std::string::npos);
  EXPECT_NE(error_of([] { build_grouping_hierarchy({}, GroupingSpec{{"a", "a"}, {2}}); }).find("twice"), std::string::npos);
  EXPECT_NE(error_of([] { build_grouping_hierarchy({}, GroupingSpec{{"a", "b"}, {2, 3}}); }).find("multiple"), std::string::npos);
  EXPECT_NE(error_of([] { build_grouping_hierarchy({}, GroupingSpec{{}, {2}}); }).find("empty"), std::string::npos);
}

TEST(HierarchyBuilders, OutputBindsToDataAndRoundTripsAsCsv) {
  const Dataset ds = read_dataset_text("zip\n81675\n81677\n80331\n", "t.csv", CsvOptions{','});
  const auto table = build_masking_hierarchy({"81675", "81677", "80331"}, MaskingSpec{});
  const auto text = hierarchy_to_csv(table);
  const auto reread = read_hierarchy_text(text, "zip.csv");
  const auto g = Generalization::build(reread, ds.columns[0], "t.csv");
  EXPECT_EQ(g.height(), 7);
  EXPECT_EQ(g.label(1, g.map(1)[0]), "8167*");
  EXPECT_EQ(g.map(1)[0], g.map(1)[1]);
  EXPECT_NE(g.map(1)[0], g.map(1)[2]);
  EXPECT_EQ(g.map(4)[0], g.map(4)[2]);  // 8****
}

}  // namespace
}  // namespace deid
