// Attack-based risk of papers/003 ("Possible Re-identification Attacks").

#include "deid/attack_risk.h"

#include "deid/risk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace deid {
namespace {

using Sizes = std::vector<std::uint64_t>;

TEST(AttackRisk, TargetedAttackWithSampleSizesIsTheProsecutorView) {
  // Classes of 1, 4 and 20 records, tau = 0.05 (k = 20).
  const Sizes f = {1, 4, 20};
  const auto r = targeted_attack_risk(f, {}, 0.05);
  EXPECT_EQ(r.k, 20u);
  EXPECT_EQ(r.records, 25u);
  EXPECT_EQ(r.classes, 3u);
  EXPECT_DOUBLE_EQ(r.highest_risk, 1.0);
  EXPECT_EQ(r.records_at_risk, 5u);
  EXPECT_EQ(r.classes_at_risk, 2u);
  EXPECT_DOUBLE_EQ(r.records_at_risk_fraction, 5.0 / 25);
  EXPECT_DOUBLE_EQ(r.average_risk, 3.0 / 25);  // sum f/F = number of classes
  EXPECT_FALSE(r.population_sizes);
  EXPECT_FALSE(r.meets_threshold());
}

TEST(AttackRisk, TargetedAttackUsesPopulationClassSizes) {
  // papers/003: a 10% sample whose population classes all have >= 20
  // records meets tau = 0.05 although its own classes are small.
  const Sizes f = {2, 3, 0}, F = {20, 31, 7};
  const auto r = targeted_attack_risk(f, F, 0.05);
  EXPECT_TRUE(r.population_sizes);
  EXPECT_EQ(r.classes, 2u);  // the empty class is skipped
  EXPECT_DOUBLE_EQ(r.highest_risk, 1.0 / 20);
  EXPECT_TRUE(r.meets_threshold());
  EXPECT_DOUBLE_EQ(r.average_risk, (2.0 / 20 + 3.0 / 31) / 5);
  // tau = 0.04 needs F >= 25: the class of 20 is at risk.
  const auto s = targeted_attack_risk(f, F, 0.04);
  EXPECT_EQ(s.k, 25u);
  EXPECT_EQ(s.records_at_risk, 2u);
  EXPECT_EQ(s.classes_at_risk, 1u);
}

TEST(AttackRisk, TargetedAttackRejectsInconsistentSizes) {
  EXPECT_THROW(targeted_attack_risk(Sizes{1, 2}, Sizes{5}, 0.05), std::invalid_argument);
  EXPECT_THROW(targeted_attack_risk(Sizes{6}, Sizes{5}, 0.05), std::invalid_argument);
  EXPECT_THROW(targeted_attack_risk(Sizes{1}, {}, 0.0), std::invalid_argument);
}

TEST(AttackRisk, RegistryMatchingExpectsSumOfFOverBigF) {
  const Sizes f = {1, 2, 5}, F = {10, 20, 50};
  const auto r = registry_matching_risk(f, F);
  EXPECT_EQ(r.records, 8u);
  EXPECT_DOUBLE_EQ(r.expected_matches, 0.1 + 0.1 + 0.1);
  EXPECT_DOUBLE_EQ(r.proportion, 0.3 / 8);
  EXPECT_THROW(registry_matching_risk(f, {}), std::invalid_argument);
}

TEST(AttackRisk, RegistryMatchingBoundReproducesThePapersFourMatches) {
  // papers/003, attack 2: 2 x 20 x 10 = 400 classes, alpha = 0.009 for a
  // 10% PUMF of 25,573,800 people: "approximately 4 individuals".
  const auto r = registry_matching_bound(0.009, 400, 237'533);
  EXPECT_NEAR(r.expected_matches, 3.6, 1e-12);
  EXPECT_EQ(std::llround(r.expected_matches), 4);
  EXPECT_NEAR(r.proportion, 3.6 / 237'533, 1e-15);
  EXPECT_THROW(registry_matching_bound(0.0, 1, 1), std::invalid_argument);
}

TEST(AttackRisk, RegistryMatchingEqualsTheBoundWhenSamplesAreExactlyAlphaF) {
  // With f_j = alpha * F_j in every class, equation 2 equals equation 3.
  const Sizes F = {100, 200, 300, 1000};
  Sizes f;
  for (auto x : F) f.push_back(x / 10);
  EXPECT_NEAR(registry_matching_risk(f, F).expected_matches,
              registry_matching_bound(0.1, F.size(), 160).expected_matches, 1e-12);
}

TEST(AttackRisk, RegistryPersonRiskIsTheShareOfPopulationInSmallClasses) {
  // Equation 1 with tau = 0.05: classes below 20 are at risk.
  const Sizes C = {19, 20, 1, 960};
  const auto r = registry_person_risk(C, 0.05);
  EXPECT_EQ(r.population, 1000u);
  EXPECT_EQ(r.population_at_risk, 20u);
  EXPECT_DOUBLE_EQ(r.proportion, 0.02);
  const std::vector<std::uint32_t> province = {0, 0, 1, 1};
  const auto by = registry_person_risk_by_group(C, province, 2, 0.05);
  ASSERT_EQ(by.size(), 2u);
  EXPECT_DOUBLE_EQ(by[0].proportion, 19.0 / 39);
  EXPECT_DOUBLE_EQ(by[1].proportion, 1.0 / 961);
}

TEST(AttackRisk, DeidRiskReportCarriesTheAttacksOfPaper003) {
  // `deid risk` (risk.h) adds attack 3 with the table's class sizes and
  // attack 2's equation 3 per population to its JSON.
  const Sizes classes = {1, 1, 3, 5, 10};
  const auto freq = ClassSizeFrequencies::from_class_sizes(classes);
  RiskOptions options;
  options.threshold = 0.2;
  options.populations = {{"town", 2000.0}};
  const auto j = to_json(assess_risk(freq, options));
  ASSERT_TRUE(j.contains("attack_based"));
  const auto& a = j["attack_based"];
  EXPECT_EQ(a["k"], 5);
  EXPECT_EQ(a["targeted"]["records_at_risk"], 5);  // classes of 1, 1 and 3
  EXPECT_EQ(a["targeted"]["classes_at_risk"], 3);
  ASSERT_EQ(a["registry_matching"].size(), 1u);
  // alpha = 20 / 2000, 5 classes: 0.05 expected correct matches.
  EXPECT_NEAR(a["registry_matching"][0]["expected_matches"].get<double>(), 0.05, 1e-12);
  EXPECT_NE(to_text(assess_risk(freq, options)).find("targeted (3)"), std::string::npos);
}

}  // namespace
}  // namespace deid
