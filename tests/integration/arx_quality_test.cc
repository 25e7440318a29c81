// ARX reference results for every quality model on the adult data
// (tests/testdata/reference/arx-adult.json, shared/reference/README.md):
// k = 5, 5 % suppression, one run per model. The search must find ARX's
// information loss, and ARX's optimal transformation, checked directly, must
// give ARX's loss, per-attribute values and suppressed records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "deid/check.h"
#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

struct QualityRun {
  const char* name;
  // Whether ARX's optimum is the only transformation with the optimal loss
  // (measured with deid's exhaustive search). When it is not, a tie may be
  // broken differently and only the loss is compared.
  bool unique_optimum;
};

const QualityRun kRuns[] = {
    {"adult_k5_aecs", true},    {"adult_k5_disc", true},   {"adult_k5_entropy", true},
    {"adult_k5_height", false}, {"adult_k5_prec", true},   {"adult_k5_loss_arith", true},
};

void expect_relative(double value, double expected, const std::string& what) {
  EXPECT_LE(std::abs(value - expected), 1e-8 * std::abs(expected)) << what << ": deid " << value << ", ARX "
                                                                     << expected;
}

// ARX's optimum in the problem's order of quasi-identifiers (the data's
// column order, not necessarily the run's).
deid::Transformation arx_optimum(const nlohmann::json& run, const deid::Problem& problem) {
  const auto names = run["quasi_identifiers"].get<std::vector<std::string>>();
  const auto levels = run["optimum_levels"].get<std::vector<int>>();
  deid::Transformation t(problem.qi_names.size(), 0);
  for (std::size_t q = 0; q < problem.qi_names.size(); ++q)
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == problem.qi_names[q]) t[q] = static_cast<std::uint8_t>(levels[i]);
  return t;
}

class ArxQuality : public ::testing::TestWithParam<QualityRun> {};

TEST(ArxQualityRuns, EveryQualityModelHasAReferenceRun) {
  std::vector<std::string> models;
  for (const QualityRun& r : kRuns) models.push_back(deid::testing::arx_adult_run(r.name)["quality_model"]);
  for (const char* m : {"aecs", "discernability", "entropy", "height", "precision", "loss"})
    EXPECT_NE(std::find(models.begin(), models.end(), m), models.end()) << m;
}

TEST_P(ArxQuality, ArxOptimumEvaluatesToArxLossAndSuppression) {
  const nlohmann::json& run = deid::testing::arx_adult_run(GetParam().name);
  const auto prepared = deid::prepare(deid::testing::arx_adult_job(run));
  const deid::Problem& problem = prepared->problem;
  EXPECT_EQ(problem.quality->describe(), run["quality_model_arx"].get<std::string>());

  deid::Checker checker(problem);
  const deid::CheckResult r = checker.check(arx_optimum(run, problem));
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.suppressed_records, run["suppressed_records"].get<std::uint64_t>());
  expect_relative(r.quality.value, run["information_loss"].get<double>(), "information loss");
  EXPECT_LE(r.lower_bound, r.quality.value);
  if (run["information_loss_per_qi"].is_null()) {
    EXPECT_TRUE(r.quality.per_attribute.empty());
  } else {
    ASSERT_EQ(r.quality.per_attribute.size(), problem.qi_names.size());
    // ARX keeps 10 decimal places of Loss and entropy values.
    for (std::size_t q = 0; q < problem.qi_names.size(); ++q)
      EXPECT_NEAR(r.quality.per_attribute[q], run["information_loss_per_qi"][problem.qi_names[q]].get<double>(), 1e-9)
          << problem.qi_names[q];
  }
}

TEST_P(ArxQuality, SearchFindsArxInformationLoss) {
  const nlohmann::json& run = deid::testing::arx_adult_run(GetParam().name);
  const auto prepared = deid::prepare(deid::testing::arx_adult_job(run, deid::SearchSpec::Algorithm::automatic));
  const deid::Anonymization a = deid::run_search(*prepared);
  ASSERT_TRUE(a.found);
  const nlohmann::json& r = a.result;
  expect_relative(r["information_loss"].get<double>(), run["information_loss"].get<double>(), "information loss");
  if (!GetParam().unique_optimum) return;

  const deid::Problem& problem = prepared->problem;
  EXPECT_EQ(a.search.best->transformation, arx_optimum(run, problem));
  EXPECT_EQ(r["suppressed_records"].get<std::uint64_t>(), run["suppressed_records"].get<std::uint64_t>());
  if (!run["information_loss_per_qi"].is_null()) {
    for (const auto& [name, value] : run["information_loss_per_qi"].items())
      EXPECT_NEAR(r["information_loss_per_attribute"][name].get<double>(), value.get<double>(), 1e-9) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Adult, ArxQuality, ::testing::ValuesIn(kRuns),
                         [](const ::testing::TestParamInfo<QualityRun>& info) { return std::string(info.param.name); });

}  // namespace
