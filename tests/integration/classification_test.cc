// The classification metric (quality: {model: classification}) against ARX
// 3.9.2 (tests/testdata/reference/arx-classification.json: adult, and cup
// when the shared data folder is next to the repository) through the
// command line: the optimum, its information loss, the suppressed records
// and the released table byte for byte (SHA-256). Also: exhaustive search
// agrees, a table worked out by hand, and the job's errors.
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
using deid::testing::CliRun;
using deid::testing::expect_arx_optimum;

const std::vector<nlohmann::json>& runs() { return deid::testing::reference_runs("arx-classification.json"); }

std::string job_text(const nlohmann::json& run, const std::string& algorithm = "optimal") {
  return deid::testing::reference_job_text(run, run["quality"].dump(), algorithm);
}

class ArxClassification : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxClassification, OptimumLossAndReleaseAreArxs) {
  const nlohmann::json& run = runs()[GetParam()];
  DEID_SKIP_WITHOUT_REFERENCE_DATA(run);
  const CliRun cli("classification-" + run["name"].get<std::string>(), job_text(run));
  ASSERT_EQ(cli.exit_code, 0) << cli.errors();
  // ARX adds the penalties in its hash table's order, deid counts them
  // exactly per weight: equal but for the last bits.
  expect_arx_optimum(cli.result, run, 1e-13 * run["information_loss"].get<double>());
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxClassification, ::testing::Range<std::size_t>(0, 9),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return runs()[info.param]["name"].get<std::string>();
                         });

TEST(ArxClassificationReference, HasNineRuns) { EXPECT_EQ(runs().size(), 9u); }

// Exhaustive search (every transformation evaluated) finds the optimum of
// the optimal search, on a run with a quasi-identifying and an insensitive
// response variable.
TEST(Classification, ExhaustiveSearchAgrees) {
  for (const nlohmann::json& run : runs()) {
    if (run["name"] != "adult_k10_cls_two") continue;
    const deid::Anonymization e = deid::testing::expect_exhaustive_agrees(
        deid::parse_job(job_text(run), "c.yaml", "."), deid::parse_job(job_text(run, "exhaustive"), "c.yaml", "."));
    ASSERT_TRUE(e.found);
    EXPECT_EQ(e.result["transformation"], run["optimum"]);
  }
}

// --- a table worked out by hand ------------------------------------------------
//
//   v  y        v's hierarchy: a -> ab -> *, b -> ab -> *, c -> c -> *
//   a  1
//   a  1        y is insensitive. n = 4.
//   b  2
//   c  2
class ClassificationSmallTable : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("deid-classification-small-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "data.csv") << "v,y\na,1\na,1\nb,2\nc,2\n";
    std::ofstream(dir_ / "v.csv") << "a;ab;*\nb;ab;*\nc;c;*\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string job(const std::string& quality, int k) const {
    return "input: {path: '" + (dir_ / "data.csv").string() + "'}\nattributes:\n  v: {role: quasi-identifying, " +
           "hierarchy: '" + (dir_ / "v.csv").string() + "'}\n  y: {role: insensitive}\nprivacy:\n  - k-anonymity: " +
           "{k: " + std::to_string(k) + "}\nsuppression-limit: 1\nquality: " + quality + "\n";
  }
  // The loss of v at `level` under `quality`.
  double loss(const std::string& quality, int level, int k = 1) {
    auto prepared = deid::prepare(deid::parse_job(job(quality, k), "s.yaml", "."));
    deid::Checker checker(prepared->problem);
    const deid::CheckResult r = checker.check(deid::Transformation{static_cast<std::uint8_t>(level)});
    EXPECT_TRUE(r.solution);
    EXPECT_EQ(r.lower_bound, 0.0);
    return r.quality.value;
  }
  fs::path dir_;
};

