// The game-theoretic model with a prosecutor (privacy: profitability) and
// the publisher-payout quality model against ARX 3.9.2
// (tests/testdata/reference/arx-profitability.json: adult, and cup when the
// shared data folder is next to the repository) through the command line:
// the optimum, its loss, the suppressed records, the released table byte
// for byte (SHA-256) and ARX's descriptions. Also: exhaustive search
// agrees, the payout's lower bound, a table worked out by hand, the derived
// k of the no-attack variant, and the job's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/pipeline.h"
#include "privacy/profitability.h"
#include "support/reference.h"
#include "verify/checks.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using deid::testing::CliRun;
using deid::testing::expect_arx_optimum;

const std::vector<nlohmann::json>& runs() { return deid::testing::reference_runs("arx-profitability.json"); }

std::string job_text(const nlohmann::json& run, const std::string& algorithm = "optimal") {
  std::string text = deid::testing::reference_job_text(run, run["quality"].dump(), algorithm);
  if (!run["cost_benefit"].is_null()) text += "cost-benefit: " + run["cost_benefit"].dump() + "\n";
  return text;
}

class ArxProfitability : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxProfitability, OptimumLossAndReleaseAreArxs) {
  const nlohmann::json& run = runs()[GetParam()];
  DEID_SKIP_WITHOUT_REFERENCE_DATA(run);
  const CliRun cli("profitability-" + run["name"].get<std::string>(), job_text(run));
  ASSERT_EQ(cli.exit_code, 0) << cli.errors();
  // The payout's terms are not whole numbers and ARX adds them in its hash
  // table's order: equal but for the last bits.
  const double arx = run["information_loss"].get<double>();
  expect_arx_optimum(cli.result, run, 1e-12 * std::max(1.0, std::abs(arx)));
  // ARX's description of each privacy model.
  auto prepared = deid::prepare(deid::parse_job(job_text(run), "p.yaml", "."));
  ASSERT_EQ(prepared->problem.privacy.size(), run["arx_privacy_models"].size());
  for (std::size_t i = 0; i < prepared->problem.privacy.size(); ++i)
    EXPECT_EQ(prepared->problem.privacy[i]->describe(), run["arx_privacy_models"][i].get<std::string>());
  // The independent verifier accepts the release.
  EXPECT_EQ(cli.verify(), 0) << cli.verify_report();
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxProfitability, ::testing::Range<std::size_t>(0, 8),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return runs()[info.param]["name"].get<std::string>();
                         });

TEST(ArxProfitabilityReference, HasEightRuns) { EXPECT_EQ(runs().size(), 8u); }

// Exhaustive search finds the optimum of the optimal search, which prunes
// with the payout's lower bound; and that bound is below the value of every
// solution checked.
TEST(Profitability, ExhaustiveSearchAgreesAndTheBoundHolds) {
  for (const nlohmann::json& run : runs()) {
    if (run["name"] != "adult_profit_payout_cb2_s10") continue;
    auto optimal = deid::prepare(deid::parse_job(job_text(run), "p.yaml", "."));
    auto exhaustive = deid::prepare(deid::parse_job(job_text(run, "exhaustive"), "p.yaml", "."));
    const deid::Anonymization o = deid::run_search(*optimal);
    const deid::Anonymization e = deid::run_search(*exhaustive);
    ASSERT_TRUE(e.found);
    EXPECT_EQ(e.result["information_loss"], o.result["information_loss"]);
    EXPECT_EQ(e.result["transformation"], o.result["transformation"]);
    EXPECT_EQ(e.result["transformation"], run["optimum"]);

    const deid::Problem& pr = optimal->problem;
    deid::Checker checker(pr);
    const deid::Lattice lattice = pr.lattice();
    int solutions = 0;
    for (deid::LatticeIndex i = 0; i < lattice.size(); i += 37) {
      const deid::CheckResult r = checker.check(lattice.at(i));
      if (!r.solution) continue;
      ++solutions;
      EXPECT_LE(r.lower_bound, r.quality.value);
    }
    EXPECT_GT(solutions, 10);
  }
}

