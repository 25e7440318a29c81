// ARX reference results for l-diversity and t-closeness on the adult data
// (tests/testdata/reference/arx-adult.json, shared/reference/README.md):
// deid must find a transformation with ARX's information loss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

// Every reference run with an l-diversity or t-closeness model.
const char* const kRuns[] = {"adult_k5_ldist3_occ", "adult_ldist2_occ",  "adult_lent2_occ",
                             "adult_lrec34_occ",    "adult_k5_tord02_age", "adult_tord02_age",
                             "adult_teq02_occ",     "adult_thier02_occ"};

TEST(ArxSensitiveRuns, ListCoversEveryLDiversityAndTClosenessRun) {
  std::vector<std::string> found;
  for (const auto& run : deid::testing::arx_adult_runs()) {
    bool sensitive = false;
    for (const auto& m : run["privacy_models"]) {
      const std::string s = m.get<std::string>();
      sensitive = sensitive || s.rfind("ldiv-", 0) == 0 || s.rfind("tclose-", 0) == 0;
    }
    if (sensitive) found.push_back(run["name"].get<std::string>());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> listed(std::begin(kRuns), std::end(kRuns));
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(found, listed);
}

class ArxSensitive : public ::testing::TestWithParam<const char*> {};

TEST_P(ArxSensitive, MatchesArxInformationLoss) {
  const nlohmann::json& run = deid::testing::arx_adult_run(GetParam());
  const deid::Job job = deid::testing::arx_adult_job(run, deid::SearchSpec::Algorithm::automatic);
  auto prepared = deid::prepare(job);
  const deid::Anonymization a = deid::run_search(*prepared);
  ASSERT_TRUE(a.found);
  const nlohmann::json& r = a.result;

  const double arx_loss = run["information_loss"].get<double>();
  const double loss = r["information_loss"].get<double>();
  EXPECT_LE(std::abs(loss - arx_loss), 1e-8 * std::abs(arx_loss)) << "deid " << loss << ", ARX " << arx_loss;

  std::vector<int> levels;
  for (const auto& q : run["quasi_identifiers"]) levels.push_back(r["transformation"][q.get<std::string>()].get<int>());
  if (levels == run["optimum_levels"].get<std::vector<int>>()) {
    EXPECT_EQ(r["suppressed_records"].get<std::uint64_t>(), run["suppressed_records"].get<std::uint64_t>());
    EXPECT_EQ(r["classes"].get<std::uint64_t>(), run["output_classes"]["num_classes"].get<std::uint64_t>());
  } else {
    // A tie of equal loss broken differently (shared/reference/README.md).
    RecordProperty("tie_broken_differently", deid::to_string(deid::Transformation(levels.begin(), levels.end())));
  }
}

INSTANTIATE_TEST_SUITE_P(Adult, ArxSensitive, ::testing::ValuesIn(kRuns),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
