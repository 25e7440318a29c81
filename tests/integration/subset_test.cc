// Research subsets (job `subset`, ARX's DataSubset) and the models that
// compare the subset with its population: δ-presence, k-map with the
// population table and the journalist's profitability and payout; and the
// quality models, which count the subset's records. Against
// ARX 3.9.2 (tests/testdata/reference/arx-subset.json; adult, and cup when
// the shared data folder is next to the repository) through the command
// line: the optimum, its loss, the suppressed records (ARX counts the
// records outside the subset too), the released table byte for byte
// (SHA-256) and ARX's descriptions. Also: exhaustive search agrees, a table
// worked out by hand (ARX's rules for classes without subset records), the
// subset's forms and the job's errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <map>
#include <sstream>
#include <string>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/output.h"
#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;
using deid::testing::CliRun;
using deid::testing::output_sha256;
using deid::testing::reference_dataset_dir;
using deid::testing::run_deid;
using deid::testing::slurp;
using deid::testing::TempDir;
using deid::testing::write_subset;

const std::vector<nlohmann::json>& runs() { return deid::testing::reference_runs("arx-subset.json"); }

// The input rows (0-based, ascending) of write_subset's subset: each of its
// records matched to the first row with the same values that no earlier
// record matched (ARX's DataSubset.create, deid's research_subset), so a
// record can stand for an equal row before it.
std::vector<std::size_t> subset_rows(const nlohmann::json& run) {
  const std::string data = run["dataset"] == "adult" ? "adult.csv" : "cup.csv";
  std::istringstream in(slurp((reference_dataset_dir(run) / data).string()));
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::vector<std::size_t>> occurrences;
  std::vector<std::string> lines;
  for (std::size_t i = 0; std::getline(in, line); ++i) {
    occurrences[line].push_back(i);
    lines.push_back(line);
  }
  std::map<std::string, std::size_t> used;
  std::vector<std::size_t> rows;
  for (std::size_t i = 3; i < lines.size(); i += 10) rows.push_back(occurrences[lines[i]][used[lines[i]]++]);
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::string job_text(const nlohmann::json& run, const std::string& subset, const std::string& algorithm = "optimal") {
  return deid::testing::reference_job_text(run, run["quality"].dump(), algorithm) + "subset: {file: '" + subset +
         "'}\n";
}

// Runs `run` (a reference run of ARX with the subset of write_subset) with
// the job `make_job(subset file)` through the command line and compares it
// with ARX: optimum, loss, suppressed records, release and descriptions;
// then `deid verify` must accept the release (its table of checks into
// `verify_table` when given). `same_descriptions`: deid describes the
// models as ARX does; otherwise only their number is compared (deid's
// descriptions of t-closeness, δ-disclosure, β-likeness and average risk
// are its own, e.g. "0.2-closeness with equal distance for 'occupation'"
// for ARX's "... equal ground-distance for attribute 'occupation'").
template <class MakeJob>
void expect_arx_release(const nlohmann::json& run, MakeJob make_job, std::string* verify_table = nullptr,
                        bool same_descriptions = true) {
  DEID_SKIP_WITHOUT_REFERENCE_DATA(run);
  CliRun cli("subset-" + run["name"].get<std::string>());
  const std::string subset = write_subset(run, cli.dir / "subset.csv");
  cli.anonymize(make_job(subset));
  ASSERT_EQ(cli.exit_code, 0) << cli.errors();
  const nlohmann::json& result = cli.result;
  EXPECT_EQ(result["quality_model_description"], run["arx_quality_model"]);
  EXPECT_EQ(result["transformation"], run["optimum"]);
  const double arx = run["information_loss"].get<double>();
  EXPECT_NEAR(result["information_loss"].get<double>(), arx, 1e-12 * std::max(1.0, std::abs(arx)));
  EXPECT_EQ(result["subset"]["population_records"].get<std::uint64_t>(),
            result["subset"]["records"].get<std::uint64_t>() + result["subset"]["suppressed_outside"].get<std::uint64_t>());
  if (run.value("arx_releases_records_outside_subset", false)) {
    // With a suppression limit of 0 ARX suppresses nothing in its release,
    // not even the records outside the subset (TransformationApplicator
    // calls performSuppression only with a limit above 0 or no solution);
    // deid always suppresses them (privacy-models.md, "Against ARX:
    // research subsets"). The subset's own records agree: none suppressed.
    EXPECT_EQ(run["suppressed_records"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(result["suppressed_records"].get<std::uint64_t>(), 0u);
  } else {
    // ARX counts every record it suppressed, the subset's and the others.
    EXPECT_EQ(result["suppressed_records"].get<std::uint64_t>() +
                  result["subset"]["suppressed_outside"].get<std::uint64_t>(),
              run["suppressed_records"].get<std::uint64_t>());
    EXPECT_EQ(output_sha256(result), run["output_sha256"]);
  }
  if (run.contains("output_subset_rows_sha256")) {
    // The header and the subset's rows of the release, which are ARX's also
    // where ARX releases the records outside.
    const std::vector<std::size_t> rows = subset_rows(run);
    std::istringstream released(slurp(cli.output));
    std::string kept, line;
    std::getline(released, line);
    kept += line + '\n';
    std::size_t next = 0;
    for (std::size_t i = 0; std::getline(released, line) && next < rows.size(); ++i)
      if (i == rows[next]) {
        kept += line + '\n';
        ++next;
      }
    EXPECT_EQ(next, rows.size());
    EXPECT_EQ(deid::sha256_hex(kept), run["output_subset_rows_sha256"].get<std::string>());
  }
  // ARX's descriptions of the privacy models (ARX lists Inclusion for a
  // subset that no model takes).
  auto prepared = deid::prepare(deid::parse_job(make_job(subset), "s.yaml", "."));
  std::vector<std::string> ours;
  for (const auto& m : prepared->problem.privacy) ours.push_back(m->describe());
  std::vector<std::string> arxs;
  for (const auto& d : run["arx_privacy_models"])
    if (d != "Inclusion") arxs.push_back(d.get<std::string>());
  std::sort(ours.begin(), ours.end());
  std::sort(arxs.begin(), arxs.end());
  if (same_descriptions)
    EXPECT_EQ(ours, arxs);
  else
    EXPECT_EQ(ours.size(), arxs.size());
  // The independent verifier finds the subset again and accepts the release.
  EXPECT_EQ(cli.verify(), 0) << cli.verify_report();
  EXPECT_NE(slurp(cli.dir / "v.txt").find("research subset"), std::string::npos) << slurp(cli.dir / "v.txt");
  if (verify_table) *verify_table = slurp(cli.dir / "v.txt");
}

class ArxSubset : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxSubset, OptimumLossAndReleaseAreArxs) {
  const nlohmann::json& run = runs()[GetParam()];
  expect_arx_release(run, [&](const std::string& subset) { return job_text(run, subset); });
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxSubset, ::testing::Range<std::size_t>(0, 23),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return runs()[info.param]["name"].get<std::string>();
                         });

TEST(ArxSubsetReference, HasTwentyThreeRuns) { EXPECT_EQ(runs().size(), 23u); }

// The models that compare a class with a global distribution (t-closeness,
// δ-disclosure, β-likeness) or judge the class sizes (average risk, sample
// and population uniqueness), with a research subset: ARX's distribution is
// the subset's (DataManager.getDistribution counts its rows; the ordered
// distance still ranks every value of the input) and its class sizes are the
// subset's records (HashGroupifyDistribution). Against ARX 3.9.2
// (tests/testdata/reference/arx-subset-privacy.json), and `deid verify`
// checks each model's line on the release.
const std::vector<nlohmann::json>& privacy_runs() { return deid::testing::reference_runs("arx-subset-privacy.json"); }

std::string privacy_job_text(const nlohmann::json& run, const std::string& subset) {
  std::string text = job_text(run, subset);
  // Hierarchical t-closeness reads the sensitive attribute's hierarchy.
  for (const auto& model : run["privacy"])
    if (model.contains("t-closeness") && model["t-closeness"]["distance"] == "hierarchical") {
      const std::string attribute = run["sensitive"].get<std::string>();
      const std::string plain = "  " + attribute + ": {role: sensitive}\n";
      text.replace(text.find(plain), plain.size(),
                   "  " + attribute + ": {role: sensitive, hierarchy: '" +
                       (reference_dataset_dir(run) / "hierarchies" / (attribute + ".csv")).string() + "'}\n");
    }
  return text;
}

class ArxSubsetPrivacy : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxSubsetPrivacy, OptimumLossAndReleaseAreArxs) {
  const nlohmann::json& run = privacy_runs()[GetParam()];
  std::string table;
  expect_arx_release(
      run, [&](const std::string& subset) { return privacy_job_text(run, subset); }, &table, false);
  if (table.empty()) return;  // skipped, or the release failed above
  // The verifier's table has an ok line for each of the job's models.
  const std::map<std::string, std::string> line_of = {
      {"t-closeness", "t-closeness ("},         {"delta-disclosure", "delta-disclosure ("},
      {"beta-likeness", "beta-likeness ("},     {"average-risk", "average risk ("},
      {"sample-uniqueness", "sample uniqueness ("}, {"population-uniqueness", "population uniqueness ("},
      {"delta-presence", "delta-presence ("},   {"k-anonymity", "k-anonymity (k="}};
  for (const auto& model : run["privacy"])
    for (const auto& [key, line] : line_of)
      if (model.contains(key)) {
        const std::size_t at = table.find(line);
        ASSERT_NE(at, std::string::npos) << key << "\n" << table;
        const std::string row = table.substr(at, table.find('\n', at) - at);
        EXPECT_NE(row.find(" ok "), std::string::npos) << row;
      }
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxSubsetPrivacy, ::testing::Range<std::size_t>(0, 19),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return privacy_runs()[info.param]["name"].get<std::string>();
                         });

