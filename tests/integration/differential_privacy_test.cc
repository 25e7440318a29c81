// (epsilon, delta)-differential privacy against ARX 3.9.2
// (tests/testdata/reference/arx-differential-privacy.json: 19 runs on
// adult, data-dependent with six quality models and data-independent,
// 7 of them combined with another privacy model, ARX's deterministic mode)
// through the command line with `seed: arx`:
// ARX's k and beta, ARX's sample, ARX's transformation and score, ARX's
// suppressed records and released table byte for byte. Also: a seed gives
// the same release for any thread count, and the job's errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "deid/error.h"
#include "deid/job.h"
#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;
using deid::testing::CliRun;
using deid::testing::output_sha256;
using deid::testing::run_deid;
using deid::testing::slurp;
using deid::testing::TempDir;

const std::vector<nlohmann::json>& runs() { return deid::testing::reference_runs("arx-differential-privacy.json"); }

// The job of a run: no suppression limit (the model sets it), auto search.
std::string job_text(const nlohmann::json& run) {
  const fs::path dir = deid::testing::reference_dataset_dir(run);
  const std::string file = run["dataset"].get<std::string>() + ".csv";
  std::string yaml = "input: {path: '" + (dir / file).string() + "', delimiter: ';'}\nattributes:\n";
  for (const auto& q : run["quasi_identifiers"])
    yaml += "  " + q.get<std::string>() + ": {role: quasi-identifying, hierarchy: '" +
            (dir / "hierarchies" / (q.get<std::string>() + ".csv")).string() + "'}\n";
  if (run["sensitive"].is_string()) yaml += "  " + run["sensitive"].get<std::string>() + ": {role: sensitive}\n";
  yaml += "default-role: insensitive\nprivacy: " + run["privacy"].dump() + "\nquality: " + run["quality"].dump() +
          "\noutput: {utility: false}\n";
  return yaml;
}

std::string sha256_hex(const std::string& text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string hex;
  for (unsigned char b : digest) hex += fmt::format("{:02x}", b);
  return hex;
}

class ArxDifferentialPrivacy : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxDifferentialPrivacy, SampleTransformationAndReleaseAreArxs) {
  const nlohmann::json& run = runs()[GetParam()];
  DEID_SKIP_WITHOUT_REFERENCE_DATA(run);
  const CliRun cli("dp-" + run["name"].get<std::string>(), job_text(run));
  ASSERT_EQ(cli.exit_code, 0) << cli.errors();
  const nlohmann::json& result = cli.result;
  const nlohmann::json& model = result["privacy_models"][0];
  ASSERT_EQ(model["model"], "differential-privacy");
  EXPECT_EQ(model["k"], run["k"]);
  // beta: within an ulp (glibc's exp and the JVM's may round apart).
  const double beta = run["beta"].get<double>();
  EXPECT_LE(std::fabs(model["beta"].get<double>() - beta), std::nextafter(beta, 2.0) - beta);
  EXPECT_EQ(result["quality_model_description"], run["arx_quality_model"]);
  EXPECT_EQ(result["search"]["lattice_size"], run["lattice_size"]);
  EXPECT_EQ(result["transformation"], run["optimum"]);
  if (!run["score"].is_null()) {
    EXPECT_EQ(result["search"]["algorithm"], "safepub");
    EXPECT_EQ(result["search"]["score"].get<double>(), run["score"].get<double>());  // to the last bit
    EXPECT_TRUE(result["search"]["candidate_order_exact"].get<bool>());
  }
  // ARX counts every record outside the sample as suppressed.
  EXPECT_EQ(result["subset"]["records"], run["sample_size"]);
  EXPECT_EQ(result["suppressed_records"].get<std::uint64_t>() + result["subset"]["suppressed_outside"].get<std::uint64_t>(),
            run["suppressed_records"].get<std::uint64_t>());
  EXPECT_EQ(output_sha256(result), run["output_sha256"]);

  // ARX's sample: the sampled rows' indices, and ARX's description.
  auto prepared = deid::prepare(deid::parse_job(job_text(run), "dp.yaml", "."));
  std::string indices;
  for (std::size_t r = 0; r < prepared->problem.subset.size(); ++r)
    if (prepared->problem.subset[r]) indices += (indices.empty() ? "" : "\n") + std::to_string(r);
  EXPECT_EQ(sha256_hex(indices), run["sample_sha256"]);
  // ARX's description of the model (ARX lists the models in its own order;
  // k-map's names its derived k').
  ASSERT_EQ(prepared->problem.privacy.size(), run["privacy"].size());
  ASSERT_EQ(run["arx_privacy_models"].size(), run["privacy"].size());
  for (const auto& m : prepared->problem.privacy) {
    const std::string kind = m->to_json()["model"].get<std::string>();
    if (kind != "differential-privacy" && kind != "k-map" && kind != "k-anonymity") continue;
    const std::string ours = m->describe();
    EXPECT_TRUE(std::any_of(run["arx_privacy_models"].begin(), run["arx_privacy_models"].end(),
                            [&](const nlohmann::json& arx) { return arx.get<std::string>() == ours; }))
        << ours << " not in " << run["arx_privacy_models"].dump();
  }