TEST(Profitability, NoAttackDerivesKAsArx) {
  const auto k = [](double gain, double cost) {
    deid::ProfitabilitySpec s;
    s.attack = false;
    s.cost_benefit.adversary_gain = gain;
    s.cost_benefit.adversary_cost = cost;
    return deid::Profitability(s).derived_k();
  };
  EXPECT_EQ(k(300, 4), 76u);   // 75 is whole: an adversary gains nothing in a class of 75
  EXPECT_EQ(k(200, 10), 21u);
  EXPECT_EQ(k(10, 3), 4u);     // ceil(3.33)
  EXPECT_EQ(k(0, 4), 1u);      // no gain: no attack
  EXPECT_EQ(k(5, 0), 2147483647u);
}

// --- a table worked out by hand ------------------------------------------------
//
//   v: a, a, a, b; hierarchy a -> *, b -> * (H = 2, so IL = 0 at level 0 and
//   1 at level 1). Costs: benefit 100, gain 10, cost 4; a class of c records
//   is attacked when 10 / c > 4, that is c <= 2.
class PayoutSmallTable : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("deid-payout-small-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "data.csv") << "v\na\na\na\nb\n";
    std::ofstream(dir_ / "v.csv") << "a;*\nb;*\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  deid::CheckResult check(const std::string& privacy, double loss, int level) {
    const std::string text = "input: {path: '" + (dir_ / "data.csv").string() +
                             "'}\nattributes:\n  v: {role: quasi-identifying, hierarchy: '" + (dir_ / "v.csv").string() +
                             "'}\nprivacy:\n  - " + privacy + "\nsuppression-limit: 1\nquality: {model: publisher-payout}\n" +
                             "cost-benefit: {publisher-benefit: 100, publisher-loss: " + std::to_string(loss) +
                             ", adversary-gain: 10, adversary-cost: 4}\n";
    auto prepared = deid::prepare(deid::parse_job(text, "s.yaml", "."));
    deid::Checker checker(prepared->problem);
    return checker.check(deid::Transformation{static_cast<std::uint8_t>(level)});
  }
  fs::path dir_;
};

TEST_F(PayoutSmallTable, PayoutChargesWhatThePublisherGivesUp) {
  // Level 0: {a,a,a} is not attacked, payout 100, charged 0; {b} is
  // attacked, payout 100 - 50 = 50, charged 1 * (100 - 50).
  deid::CheckResult r = check("k-anonymity: {k: 1}", 50, 0);
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.quality.value, 50.0);
  EXPECT_NEAR(r.lower_bound, 0.0, 1e-9);
  // Level 1: one class of 4, IL = 1, payout 0: charged 4 * 100.
  r = check("k-anonymity: {k: 1}", 50, 1);
  EXPECT_EQ(r.quality.value, 400.0);
  EXPECT_NEAR(r.lower_bound, 400.0, 1e-6);
  EXPECT_LE(r.lower_bound, r.quality.value);
}

TEST_F(PayoutSmallTable, ProfitabilitySuppressesTheClassesThatDoNotPay) {
  // Publisher loss 150: {b}'s payout is 100 - 150 < 0, so it is suppressed,
  // and charged s * 1 * 100.
  deid::CheckResult r = check("profitability: {attack: true}", 150, 0);
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.suppressed_records, 1u);
  EXPECT_EQ(r.quality.value, 100.0);
  // Loss 50: {b} pays 50 and is kept.
  r = check("profitability: {attack: true}", 50, 0);
  EXPECT_EQ(r.suppressed_records, 0u);
  // Without attack: k = ceil(10 / 4) = 3, so {b} is suppressed.
  r = check("profitability: {attack: false}", 50, 0);
  EXPECT_EQ(r.suppressed_records, 1u);
}