TEST_F(ClassificationSmallTable, InsensitiveResponsePenalizesTheRecordsOutsideTheMajority) {
  const std::string y = "{model: classification, response-variables: y}";
  // Level 0: a{1,1}, b{2}, c{2}: every record has its class's majority.
  EXPECT_EQ(loss(y, 0), 0.0);
  // Level 1: ab{1,1,2} has one record outside its majority; c{2} none.
  EXPECT_EQ(loss(y, 1), 1.0 / 4);
  // Level 2: {1,1,2,2} has no majority: all four records (p_n = 1).
  EXPECT_EQ(loss(y, 2), 1.0);
  // k = 2 at level 0 suppresses b and c: p_s = gs-factor = 0.5 each.
  EXPECT_EQ(loss(y, 0, 2), 2 * 0.5 / 4);
  // gs-factor 0.2: p_s = 0.2, p_i = 1, p_n = 0.4, p_max = 1.
  EXPECT_NEAR(loss("{model: classification, response-variables: y, gs-factor: 0.2}", 2), 4 * 0.4 / 4, 1e-15);
  EXPECT_NEAR(loss("{model: classification, response-variables: y, gs-factor: 0.2}", 0, 2), 2 * 0.2 / 4, 1e-15);
}

TEST_F(ClassificationSmallTable, QuasiIdentifyingResponseIsScaledByItsGeneralization) {
  // gs-factor 0.8: p_s = 0.8, p_i = 0.4, p_n = 1, p_max = 1. v has d_0 = 3
  // values: s = 0 at level 0, 1 - (2-1)/(3-1) = 0.5 at level 1, 1 at level 2.
  const std::string v = "{model: classification, response-variables: [v], gs-factor: 0.8}";
  // Level 0: one group (no other quasi-identifier), a:2 b:1 c:1: two
  // records outside the majority at p_i.
  EXPECT_NEAR(loss(v, 0), 2 * 0.4 / 4, 1e-15);
  // Level 1: ab:3 c:1, one record at p_i (1 - s) + p_max s = 0.7.
  EXPECT_NEAR(loss(v, 1), 0.7 / 4, 1e-15);
  // Level 2: fully generalized, every record at p_max.
  EXPECT_EQ(loss(v, 2), 1.0);
}

// Without the checker's rolled-up distributions (Classes::distributions),
// the model rolls them up from the histogram itself: the same value.
TEST_F(ClassificationSmallTable, SameValueWithoutTheCheckersDistributions) {
  for (int level = 0; level <= 2; ++level) {
    auto prepared = deid::prepare(deid::parse_job(job("{model: classification, response-variables: [v, y]}", 1),
                                                  "s.yaml", "."));
    const deid::Problem& pr = prepared->problem;
    deid::Checker checker(pr);
    const deid::Transformation t{static_cast<std::uint8_t>(level)};
    deid::Classes classes;
    checker.group(t, classes);
    ASSERT_EQ(classes.distributions, nullptr);
    EXPECT_EQ(pr.quality->evaluate(pr, t, classes).value, checker.check(t).quality.value);
  }
}

TEST_F(ClassificationSmallTable, TwoResponseVariablesAdd) {
  // Level 1, gs-factor 0.5 (all weights 1 but p_s): y one record, v one record.
  EXPECT_EQ(loss("{model: classification, response-variables: [v, y]}", 1), 2.0 / 4);
  // k = 2 at level 0: b and c suppressed, charged once per response variable.
  EXPECT_EQ(loss("{model: classification, response-variables: [y, v]}", 0, 2), (2 * 0.5 + 2 * 0.5) / 4);
}

TEST_F(ClassificationSmallTable, JobErrorsNameTheProblem) {
  const auto fails = [&](const std::string& quality, const std::string& words, const std::string& extra = "") {
    try {
      std::string text = job(quality, 1);
      text.replace(text.find("  y: {role: insensitive}"), 24, extra.empty() ? "  y: {role: insensitive}" : extra);
      deid::prepare(deid::parse_job(text, "s.yaml", "."));
      ADD_FAILURE() << "no error for " << quality;
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  fails("{model: classification}", "needs response-variables");
  fails("{model: loss, response-variables: y}", "response-variables applies only to model: classification");
  fails("{model: classification, response-variables: []}", "response-variables is empty");
  fails("{model: classification, response-variables: [y, y]}", "names 'y' twice");
  fails("{model: classification, response-variables: z}", "'z', which is not a column");
  fails("{model: classification, response-variables: y}", "'y', which is identifying", "  y: {role: identifying}");
  fails("{model: height, gs-factor: 0.3}",
        "gs-factor applies only to model: loss, entropy, precision, aecs, classification and publisher-payout (model "
        "is 'height')");
}

}  // namespace
