// The job's utility section (docs/utility.md, "Classification"): the
// targets and features it names reach the result, and a name that is not a
// released column is an error before the search.
#include <gtest/gtest.h>

#include <string>

#include "deid/error.h"
#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

std::string adult_job(const std::string& utility) {
  const std::string adult = deid::testing::example_path("adult");
  std::string yaml = "input: {path: '" + adult + "/adult.csv', delimiter: ';'}\nattributes:\n";
  for (const char* q : {"age", "education", "marital-status", "native-country", "race", "sex", "workclass"})
    yaml += std::string("  ") + q + ": {role: quasi-identifying, hierarchy: '" + adult + "/hierarchies/" + q + ".csv'}\n";
  yaml += "  occupation: {role: identifying}\n";
  yaml += "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: 5}\nsuppression-limit: 0.05\n" + utility;
  return yaml;
}

TEST(UtilityJob, TargetAndFeaturesReachTheResult) {
  auto p = deid::prepare(deid::parse_job(adult_job("utility: {target: salary-class, features: [age, sex, education]}\n"),
                                         "u.yaml", "."));
  const deid::Anonymization a = deid::run_search(*p);
  ASSERT_TRUE(a.found);
  const nlohmann::json u = deid::release_utility(*p, a);
  ASSERT_EQ(u["classification"].size(), 1u);
  const nlohmann::json& c = u["classification"][0];
  EXPECT_EQ(c["target"], "salary-class");
  EXPECT_EQ(c["features"], nlohmann::json::parse(R"(["age","sex","education"])"));
  // salary-class has two classes: both AUCs, the input's at least the
  // release's (the features only lose detail) and above chance.
  ASSERT_TRUE(c["auc_before"].is_number() && c["auc_after"].is_number());
  EXPECT_GT(c["auc_before"].get<double>(), 0.5);
  EXPECT_GE(c["auc_before"].get<double>() + 1e-9, c["auc_after"].get<double>());
  EXPECT_GT(c["accuracy_before"].get<double>(), c["baseline_accuracy"].get<double>());
}

TEST(UtilityJob, WithoutTheSectionOnlySensitiveAttributesAreTargets) {
  auto p = deid::prepare(deid::parse_job(adult_job(""), "u.yaml", "."));
  const deid::Anonymization a = deid::run_search(*p);
  EXPECT_TRUE(deid::release_utility(*p, a)["classification"].empty());
}

TEST(UtilityJob, NamesThatAreNotReleasedColumnsAreErrorsAtTheSectionsLine) {
  for (const std::string& bad : {std::string("utility: {target: income}\n"),
                                 std::string("utility: {target: salary-class, features: [occupation]}\n")}) {
    try {
      deid::prepare(deid::parse_job(adult_job(bad), "u.yaml", "."));
      ADD_FAILURE() << bad;
    } catch (const deid::JobError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("u.yaml:15"), std::string::npos) << m;
      EXPECT_NE(m.find(bad.find("income") != std::string::npos ? "'income', which is not a column"
                                                                : "'occupation', which is identifying"),
                std::string::npos)
          << m;
    }
  }
  EXPECT_THROW(deid::parse_job(adult_job("utility: {target: []}\n"), "u.yaml", "."), deid::JobError);
  EXPECT_THROW(deid::parse_job(adult_job("utility: {targets: x}\n"), "u.yaml", "."), deid::JobError);
}

}  // namespace
