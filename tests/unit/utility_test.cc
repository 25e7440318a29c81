// The utility analysis (docs/utility.md): each statistic on a
// hand-computed example, the analysis of a small table worked by hand, and
// a randomized comparison with a row-by-row implementation on strings that
// shares no code with src/utility/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "deid/dataset.h"
#include "deid/job.h"
#include "deid/utility.h"
#include "utility/statistics.h"

namespace deid {
namespace {

using utility::Cell;

TEST(UtilityDistance, HandComputedTotalVariationAndJensenShannon) {
  // p = (1/2, 1/2), q = (1, 0): TVD = 1/2 (1/2 + 1/2) = 1/2;
  // JSD = H(m) - (H(p) + H(q)) / 2 with m = (3/4, 1/4) = 0.811278 - 1/2.
  const std::vector<std::uint64_t> p{2, 2}, q{4, 0};
  EXPECT_DOUBLE_EQ(utility::total_variation(p, q), 0.5);
  const double hm = -(0.75 * std::log2(0.75) + 0.25 * std::log2(0.25));
  EXPECT_NEAR(utility::jensen_shannon(p, q), hm - 0.5, 1e-15);
  EXPECT_NEAR(utility::jensen_shannon(p, q), 0.3112781244591328, 1e-12);
  // Counts are shares of their own totals: (1, 1) vs (3, 3) are the same distribution.
  EXPECT_DOUBLE_EQ(utility::total_variation(std::vector<std::uint64_t>{1, 1}, std::vector<std::uint64_t>{3, 3}), 0.0);
  EXPECT_DOUBLE_EQ(utility::jensen_shannon(std::vector<std::uint64_t>{1, 1}, std::vector<std::uint64_t>{3, 3}), 0.0);
  // Disjoint supports: both at their maximum, 1.
  EXPECT_DOUBLE_EQ(utility::total_variation(std::vector<std::uint64_t>{5, 0}, std::vector<std::uint64_t>{0, 7}), 1.0);
  EXPECT_DOUBLE_EQ(utility::jensen_shannon(std::vector<std::uint64_t>{5, 0}, std::vector<std::uint64_t>{0, 7}), 1.0);
  // (3, 1, 0) vs (1, 1, 2): 1/2 (|3/4 - 1/4| + 0 + |0 - 1/2|) = 1/2.
  EXPECT_DOUBLE_EQ(utility::total_variation(std::vector<std::uint64_t>{3, 1, 0}, std::vector<std::uint64_t>{1, 1, 2}),
                   0.5);
}

TEST(UtilitySummary, HandComputedMomentsAndQuartiles) {
  // 1, 2, 3, 4: mean 2.5, m2 = 1.25, m3 = 0, m4 = 2.5625, excess kurtosis
  // 2.5625 / 1.5625 - 3 = -1.36; type-7 quartiles 1.75, 2.5, 3.25 (R's
  // quantile(1:4)).
  const NumericSummary s = utility::summarize({{3, 1}, {1, 1}, {4, 1}, {2, 1}}, 2);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.missing, 2u);
  EXPECT_DOUBLE_EQ(*s.mean, 2.5);
  EXPECT_DOUBLE_EQ(*s.sd, std::sqrt(1.25));
  EXPECT_NEAR(*s.skewness, 0.0, 1e-15);
  EXPECT_NEAR(*s.kurtosis, -1.36, 1e-12);
  EXPECT_DOUBLE_EQ(*s.q1, 1.75);
  EXPECT_DOUBLE_EQ(*s.median, 2.5);
  EXPECT_DOUBLE_EQ(*s.q3, 3.25);
  EXPECT_DOUBLE_EQ(*s.min, 1);
  EXPECT_DOUBLE_EQ(*s.max, 4);
}

TEST(UtilitySummary, WeightsCountAsRepeatedValues) {
  // 1, 1, 5: mean 7/3, m2 = 32/9, m3 = 128/27 (skewness 1/sqrt 2),
  // m4 = 4608/243 (kurtosis 1.5 - 3); quartiles at h = 0.5, 1, 1.5: 1, 1, 3.
  const NumericSummary s = utility::summarize({{5, 1}, {1, 2}}, 0);
  EXPECT_EQ(s.count, 3u);
  EXPECT_NEAR(*s.mean, 7.0 / 3, 1e-15);
  EXPECT_NEAR(*s.sd, std::sqrt(32.0 / 9), 1e-14);
  EXPECT_NEAR(*s.skewness, 1 / std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(*s.kurtosis, -1.5, 1e-14);
  EXPECT_DOUBLE_EQ(*s.q1, 1);
  EXPECT_DOUBLE_EQ(*s.median, 1);
  EXPECT_DOUBLE_EQ(*s.q3, 3);
}

TEST(UtilitySummary, UndefinedWithoutValuesOrSpread) {
  const NumericSummary none = utility::summarize({}, 3);
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.missing, 3u);
  EXPECT_FALSE(none.mean.has_value());
  EXPECT_FALSE(none.median.has_value());
  const NumericSummary flat = utility::summarize({{7, 4}}, 0);
  EXPECT_DOUBLE_EQ(*flat.mean, 7);
  EXPECT_DOUBLE_EQ(*flat.sd, 0);
  EXPECT_DOUBLE_EQ(*flat.q3, 7);
  EXPECT_FALSE(flat.skewness.has_value());
  EXPECT_FALSE(flat.kurtosis.has_value());
}

TEST(UtilityReadBack, NumbersIntervalsAndDates) {
  EXPECT_EQ(utility::read_back("39", false), 39.0);
  EXPECT_EQ(utility::read_back("-1.5", false), -1.5);
  EXPECT_EQ(utility::read_back("1e3", false), 1000.0);
  EXPECT_EQ(utility::read_back("20-39", false), 29.5);      // adult's age hierarchy: inclusive integer ranges
  EXPECT_EQ(utility::read_back("-10--1", false), -5.5);
  EXPECT_EQ(utility::read_back("[20, 40)", false), 30.0);   // deid hierarchy intervals
  EXPECT_EQ(utility::read_back("[20, 40[", false), 30.0);   // ARX
  EXPECT_EQ(utility::read_back("[0,5]", false), 2.5);
  for (const char* missing : {"*", "", "<0", ">=100", "Young", "inf", "nan", " 3", "40-20", "[40, 20)", "1-2-3"})
    EXPECT_FALSE(utility::read_back(missing, false).has_value()) << missing;
  EXPECT_EQ(utility::read_back("1970-01-02", true), 1.0);
  EXPECT_EQ(utility::read_back("1969-12-31", true), -1.0);
  EXPECT_EQ(utility::read_back("2000-03-01", true), 11017.0);
  for (const char* missing : {"2000-02-30", "2020-01", "1990-1999", "*", "20-39"})
    EXPECT_FALSE(utility::read_back(missing, true).has_value()) << missing;
}

TEST(UtilityCramersV, HandComputedTables) {
  // [[10, 20], [30, 40]]: expected 12, 18, 28, 42; chi2 / n = 4/12 + 4/18 +
  // 4/28 + 4/42) / 100 * ... = 0.0079365; V = sqrt of it.
  const auto v = utility::cramers_v({{0, 0, 10}, {0, 1, 20}, {1, 0, 30}, {1, 1, 40}}, 2, 2);
  const double chi2 = 4.0 / 12 + 4.0 / 18 + 4.0 / 28 + 4.0 / 42;
  EXPECT_NEAR(*v, std::sqrt(chi2 / 100), 1e-14);
  EXPECT_NEAR(*v, 0.0890870806374748, 1e-12);
  // Perfect association, also 3 x 3 (min(r, c) - 1 = 2): 1. Independence: 0.
  EXPECT_NEAR(*utility::cramers_v({{0, 0, 10}, {1, 1, 10}}, 2, 2), 1.0, 1e-15);
  EXPECT_NEAR(*utility::cramers_v({{0, 2, 1}, {1, 0, 4}, {2, 1, 9}}, 3, 3), 1.0, 1e-15);
  EXPECT_NEAR(*utility::cramers_v({{0, 0, 5}, {0, 1, 5}, {1, 0, 5}, {1, 1, 5}}, 2, 2), 0.0, 1e-15);
  // A 3 x 2 table: min(r, c) - 1 = 1. [[2, 0], [0, 2], [1, 1]]: n = 6, rows
  // 2, 2, 2, cols 3, 3: sum n_ij^2 / (n_i n_j) = 4/6 + 4/6 + 1/6 + 1/6 = 5/3.
  EXPECT_NEAR(*utility::cramers_v({{0, 0, 2}, {1, 1, 2}, {2, 0, 1}, {2, 1, 1}}, 3, 2), std::sqrt(2.0 / 3), 1e-14);
  // Cells listed twice add up; empty rows and columns do not count.
  EXPECT_NEAR(*utility::cramers_v({{0, 0, 5}, {1, 3, 4}, {1, 3, 6}, {0, 0, 5}}, 4, 5), 1.0, 1e-15);
  // One category on a side: undefined.
  EXPECT_FALSE(utility::cramers_v({{0, 0, 5}, {0, 1, 5}}, 2, 2).has_value());
}

// A small table worked by hand: age generalized to 10-year bands, sex kept
// at level 0, disease sensitive, id identifying (not released), ward
// insensitive; records 5 and 6 (counting from 1) suppressed.
class UtilitySmallTable : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = read_dataset_text(
        "id,age,sex,disease,ward\n"
        "1,21,F,flu,A\n"
        "2,25,M,flu,A\n"
        "3,33,F,cold,B\n"
        "4,37,M,cold,B\n"
        "5,38,F,flu,B\n"
        "6,52,M,cold,A\n",
        "small.csv", CsvOptions{',', true});
    UtilityAttribute age;
    age.name = "age";
    age.role = Role::quasi_identifying;
    age.column = &data_.columns[1];
    age.level = 1;
    age.labels = {"20-29", "30-39", "50-59"};
    age.to_released = {0, 0, 1, 1, 1, 2};  // 21 25 33 37 38 52
    UtilityAttribute sex;
    sex.name = "sex";
    sex.role = Role::quasi_identifying;
    sex.column = &data_.columns[2];
    sex.level = 0;
    sex.labels = {"F", "M"};
    sex.to_released = {0, 1};
    UtilityAttribute disease{"disease", Role::sensitive, &data_.columns[3], -1, {}, {}};
    UtilityAttribute ward{"ward", Role::insensitive, &data_.columns[4], -1, {}, {}};
    in_.rows = 6;
    in_.attributes = {age, sex, disease, ward};
    in_.suppressed = {0, 0, 0, 0, 1, 1};
  }
  Dataset data_;
  UtilityInput in_;
};

