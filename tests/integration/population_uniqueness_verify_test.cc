// The independent verifier's population-uniqueness check
// (src/verify/verify_uniqueness.h):
//  - its own estimators reproduce ARX's estimates of the adult data
//    (reference/arx-adult-risk.json) where ARX has one;
//  - every population-uniqueness reference run of arx-adult.json, written
//    by deid anonymize, passes the verifier, which finds the output's
//    estimated population uniqueness at most the threshold;
//  - the adult input itself, unsuppressed, fails the 1 % requirement, and an
//    output made only of sample uniques fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "deid/pipeline.h"
#include "support/reference.h"
#include "verify.h"

namespace {

const std::vector<nlohmann::json>& risk_cases() { return deid::testing::arx_adult_risk_cases(); }

verify::ClassSizes sizes_of(const nlohmann::json& c) {
  verify::ClassSizes sizes;
  const auto& flat = c["class_size_frequencies"];
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2) sizes[flat[i].get<std::uint64_t>()] = flat[i + 1];
  return sizes;
}

TEST(VerifierPopulationUniqueness, EstimatorsReproduceArxEstimatesOfAdult) {
  int compared = 0;
  for (const auto& c : risk_cases()) {
    const verify::ClassSizes sizes = sizes_of(c);
    const long double N = c["population_size"].get<double>();
    const auto& pu = c["population_uniques"];
    const std::string name = c["name"].get<std::string>();
    for (const char* model : {"zayatz", "pitman"}) {
      if (!pu[model].value("is_available_estimate", true)) continue;
      const verify::UniquesEstimate e =
          std::string(model) == "zayatz" ? verify::zayatz_uniques(sizes, N) : verify::pitman_uniques(sizes, N);
      ASSERT_TRUE(e.uniques.has_value()) << name << " " << model << ": " << e.why;
      const double arx = pu[model]["num_uniques"].get<double>();
      EXPECT_LE(std::fabs(static_cast<double>(*e.uniques) - arx), 1e-6 * arx) << name << " " << model;
      ++compared;
    }
    // The privacy model's rule (no Zayatz fallback).
    const verify::UniquesEstimate d = verify::dankar_uniques(sizes, N);
    ASSERT_TRUE(d.uniques.has_value()) << name << ": " << d.why;
    const double arx_fraction = pu["dankar_without_zayatz_fallback"]["fraction_unique_tuples"].get<double>();
    EXPECT_LE(std::fabs(static_cast<double>(*d.uniques / N) - arx_fraction), 1e-6 * arx_fraction) << name;
  }
  EXPECT_GE(compared, 5);
}

// The verifier's options for a population-uniqueness reference run: the
// shared ones and its estimator.
verify::Options verifier_options(const nlohmann::json& run, const deid::Job& job) {
  verify::Options o = deid::testing::arx_adult_verify_options(run, job);
  const std::string model = run["privacy_models"][0].get<std::string>();
  verify::PopulationUniqueness pu;
  const std::string kind = model.substr(0, model.find('='));
  pu.threshold = std::stod(model.substr(model.find('=') + 1));
  pu.population_size = run["population_size"].get<double>();
  pu.estimator = kind == "pitman"   ? verify::PopulationUniqueness::Estimator::pitman
                 : kind == "zayatz" ? verify::PopulationUniqueness::Estimator::zayatz
                 : kind == "snb"    ? verify::PopulationUniqueness::Estimator::snb
                                    : verify::PopulationUniqueness::Estimator::dankar;
  o.population_uniqueness = pu;
  return o;
}

class VerifiedPopulationUniqueness : public ::testing::TestWithParam<const char*> {};

TEST_P(VerifiedPopulationUniqueness, OutputOfReferenceRunPassesTheVerifier) {
  const nlohmann::json& run = deid::testing::arx_adult_run(GetParam());
  const deid::Job job = deid::testing::arx_adult_job_with_output(run, "pu_verify_");
  const std::filesystem::path output = job.output.path;
  const deid::Anonymization a = deid::anonymize(job);
  ASSERT_TRUE(a.found);
  const verify::Report report = verify::check(verifier_options(run, job));
  EXPECT_TRUE(report.valid()) << report.to_string();
  EXPECT_EQ(report.suppressed_records, a.result["suppressed_records"].get<std::uint64_t>());
  ASSERT_TRUE(report.population_uniqueness.has_value());
  const double threshold = std::stod(run["privacy_models"][0].get<std::string>().substr(
      run["privacy_models"][0].get<std::string>().find('=') + 1));
  EXPECT_LE(*report.population_uniqueness, threshold * (1 + 1e-6));
  RecordProperty("population_uniqueness", std::to_string(*report.population_uniqueness));
  std::filesystem::remove(output);
}

INSTANTIATE_TEST_SUITE_P(Adult, VerifiedPopulationUniqueness,
                         ::testing::Values("adult_dankar001", "adult_dankar005", "adult_pitman001", "adult_zayatz001",
                                           "adult_snb001"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST(VerifierPopulationUniqueness, RejectsTheUnprotectedInputAndUnestimatedSampleUniques) {
  // The adult input as its own "output", nothing generalized or suppressed:
  // Pitman estimates 12.4 M uniques of 318.9 M (3.9 %), above 1 %.
  const nlohmann::json& run = deid::testing::arx_adult_run("adult_dankar001");
  const std::filesystem::path output =
      std::filesystem::path(::testing::TempDir()) / ("pu_verify_input_" + std::to_string(::getpid()) + ".csv");
  std::filesystem::copy_file(deid::testing::example_path("adult/adult.csv"), output,
                             std::filesystem::copy_options::overwrite_existing);
  deid::Job job = deid::testing::arx_adult_job(run);
  job.output.path = output.string();
  const verify::Report report = verify::check(verifier_options(run, job));
  EXPECT_TRUE(report.has(verify::Violation::Kind::population_uniqueness)) << report.to_string();
  ASSERT_TRUE(report.population_uniqueness.has_value());
  EXPECT_GT(*report.population_uniqueness, 0.03);
  EXPECT_LT(*report.population_uniqueness, 0.05);
  std::filesystem::remove(output);

  // Sample uniques without an estimate fail; without sample uniques, hold.
  verify::PopulationUniqueness pu;
  pu.estimator = verify::PopulationUniqueness::Estimator::pitman;
  long double fraction = 0;
  std::string why;
  // Every class a single record: no admissible root, or one that makes
  // (nearly) everyone unique.
  EXPECT_FALSE(verify::population_uniqueness_holds(pu, {{1, 50}}, &fraction, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_TRUE(verify::population_uniqueness_holds(pu, {{2, 10}, {5, 3}}, &fraction, &why));
  EXPECT_TRUE(verify::population_uniqueness_holds(pu, {}, &fraction, &why));  // all suppressed
}

}  // namespace