  // The independent verifier accepts the release (k-anonymity with ARX's k
  // and the other models it can check on the released classes).
  EXPECT_EQ(cli.verify(), 0) << cli.verify_report();
  // t-closeness, delta-disclosure and beta-likeness compare a class with
  // the secret sample's distribution: reported as skipped, never as ok.
  for (const auto& p : run["privacy"]) {
    if (p.contains("t-closeness") || p.contains("delta-disclosure") || p.contains("beta-likeness")) {
      EXPECT_NE(slurp(cli.dir / "v.txt").find("skipped"), std::string::npos) << slurp(cli.dir / "v.txt");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxDifferentialPrivacy, ::testing::Range<std::size_t>(0, 25),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return deid::testing::test_name(runs()[info.param]["name"].get<std::string>());
                         });

TEST(ArxDifferentialPrivacyReference, HasTwentyFiveRuns) {
  EXPECT_EQ(runs().size(), 25u);  // 24 on adult, 1 on cup
  // Twelve combine differential privacy with another model.
  EXPECT_EQ(std::count_if(runs().begin(), runs().end(), [](const nlohmann::json& r) { return r["privacy"].size() > 1; }),
            12);
}

// The release's information_loss is the quality model's loss with the
// sample as research subset, which is what ARX's metric gives: ARX 3.9.2
// run on dd_entropy_e2_d1e-6's transformation with its sample as
// DataSubset and 119-anonymity (bench/arx/ArxRun.java --subset SAMPLE --k
// 119 --suppression 1, every quasi-identifier's --min-level and --max-level
// at the transformation's) reports 334727.0746226827 for
// MetricMDNUNMEntropy and 5.294584148862602 for
// MetricMDNUNMNormalizedEntropy (the same 10817 suppressed records). The
// population's value frequencies would give other numbers.
TEST(DifferentialPrivacy, ReportedEntropyLossIsArxsWithTheSampleAsSubset) {
  for (const nlohmann::json& reference : runs()) {
    if (reference["name"] != "dd_entropy_e2_d1e-6") continue;
    for (const auto& [model, arx] : {std::pair<std::string, double>{"entropy", 334727.0746226827},
                                     std::pair<std::string, double>{"normalized-entropy", 5.294584148862602}}) {
      nlohmann::json run = reference;
      run["quality"] = {{"model", model}};
      const CliRun cli("dp-entropy-loss-" + model, job_text(run));
      ASSERT_EQ(cli.exit_code, 0) << cli.errors();
      const nlohmann::json& result = cli.result;
      EXPECT_EQ(result["transformation"], reference["optimum"]) << model;  // the scores are the same
      EXPECT_NEAR(result["information_loss"].get<double>(), arx, 1e-12 * arx) << model;
    }
  }
}

// The same seed gives the same release, byte for byte, for 1 and 2 threads;
// another seed another sample.
TEST(DifferentialPrivacy, SeedGivesTheSameReleaseForAnyThreadCount) {
  const TempDir dir("dp-threads");
  const auto run_with = [&](const std::string& seed, int threads) {
    const std::string job = deid::testing::write_adult_job(
        dir / ("job-" + seed + ".yaml"),
        "privacy:\n  - differential-privacy: {epsilon: 1.5, delta: 1e-5, steps: 40, seed: " + seed +
            "}\nquality: {model: loss}\noutput: {utility: false}\n");
    const std::string out = dir / ("out-" + seed + "-" + std::to_string(threads) + ".csv");
    const std::string res = dir / ("res-" + seed + "-" + std::to_string(threads) + ".json");
    EXPECT_EQ(run_deid("-q --threads " + std::to_string(threads) + " anonymize '" + job + "' --output '" + out +
                           "' --result '" + res + "'",
                       dir / "so.txt", dir / "se.txt"),
              0)
        << slurp(dir / "se.txt");
    return std::make_pair(slurp(out), nlohmann::json::parse(slurp(res)));
  };
  const auto [out1, res1] = run_with("42", 1);
  const auto [out2, res2] = run_with("42", 2);
  ASSERT_FALSE(out1.empty());
  EXPECT_EQ(out1, out2);
  EXPECT_EQ(res1["transformation"], res2["transformation"]);
  EXPECT_EQ(res1["search"]["score"], res2["search"]["score"]);
  EXPECT_EQ(res1["privacy_models"][0]["seeded"], true);
  const auto [out3, res3] = run_with("43", 1);
  EXPECT_NE(out1, out3);
  EXPECT_NE(res1["subset"]["records"], nullptr);
}

// Without a seed the randomness is the system's: the job runs, and says so.
TEST(DifferentialPrivacy, WithoutSeedRunsUnseeded) {
  const std::string text = job_text(runs()[0]);
  std::string unseeded = text;
  const std::string seed = ",\"seed\":\"arx\"";
  const auto at = unseeded.find(seed);
  ASSERT_NE(at, std::string::npos) << unseeded;
  unseeded.erase(at, seed.size());
  auto prepared = deid::prepare(deid::parse_job(unseeded, "dp.yaml", "."));
  EXPECT_EQ(prepared->problem.privacy[0]->to_json()["seeded"], false);
  EXPECT_GT(prepared->problem.rows, 0u);
  EXPECT_LT(prepared->problem.rows, prepared->problem.population_rows);
}

// What the job refuses, each at its line.
TEST(DifferentialPrivacyJobErrors, RefusedAtTheirLine) {
  const std::string head = deid::testing::write_adult_job((fs::temp_directory_path() / ("dp-head-" + std::to_string(::getpid()) + ".yaml")).string(), "");
  const std::string base = slurp(head);
  struct Case {
    std::string rest;
    std::string message;
    std::uint64_t line_offset;  // lines after the head
  };
  const std::vector<Case> cases = {
      {"privacy:\n  - differential-privacy: {epsilon: 0, delta: 1e-6}\n", "epsilon must be > 0", 2},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1}\n", "delta must be in (0, 1)", 2},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 0}\n", "delta must be in (0, 1)", 2},
      {"privacy:\n  - differential-privacy: {epsilon: 0.1, delta: 1e-6}\n", "must be smaller than epsilon", 2},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6, search-budget: 1.5}\n",
       "must be smaller than epsilon", 2},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6, seed: x}\n", "seed must be an integer", 2},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6, generalization: {age: 1}, steps: 3}\n",
       "applies only to the data-dependent variant", 2},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6, generalization: {nope: 1}}\n",
       "not a quasi-identifying attribute", 2},
      {"privacy:\n  - k-anonymity: {k: 5}\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\n"
       "  - differential-privacy: {epsilon: 2, delta: 1e-6}\n",
       "differential-privacy is listed twice", 4},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\n  - delta-presence: {min: 0, max: 0.5}\n",
       "delta-presence needs a research subset", 3},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\n  - k-map: {k: 5}\n",
       "k-map with the population table needs a research subset", 3},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\n  - profitability: {attacker: journalist}\n"
       "cost-benefit: {publisher-benefit: 1200, publisher-loss: 300, adversary-gain: 300, adversary-cost: 4}\n",
       "the journalist's profitability needs a research subset", 3},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\nsuppression-limit: 0.05\n",
       "sets the suppression limit", 3},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\nsearch: {algorithm: optimal}\n",
       "cannot search under differential privacy", 3},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\nsearch: {max-checks: 10}\n",
       "does not apply to differential privacy", 3},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\nsearch: {transformation: {age: 1}}\n",
       "picks the transformation itself", 3},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\nquality: {model: height}\n",
       "cannot guide the differential-privacy search", 3},
      {"privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\nquality: {model: ambiguity}\n",
       "ARX has no score function for it", 3},
      {"privacy:\n  - k-anonymity: {k: 2}\nsearch: {algorithm: safepub}\n", "needs the differential-privacy", 3},
  };
  for (const Case& c : cases) {
    const std::string text = base + c.rest;
    try {
      deid::parse_job(text, "dp.yaml", ".");
      ADD_FAILURE() << "no error for:\n" << c.rest;
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
      const auto head_lines = static_cast<std::uint64_t>(std::count(base.begin(), base.end(), '\n'));
      EXPECT_EQ(e.where().line, head_lines + c.line_offset) << c.rest << e.what();
      EXPECT_GT(e.where().column, 0u) << c.rest << e.what();
    }
  }
  fs::remove(head);
}