TEST_F(UtilitySmallTable, DistributionsAndDistances) {
  const UtilityAnalysis u = analyze_utility(in_);
  EXPECT_EQ(u.records, 6u);
  EXPECT_EQ(u.suppressed_records, 2u);
  ASSERT_EQ(u.attributes.size(), 4u);
  const AttributeUtility& age = u.attributes[0];
  EXPECT_EQ(age.level, 1);
  EXPECT_EQ(age.distinct_before, 6u);
  EXPECT_EQ(age.suppressed, 2u);
  // Before (mapped): 20-29: 2, 30-39: 3, 50-59: 1; after: 2, 2, 0 and * 2.
  EXPECT_EQ(age.categories, (std::vector<std::string>{"20-29", "30-39", "50-59", "*"}));
  EXPECT_EQ(age.before, (std::vector<std::uint64_t>{2, 3, 1, 0}));
  EXPECT_EQ(age.after, (std::vector<std::uint64_t>{2, 2, 0, 2}));
  // TVD = 1/2 (0 + 1/6 + 1/6 + 2/6) = 1/3.
  EXPECT_NEAR(age.total_variation, 1.0 / 3, 1e-15);
  // JSD: p = (2,3,1,0)/6, q = (2,2,0,2)/6, m = (2, 2.5, 0.5, 1)/6.
  const double jsd = 0.5 * (3.0 / 6 * std::log2(3 / 2.5) + 1.0 / 6 * std::log2(1 / 0.5)) +
                     0.5 * (2.0 / 6 * std::log2(2 / 2.5) + 2.0 / 6 * std::log2(2 / 1.0));
  EXPECT_NEAR(age.jensen_shannon, jsd, 1e-15);
  // A sensitive attribute is copied: same distribution, also in suppressed records.
  const AttributeUtility& disease = u.attributes[2];
  EXPECT_EQ(disease.suppressed, 0u);
  EXPECT_EQ(disease.categories, (std::vector<std::string>{"flu", "cold"}));
  EXPECT_EQ(disease.before, (std::vector<std::uint64_t>{3, 3}));
  EXPECT_EQ(disease.after, disease.before);
  EXPECT_DOUBLE_EQ(disease.total_variation, 0);
  EXPECT_DOUBLE_EQ(disease.jensen_shannon, 0);
  EXPECT_FALSE(disease.numeric_kind.has_value());
}

