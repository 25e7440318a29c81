// ARX reference results for k-anonymity with the Loss model on the adult
// data (tests/testdata/reference/arx-adult.json, shared/reference/README.md):
// deid must find a transformation with ARX's information loss, and its output
// must pass the independent verifier (src/verify/verify.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "deid/pipeline.h"
#include "support/reference.h"
#include "verify.h"

namespace {

// Every reference run whose privacy models are only "k=..." and whose
// quality model is loss.
const char* const kRuns[] = {"adult_k5_loss", "adult_k5_loss_arith", "adult_k10_loss_s10", "adult_k2_loss_s1",
                             "adult_k5_loss_s0"};

class ArxKAnonymityLoss : public ::testing::TestWithParam<const char*> {};

TEST(ArxKAnonymityLossRuns, ListCoversEveryKOnlyLossRun) {
  std::vector<std::string> found;
  for (const auto& run : deid::testing::arx_adult_runs()) {
    if (run["quality_model"] != "loss") continue;
    bool k_only = !run["privacy_models"].empty();
    for (const auto& m : run["privacy_models"]) k_only = k_only && m.get<std::string>().rfind("k=", 0) == 0;
    if (k_only) found.push_back(run["name"].get<std::string>());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> listed(std::begin(kRuns), std::end(kRuns));
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(found, listed);
}

TEST_P(ArxKAnonymityLoss, MatchesArxLossAndOutputPassesVerifier) {
  const nlohmann::json& run = deid::testing::arx_adult_run(GetParam());
  const deid::Job job = deid::testing::arx_adult_job_with_output(run, "arx_kanonymity_");
  const std::filesystem::path output = job.output.path;

  const deid::Anonymization a = deid::anonymize(job);
  ASSERT_TRUE(a.found);
  const nlohmann::json& r = a.result;

  // Levels in ARX's order of quasi-identifiers (the job lists them in the
  // CSV's column order).
  const std::vector<int> levels = deid::testing::expect_arx_adult_optimum(r, run);
  if (levels == run["optimum_levels"].get<std::vector<int>>()) {
    EXPECT_EQ(r["smallest_class_size"].get<std::uint64_t>(), run["output_classes"]["min_size"].get<std::uint64_t>());
    // ARX prints the per-attribute loss with 10 significant digits.
    for (const auto& [name, value] : run["information_loss_per_qi"].items())
      EXPECT_NEAR(r["information_loss_per_attribute"][name].get<double>(), value.get<double>(), 1e-9) << name;
  }

  verify::Options check = deid::testing::arx_adult_verify_options(run, job);
  check.k = std::stoull(run["privacy_models"][0].get<std::string>().substr(2));
  const verify::Report report = verify::check(check);
  EXPECT_TRUE(report.valid()) << report.to_string();
  // The verifier's own reading of the output agrees with the engine's result.
  std::vector<int> detected;
  for (const auto& l : report.levels) detected.push_back(l.value_or(-1));
  EXPECT_EQ(detected, levels);
  EXPECT_EQ(report.suppressed_records, r["suppressed_records"].get<std::uint64_t>());
  EXPECT_EQ(report.classes, r["classes"].get<std::uint64_t>());
  EXPECT_EQ(report.max_suppressed, run["suppression_limit_records"].get<std::uint64_t>());
  std::filesystem::remove(output);
}

INSTANTIATE_TEST_SUITE_P(Adult, ArxKAnonymityLoss, ::testing::ValuesIn(kRuns),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