// Errors found when the job runs: a level above the hierarchy, a
// quasi-identifier without a level, a research subset beside the sample.
TEST(DifferentialPrivacyJobErrors, RefusedWhenTheJobRuns) {
  const TempDir dir("dp-run-errors");
  const auto error_of = [&](const std::string& rest) -> std::string {
    const std::string job = deid::testing::write_adult_job(dir / "job.yaml", rest);
    try {
      deid::prepare(deid::read_job(job));
    } catch (const deid::JobError& e) {
      EXPECT_EQ(e.where().file, job);
      EXPECT_GT(e.where().line, 0u);
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of("privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6, generalization: {age: 1}}\n")
                .find("gives no level for"),
            std::string::npos);
  EXPECT_NE(error_of("privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6, generalization: {age: 9, "
                     "education: 0, marital-status: 0, native-country: 0, race: 0, salary-class: 0, sex: 0, "
                     "workclass: 0, occupation: 0}}\n")
                .find("above its hierarchy's top level"),
            std::string::npos);
  EXPECT_NE(error_of("privacy:\n  - differential-privacy: {epsilon: 1, delta: 1e-6}\nsubset: {column: sex, value: "
                     "Male}\n")
                .find("cannot be combined with the job's 'subset'"),
            std::string::npos);
}

}  // namespace