TEST_F(UtilitySmallTable, NumericSummaryReadsBandsBackAsMidpoints) {
  const UtilityAnalysis u = analyze_utility(in_);
  const AttributeUtility& age = u.attributes[0];
  ASSERT_EQ(age.numeric_kind, "number");
  // Before: 21 25 33 37 38 52, mean 206/6; after: 24.5 24.5 34.5 34.5, 2 missing ('*').
  EXPECT_EQ(age.numeric_before.count, 6u);
  EXPECT_NEAR(*age.numeric_before.mean, 206.0 / 6, 1e-13);
  EXPECT_DOUBLE_EQ(*age.numeric_before.median, 35);   // h = 2.5: 33 + 0.5 (37 - 33)
  EXPECT_DOUBLE_EQ(*age.numeric_before.q1, 27);       // h = 1.25: 25 + 0.25 (33 - 25)
  EXPECT_EQ(age.numeric_after.count, 4u);
  EXPECT_EQ(age.numeric_after.missing, 2u);
  EXPECT_DOUBLE_EQ(*age.numeric_after.mean, 29.5);
  EXPECT_DOUBLE_EQ(*age.numeric_after.sd, 5);
  EXPECT_DOUBLE_EQ(*age.numeric_after.min, 24.5);
  EXPECT_DOUBLE_EQ(*age.numeric_after.max, 34.5);
  EXPECT_DOUBLE_EQ(*age.numeric_after.median, 29.5);
  EXPECT_NEAR(*age.numeric_after.kurtosis, -2, 1e-14);  // two equal halves: m4 / m2^2 = 1
}