TEST(ArxSubsetPrivacyReference, HasNineteenRuns) { EXPECT_EQ(privacy_runs().size(), 19u); }

// Microaggregation with a research subset: ARX aggregates a class's
// subset records only (HashGroupify.addFromBuffer adds a record's value to
// its class's distribution only when the record is in the subset;
// performMicroaggregation and MetricMDNMLoss/MetricMDNMPrecision read those
// distributions), and the records outside the subset are suppressed. Against
// ARX 3.9.2 (tests/testdata/reference/arx-subset-microaggregation.json: adult
// with age microaggregated, generalized before or not), and `deid verify`
// re-checks every released aggregate over the subset's records.
const std::vector<nlohmann::json>& microaggregation_runs() {
  return deid::testing::reference_runs("arx-subset-microaggregation.json");
}

// The run's job: its quasi-identifiers with their hierarchies and age
// microaggregated as `attributes.age` says.
std::string microaggregation_job_text(const nlohmann::json& run, const std::string& subset) {
  std::string text = job_text(run, subset);
  std::string age = "  age: {role: quasi-identifying";
  const nlohmann::json& spec = run["attributes"]["age"];
  if (spec.value("generalize-before", false))
    age += ", hierarchy: '" + (reference_dataset_dir(run) / "hierarchies" / "age.csv").string() + "'";
  for (const auto& [key, value] : spec.items()) age += ", " + key + ": " + (value.is_string() ? value.get<std::string>() : value.dump());
  age += "}\n";
  const std::size_t at = text.find("  age: ");
  if (at != std::string::npos) {
    text.replace(at, text.find('\n', at) + 1 - at, age);
  } else {
    text.insert(text.find("attributes:\n") + 12, age);
  }
  return text;
}

