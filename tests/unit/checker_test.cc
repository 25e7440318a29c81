// The independent output verifier (src/verify/verify.h): each kind of
// violation is caught in a tiny hand-made output, and a valid output passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "verify.h"

namespace {

using Kind = verify::Violation::Kind;

verify::Table parse(const std::string& text, bool header = true) {
  std::string error;
  auto t = verify::parse_csv(text, ';', header, &error);
  EXPECT_TRUE(t.has_value()) << error;
  return t.value_or(verify::Table{});
}

// Seven people; name is identifying, age and sex are quasi-identifying,
// disease is insensitive.
const char* kInput =
    "name;age;sex;disease\n"
    "Ann;21;M;flu\n"
    "Bob;25;M;cold\n"
    "Cid;21;M;flu\n"
    "Dan;34;F;cancer\n"
    "Eve;38;F;flu\n"
    "Fay;34;F;cold\n"
    "Gus;25;F;flu\n";
const char* kAgeHierarchy = "21;20-29;*\n25;20-29;*\n34;30-39;*\n38;30-39;*\n";
const char* kSexHierarchy = "M;*\nF;*\n";

// Age at level 1, sex at level 0: classes (20-29,M) and (30-39,F) of 3
// records; Gus's class of 1 is suppressed.
const char* kValidOutput =
    "age;sex;disease\n"
    "20-29;M;flu\n"
    "20-29;M;cold\n"
    "20-29;M;flu\n"
    "30-39;F;cancer\n"
    "30-39;F;flu\n"
    "30-39;F;cold\n"
    "*;*;flu\n";

class IndependentChecker : public ::testing::Test {
 protected:
  IndependentChecker() {
    options.quasi_identifiers = {{"age", "age.csv"}, {"sex", "sex.csv"}};
    options.identifying = {"name"};
    options.k = 3;
    options.suppression_limit = 0.15;  // floor(0.15 * 7) = 1 record
  }

  verify::Report run(const std::string& output) {
    return verify::check_tables(options, parse(kInput), parse(output),
                                {parse(kAgeHierarchy, false), parse(kSexHierarchy, false)});
  }