TEST_F(UtilitySmallTable, CramersVBeforeAndAfter) {
  const UtilityAnalysis u = analyze_utility(in_);
  // Quasi-identifiers and sensitive attributes, not the insensitive ward.
  EXPECT_EQ(u.dependency_attributes, (std::vector<std::string>{"age", "sex", "disease"}));
  // sex x disease before: F: flu 2, cold 1; M: flu 1, cold 2. n = 6, all
  // margins 3: sum = (4 + 1 + 1 + 4) / 9 = 10/9, V = sqrt(1/9) = 1/3.
  EXPECT_NEAR(*u.cramers_v_before[1][2], 1.0 / 3, 1e-15);
  EXPECT_NEAR(*u.cramers_v_before[2][1], 1.0 / 3, 1e-15);
  // After, without the suppressed records 5 and 6 ('*' is missing): F: flu
  // 1, cold 1; M: flu 1, cold 1. Independent: 0.
  EXPECT_NEAR(*u.cramers_v_after[1][2], 0.0, 1e-15);
  // age x sex after: 20-29: F 1, M 1; 30-39: F 1, M 1: 0.
  EXPECT_NEAR(*u.cramers_v_after[0][1], 0.0, 1e-15);
  // age x disease before: six ages of one record each, V = 1 (r = 6, c = 2:
  // sum = 6 * 1/3 = 2); after: 20-29: flu 2; 30-39: cold 2: V = 1.
  EXPECT_NEAR(*u.cramers_v_before[0][2], 1.0, 1e-15);
  EXPECT_NEAR(*u.cramers_v_after[0][2], 1.0, 1e-15);
  // age x sex before: 6 x 2, one record per age: sum = 6 * 1/3 = 2, V = 1.
  EXPECT_NEAR(*u.cramers_v_before[0][1], 1.0, 1e-15);
  // The diagonal: 1.
  EXPECT_EQ(u.cramers_v_before[0][0], 1.0);
  EXPECT_EQ(u.cramers_v_after[2][2], 1.0);
}

