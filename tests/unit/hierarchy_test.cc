// Generalization hierarchies in ARX's format (value;level1;...;top): reading,
// binding to a column, and every validation error of read_hierarchy and
// Generalization::build.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/hierarchy.h"
#include "support/reference.h"

namespace deid {
namespace {

template <class F>
InputError input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError(Location{}, "none");
}

// One-column dataset named `name` with `values`, one per data line 2, 3, ...
Dataset column_data(const std::string& name, const std::vector<std::string>& values) {
  std::string text = name + "\n";
  for (const auto& v : values) text += v + "\n";
  return read_dataset_text(text, "data.csv", CsvOptions{';'});
}

Generalization bind(const std::string& hierarchy, const Dataset& ds, const std::string& hname = "h.csv") {
  return Generalization::build(read_hierarchy_text(hierarchy, hname), ds.columns[0], ds.source);
}

// Per column code, the label it generalizes to at `level`.
std::vector<std::string> labels_of(const Generalization& g, int level) {
  std::vector<std::string> out;
  for (std::uint32_t code : g.map(level)) out.push_back(g.label(level, code));
  return out;
}

// --- Reading --------------------------------------------------------------

TEST(HierarchyRead, ReadsRowsWithTheirLines) {
  const HierarchyTable t = read_hierarchy_text("Male;*\n\nFemale;*\n", "sex.csv");
  EXPECT_EQ(t.source, "sex.csv");
  EXPECT_EQ(t.rows, (std::vector<std::vector<std::string>>{{"Male", "*"}, {"Female", "*"}}));
  EXPECT_EQ(t.lines, (std::vector<std::uint64_t>{1, 3}));
}

TEST(HierarchyRead, QuotedValuesAndCrlfAreRead) {
  const HierarchyTable t = read_hierarchy_text("\"Married; spouse\";Married;*\r\nSingle;Single;*\r\n", "m.csv");
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"Married; spouse", "Married", "*"}));
  EXPECT_EQ(t.rows[1][2], "*");
}

TEST(HierarchyRead, EmptyFileIsRejected) {
  for (const char* text : {"", "\n\n", "\xEF\xBB\xBF"}) {
    const InputError e = input_error([&] { read_hierarchy_text(text, "h.csv"); });
    EXPECT_EQ(e.where().file, "h.csv");
    EXPECT_NE(e.problem().find("the hierarchy file is empty"), std::string::npos) << e.what();
  }
}

TEST(HierarchyRead, RowsOfUnequalLengthAreRejectedNamingBothLines) {
  const InputError e = input_error([] { read_hierarchy_text("1;1-2;*\n2;1-2;*\n\n3;*\n", "age.csv"); });
  EXPECT_EQ(e.where().file, "age.csv");
  EXPECT_EQ(e.where().line, 4u);
  EXPECT_EQ(e.where().column, 3u);
  EXPECT_NE(e.problem().find("hierarchy row has 2 values, expected 3 as on line 1"), std::string::npos) << e.what();
}

TEST(HierarchyRead, LongerRowIsRejectedToo) {
  const InputError e = input_error([] { read_hierarchy_text("1;*\n2;1-2;*\n", "age.csv"); });
  EXPECT_EQ(e.where().line, 2u);
  EXPECT_NE(e.problem().find("has 3 values, expected 2"), std::string::npos) << e.what();
}

TEST(HierarchyRead, MalformedCsvIsRejected) {
  const InputError e = input_error([] { read_hierarchy_text("a;b\n\"c;d\n", "h.csv"); });
  EXPECT_EQ(e.where().line, 2u);
}

TEST(HierarchyRead, MissingFileIsAnIoError) {
  EXPECT_THROW(read_hierarchy("/nonexistent/deid/h.csv"), IoError);
}

// --- Binding: maps, leaves, labels ----------------------------------------