  verify::Options options;
};

// Replaces the data row `row` (1-based) of `text` by `line`.
std::string with_row(std::string text, int row, const std::string& line) {
  std::size_t begin = 0;
  for (int i = 0; i < row; ++i) begin = text.find('\n', begin) + 1;
  const std::size_t end = text.find('\n', begin);
  return text.replace(begin, end - begin, line);
}

TEST_F(IndependentChecker, AcceptsValidOutputAndReportsLevelsAndCounts) {
  const verify::Report r = run(kValidOutput);
  EXPECT_TRUE(r.valid()) << r.to_string();
  ASSERT_EQ(r.levels.size(), 2u);
  EXPECT_EQ(r.levels[0], 1);
  EXPECT_EQ(r.levels[1], 0);
  EXPECT_EQ(r.suppressed_records, 1u);
  EXPECT_EQ(r.max_suppressed, 1u);
  EXPECT_EQ(r.classes, 2u);
  EXPECT_EQ(r.smallest_class, 3u);
  EXPECT_EQ(r.input_rows, 7u);
  EXPECT_EQ(r.output_rows, 7u);
}

TEST_F(IndependentChecker, CatchesMissingRow) {
  std::string out = kValidOutput;
  out.erase(out.find("30-39;F;flu\n"), std::string("30-39;F;flu\n").size());
  const verify::Report r = run(out);
  EXPECT_TRUE(r.has(Kind::row_count)) << r.to_string();
}

TEST_F(IndependentChecker, CatchesReorderedRows) {
  // Rows 1 and 2 swapped: same classes, but the insensitive values no longer
  // line up with the input.
  std::string out = with_row(with_row(kValidOutput, 1, "20-29;M;cold"), 2, "20-29;M;flu");
  const verify::Report r = run(out);
  ASSERT_TRUE(r.has(Kind::value_changed)) << r.to_string();
  EXPECT_EQ(r.violations.front().row, 1u);
  EXPECT_EQ(r.violations.front().count, 2u);
}

TEST_F(IndependentChecker, CatchesMixedLevelsInOneColumn) {
  // Ann's age left at level 0 while the others are at level 1.
  const verify::Report r = run(with_row(kValidOutput, 1, "21;M;flu"));
  ASSERT_TRUE(r.has(Kind::not_single_level)) << r.to_string();
  EXPECT_FALSE(r.levels[0].has_value());
  EXPECT_EQ(r.levels[1], 0);
  for (const auto& v : r.violations)
    if (v.kind == Kind::not_single_level) {
      EXPECT_EQ(v.column, "age");
      EXPECT_EQ(v.row, 1u);
      EXPECT_EQ(v.count, 1u);
    }
}

TEST_F(IndependentChecker, CatchesClassOfSizeKMinusOne) {
  options.k = 4;  // both classes have 3 = k - 1 records
  const verify::Report r = run(kValidOutput);
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_EQ(r.violations[0].kind, Kind::class_too_small);
  EXPECT_EQ(r.violations[0].count, 2u);
  EXPECT_EQ(r.violations[0].row, 1u);
}

TEST_F(IndependentChecker, CatchesTooManySuppressedRecords) {
  std::string out = kValidOutput;
  for (int row = 1; row <= 3; ++row) out = with_row(out, row, row == 2 ? "*;*;cold" : "*;*;flu");
  const verify::Report r = run(out);
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_EQ(r.violations[0].kind, Kind::too_many_suppressed);
  EXPECT_EQ(r.suppressed_records, 4u);
}

TEST_F(IndependentChecker, SuppressionLimitIsFloorOfLimitTimesRows) {
  options.suppression_limit = 0.14;  // floor(0.98) = 0
  const verify::Report r = run(kValidOutput);
  EXPECT_EQ(r.max_suppressed, 0u);
  EXPECT_TRUE(r.has(Kind::too_many_suppressed)) << r.to_string();
}

TEST_F(IndependentChecker, CatchesIdentifyingColumnLeftIn) {
  std::string out =
      "name;age;sex;disease\n"
      "Ann;20-29;M;flu\nBob;20-29;M;cold\nCid;20-29;M;flu\nDan;30-39;F;cancer\n"
      "Eve;30-39;F;flu\nFay;30-39;F;cold\nGus;*;*;flu\n";
  const verify::Report r = run(out);
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_EQ(r.violations[0].kind, Kind::identifying_column_present);
  EXPECT_EQ(r.violations[0].column, "name");
}

TEST_F(IndependentChecker, CatchesChangedInsensitiveValue) {
  const verify::Report r = run(with_row(kValidOutput, 4, "30-39;F;flu"));
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_EQ(r.violations[0].kind, Kind::value_changed);
  EXPECT_EQ(r.violations[0].column, "disease");
  EXPECT_EQ(r.violations[0].row, 4u);
}

TEST_F(IndependentChecker, CatchesMissingInsensitiveColumn) {
  const verify::Report r = run("age;sex\n20-29;M\n20-29;M\n20-29;M\n30-39;F\n30-39;F\n30-39;F\n*;*\n");
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_EQ(r.violations[0].kind, Kind::column_missing);
  EXPECT_EQ(r.violations[0].column, "disease");
}

TEST_F(IndependentChecker, CatchesPartlySuppressedRecord) {
  // '*' in age only: not a suppressed record, and '*' is level 2, not 1.
  const verify::Report r = run(with_row(kValidOutput, 7, "*;F;flu"));
  EXPECT_TRUE(r.has(Kind::not_single_level)) << r.to_string();
}

TEST_F(IndependentChecker, CatchesInputValueMissingFromHierarchy) {
  const verify::Report r = verify::check_tables(options, parse(kInput), parse(kValidOutput),
                                                {parse("21;20-29;*\n25;20-29;*\n34;30-39;*\n", false),
                                                 parse(kSexHierarchy, false)});
  ASSERT_TRUE(r.has(Kind::value_not_in_hierarchy)) << r.to_string();
  EXPECT_FALSE(r.levels[0].has_value());
}

TEST_F(IndependentChecker, RecordsGeneralizedToTopAreOneClassNotSuppressed) {
  // Every hierarchy's top is '*': the all-'*' records are the class at the
  // top levels, not suppressed records.
  options.suppression_limit = 0;
  options.k = 7;
  const verify::Report r = run("age;sex;disease\n*;*;flu\n*;*;cold\n*;*;flu\n*;*;cancer\n*;*;flu\n*;*;cold\n*;*;flu\n");
  EXPECT_TRUE(r.valid()) << r.to_string();
  EXPECT_EQ(r.levels[0], 2);
  EXPECT_EQ(r.levels[1], 1);
  EXPECT_EQ(r.suppressed_records, 0u);
  EXPECT_EQ(r.classes, 1u);
}

TEST_F(IndependentChecker, DistinctLDiversityRequirementIsCheckedPerClass) {
  options.class_requirements.push_back(verify::DistinctLDiversity{"disease", 2});
  EXPECT_TRUE(run(kValidOutput).valid());
  options.class_requirements[0] = verify::DistinctLDiversity{"disease", 3};
  const verify::Report r = run(kValidOutput);
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_EQ(r.violations[0].kind, Kind::class_requirement);
  EXPECT_EQ(r.violations[0].count, 1u);  // (20-29,M) has flu and cold only
  EXPECT_EQ(r.violations[0].row, 1u);
}

TEST_F(IndependentChecker, RejectsOptionsNamingUnknownColumns) {
  options.quasi_identifiers.push_back({"zip", "zip.csv"});
  const verify::Report r = verify::check_tables(options, parse(kInput), parse(kValidOutput),
                                                {parse(kAgeHierarchy, false), parse(kSexHierarchy, false),
                                                 parse("1;*\n", false)});
  EXPECT_TRUE(r.has(Kind::bad_options)) << r.to_string();
}

TEST_F(IndependentChecker, ReadsFilesAndReportsUnreadableOnes) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "independent_checker_files";
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const char* text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  };
  options.input_path = write("in.csv", kInput);
  options.output_path = write("out.csv", kValidOutput);
  options.quasi_identifiers = {{"age", write("age.csv", kAgeHierarchy)}, {"sex", write("sex.csv", kSexHierarchy)}};
  const verify::Report ok = verify::check(options);
  EXPECT_TRUE(ok.valid()) << ok.to_string();

  options.output_path = (dir / "absent.csv").string();
  const verify::Report missing = verify::check(options);
  EXPECT_TRUE(missing.has(Kind::unreadable)) << missing.to_string();
  std::filesystem::remove_all(dir);
}

