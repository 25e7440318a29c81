// ARX reference results for risk (shared/reference/README.md):
//  - arx-adult-risk.json: ARX 3.9.2's risk estimates of the adult data over
//    several sets of quasi-identifiers and population sizes;
//  - the population-uniqueness runs of arx-adult.json (suppression limit
//    100 %): deid must find ARX's information loss.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "deid/pipeline.h"
#include "deid/risk.h"
#include "support/reference.h"

namespace {

const std::vector<nlohmann::json>& risk_cases() { return deid::testing::arx_adult_risk_cases(); }

deid::ClassSizeFrequencies frequencies(const nlohmann::json& c) {
  deid::ClassSizeFrequencies f;
  const auto& flat = c["class_size_frequencies"];
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2)
    f.sizes.emplace_back(flat[i].get<std::uint64_t>(), flat[i + 1].get<std::uint64_t>());
  return f;
}

void expect_relative(double actual, double expected, double tolerance, const std::string& what) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected))
      << what << ": deid " << actual << ", ARX " << expected;
}

// ARX's estimate: a number when is_available_estimate, else ARX reports 0
// and deid must report that it has none.
void expect_estimate(const deid::UniquenessEstimate& e, const nlohmann::json& arx, const std::string& what) {
  if (arx.value("is_available_estimate", true)) {
    ASSERT_TRUE(e.uniques.has_value()) << what << ": ARX has " << arx["num_uniques"] << ", deid none ("
                                       << deid::to_string(e.status) << ")";
    expect_relative(*e.uniques, arx["num_uniques"].get<double>(), 1e-6, what);
  } else {
    EXPECT_FALSE(e.uniques.has_value()) << what << ": ARX has no estimate, deid " << *e.uniques;
    EXPECT_EQ(e.status, deid::UniquenessEstimate::Status::not_converged) << what;
  }
}

class ArxRiskEstimates : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxRiskEstimates, MatchArxWithinRelative1e6) {
  const nlohmann::json& c = risk_cases().at(GetParam());
  const deid::ClassSizeFrequencies f = frequencies(c);
  const double N = c["population_size"].get<double>();
  ASSERT_EQ(f.records(), c["records"].get<std::uint64_t>());
  ASSERT_EQ(f.classes(), c["classes"].get<std::uint64_t>());

  const auto& pu = c["population_uniques"];
  expect_estimate(deid::estimate_zayatz(f, N), pu["zayatz"], "zayatz");
  expect_estimate(deid::estimate_pitman(f, N), pu["pitman"], "pitman");
  expect_estimate(deid::estimate_snb(f, N), pu["snb"], "snb");
  const deid::UniquenessEstimate dankar = deid::estimate_dankar(f, N);
  expect_estimate(dankar, pu["dankar"], "dankar");
  ASSERT_TRUE(dankar.selected.has_value());
  std::string selected = deid::to_string(*dankar.selected);
  for (auto& ch : selected) ch = static_cast<char>(std::toupper(ch));
  EXPECT_EQ(selected, pu["dankar"]["selected_model"].get<std::string>());
  const deid::UniquenessEstimate no_fallback = deid::estimate_dankar(f, N, {}, false);
  ASSERT_TRUE(no_fallback.uniques.has_value());
  expect_relative(*no_fallback.uniques / N, pu["dankar_without_zayatz_fallback"]["fraction_unique_tuples"].get<double>(),
                  1e-6, "dankar without fallback");

  const auto& s = c["sample_risk"];
  const deid::SampleRisks r = deid::sample_risks(f);
  expect_relative(r.highest_risk, s["highest_risk"].get<double>(), 1e-12, "highest risk");
  expect_relative(r.lowest_risk, s["lowest_risk"].get<double>(), 1e-12, "lowest risk");
  expect_relative(r.average_risk, s["average_risk"].get<double>(), 1e-12, "average risk");
  EXPECT_EQ(static_cast<double>(r.records_affected_by_highest_risk), s["num_records_affected_by_highest_risk"]);
  EXPECT_EQ(static_cast<double>(r.records_affected_by_lowest_risk), s["num_records_affected_by_lowest_risk"]);
  expect_relative(r.fraction_affected_by_highest_risk, s["fraction_records_affected_by_highest_risk"].get<double>(),
                  1e-12, "fraction affected by highest risk");
  EXPECT_EQ(static_cast<double>(f.of_size(1)), c["sample_uniques"]["num_unique_records"]);