TEST(Generalization, TwoLevelHierarchyMapsEveryValueToTheTop) {
  const Dataset ds = column_data("sex", {"Male", "Female", "Male"});
  const Generalization g = bind("Male;*\nFemale;*\n", ds);
  EXPECT_EQ(g.attribute(), "sex");
  EXPECT_EQ(g.height(), 2);
  EXPECT_EQ(g.hierarchy_rows(), 2u);
  EXPECT_EQ(g.map(0), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(g.map(1), (std::vector<std::uint32_t>{0, 0}));
  EXPECT_EQ(g.domain_size(1), 1u);
  EXPECT_EQ(g.label(1, 0), "*");
  EXPECT_EQ(g.leaves(1, 0), 2u);
  EXPECT_EQ(g.leaves(0, 0), 1u);
}

TEST(Generalization, LevelZeroKeepsColumnCodesWhateverTheHierarchyOrder) {
  // The data meets the values in another order than the hierarchy lists them.
  const Dataset ds = column_data("age", {"4", "1", "3", "4"});
  const Generalization g = bind("1;1-2;1-4;*\n2;1-2;1-4;*\n3;3-4;1-4;*\n4;3-4;1-4;*\n", ds);
  ASSERT_EQ(g.height(), 4);
  // Column codes: 4 → 0, 1 → 1, 3 → 2.
  EXPECT_EQ(g.map(0), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(labels_of(g, 0), (std::vector<std::string>{"4", "1", "3"}));
  EXPECT_EQ(labels_of(g, 1), (std::vector<std::string>{"3-4", "1-2", "3-4"}));
  EXPECT_EQ(labels_of(g, 2), (std::vector<std::string>{"1-4", "1-4", "1-4"}));
  EXPECT_EQ(labels_of(g, 3), (std::vector<std::string>{"*", "*", "*"}));
}

TEST(Generalization, HierarchyRowsAbsentFromTheDataStillCountInLeaves) {
  // Value 2 is in the hierarchy but not in the data: '1-2' still covers two
  // rows, which is what the Loss model measures against.
  const Dataset ds = column_data("age", {"1", "3", "4"});
  const Generalization g = bind("1;1-2;*\n2;1-2;*\n3;3-4;*\n4;3-4;*\n", ds);
  EXPECT_EQ(g.hierarchy_rows(), 4u);
  EXPECT_EQ(g.domain_size(0), 4u);  // three column codes, then the absent '2'
  EXPECT_EQ(g.label(0, 3), "2");
  EXPECT_EQ(g.leaves(0, 3), 1u);
  EXPECT_EQ(g.domain_size(1), 2u);
  const std::uint32_t low = g.map(1)[0];  // code of '1-2'
  EXPECT_EQ(g.label(1, low), "1-2");
  EXPECT_EQ(g.leaves(1, low), 2u);
  EXPECT_EQ(g.leaves(1, g.map(1)[1]), 2u);
  EXPECT_EQ(g.leaves(2, 0), 4u);
  EXPECT_EQ(g.map(0).size(), 3u);  // maps cover the column's codes only
}

TEST(Generalization, IdentityHasOnlyLevelZero) {
  const Dataset ds = column_data("zip", {"123", "456", "123"});
  const Generalization g = Generalization::identity(ds.columns[0]);
  EXPECT_EQ(g.height(), 1);
  EXPECT_EQ(g.map(0), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(g.label(0, 1), "456");
  EXPECT_EQ(g.leaves(0, 0), 1u);
  EXPECT_EQ(g.hierarchy_rows(), 2u);
}

TEST(Generalization, SameLabelOnDifferentLevelsIsFine) {
  const Dataset ds = column_data("x", {"a", "b"});
  const Generalization g = bind("a;a;*\nb;ab;*\n", ds);
  EXPECT_EQ(g.label(1, g.map(1)[0]), "a");
  EXPECT_EQ(g.label(1, g.map(1)[1]), "ab");
}

// --- Binding: errors --------------------------------------------------------

TEST(GeneralizationErrors, MissingValueNamesAttributeValueLineAndCount) {
  const Dataset ds = column_data("sex", {"Male", "Female"});
  const InputError e = input_error([&] { bind("Male;*\n", ds, "hierarchies/sex.csv"); });
  EXPECT_EQ(e.problem(),
            "attribute 'sex': value 'Female' (data line 3) is not in hierarchy hierarchies/sex.csv; 1 value missing");
  EXPECT_EQ(e.where().file, "data.csv");
  EXPECT_EQ(e.where().line, 3u);
  EXPECT_EQ(e.where().column_name, "sex");
}

TEST(GeneralizationErrors, MissingValuesAreCountedAndTheEarliestIsNamed) {
  const Dataset ds = column_data("age", {"1", "7", "2", "9", "7", "8"});
  const InputError e = input_error([&] { bind("1;*\n2;*\n8;*\n", ds); });
  EXPECT_EQ(e.problem(), "attribute 'age': value '7' (data line 3) is not in hierarchy h.csv; 2 values missing");
  EXPECT_EQ(e.where().line, 3u);
}

TEST(GeneralizationErrors, MissingValueThatDiffersOnlyInSpacesSaysSo) {
  const Dataset ds = column_data("sex", {"Male "});
  const InputError e = input_error([&] { bind("Female;*\nMale;*\n", ds); });
  EXPECT_NE(e.problem().find("value 'Male ' (data line 2)"), std::string::npos) << e.what();
  EXPECT_NE(e.problem().find("line 2 of the hierarchy has 'Male', which differs only in spaces"), std::string::npos)
      << e.what();
}

TEST(GeneralizationErrors, DuplicateOriginalValueNamesBothLines) {
  const Dataset ds = column_data("sex", {"Male"});
  const InputError e = input_error([&] { bind("Male;*\nFemale;*\nMale;*\n", ds); });
  EXPECT_EQ(e.where().file, "h.csv");
  EXPECT_EQ(e.where().line, 3u);
  EXPECT_EQ(e.where().column, 1u);
  EXPECT_EQ(e.problem(), "attribute 'sex': original value 'Male' is listed twice in the hierarchy (lines 1 and 3)");
}

TEST(GeneralizationErrors, InconsistentGeneralizationNamesValueLevelAndBothParents) {
  // 'cd' (level 1) goes to 'abcd' on line 3 but to 'wxyz' on line 4.
  const Dataset ds = column_data("x", {"a", "b", "c", "d"});
  const InputError e =
      input_error([&] { bind("a;ab;abcd;*\nb;ab;abcd;*\nc;cd;abcd;*\nd;cd;wxyz;*\n", ds); });
  EXPECT_EQ(e.where().file, "h.csv");
  EXPECT_EQ(e.where().line, 4u);
  EXPECT_EQ(e.where().column, 3u);
  EXPECT_EQ(e.problem(),
            "attribute 'x': value 'cd' of level 1 generalizes inconsistently: to 'abcd' on line 3 but to 'wxyz' here");
}

TEST(GeneralizationErrors, InconsistencyInTheTopLevelIsFound) {
  const Dataset ds = column_data("x", {"a", "b"});
  const InputError e = input_error([&] { bind("a;ab;T1\nb;ab;T2\n", ds); });
  EXPECT_EQ(e.where().line, 2u);
  EXPECT_NE(e.problem().find("value 'ab' of level 1"), std::string::npos) << e.what();
}

TEST(GeneralizationErrors, RowsOfUnequalLengthInATableBuiltInCode) {
  const Dataset ds = column_data("x", {"a"});
  HierarchyTable t;
  t.source = "code";
  t.rows = {{"a", "*"}, {"b"}};
  const InputError e = input_error([&] { Generalization::build(t, ds.columns[0], ds.source); });
  EXPECT_EQ(e.where().line, 2u);  // rows numbered from 1 when the table has no lines
  EXPECT_NE(e.problem().find("attribute 'x': hierarchy row has 1 value, expected 2 as on line 1"), std::string::npos)
      << e.what();
}

TEST(GeneralizationErrors, EmptyTableIsRejected) {
  const Dataset ds = column_data("x", {"a"});
  HierarchyTable t;
  t.source = "empty.csv";
  const InputError e = input_error([&] { Generalization::build(t, ds.columns[0], ds.source); });
  EXPECT_EQ(e.where().file, "empty.csv");
  EXPECT_NE(e.problem().find("attribute 'x': the hierarchy is empty"), std::string::npos) << e.what();
}

TEST(GeneralizationErrors, HierarchyFileOnDiskReportsItsPath) {
  const auto path = deid::testing::write_temp_csv("deid_hierarchy_test_sex", "Male;*\n");
  ASSERT_FALSE(path.empty());
  const Dataset ds = column_data("sex", {"Male", "Other"});
  const InputError e =
      input_error([&] { Generalization::build(read_hierarchy(path.string()), ds.columns[0], ds.source); });
  EXPECT_NE(e.problem().find("is not in hierarchy " + path.string() + "; 1 value missing"), std::string::npos)
      << e.what();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace deid
