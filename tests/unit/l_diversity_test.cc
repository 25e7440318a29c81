// l-diversity (src/privacy/l_diversity.h): hand examples for each variant
// with ARX's definitions, the factory, and monotonicity.
#include "privacy/l_diversity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "deid/error.h"
#include "deid/problem.h"
#include "privacy/models.h"

namespace deid {
namespace {

// A class with one sensitive attribute whose values have `counts` (codes
// 0, 1, 2, ...).
struct Class {
  explicit Class(std::vector<std::uint64_t> c) : counts(std::move(c)) {
    for (std::size_t i = 0; i < counts.size(); ++i) codes.push_back(static_cast<std::uint32_t>(i));
    dist.push_back({codes, counts});
    for (auto n : counts) view.count += n;
    view.sensitive = dist;
  }
  std::vector<std::uint32_t> codes;
  std::vector<std::uint64_t> counts;
  std::vector<ClassView::Distribution> dist;
  ClassView view;
};

TEST(DistinctLDiversity, HoldsWhenAtLeastLDistinctValues) {
  const DistinctLDiversity m("disease", 0, 3);
  EXPECT_TRUE(m.holds(Class({5, 1, 1}).view));
  EXPECT_TRUE(m.holds(Class({1, 1, 1, 1}).view));
  EXPECT_FALSE(m.holds(Class({5, 2}).view));
  EXPECT_EQ(m.minimal_class_size(), 3u);
}

TEST(DistinctLDiversity, IsMonotonicEvenWithSuppression) {
  EXPECT_TRUE(DistinctLDiversity("disease", 0, 2).monotonic());
}

TEST(EntropyLDiversity, ComparesShannonEntropyWithLogL) {
  const EntropyLDiversity two("disease", 0, 2, true);
  // {3,1}: H = -(3/4 ln 3/4 + 1/4 ln 1/4) = 0.562 < ln 2 = 0.693.
  EXPECT_FALSE(two.holds(Class({3, 1}).view));
  // {2,1,1}: H = 1.040 >= ln 2, but < ln 3 = 1.099.
  EXPECT_TRUE(two.holds(Class({2, 1, 1}).view));
  EXPECT_FALSE(EntropyLDiversity("disease", 0, 3, true).holds(Class({2, 1, 1}).view));
  EXPECT_NEAR(two.entropy(Class({2, 1, 1}).view), -(0.5 * std::log(0.5) + 0.5 * std::log(0.25)), 1e-12);
}

TEST(EntropyLDiversity, ClassAtTheBoundIsJudgedByArxsExpression) {
  // H = ln l exactly: ARX's test is >=, so these hold.
  EXPECT_TRUE(EntropyLDiversity("disease", 0, 2, true).holds(Class({1, 1}).view));
  // Also H = ln 2, but in floating point 14 (ln 14 - ln 2) = 27.24274208677438
  // rounds below 2 * 7 ln 7 = 27.242742086774385: ARX rejects this class, and
  // so does deid, to give ARX's answers.
  EXPECT_FALSE(EntropyLDiversity("disease", 0, 2, true).holds(Class({7, 7}).view));
  EXPECT_TRUE(EntropyLDiversity("disease", 0, 3, true).holds(Class({1, 1, 1}).view));
  EXPECT_TRUE(EntropyLDiversity("disease", 0, 4, true).holds(Class({5, 5, 5, 5}).view));
  EXPECT_FALSE(EntropyLDiversity("disease", 0, 2.01, true).holds(Class({1, 1}).view));
}

TEST(EntropyLDiversity, IsMonotonicOnlyWithoutSuppression) {
  EXPECT_FALSE(EntropyLDiversity("disease", 0, 2, true).monotonic());
  EXPECT_TRUE(EntropyLDiversity("disease", 0, 2, false).monotonic());
}

TEST(RecursiveCLDiversity, LargestCountBelowCTimesTail) {
  // (c,l) = (3,2): n1 < 3 * (n2 + ... + ns).
  const RecursiveCLDiversity c3l2("disease", 0, 3, 2, true);
  EXPECT_TRUE(c3l2.holds(Class({5, 2}).view));   // 5 < 6
  EXPECT_FALSE(c3l2.holds(Class({6, 2}).view));  // 6 < 6 is false: strict
  EXPECT_TRUE(c3l2.holds(Class({2, 5}).view));   // largest count on another code
  // (c,l) = (2,3): n1 < 2 * (n3 + ... + ns).
  const RecursiveCLDiversity c2l3("disease", 0, 2, 3, true);
  EXPECT_FALSE(c2l3.holds(Class({4, 2, 1, 1}).view));  // 4 < 2 * 2 is false
  EXPECT_TRUE(c2l3.holds(Class({3, 2, 1, 1}).view));   // 3 < 4
  EXPECT_TRUE(c2l3.holds(Class({1, 3, 1, 2}).view));   // the same counts shuffled
  EXPECT_FALSE(c2l3.holds(Class({1, 1}).view));        // fewer than l values
  EXPECT_EQ(c2l3.minimal_class_size(), 3u);
}

TEST(RecursiveCLDiversity, IsMonotonicOnlyWithoutSuppression) {
  EXPECT_FALSE(RecursiveCLDiversity("disease", 0, 3, 2, true).monotonic());
  EXPECT_TRUE(RecursiveCLDiversity("disease", 0, 3, 2, false).monotonic());
}

TEST(LDiversityModels, JudgeTheirOwnAttributeAmongSeveral) {
  // Two sensitive attributes: the model for index 1 sees only the second.
  std::vector<std::uint32_t> codes0{0}, codes1{0, 1, 2};
  std::vector<std::uint64_t> counts0{3}, counts1{1, 1, 1};
  std::vector<ClassView::Distribution> dist{{codes0, counts0}, {codes1, counts1}};
  ClassView view;
  view.count = 3;
  view.sensitive = dist;
  EXPECT_TRUE(DistinctLDiversity("b", 1, 3).holds(view));
  EXPECT_FALSE(DistinctLDiversity("a", 0, 2).holds(view));
}

class LDiversityFactory : public ::testing::Test {
 protected:
  LDiversityFactory() {
    column.name = "disease";
    for (const char* v : {"flu", "cold", "flu"}) column.codes.push_back(column.dictionary.intern(v));
    SensitiveAttribute s;
    s.name = "disease";
    s.data = &column;
    problem.sensitive.push_back(s);
  }
  Column column;
  Problem problem;
};

TEST_F(LDiversityFactory, BuildsEachVariantWithSuppressionFromTheProblem) {
  problem.max_suppressed = 0;
  LDiversitySpec spec;
  spec.attribute = "disease";
  spec.variant = LDiversitySpec::Variant::entropy;
  spec.l = 2;
  auto entropy = make_l_diversity(spec, problem);
  EXPECT_TRUE(entropy->monotonic());
  EXPECT_TRUE(entropy->needs_distributions());
  EXPECT_EQ(entropy->to_json()["variant"], "entropy");

  problem.max_suppressed = 10;
  spec.variant = LDiversitySpec::Variant::recursive;
  spec.c = 3;
  spec.l = 4;
  auto recursive = make_l_diversity(spec, problem);
  EXPECT_FALSE(recursive->monotonic());
  EXPECT_EQ(recursive->to_json()["c"], 3.0);
  EXPECT_EQ(recursive->to_json()["l"], 4.0);
  EXPECT_EQ(recursive->describe(), "recursive-(3,4)-diversity for 'disease'");
}

TEST_F(LDiversityFactory, RejectsAnAttributeThatIsNotSensitive) {
  LDiversitySpec spec;
  spec.attribute = "age";
  EXPECT_THROW(make_l_diversity(spec, problem), JobError);
}

}  // namespace
}  // namespace deid