class ArxSubsetMicroaggregation : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxSubsetMicroaggregation, OptimumLossAndReleaseAreArxs) {
  const nlohmann::json& run = microaggregation_runs()[GetParam()];
  std::string table;
  expect_arx_release(run, [&](const std::string& subset) { return microaggregation_job_text(run, subset); }, &table);
  if (table.empty()) return;  // skipped, or the release failed above
  // The verifier re-checked the aggregates: its microaggregation line is ok.
  const std::size_t at = table.find("microaggregation");
  ASSERT_NE(at, std::string::npos) << table;
  const std::string row = table.substr(at, table.find('\n', at) - at);
  EXPECT_NE(row.find(" ok "), std::string::npos) << row;
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxSubsetMicroaggregation, ::testing::Range<std::size_t>(0, 7),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return microaggregation_runs()[info.param]["name"].get<std::string>();
                         });

TEST(ArxSubsetMicroaggregationReference, HasSevenRuns) { EXPECT_EQ(microaggregation_runs().size(), 7u); }

// δ-presence is not monotonic with suppression: exhaustive search finds the
// optimum the optimal search finds. So it does with the lower bounds of
// entropy and ambiguity, computed from the subset's records (a bound from
// the population's would exceed the value and prune the optimum).
TEST(Subset, ExhaustiveSearchAgrees) {
  for (const nlohmann::json& run : runs()) {
    if (run["name"] != "adult_dpresence_k2" && run["name"] != "adult_journalist_attack_loss" &&
        run["name"] != "adult_subset_k5_entropy" && run["name"] != "adult_subset_k3_normalized_entropy" &&
        run["name"] != "adult_subset_k5_ambiguity")
      continue;
    if (!fs::exists(reference_dataset_dir(run))) continue;
    const TempDir dir("subset-exhaustive");
    const std::string subset = write_subset(run, dir / "subset.csv");
    auto optimal = deid::prepare(deid::parse_job(job_text(run, subset), "s.yaml", "."));
    auto exhaustive = deid::prepare(deid::parse_job(job_text(run, subset, "exhaustive"), "s.yaml", "."));
    const deid::Anonymization o = deid::run_search(*optimal);
    const deid::Anonymization e = deid::run_search(*exhaustive);
    ASSERT_TRUE(e.found);
    EXPECT_EQ(e.result["information_loss"], o.result["information_loss"]) << run["name"];
    EXPECT_EQ(e.result["transformation"], run["optimum"]) << run["name"];
  }
}

// A table small enough to work out by hand. Population: ten records; zip
// 1301 and 1302 generalize to 130*, 1401 to 14**; the subset is marked in
// the column `in` (not released). Classes at zip level 0:
//   1301: 4 records, 2 in the subset (share 0.5)
//   1302: 3 records, 0 in the subset (share 0)
//   1401: 3 records, 1 in the subset (share 1/3)
// and at level 1: 130* 7 records, 2 in (2/7), 14** 3 records, 1 in (1/3).
class SubsetByHand : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_ / "data.csv") << "id,zip,in\n"
                                        "1,1301,y\n2,1301,y\n3,1301,n\n4,1301,n\n"
                                        "5,1302,n\n6,1302,n\n7,1302,n\n"
                                        "8,1401,y\n9,1401,n\n10,1401,n\n";
    std::ofstream(dir_ / "zip.csv") << "1301;130*;*\n1302;130*;*\n1401;14**;*\n";
  }
  std::string job(const std::string& privacy, double limit = 0, const std::string& extra = "") const {
    return "input: {path: '" + (dir_ / "data.csv") + "'}\nattributes:\n  id: {role: identifying}\n"
           "  in: {role: identifying}\n  zip: {role: quasi-identifying, hierarchy: '" + (dir_ / "zip.csv") +
           "'}\nprivacy:\n" + privacy + "suppression-limit: " + std::to_string(limit) +
           "\nsearch: {algorithm: exhaustive}\nsubset: {column: in, value: y}\n" + extra;
  }
  deid::CheckResult check(const std::string& privacy, int level, double limit = 0) const {
    auto p = deid::prepare(deid::parse_job(job(privacy, limit), "h.yaml", "."));
    deid::Checker checker(p->problem);
    return checker.check(deid::Transformation{static_cast<std::uint8_t>(level)});
  }
  TempDir dir_{"subset-hand"};
};

TEST_F(SubsetByHand, RecordsAreTheSubsets) {
  auto p = deid::prepare(deid::parse_job(job("  - k-anonymity: {k: 1}\n"), "h.yaml", "."));
  EXPECT_EQ(p->problem.rows, 3u);
  EXPECT_EQ(p->problem.population_rows, 10u);
  EXPECT_EQ(p->problem.max_suppressed, 0u);
}