// The checker's own RFC 4180 reader.

TEST(IndependentCheckerCsv, ReadsQuotesEmbeddedDelimitersLineBreaksCrlfAndBom) {
  std::string error;
  const auto t = verify::parse_csv("\xEF\xBB\xBF" "a;b\r\n\"x;y\";\"say \"\"hi\"\"\"\r\n\r\n\"two\nlines\";\r\n", ';',
                                   true, &error);
  ASSERT_TRUE(t.has_value()) << error;
  EXPECT_EQ(t->header, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0], (std::vector<std::string>{"x;y", "say \"hi\""}));
  EXPECT_EQ(t->rows[1], (std::vector<std::string>{"two\nlines", ""}));
}

TEST(IndependentCheckerCsv, KeepsSpacesAndReadsLastRecordWithoutLineEnd) {
  std::string error;
  const auto t = verify::parse_csv("a,b\n x , y", ',', true, &error);
  ASSERT_TRUE(t.has_value()) << error;
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(t->rows[0], (std::vector<std::string>{" x ", " y"}));
}

TEST(IndependentCheckerCsv, RejectsRecordWithWrongFieldCountNamingItsLine) {
  std::string error;
  EXPECT_FALSE(verify::parse_csv("a;b\n1;2\n3\n", ';', true, &error).has_value());
  EXPECT_EQ(error, "line 3: record has 1 fields, expected 2");
}

TEST(IndependentCheckerCsv, RejectsMalformedQuotes) {
  std::string error;
  EXPECT_FALSE(verify::parse_csv("a;b\n\"open;2\n", ';', true, &error).has_value());
  EXPECT_NE(error.find("not closed"), std::string::npos) << error;
  EXPECT_FALSE(verify::parse_csv("a;b\n\"x\"y;2\n", ';', true, &error).has_value());
  EXPECT_FALSE(verify::parse_csv("a;b\nx\"y;2\n", ';', true, &error).has_value());
}

}  // namespace