TEST_F(UtilitySmallTable, AStarLabelIsTheCategoryOfSuppressedCells) {
  // sex at its top level, '*': suppressed cells go to the same category.
  in_.attributes[1].level = 1;
  in_.attributes[1].labels = {"*"};
  in_.attributes[1].to_released = {0, 0};
  const UtilityAnalysis u = analyze_utility(in_);
  const AttributeUtility& sex = u.attributes[1];
  EXPECT_EQ(sex.categories, (std::vector<std::string>{"*"}));
  EXPECT_EQ(sex.before, (std::vector<std::uint64_t>{6}));
  EXPECT_EQ(sex.after, (std::vector<std::uint64_t>{6}));
  EXPECT_EQ(sex.suppressed, 0u);  // '*' by generalization already
  EXPECT_EQ(u.attributes[0].suppressed, 2u);
  EXPECT_DOUBLE_EQ(sex.total_variation, 0);
  EXPECT_FALSE(u.cramers_v_after[1][2].has_value());  // one category
  EXPECT_FALSE(u.cramers_v_after[1][1].has_value());
}

TEST(UtilityJson, LayoutOfOneAttribute) {
  const Dataset d = read_dataset_text("x\n1\n3\n", "t.csv", CsvOptions{',', true});
  UtilityInput in;
  in.rows = 2;
  in.attributes = {{"x", Role::insensitive, &d.columns[0], -1, {}, {}}};
  in.suppressed = {0, 0};
  const nlohmann::json j = to_json(analyze_utility(in));
  EXPECT_EQ(j["records"], 2);
  const nlohmann::json& a = j["attributes"][0];
  EXPECT_EQ(a["name"], "x");
  EXPECT_EQ(a["role"], "insensitive");
  EXPECT_TRUE(a["level"].is_null());
  EXPECT_EQ(a["distribution"], nlohmann::json::parse(R"([{"value":"1","before":1,"after":1},{"value":"3","before":1,"after":1}])"));
  EXPECT_EQ(a["numeric"]["kind"], "number");
  EXPECT_EQ(a["numeric"]["before"]["mean"], 2.0);
  EXPECT_EQ(a["numeric"]["deviation"]["mean"], 0.0);
  EXPECT_TRUE(j["dependencies"]["attributes"].empty());
}

// Classification: x in a, b, c, d (30 records each), the target p for a,
// b, c and q for d. On the input a logistic regression is always right
// (accuracy 1); the majority class p is right for 3/4 of the records.
class UtilityClassification : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string csv = "x,y\n";
    for (int r = 0; r < 120; ++r) {
      const char x = static_cast<char>('a' + r % 4);
      csv += std::string(1, x) + "," + (x == 'd' ? "q" : "p") + "\n";
    }
    data_ = read_dataset_text(csv, "toy.csv", CsvOptions{',', true});
    UtilityAttribute x{"x", Role::quasi_identifying, &data_.columns[0], 1, {}, {}};
    UtilityAttribute y{"y", Role::sensitive, &data_.columns[1], -1, {}, {}};
    in_.rows = 120;
    in_.attributes = {x, y};
    in_.suppressed.assign(120, 0);
  }
  Dataset data_;
  UtilityInput in_;
};

TEST_F(UtilityClassification, ReleaseThatKeepsTheSignalHasRelativeAccuracyOne) {
  in_.attributes[0].labels = {"ab", "c", "d"};
  in_.attributes[0].to_released = {0, 0, 1, 2};
  const UtilityAnalysis u = analyze_utility(in_);
  ASSERT_EQ(u.classification.size(), 1u);
  const ClassificationUtility& c = u.classification[0];
  EXPECT_EQ(c.target, "y");
  EXPECT_EQ(c.features, std::vector<std::string>{"x"});
  EXPECT_EQ(c.records, 120u);
  EXPECT_EQ(c.folds, 5);
  EXPECT_DOUBLE_EQ(c.baseline, 0.75);
  EXPECT_DOUBLE_EQ(c.accuracy_before, 1.0);
  EXPECT_DOUBLE_EQ(c.accuracy_after, 1.0);
  EXPECT_DOUBLE_EQ(*c.relative_accuracy, 1.0);
}

TEST_F(UtilityClassification, ReleaseAtTheTopLevelFallsToTheBaseline) {
  in_.attributes[0].labels = {"*"};
  in_.attributes[0].to_released = {0, 0, 0, 0};
  const UtilityAnalysis u = analyze_utility(in_);
  ASSERT_EQ(u.classification.size(), 1u);
  const ClassificationUtility& c = u.classification[0];
  EXPECT_DOUBLE_EQ(c.accuracy_before, 1.0);
  EXPECT_DOUBLE_EQ(c.accuracy_after, 0.75);  // every record predicted p
  EXPECT_DOUBLE_EQ(*c.relative_accuracy, 0.0);
}