TEST_F(SubsetByHand, DeltaPresence) {
  // Level 0: 1302 has no subset record, share 0 < 0.1: it cannot be
  // suppressed, so no limit helps.
  EXPECT_FALSE(check("  - delta-presence: {min: 0.1, max: 0.6}\n", 0, 1.0).solution);
  // Level 1: shares 2/7 and 1/3.
  EXPECT_TRUE(check("  - delta-presence: {min: 0.1, max: 0.6}\n", 1).solution);
  EXPECT_FALSE(check("  - delta-presence: {min: 0.3, max: 0.6}\n", 1).solution);
  // With min 0 the empty class holds; 1301's 0.5 > 0.4 is suppressed
  // (2 records) when the limit allows it.
  EXPECT_FALSE(check("  - delta-presence: {min: 0, max: 0.4}\n", 0).solution);
  const deid::CheckResult r = check("  - delta-presence: {min: 0, max: 0.4}\n", 0, 0.7);
  EXPECT_TRUE(r.solution);
  EXPECT_EQ(r.suppressed_records, 2u);
  // ARX's rule: with k-anonymity, a class without subset records fails k
  // first and δ-presence is not asked about it. k = 1: 1302 is ignored,
  // and 1401's share 1/3 and 1301's 0.5 hold.
  EXPECT_TRUE(check("  - k-anonymity: {k: 1}\n  - delta-presence: {min: 0.1, max: 0.6}\n", 0).solution);
}

TEST_F(SubsetByHand, KMapWithThePopulationTable) {
  // Population classes at level 0: 4, 3, 3; the subset's 1301 and 1401.
  EXPECT_TRUE(check("  - k-map: {k: 3}\n", 0).solution);
  EXPECT_FALSE(check("  - k-map: {k: 4}\n", 0).solution);  // 1401 has 3
  const deid::CheckResult r = check("  - k-map: {k: 4}\n", 0, 0.4);
  EXPECT_TRUE(r.solution);
  EXPECT_EQ(r.suppressed_records, 1u);
  EXPECT_TRUE(check("  - k-map: {k: 7}\n", 1, 0.4).solution);  // 130*: 7; 14** suppressed
}

TEST_F(SubsetByHand, JournalistNoAttackReadsThePopulation) {
  // gain/cost = 3/1 + 1 = 4: population classes of at least 4.
  const std::string cb = "cost-benefit: {adversary-gain: 3, adversary-cost: 1}\n";
  auto at = [&](int level, double limit) {
    auto p = deid::prepare(
        deid::parse_job(job("  - profitability: {attacker: journalist, attack: false}\n", limit, cb), "h.yaml", "."));
    deid::Checker checker(p->problem);
    return checker.check(deid::Transformation{static_cast<std::uint8_t>(level)});
  };
  EXPECT_FALSE(at(0, 0).solution);
  EXPECT_TRUE(at(0, 0.4).solution);  // 1401 (population 3) suppressed: 1 record
  EXPECT_TRUE(at(1, 0.4).solution);
}

// The quality models read the subset's records (ARX builds their
// frequencies, input distribution and sizes from the metric's subset); the
// population's records would give other numbers at every level above 0.
// Subset values: 1301 twice, 1401 once; 1302 (three population records)
// has none.
TEST_F(SubsetByHand, QualityModelsCountTheSubsetsRecords) {
  const auto loss = [&](const std::string& quality, int level, double limit = 0,
                        const std::string& privacy = "  - k-anonymity: {k: 1}\n") {
    auto p = deid::prepare(deid::parse_job(job(privacy, limit, "quality: " + quality + "\n"), "h.yaml", "."));
    deid::Checker checker(p->problem);
    const deid::CheckResult r = checker.check(deid::Transformation{static_cast<std::uint8_t>(level)});
    EXPECT_TRUE(r.solution) << quality << " at level " << level;
    EXPECT_LE(r.lower_bound, r.quality.value) << quality << " at level " << level;
    return r.quality.value;
  };
  const double log2 = std::log(2.0);
  // Non-uniform entropy: at level 1 each subset value is alone under its
  // generalized value (130* holds 1302 too, but no subset record of it):
  // 0 bits; at level 2 the three subset records share '*':
  // 2 log2(3/2) + log2(3). With the population's frequencies level 1 would
  // cost 4 log2(7/4) + 3 log2(7/3) bits.
  const double top = 2 * (std::log(3.0 / 2.0) / log2) + std::log(3.0) / log2;
  EXPECT_EQ(loss("{model: entropy}", 1), 0.0);
  EXPECT_NEAR(loss("{model: entropy}", 2), top, 1e-9);
  EXPECT_NEAR(loss("{model: entropy, monotonic: true}", 2), top, 1e-9);
  // Normalized: divided by -(2 log2(2/10) + log2(1/10)), the subset's
  // frequencies over the population's ten rows (ARX's getUpperBounds).
  const double upper = -(2 * (std::log(0.2) / log2) + std::log(0.1) / log2);
  EXPECT_NEAR(loss("{model: normalized-entropy}", 2), top / upper, 1e-9);
  // Suppression: k = 2 at level 0 suppresses 1401 (1 record of 3): the
  // suppressed block has one value, 0 bits, and generalization costs 0.
  EXPECT_EQ(loss("{model: entropy}", 0, 0.4, "  - k-anonymity: {k: 2}\n"), 0.0);
  // Ambiguity: 130* stands for 2 hierarchy rows, 14** for 1: 2 * 2 + 1 * 1
  // (1302's population records are not counted).
  EXPECT_EQ(loss("{model: ambiguity}", 1), 5.0);
  // KL divergence over the subset's three records: at level 1 the two 1301
  // records have p = 2/3 and q = (2/3) / 2, the 1401 record p = q = 1/3.
  EXPECT_NEAR(loss("{model: kl-divergence}", 1), 4.0 / 3.0, 1e-12);
  EXPECT_EQ(loss("{model: kl-divergence}", 0), 0.0);
  // Classification with zip as the response, gs-factor 0.8 (p_i = 0.4,
  // p_max = 1): at level 1 the kept records' majority is 130* (2 of 3), and
  // the 1401 record pays p_i (1 - s) + p_max s with s = 1 - (2 - 1) / (3 - 1)
  // = 0.5: zip's distinct values are the population's (three, two at level
  // 1; the subset's alone would give s = 0 and 0.4 / 3).
  const std::string cls = "{model: classification, response-variables: [zip], gs-factor: 0.8}";
  EXPECT_NEAR(loss(cls, 1), 0.7 / 3.0, 1e-15);
  EXPECT_NEAR(loss(cls, 0), 0.4 / 3.0, 1e-15);  // s = 0 at level 0
}