// The verifier's own check of the attack variant on the same table: with
// publisher loss 150, {b} at level 0 pays 100 - 150 and must be suppressed;
// released, it is an unprofitable class. With loss 50 it pays 50.
TEST(ProfitabilityVerify, UnprofitableReleasedClassIsAViolation) {
  std::string error;
  const auto input = verify::parse_csv("v\na\na\na\nb\n", ',', true, &error);
  const auto hierarchy = verify::parse_csv("a;*\nb;*\n", ';', false, &error);
  ASSERT_TRUE(input && hierarchy) << error;
  verify::Options o;
  o.quasi_identifiers = {{"v", "v.csv"}};
  o.suppression_limit = 1;
  auto run = [&](const std::string& output, double loss) {
    o.profitability = verify::Profitability{100, loss, 10, 4, false};
    const auto out = verify::parse_csv(output, ',', true, &error);
    return verify::check_tables(o, *input, *out, {*hierarchy});
  };
  verify::Report r = run("v\na\na\na\nb\n", 150);
  ASSERT_EQ(r.violations.size(), 1u) << r.violations[0].message;
  EXPECT_EQ(r.violations[0].kind, verify::Violation::Kind::unprofitable_class);
  EXPECT_EQ(r.violations[0].row, 4u);
  EXPECT_EQ(r.violations[0].count, 1u);
  EXPECT_NE(r.violations[0].message.find("-50"), std::string::npos) << r.violations[0].message;
  // Suppressed, the table holds; so does the release at loss 50.
  EXPECT_TRUE(run("v\na\na\na\n*\n", 150).valid());
  EXPECT_TRUE(run("v\na\na\na\nb\n", 50).valid());
  // Level 1: one class of 4, IL = 1, payout 0, which the engine suppresses:
  // released or suppressed it reads '*', so it is not held against the table.
  EXPECT_TRUE(run("v\n*\n*\n*\n*\n", 50).valid());
  r = run("v\na\na\na\nb\n", 150);
  const auto lines = verify::summarize(o, r);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const verify::CheckLine& l) {
    return l.name == "profitability (attack, prosecutor)" && l.status == verify::CheckLine::Status::failed;
  }));
  // The journalist's needs the subset.
  o.profitability = verify::Profitability{100, 50, 10, 4, true};
  r = verify::check_tables(o, *input, *input, {*hierarchy});
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations[0].kind, verify::Violation::Kind::bad_options);
}

TEST(Profitability, JobErrorsNameTheProblem) {
  const auto fails = [](const std::string& rest, const std::string& words) {
    const std::string text = "input: {path: x.csv}\nattributes:\n  v: {role: quasi-identifying, hierarchy: v.csv}\n" + rest;
    try {
      deid::parse_job(text, "p.yaml", ".");
      ADD_FAILURE() << "no error for " << rest;
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  fails("privacy:\n  - profitability: {attacker: journalist}\n", "give the job a 'subset' section");
  fails("privacy:\n  - profitability: {attacker: marketer}\n", "attacker must be prosecutor");
  fails("privacy:\n  - k-anonymity: {k: 2}\ncost-benefit: {publisher-loss: 10}\n", "has neither");
  fails("privacy:\n  - profitability: {}\ncost-benefit: {adversary-cost: -1}\n", "adversary-cost must be a finite number >= 0");
  fails("privacy:\n  - profitability: {}\ncost-benefit: {publisher-benefit: 0}\n", "publisher-benefit must be > 0");
  fails("privacy:\n  - profitability: {}\ncost-benefit: {benefit: 1}\n", "benefit");
  fails("privacy:\n  - k-anonymity: {k: 2}\nquality: {model: loss, attacker: prosecutor}\n",
        "attacker applies only to model: publisher-payout");
  fails("privacy:\n  - k-anonymity: {k: 2}\nquality: {model: publisher-payout, attacker: journalist}\n",
        "needs a research subset");
}

}  // namespace