  const auto& summary = c["risk_summary_threshold_0.2"];
  const deid::AttackerRisks a = deid::attacker_risks(f, summary["threshold"].get<double>());
  for (const char* who : {"prosecutor", "journalist"}) {
    const auto& m = std::string(who) == "prosecutor" ? a.prosecutor : a.journalist;
    expect_relative(m.records_at_risk, summary[who]["records_at_risk"].get<double>(), 1e-12,
                    std::string(who) + " records at risk");
    expect_relative(m.highest_risk, summary[who]["highest_risk"].get<double>(), 1e-12, std::string(who) + " highest");
    expect_relative(m.success_rate, summary[who]["success_rate"].get<double>(), 1e-12, std::string(who) + " success");
  }
  expect_relative(a.marketer_success_rate, summary["marketer"]["success_rate"].get<double>(), 1e-12, "marketer");
}

std::vector<std::size_t> case_indices() {
  std::vector<std::size_t> v(risk_cases().size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

INSTANTIATE_TEST_SUITE_P(Cases, ArxRiskEstimates, ::testing::ValuesIn(case_indices()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return deid::testing::test_name(risk_cases().at(info.param)["name"].get<std::string>());
                         });

// The class sizes deid finds in the adult data are the ones ARX reports.
TEST(ArxRiskClasses, ClassSizesOfAdultEqualArxs) {
  for (const auto& c : risk_cases()) {
    deid::Job job;
    job.input.path = deid::testing::example_path("adult/adult.csv");
    job.input.delimiter = ';';
    for (const auto& q : c["quasi_identifiers"]) {
      deid::AttributeSpec a;
      a.name = q.get<std::string>();
      a.role = deid::Role::quasi_identifying;
      a.hierarchy = deid::testing::example_path("adult/hierarchies/" + a.name + ".csv");
      job.attributes.push_back(a);
    }
    deid::RiskOptions options;
    options.populations = {{"case", c["population_size"].get<double>()}};
    const deid::RiskReport r = deid::assess_risk(job, "", options);
    EXPECT_EQ(r.frequencies.sizes, frequencies(c).sizes) << c["name"];
    ASSERT_EQ(r.populations.size(), 1u);
    expect_estimate(r.populations[0].dankar, c["population_uniques"]["dankar"], c["name"].get<std::string>());
  }
}

// Every population-uniqueness run of arx-adult.json.
const char* const kRuns[] = {"adult_dankar001", "adult_dankar005", "adult_pitman001", "adult_zayatz001",
                             "adult_snb001"};

TEST(ArxPopulationUniquenessRuns, ListCoversEveryPopulationUniquenessRun) {
  std::vector<std::string> found;
  for (const auto& run : deid::testing::arx_adult_runs())
    for (const auto& m : run["privacy_models"]) {
      const std::string s = m.get<std::string>();
      for (const char* prefix : {"dankar=", "pitman=", "zayatz=", "snb="})
        if (s.rfind(prefix, 0) == 0) found.push_back(run["name"].get<std::string>());
    }
  std::sort(found.begin(), found.end());
  std::vector<std::string> listed(std::begin(kRuns), std::end(kRuns));
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(found, listed);
}

class ArxPopulationUniqueness : public ::testing::TestWithParam<const char*> {};

TEST_P(ArxPopulationUniqueness, FindsArxInformationLoss) {
  const nlohmann::json& run = deid::testing::arx_adult_run(GetParam());
  const deid::Job job = deid::testing::arx_adult_job(run, deid::SearchSpec::Algorithm::automatic);
  auto prepared = deid::prepare(job);
  const deid::Anonymization a = deid::run_search(*prepared);
  ASSERT_TRUE(a.found);
  const nlohmann::json& r = a.result;
  const std::vector<int> levels = deid::testing::expect_arx_adult_optimum(r, run);
  if (levels == run["optimum_levels"].get<std::vector<int>>()) {
    EXPECT_EQ(r["smallest_class_size"].get<std::uint64_t>(), run["output_classes"]["min_size"].get<std::uint64_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxPopulationUniqueness, ::testing::ValuesIn(kRuns),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