// Microaggregation with a subset, by hand: a class's mean is its subset
// records' (ARX's HashGroupify distributions hold only them), not its
// population's, and the records outside the subset show '*'. Subset
// (in = y): 1301 with ages 20 and 30 (mean 25; with the outside 70: 40),
// 1401 with 40 and 50 (mean 45; with the outside 90: 60). Loss's age
// dimension: each class has 2 of the column's 6 distinct values, 2 * 2/6
// twice over the subset's 4 records: 1/3 (the population's records would
// give 3 * 3/6 twice over 6: 1). The verifier checks the subset's means and
// fails the population's.
TEST(SubsetMicroaggregationByHand, AggregatesTheSubsetsRecords) {
  CliRun cli("subset-microaggregation-hand");
  const TempDir& dir = cli.dir;
  const std::string& job = cli.job;
  const std::string& out = cli.output;
  std::ofstream(dir / "data.csv") << "id,zip,age,in\n1,1301,20,y\n2,1301,30,y\n3,1301,70,n\n"
                                     "4,1401,40,y\n5,1401,90,n\n6,1401,50,y\n";
  std::ofstream(dir / "zip.csv") << "1301;130*;*\n1401;14**;*\n";
  cli.anonymize("input: {path: '" + (dir / "data.csv") + "'}\nattributes:\n  id: {role: identifying}\n"
                "  in: {role: identifying}\n  zip: {role: quasi-identifying, hierarchy: '" + (dir / "zip.csv") +
                "'}\n  age: {role: quasi-identifying, transformation: microaggregation, function: mean}\n"
                "privacy:\n  - k-anonymity: {k: 2}\nquality: {model: loss}\n"
                "subset: {column: in, value: y}\noutput: {utility: false}\n");
  ASSERT_EQ(cli.exit_code, 0) << cli.errors();
  EXPECT_EQ(slurp(out), "zip,age\n1301,25\n1301,25\n*,*\n1401,45\n*,*\n1401,45\n");
  const nlohmann::json& result = cli.result;
  EXPECT_EQ(result["transformation"]["zip"], 0);
  EXPECT_NEAR(result["information_loss_per_attribute"]["age"].get<double>(), 1.0 / 3.0, 1e-9);
  EXPECT_EQ(cli.verify(), 0) << cli.verify_report();
  // The population's means: the verifier's microaggregation check fails.
  std::ofstream(out) << "zip,age\n1301,40\n1301,40\n*,*\n1401,60\n*,*\n1401,60\n";
  EXPECT_NE(run_deid("verify '" + job + "' --output '" + out + "'", dir / "w.txt", dir / "w.err"), 0);
  EXPECT_NE(slurp(dir / "w.txt").find("do not show their class's mean"), std::string::npos)
      << slurp(dir / "w.txt") << slurp(dir / "w.err");
  // A record outside the subset that shows an aggregate fails too.
  std::ofstream(out) << "zip,age\n1301,25\n1301,25\n*,40\n1401,45\n*,*\n1401,45\n";
  EXPECT_NE(run_deid("verify '" + job + "' --output '" + out + "'", dir / "x.txt", dir / "x.err"), 0);
  EXPECT_NE(slurp(dir / "x.txt").find("instead of '*'"), std::string::npos) << slurp(dir / "x.txt") << slurp(dir / "x.err");
}