TEST_F(UtilityClassification, SuppressedRecordsLoseTheirFeatures) {
  // Identity release, the 30 d records suppressed: '*' (only d records) is
  // as informative as d was: accuracy stays 1. Half of the c records
  // suppressed as well: '*' now mixes p and q (15 p, 30 q): those 15 p
  // records are predicted q, accuracy 105/120.
  in_.attributes[0].labels = {"a", "b", "c", "d"};
  in_.attributes[0].to_released = {0, 1, 2, 3};
  for (int r = 3; r < 120; r += 4) in_.suppressed[static_cast<std::size_t>(r)] = 1;
  EXPECT_DOUBLE_EQ(analyze_utility(in_).classification.at(0).accuracy_after, 1.0);
  for (int r = 2; r < 120; r += 8) in_.suppressed[static_cast<std::size_t>(r)] = 1;
  EXPECT_DOUBLE_EQ(analyze_utility(in_).classification.at(0).accuracy_after, 105.0 / 120);
}

TEST_F(UtilityClassification, AucOfTwoClassesFromTheProbabilities) {
  // The input separates q (the class that appears second) perfectly: every
  // q record gets a higher probability than every p record.
  in_.attributes[0].labels = {"ab", "c", "d"};
  in_.attributes[0].to_released = {0, 0, 1, 2};
  UtilityAnalysis u = analyze_utility(in_);
  ASSERT_EQ(u.classification.size(), 1u);
  EXPECT_EQ(u.classification[0].classes, 2u);
  ASSERT_TRUE(u.classification[0].auc_before && u.classification[0].auc_after);
  EXPECT_DOUBLE_EQ(*u.classification[0].auc_before, 1.0);
  EXPECT_DOUBLE_EQ(*u.classification[0].auc_after, 1.0);
  // At the top level every record has the same features, so the same
  // probability: every pair ties, AUC 1/2.
  in_.attributes[0].labels = {"*"};
  in_.attributes[0].to_released = {0, 0, 0, 0};
  u = analyze_utility(in_);
  EXPECT_DOUBLE_EQ(*u.classification[0].auc_after, 0.5);
  EXPECT_DOUBLE_EQ(*u.classification[0].auc_before, 1.0);
}

TEST_F(UtilityClassification, ChosenTargetAndFeatures) {
  // x (four classes) predicted from y: no AUC. (By default the features
  // are the quasi-identifiers, x alone, which a target never is: no entry.)
  in_.attributes[0].labels = {"a", "b", "c", "d"};
  in_.attributes[0].to_released = {0, 1, 2, 3};
  in_.targets = {0};
  EXPECT_TRUE(analyze_utility(in_).classification.empty());
  in_.features = {1};
  UtilityAnalysis u = analyze_utility(in_);
  ASSERT_EQ(u.classification.size(), 1u);
  EXPECT_EQ(u.classification[0].target, "x");
  EXPECT_EQ(u.classification[0].features, std::vector<std::string>{"y"});
  EXPECT_EQ(u.classification[0].classes, 3u);  // three or more
  EXPECT_FALSE(u.classification[0].auc_before.has_value());
  // y tells d from the rest: d is always right, a b c split evenly among
  // three classes with the same features: the majority rule of the model
  // gets at most 30 + 30 of them.
  EXPECT_LE(u.classification[0].accuracy_before, 0.5 + 1e-12);
  EXPECT_GE(u.classification[0].accuracy_before, 0.25);
  // A target listed among the features is not its own feature: nothing
  // left to predict from, so no entry.
  in_.features = {0};
  EXPECT_TRUE(analyze_utility(in_).classification.empty());
}

// The analysis against a row-by-row implementation on strings: maps of
// labels, the expanded sample sorted, chi2 as sum (O - E)^2 / E over every
// cell of the r x c table.
struct Naive {
  std::vector<std::vector<std::string>> before, after;  // per attribute, per row
};

