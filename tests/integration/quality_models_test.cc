// ARX's monotonic entropy and DM*, normalized entropy, ambiguity and KL
// divergence: against ARX 3.9.2's results on adult
// (tests/testdata/reference/arx-adult-quality-models.json), against
// exhaustive search, and on a table worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

const std::vector<nlohmann::json>& runs() { return deid::testing::reference_runs("arx-adult-quality-models.json"); }

std::string job_text(const nlohmann::json& run, const std::string& algorithm = "optimal") {
  std::string yaml = deid::testing::adult_job_head();
  yaml += "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: " + run["k"].dump() + "}\n";
  yaml += "suppression-limit: " + run["suppression_limit"].dump() + "\n";
  yaml += "quality: " + run["quality"].dump() + "\nsearch: {algorithm: " + algorithm + "}\n";
  return yaml;
}

deid::Job job_of(const nlohmann::json& run, const std::string& algorithm = "optimal") {
  return deid::parse_job(job_text(run, algorithm), "quality.yaml", ".");
}

class ArxQualityModels : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxQualityModels, OptimumAndLossAreArxs) {
  const nlohmann::json& run = runs()[GetParam()];
  auto prepared = deid::prepare(job_of(run));
  EXPECT_EQ(prepared->problem.quality->describe(), run["arx_quality_model"].get<std::string>());
  deid::testing::expect_arx_search(*prepared, run);
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxQualityModels, ::testing::Range<std::size_t>(0, 10),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return runs()[info.param]["name"].get<std::string>();
                         });

TEST(ArxQualityModelsReference, HasTenRuns) { EXPECT_EQ(runs().size(), 10u); }

// Exhaustive search (every transformation evaluated) finds the optimum the
// optimal search finds with each model's lower bound.
TEST(QualityModels, ExhaustiveSearchAgrees) {
  for (const nlohmann::json& run : runs()) {
    if (run["name"] != "adult_k10_ambiguity" && run["name"] != "adult_k10_normalized_entropy_arithmetic" &&
        run["name"] != "adult_k10_dm_star")
      continue;
    SCOPED_TRACE(run["name"].get<std::string>());
    ASSERT_TRUE(deid::testing::expect_exhaustive_agrees(job_of(run), job_of(run, "exhaustive")).found);
  }
}

// The monotonic variants charge suppressed records like kept ones: a
// monotonic model's value is its lower bound, for every solution.
TEST(QualityModels, MonotonicValueIsItsBound) {
  for (const char* quality : {"{model: entropy, monotonic: true}", "{model: discernability, monotonic: true}"}) {
    SCOPED_TRACE(quality);
    nlohmann::json run = runs()[0];
    run["quality"] = nullptr;
    std::string text = job_text(run);
    text.replace(text.find("quality: null"), 13, std::string("quality: ") + quality);
    auto prepared = deid::prepare(deid::parse_job(text, "q.yaml", "."));
    const deid::Problem& pr = prepared->problem;
    deid::Checker checker(pr);
    const deid::Lattice lattice = pr.lattice();
    int solutions = 0;
    for (deid::LatticeIndex i = 0; i < lattice.size(); i += 7) {
      const deid::CheckResult r = checker.check(lattice.at(i));
      if (!r.solution) continue;
      ++solutions;
      EXPECT_EQ(r.quality.value, r.lower_bound);
    }
    EXPECT_GT(solutions, 10);
  }
}

// --- a table worked out by hand ------------------------------------------------

class QualitySmallTable : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("deid-quality-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "data.csv") << "v\na\na\na\nb\n";
    std::ofstream(dir_ / "v.csv") << "a;*\nb;*\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The loss of transformation v=level under `quality` (k-anonymity with k,
  // limit 100 %).
  double loss(const std::string& quality, int level, int k = 1) {
    const std::string text = "input: {path: '" + (dir_ / "data.csv").string() +
                             "'}\nattributes:\n  v: {role: quasi-identifying, hierarchy: '" + (dir_ / "v.csv").string() +
                             "'}\nprivacy:\n  - k-anonymity: {k: " + std::to_string(k) +
                             "}\nsuppression-limit: 1\nquality: " + quality + "\n";
    auto prepared = deid::prepare(deid::parse_job(text, "s.yaml", "."));
    deid::Checker checker(prepared->problem);
    const deid::CheckResult r = checker.check(deid::Transformation{static_cast<std::uint8_t>(level)});
    EXPECT_TRUE(r.solution);
    return r.quality.value;
  }
  fs::path dir_;
};

TEST_F(QualitySmallTable, AmbiguityCountsTheTuplesEachRecordCouldBe) {
  // Level 0: each record could be 1 tuple; level 1: 2 (H = 2).
  EXPECT_EQ(loss("{model: ambiguity}", 0), 4.0);
  EXPECT_EQ(loss("{model: ambiguity}", 1), 8.0);
  // k = 2 at level 0 suppresses b: that record could be any of H = 2.
  EXPECT_EQ(loss("{model: ambiguity}", 0, 2), 3.0 + 2.0);
}

TEST_F(QualitySmallTable, KlDivergenceSumsOverRecords) {
  EXPECT_EQ(loss("{model: kl-divergence}", 0), 0.0);
  // Level 1: q = (4/4) / 2 for every record; p(a) = 3/4 (three records), p(b) = 1/4.
  const double expected = 3 * 0.75 * std::log2(0.75 / 0.5) + 0.25 * std::log2(0.25 / 0.5);
  EXPECT_NEAR(loss("{model: kl-divergence}", 1), expected, 1e-12);
}

TEST_F(QualitySmallTable, DmStarChargesSuppressedRecordsTheirClass) {
  // k = 2 at level 0 suppresses the class {b}: DM charges it n = 4, DM* its size 1.
  EXPECT_EQ(loss("{model: discernability}", 0, 2), 9.0 + 4.0);
  EXPECT_EQ(loss("{model: discernability, monotonic: true}", 0, 2), 9.0 + 1.0);
}

TEST_F(QualitySmallTable, NormalizedEntropyIsOneWhenEverythingIsGeneralized) {
  EXPECT_EQ(loss("{model: normalized-entropy}", 0), 0.0);
  EXPECT_NEAR(loss("{model: normalized-entropy}", 1), 1.0, 1e-9);
}

TEST(QualityModels, JobErrors) {
  const auto fails = [](const std::string& quality, const std::string& words) {
    const std::string text = "input: {path: x.csv}\nattributes:\n  v: {role: quasi-identifying, hierarchy: v.csv}\n"
                             "privacy:\n  - k-anonymity: {k: 2}\nquality: " + quality + "\n";
    try {
      deid::parse_job(text, "q.yaml", ".");
      ADD_FAILURE() << "no error for " << quality;
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  fails("{model: loss, monotonic: true}", "monotonic applies to model: entropy and model: discernability");
  fails("{model: ambiguity, aggregate: sum}", "aggregate does not apply");
  fails("{model: kl-divergence, aggregate: max}", "aggregate does not apply");
  fails("{model: entropy, monotonic: yes-please}", "monotonic");
}

}  // namespace