// The search prunes with lower_bound(t) (docs/quality-models.md, "Lower
// bounds"): with a subset it must stay below the value of t under any
// suppression and below the bound of every generalization of t. On random
// tables with a random subset, over whole lattices, for the models whose
// bound is not 0.
TEST(SubsetQualityBounds, BelowTheValueAndMonotonicOnRandomTables) {
  const TempDir dir("subset-bounds");
  std::mt19937 rng(20261125);
  int comparisons = 0;
  for (int trial = 0; trial < 20; ++trial) {
    std::string a, b;
    for (int v = 0; v < 6; ++v) a += fmt::format("a{};A{};*\n", v, v / 2);
    for (int v = 0; v < 6; ++v) b += fmt::format("b{};B{};C{};*\n", v, v / 2, v / 4);
    std::ofstream(dir / "a.csv") << a;
    std::ofstream(dir / "b.csv") << b;
    std::string csv = "a,b,in\n";
    const int rows = std::uniform_int_distribution<int>(10, 50)(rng);
    for (int r = 0; r < rows; ++r)
      csv += fmt::format("a{},b{},{}\n", std::uniform_int_distribution<int>(0, 5)(rng),
                         std::uniform_int_distribution<int>(0, 5)(rng),
                         r == 0 || std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? "y" : "n");
    std::ofstream(dir / "data.csv") << csv;
    const int k = std::uniform_int_distribution<int>(1, 4)(rng);
    for (const char* quality : {"{model: entropy}", "{model: entropy, monotonic: true}", "{model: normalized-entropy}",
                                "{model: ambiguity}"}) {
      const std::string job = "input: {path: '" + (dir / "data.csv") + "'}\nattributes:\n  in: {role: identifying}\n"
                              "  a: {role: quasi-identifying, hierarchy: '" + (dir / "a.csv") + "'}\n"
                              "  b: {role: quasi-identifying, hierarchy: '" + (dir / "b.csv") + "'}\n"
                              "privacy:\n  - k-anonymity: {k: " + std::to_string(k) + "}\nsuppression-limit: 1\n"
                              "quality: " + quality + "\nsubset: {column: in, value: y}\n";
      auto p = deid::prepare(deid::parse_job(job, "b.yaml", "."));
      deid::Checker checker(p->problem);
      const deid::Lattice lattice = p->problem.lattice();
      for (deid::LatticeIndex i = 0; i < lattice.size(); ++i) {
        const deid::Transformation t = lattice.at(i);
        const deid::CheckResult r = checker.check(t);
        ASSERT_TRUE(r.solution);
        EXPECT_LE(r.lower_bound, r.quality.value) << quality << " " << deid::to_string(t) << " trial " << trial;
        for (const deid::Transformation& up : lattice.successors(t)) {
          EXPECT_LE(r.lower_bound, checker.check(up).lower_bound) << quality << " " << deid::to_string(t);
          ++comparisons;
        }
      }
    }
  }
  EXPECT_GT(comparisons, 500);
}

// With a subset, t-closeness, δ-disclosure and β-likeness compare a class
// with the subset's distribution and the risk-based models judge the
// subset's class sizes (ARX's DataManager.getDistribution,
// HashGroupifyDistribution). Ten records, three in the subset (flag `in`):
//   zip 1301: flu, cancer in the subset; flu, flu outside
//   zip 1302: flu, cancer, none in the subset
//   zip 1401: cancer in the subset; flu, flu, flu outside
// The subset's Q: flu 1/3, cancer 2/3 (the input's: 0.7, 0.3). At zip
// level 0 the classes with subset records are 1301 (P = 1/2, 1/2) and 1401
// (P = 0, 1).
TEST_F(SubsetByHand, DistributionsAndClassSizesAreTheSubsets) {
  std::ofstream(dir_ / "sens.csv") << "zip,disease,in\n"
                                      "1301,flu,y\n1301,cancer,y\n1301,flu,n\n1301,flu,n\n"
                                      "1302,flu,n\n1302,cancer,n\n"
                                      "1401,cancer,y\n1401,flu,n\n1401,flu,n\n1401,flu,n\n";
  const auto at = [&](const std::string& privacy, double limit) {
    const std::string text = "input: {path: '" + (dir_ / "sens.csv") + "'}\nattributes:\n  in: {role: identifying}\n"
                             "  disease: {role: sensitive}\n  zip: {role: quasi-identifying, hierarchy: '" +
                             (dir_ / "zip.csv") + "'}\nprivacy:\n" + privacy + "suppression-limit: " +
                             std::to_string(limit) + "\nsubset: {column: in, value: y}\n";
    auto p = deid::prepare(deid::parse_job(text, "h.yaml", "."));
    deid::Checker checker(p->problem);
    return checker.check(deid::Transformation{0});
  };
  // Equal distance against the subset's Q: 1301 1/6, 1401 1/3 (against the
  // input's: 0.2 and 0.7, which t = 0.34 would reject).
  EXPECT_TRUE(at("  - t-closeness: {attribute: disease, distance: equal, t: 0.34}\n", 0).solution);
  EXPECT_FALSE(at("  - t-closeness: {attribute: disease, distance: equal, t: 0.3}\n", 0).solution);
  const deid::CheckResult t = at("  - t-closeness: {attribute: disease, distance: equal, t: 0.3}\n", 0.4);
  EXPECT_TRUE(t.solution);
  EXPECT_EQ(t.suppressed_records, 1u);  // 1401; the limit is floor(0.4 * 3) = 1
  // δ-disclosure: |log2(p/q)| is at most log2(1.5) = 0.585 against the
  // subset's Q (1401's cancer against the input's 0.3: 1.74).
  EXPECT_TRUE(at("  - delta-disclosure: {attribute: disease, delta: 0.6}\n", 0).solution);
  EXPECT_FALSE(at("  - delta-disclosure: {attribute: disease, delta: 0.5}\n", 0).solution);
  // β-likeness (basic): the largest gain is 1401's cancer, (1 - 2/3) / (2/3)
  // = 0.5 (against the input's 0.3: 2.33).
  EXPECT_TRUE(at("  - beta-likeness: {attribute: disease, variant: basic, beta: 0.51}\n", 0).solution);
  EXPECT_FALSE(at("  - beta-likeness: {attribute: disease, variant: basic, beta: 0.49}\n", 0).solution);
  // Class sizes are the subset's: 2 and 1 (1302 has none and is left out),
  // so one of three records is unique and the average risk is 2/3 (the
  // population's classes 4, 3, 3 have no unique and risk 0.3).
  EXPECT_FALSE(at("  - sample-uniqueness: {threshold: 0.3}\n", 0).solution);
  EXPECT_TRUE(at("  - sample-uniqueness: {threshold: 0.34}\n", 0).solution);
  const deid::CheckResult u = at("  - sample-uniqueness: {threshold: 0.3}\n", 0.4);
  EXPECT_TRUE(u.solution);
  EXPECT_EQ(u.suppressed_records, 1u);
  EXPECT_FALSE(at("  - average-risk: {threshold: 0.6}\n", 0).solution);
  EXPECT_TRUE(at("  - average-risk: {threshold: 0.67}\n", 0).solution);
}