double naive_v(const std::vector<std::string>& x, const std::vector<std::string>& y) {
  std::map<std::string, double> rx, cy;
  std::map<std::pair<std::string, std::string>, double> o;
  for (std::size_t i = 0; i < x.size(); ++i) {
    rx[x[i]] += 1;
    cy[y[i]] += 1;
    o[{x[i], y[i]}] += 1;
  }
  const double n = static_cast<double>(x.size());
  double chi2 = 0;
  for (const auto& [a, na] : rx)
    for (const auto& [b, nb] : cy) {
      const double e = na * nb / n;
      const auto it = o.find({a, b});
      const double obs = it == o.end() ? 0 : it->second;
      chi2 += (obs - e) * (obs - e) / e;
    }
  const double k = static_cast<double>(std::min(rx.size(), cy.size())) - 1;
  return k > 0 ? std::sqrt(chi2 / n / k) : -1;
}

double naive_quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double h = static_cast<double>(v.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(h);
  return lo + 1 < v.size() ? v[lo] + (h - static_cast<double>(lo)) * (v[lo + 1] - v[lo]) : v[lo];
}

TEST(UtilityRandomized, AgreesWithRowByRowImplementation) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 20; ++round) {
    const int rows = 50 + static_cast<int>(rng() % 400);
    const int width = 2 + static_cast<int>(rng() % 5);  // band width of the numeric QI
    std::string csv = "n,c,s\n";
    for (int r = 0; r < rows; ++r)
      csv += std::to_string(rng() % 40) + "," + std::string(1, static_cast<char>('a' + rng() % 6)) + "," +
             std::string(1, static_cast<char>('p' + rng() % 3)) + "\n";
    const Dataset d = read_dataset_text(csv, "random.csv", CsvOptions{',', true});
    // n: bands [lo, lo + width); c: a..c -> "x", d..f -> "y"; s sensitive.
    UtilityAttribute n{"n", Role::quasi_identifying, &d.columns[0], 1, {}, {}};
    std::map<std::string, std::uint32_t> band_code;
    auto band = [&](int v) { return std::to_string(v / width * width) + "-" + std::to_string(v / width * width + width - 1); };
    for (std::uint32_t code = 0; code < d.columns[0].dictionary.size(); ++code) {
      const std::string b = band(std::stoi(d.columns[0].dictionary.value(code)));
      const auto [it, added] = band_code.emplace(b, static_cast<std::uint32_t>(n.labels.size()));
      if (added) n.labels.push_back(b);
      n.to_released.push_back(it->second);
    }
    UtilityAttribute c{"c", Role::quasi_identifying, &d.columns[1], 1, {}, {"x", "y"}};
    for (std::uint32_t code = 0; code < d.columns[1].dictionary.size(); ++code)
      c.to_released.push_back(d.columns[1].dictionary.value(code)[0] <= 'c' ? 0 : 1);
    UtilityAttribute s{"s", Role::sensitive, &d.columns[2], -1, {}, {}};
    UtilityInput in;
    in.rows = static_cast<std::uint64_t>(rows);
    in.attributes = {n, c, s};
    for (int r = 0; r < rows; ++r) in.suppressed.push_back(rng() % 10 == 0);
    const UtilityAnalysis u = analyze_utility(in);

    // The naive side: strings per row.
    Naive nv;
    nv.before.resize(3);
    nv.after.resize(3);
    for (int r = 0; r < rows; ++r) {
      const std::string vn = d.columns[0].dictionary.value(d.columns[0].codes[r]);
      const std::string vc = d.columns[1].dictionary.value(d.columns[1].codes[r]);
      const std::string vs = d.columns[2].dictionary.value(d.columns[2].codes[r]);
      const bool sup = in.suppressed[static_cast<std::size_t>(r)] != 0;
      nv.before[0].push_back(vn);
      nv.before[1].push_back(vc);
      nv.before[2].push_back(vs);
      nv.after[0].push_back(sup ? "*" : band(std::stoi(vn)));
      nv.after[1].push_back(sup ? "*" : (vc[0] <= 'c' ? "x" : "y"));
      nv.after[2].push_back(vs);
    }
    // Distances: the input mapped to the level against the release.
    const std::vector<std::string> mapped_n = [&] {
      std::vector<std::string> m;
      for (const auto& v : nv.before[0]) m.push_back(band(std::stoi(v)));
      return m;
    }();
    std::map<std::string, std::pair<double, double>> dist;
    for (int r = 0; r < rows; ++r) {
      dist[mapped_n[static_cast<std::size_t>(r)]].first += 1.0 / rows;
      dist[nv.after[0][static_cast<std::size_t>(r)]].second += 1.0 / rows;
    }
    double tvd = 0, jsd = 0;
    for (const auto& [label, pq] : dist) {
      tvd += std::abs(pq.first - pq.second) / 2;
      const double m = (pq.first + pq.second) / 2;
      if (pq.first > 0) jsd += pq.first * std::log(pq.first / m) / std::log(2.0) / 2;
      if (pq.second > 0) jsd += pq.second * std::log(pq.second / m) / std::log(2.0) / 2;
    }
    EXPECT_NEAR(u.attributes[0].total_variation, tvd, 1e-12);
    EXPECT_NEAR(u.attributes[0].jensen_shannon, jsd, 1e-12);
    // Every released category's count.
    for (std::size_t i = 0; i < u.attributes[0].categories.size(); ++i)
      EXPECT_EQ(static_cast<double>(u.attributes[0].after[i]),
                std::round(dist[u.attributes[0].categories[i]].second * rows));

    // Numeric summaries: the expanded sample, bands as midpoints.
    std::vector<double> before_values, after_values;
    for (const auto& v : nv.before[0]) before_values.push_back(std::stod(v));
    for (const auto& v : nv.after[0])
      if (v != "*") after_values.push_back(static_cast<double>(std::stoi(v) + std::stoi(v.substr(v.find('-') + 1))) / 2);
    for (const auto& [values, summary] : {std::pair{before_values, u.attributes[0].numeric_before},
                                          std::pair{after_values, u.attributes[0].numeric_after}}) {
      ASSERT_EQ(summary.count, values.size());
      double mean = 0;
      for (double v : values) mean += v / static_cast<double>(values.size());
      double m2 = 0, m3 = 0, m4 = 0;
      for (double v : values) {
        m2 += std::pow(v - mean, 2) / static_cast<double>(values.size());
        m3 += std::pow(v - mean, 3) / static_cast<double>(values.size());
        m4 += std::pow(v - mean, 4) / static_cast<double>(values.size());
      }
      EXPECT_NEAR(*summary.mean, mean, 1e-9);
      EXPECT_NEAR(*summary.sd, std::sqrt(m2), 1e-9);
      EXPECT_NEAR(*summary.skewness, m3 / std::pow(m2, 1.5), 1e-9);
      EXPECT_NEAR(*summary.kurtosis, m4 / (m2 * m2) - 3, 1e-9);
      EXPECT_NEAR(*summary.q1, naive_quantile(values, 0.25), 1e-12);
      EXPECT_NEAR(*summary.median, naive_quantile(values, 0.5), 1e-12);
      EXPECT_NEAR(*summary.q3, naive_quantile(values, 0.75), 1e-12);
      EXPECT_EQ(*summary.min, *std::min_element(values.begin(), values.end()));
      EXPECT_EQ(*summary.max, *std::max_element(values.begin(), values.end()));
    }
    EXPECT_EQ(u.attributes[0].numeric_after.missing, static_cast<std::uint64_t>(rows) - after_values.size());

    // Cramér's V of every pair, before and after.
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        if (i == j) continue;
        // After: the suppressed records' '*' is missing (each pair has a quasi-identifier).
        std::vector<std::string> xi, xj;
        for (int r = 0; r < rows; ++r)
          if (!in.suppressed[static_cast<std::size_t>(r)]) {
            xi.push_back(nv.after[i][static_cast<std::size_t>(r)]);
            xj.push_back(nv.after[j][static_cast<std::size_t>(r)]);
          }
        const double vb = naive_v(nv.before[i], nv.before[j]), va = naive_v(xi, xj);
        ASSERT_TRUE(u.cramers_v_before[i][j].has_value());
        EXPECT_NEAR(*u.cramers_v_before[i][j], vb, 1e-9) << i << " " << j;
        ASSERT_EQ(u.cramers_v_after[i][j].has_value(), va >= 0);
        if (va >= 0) {
          EXPECT_NEAR(*u.cramers_v_after[i][j], va, 1e-9) << i << " " << j;
        }
      }
  }
}

}  // namespace
}  // namespace deid
