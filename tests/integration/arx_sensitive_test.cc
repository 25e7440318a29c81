// ARX reference results for l-diversity and t-closeness on the adult data
// (tests/testdata/reference/arx-adult.json, shared/reference/README.md):
// deid must find a transformation with ARX's information loss, and its output
// must pass the independent verifier (src/verify/verify.h,
// verify_sensitive.h).
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

// The verifier's options for a reference run: the shared ones, k and the
// l-diversity or t-closeness requirement on its sensitive attribute.
verify::Options verifier_options(const nlohmann::json& run, const deid::Job& job) {
  verify::Options check = deid::testing::arx_adult_verify_options(run, job);
  const std::string attribute = run["sensitive"].get<std::string>();
  for (const auto& m : run["privacy_models"]) {
    const std::string s = m.get<std::string>();
    const std::string kind = s.substr(0, s.find('=')), arg = s.substr(s.find('=') + 1);
    if (kind == "k") {
      check.k = std::stoull(arg);
    } else if (kind == "ldiv-distinct") {
      check.class_requirements.push_back(verify::DistinctLDiversity{attribute, std::stoull(arg)});
    } else if (kind == "ldiv-entropy") {
      check.class_requirements.push_back(verify::EntropyLDiversity{attribute, std::stod(arg)});
    } else if (kind == "ldiv-recursive") {  // "c,l"
      check.class_requirements.push_back(verify::RecursiveCLDiversity{
          attribute, std::stod(arg.substr(0, arg.find(','))), std::stoull(arg.substr(arg.find(',') + 1))});
    } else if (kind.rfind("tclose-", 0) == 0) {
      verify::TCloseness t;
      t.attribute = attribute;
      t.t = std::stod(arg);
      if (kind == "tclose-equal") t.distance = verify::TCloseness::Distance::equal;
      if (kind == "tclose-ordered") t.distance = verify::TCloseness::Distance::ordered;
      if (kind == "tclose-hier") {
        t.distance = verify::TCloseness::Distance::hierarchical;
        std::string error;
        auto h = verify::read_csv_file(deid::testing::example_path("adult/hierarchies/" + attribute + ".csv"), ';',
                                       false, &error);
        EXPECT_TRUE(h.has_value()) << error;
        if (h) t.hierarchy = h->rows;
      }
      check.class_requirements.push_back(t);
    } else {
      ADD_FAILURE() << "unexpected model " << s;
    }
  }
  return check;
}

TEST_P(ArxSensitive, MatchesArxInformationLossAndOutputPassesVerifier) {
  const nlohmann::json& run = deid::testing::arx_adult_run(GetParam());
  const deid::Job job = deid::testing::arx_adult_job_with_output(run, "arx_sensitive_");
  const std::filesystem::path output = job.output.path;
  const deid::Anonymization a = deid::anonymize(job);
  ASSERT_TRUE(a.found);
  const nlohmann::json& r = a.result;
  deid::testing::expect_arx_adult_optimum(r, run);

  const verify::Report report = verify::check(verifier_options(run, job));
  EXPECT_TRUE(report.valid()) << report.to_string();
  EXPECT_EQ(report.suppressed_records, r["suppressed_records"].get<std::uint64_t>());
  EXPECT_EQ(report.classes, r["classes"].get<std::uint64_t>());
  std::filesystem::remove(output);
}

INSTANTIATE_TEST_SUITE_P(Adult, ArxSensitive, ::testing::ValuesIn(kRuns),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