// deid verify compares with the subset's distribution too: the release of
// t = 0.34 at zip level 0 (1301 at 1/6, 1401 at 1/3 from the subset's Q)
// passes; against the input's Q 1401 would be at 0.7. A stricter t fails.
TEST_F(SubsetByHand, VerifyComparesWithTheSubsetsDistribution) {
  std::ofstream(dir_ / "sens.csv") << "zip,disease,in\n"
                                      "1301,flu,y\n1301,cancer,y\n1301,flu,n\n1301,flu,n\n"
                                      "1302,flu,n\n1302,cancer,n\n"
                                      "1401,cancer,y\n1401,flu,n\n1401,flu,n\n1401,flu,n\n";
  const auto job_file = [&](const std::string& name, const std::string& privacy) {
    std::ofstream(dir_ / name) << "input: {path: '" + (dir_ / "sens.csv") + "'}\nattributes:\n  in: {role: "
                                  "identifying}\n  disease: {role: sensitive}\n  zip: {role: quasi-identifying, "
                                  "hierarchy: '" + (dir_ / "zip.csv") + "', max-level: 0}\nprivacy:\n" + privacy +
                                      "suppression-limit: 0\nsubset: {column: in, value: y}\noutput: {path: '" +
                                      (dir_ / "out.csv") + "', utility: false}\n";
    return dir_ / name;
  };
  const std::string made = job_file("t.yaml", "  - t-closeness: {attribute: disease, distance: equal, t: 0.34}\n");
  ASSERT_EQ(run_deid("-q anonymize '" + made + "'", dir_ / "a.out", dir_ / "a.err"), 0) << slurp(dir_ / "a.err");
  EXPECT_EQ(slurp(dir_ / "out.csv"), "zip,disease\n1301,flu\n1301,cancer\n*,flu\n*,flu\n*,flu\n*,cancer\n"
                                     "1401,cancer\n*,flu\n*,flu\n*,flu\n");
  EXPECT_EQ(run_deid("verify '" + made + "'", dir_ / "v.out", dir_ / "v.err"), 0)
      << slurp(dir_ / "v.out") << slurp(dir_ / "v.err");
  const std::string strict = job_file("s.yaml", "  - t-closeness: {attribute: disease, distance: equal, t: 0.3}\n");
  EXPECT_EQ(run_deid("verify '" + strict + "'", dir_ / "v.out", dir_ / "v.err"), 1)
      << slurp(dir_ / "v.out") << slurp(dir_ / "v.err");
  EXPECT_NE(slurp(dir_ / "v.out").find("t-closeness"), std::string::npos) << slurp(dir_ / "v.out");
}

TEST_F(SubsetByHand, ReleaseSuppressesTheRecordsOutside) {
  const std::string out = dir_ / "out.csv";
  auto p = deid::prepare(deid::parse_job(job("  - k-anonymity: {k: 1}\n") + "output: {path: '" + out + "'}\n",
                                         "h.yaml", "."));
  deid::Classes classes;
  deid::Checker checker(p->problem);
  checker.check(deid::Transformation{0}, &classes);
  std::ofstream o(out);
  deid::write_output(*p, deid::Transformation{0}, classes, o);
  o.close();
  EXPECT_EQ(slurp(out), "zip\n1301\n1301\n*\n*\n*\n*\n*\n1401\n*\n*\n");
}

TEST_F(SubsetByHand, SubsetFromAFileMatchesRecordsInOrder) {
  // Two equal records: the file's one record takes the first.
  std::ofstream(dir_ / "d2.csv") << "zip,x\n1301,a\n1301,a\n1401,b\n";
  std::ofstream(dir_ / "s2.csv") << "x,zip\na,1301\n";
  const std::string base = "input: {path: '" + (dir_ / "d2.csv") + "'}\nattributes:\n  zip: {role: quasi-identifying, "
                           "hierarchy: '" + (dir_ / "zip.csv") + "'}\ndefault-role: insensitive\nprivacy:\n"
                           "  - k-anonymity: {k: 1}\n";
  auto p = deid::prepare(deid::parse_job(base + "subset: {file: '" + (dir_ / "s2.csv") + "'}\n", "h.yaml", "."));
  EXPECT_EQ(p->problem.subset, (std::vector<std::uint8_t>{1, 0, 0}));
  // A record the data lack, and one given more often than the data have it.
  std::ofstream(dir_ / "s3.csv") << "zip,x\n1401,a\n";
  std::ofstream(dir_ / "s4.csv") << "zip,x\n1401,b\n1401,b\n";
  for (const char* f : {"s3.csv", "s4.csv"}) {
    try {
      deid::prepare(deid::parse_job(base + "subset: {file: '" + (dir_ / f) + "'}\n", "h.yaml", "."));
      ADD_FAILURE() << f << " was accepted";
    } catch (const deid::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string(f) == "s3.csv" ? ":2" : ":3"), std::string::npos) << e.what();
    }
  }
}

// deid verify on the hand-worked table, zip held at level 0 (max-level 0):
// δ-presence (0, 0.4) with a limit of 2 records suppresses 1301 (share
// 0.5). The verifier accepts that release, and rejects it under stricter
// bounds, for a class without subset records (1302, share 0) unless
// k-anonymity judges that class first, and when a record outside the subset
// is shown.
TEST_F(SubsetByHand, VerifyChecksTheSubsetAndDeltaPresence) {
  const auto job_file = [&](const std::string& name, const std::string& privacy) {
    std::string text = job(privacy, 0.7, "output: {path: '" + (dir_ / "out.csv") + "', result: '" +
                                             (dir_ / "result.json") + "', utility: false}\n");
    const std::string hier = "hierarchy: '" + (dir_ / "zip.csv") + "'";
    text.replace(text.find(hier), hier.size(), hier + ", max-level: 0");
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  };
  const std::string made = job_file("made.yaml", "  - delta-presence: {min: 0, max: 0.4}\n");
  ASSERT_EQ(run_deid("-q anonymize '" + made + "'", dir_ / "a.out", dir_ / "a.err"), 0) << slurp(dir_ / "a.err");
  EXPECT_EQ(slurp(dir_ / "out.csv"), "zip\n*\n*\n*\n*\n*\n*\n*\n1401\n*\n*\n");
  const auto verify = [&](const std::string& job_path, const std::string& output) {
    const int code = run_deid("verify '" + job_path + "' --output '" + output + "'", dir_ / "v.out", dir_ / "v.err");
    return std::make_pair(code, slurp(dir_ / "v.out") + slurp(dir_ / "v.err"));
  };
  EXPECT_EQ(verify(made, dir_ / "out.csv").first, 0) << verify(made, dir_ / "out.csv").second;
  // 1401's share 1/3 is above 0.3.
  auto [code, text] = verify(job_file("strict.yaml", "  - delta-presence: {min: 0, max: 0.3}\n"), dir_ / "out.csv");
  EXPECT_EQ(code, 1) << text;
  EXPECT_NE(text.find("have a share of subset records outside [0.000000, 0.300000]"), std::string::npos) << text;
  // 1302 has no subset record: share 0 < 0.1.
  std::tie(code, text) = verify(job_file("min.yaml", "  - delta-presence: {min: 0.1, max: 0.6}\n"), dir_ / "out.csv");
  EXPECT_EQ(code, 1) << text;
  EXPECT_NE(text.find("(share 0.000000)"), std::string::npos) << text;
  // ... unless k-anonymity judges it first (ARX's rule).
  std::tie(code, text) = verify(
      job_file("k.yaml", "  - k-anonymity: {k: 1}\n  - delta-presence: {min: 0.1, max: 0.6}\n"), dir_ / "out.csv");
  EXPECT_EQ(code, 0) << text;
  // A record outside the subset shown with its value.
  std::ofstream(dir_ / "shown.csv") << "zip\n*\n*\n1301\n*\n*\n*\n*\n1401\n*\n*\n";
  std::tie(code, text) = verify(made, dir_ / "shown.csv");
  EXPECT_EQ(code, 1) << text;
  EXPECT_NE(text.find("outside the research subset are not suppressed"), std::string::npos) << text;
}

TEST_F(SubsetByHand, JobErrors) {
  const auto error = [&](const std::string& text) -> std::string {
    try {
      deid::prepare(deid::parse_job(text, "h.yaml", "."));
    } catch (const deid::JobError& e) {
      return e.what();
    } catch (const deid::InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string no_subset = "input: {path: '" + (dir_ / "data.csv") + "'}\nattributes:\n  zip: {role: "
                                "quasi-identifying, hierarchy: '" + (dir_ / "zip.csv") + "'}\ndefault-role: insensitive\n";
  EXPECT_NE(error(no_subset + "privacy:\n  - delta-presence: {min: 0, max: 0.5}\n").find("'subset' section"),
            std::string::npos);
  EXPECT_NE(error(no_subset + "privacy:\n  - k-map: {k: 5}\n").find("k-map without population-size"), std::string::npos);
  EXPECT_NE(error(no_subset + "privacy:\n  - profitability: {attacker: journalist}\n").find("journalist"),
            std::string::npos);
  EXPECT_NE(error(job("  - delta-presence: {min: 0.5, max: 0.2}\n")).find("below min"), std::string::npos);
  EXPECT_NE(error(job("  - k-map: {k: 5, significance: 0.1}\n")).find("population-size"), std::string::npos);
  // Every quality model takes a subset (also those ARX reads per value).
  for (const char* model : {"entropy", "normalized-entropy", "ambiguity", "kl-divergence"})
    EXPECT_EQ(error(job("  - k-anonymity: {k: 2}\n", 0, std::string("quality: {model: ") + model + "}\n")), "")
        << model;
  EXPECT_NE(error(no_subset + "privacy:\n  - k-anonymity: {k: 1}\nsubset: {column: in, value: nobody}\n")
                .find("research subset is empty"),
            std::string::npos);
  EXPECT_NE(error(no_subset + "privacy:\n  - k-anonymity: {k: 1}\nsubset: {column: nope, value: y}\n")
                .find("not a column"),
            std::string::npos);
  EXPECT_NE(error(no_subset + "privacy:\n  - k-anonymity: {k: 1}\nsubset: {file: a.csv, column: in, value: y}\n")
                .find("not both"),
            std::string::npos);
}

}  // namespace
