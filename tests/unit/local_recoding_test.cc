// Local recoding (docs/search.md, "Local recoding"):
// - the job section's keys, defaults and errors, and the combinations
//   refused (privacy models ARX does not recode locally under, and what
//   deid does not recode yet);
// - ARX 3.9.2's runs (tests/testdata/reference/arx-local-recoding.json, from
//   bench/arx/ArxLocalRecoding.java): the same global optimum, then pass for
//   pass the same transformation, records recoded and information loss, and
//   the released table byte for byte (its SHA-256). Where a pass has several
//   optima of equal loss, deid keeps the one ARX's Flash keeps
//   (search/arx_flash.h), so every run is compared to its end; the runs
//   named adult_subset_* with the reference runs' research subset, whose
//   releases deid verify accepts;
// - the pass column, and the independent verifier on mixed releases: deid's
//   holds, also with a research subset, a release broken by hand does not.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "deid/digest.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/pipeline.h"
#include "support/reference.h"
#include "verify.h"

namespace deid {
namespace {

const char* const kQis[] = {"sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                            "occupation", "salary-class"};

// examples/adult, the columns in the file's order, occupation sensitive
// when `sensitive`.
// `salary_insensitive`: salary-class insensitive instead of quasi-identifying.
std::string adult_head(bool sensitive, bool salary_insensitive = false) {
  const std::string adult = testing::example_path("adult");
  std::string yaml = "input: {path: '" + adult + "/adult.csv', delimiter: ';'}\nattributes:\n";
  for (const char* q : kQis) {
    if (sensitive && std::string(q) == "occupation")
      yaml += "  occupation: {role: sensitive}\n";
    else if (salary_insensitive && std::string(q) == "salary-class")
      yaml += "  salary-class: {role: insensitive}\n";
    else
      yaml += fmt::format("  {}: {{role: quasi-identifying, hierarchy: '{}/hierarchies/{}.csv'}}\n", q, adult, q);
  }
  return yaml;
}

std::string error_of(const std::string& yaml) {
  try {
    const Job job = parse_job(yaml, "job.yaml", "");
    check_local_recoding(job);
  } catch (const JobError& e) {
    return e.what();
  }
  return "";
}

// ---------------------------------------------------------------- job keys

TEST(LocalRecodingKeys, DefaultsAndSettings) {
  const std::string head = adult_head(false) + "privacy: [{k-anonymity: {k: 5}}]\n";
  const Job plain = parse_job(head, "job.yaml", "");
  EXPECT_FALSE(plain.local_recoding);
  const Job defaults = parse_job(head + "local-recoding: {}\n", "job.yaml", "");
  ASSERT_TRUE(defaults.local_recoding);
  EXPECT_EQ(defaults.local_recoding->mode, Job::LocalRecoding::Mode::iterative);
  EXPECT_EQ(defaults.local_recoding->gs_factor, 0.5);
  EXPECT_EQ(defaults.local_recoding->max_iterations, 100u);
  EXPECT_EQ(defaults.local_recoding->adaption_factor, 0.05);
  EXPECT_TRUE(defaults.local_recoding->column.empty());
  const Job fast = parse_job(head + "local-recoding: {mode: fast, gs-factor: 0.25, records: 0.1, column: pass}\n",
                             "job.yaml", "");
  EXPECT_EQ(fast.local_recoding->mode, Job::LocalRecoding::Mode::fast);
  EXPECT_EQ(fast.local_recoding->gs_factor, 0.25);
  EXPECT_EQ(fast.local_recoding->records, 0.1);
  EXPECT_EQ(fast.local_recoding->column, "pass");
}

TEST(LocalRecodingKeys, ErrorsNameTheKeyAndTheMode) {
  const std::string head = adult_head(false) + "privacy: [{k-anonymity: {k: 5}}]\n";
  EXPECT_NE(error_of(head + "local-recoding: {mode: twice}\n").find("local-recoding.mode must be one of single, fast, "
                                                                    "iterative, got 'twice'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "local-recoding: {mode: single, records: 0.1}\n")
                .find("local-recoding.records is a setting of mode: fast, got mode: single"),
            std::string::npos);
  EXPECT_NE(error_of(head + "local-recoding: {mode: fast, max-iterations: 3}\n")
                .find("local-recoding.max-iterations is a setting of mode: iterative, got mode: fast"),
            std::string::npos);
  EXPECT_NE(error_of(head + "local-recoding: {gs-factor: 2}\n").find("local-recoding.gs-factor must be in [0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of(head + "local-recoding: {mode: fast, records: 0}\n").find("must be in (0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of(head + "local-recoding: {modes: fast}\n").find("unknown key 'modes'"), std::string::npos);
}

TEST(LocalRecodingKeys, RefusesModelsArxDoesNotRecodeUnder) {
  const std::string head = adult_head(false);
  const std::string lr = "local-recoding: {mode: single}\n";
  const std::string e1 =
      error_of(head + "privacy:\n  - k-anonymity: {k: 5}\n  - sample-uniqueness: {threshold: 0.1}\n" + lr);
  EXPECT_NE(e1.find("job.yaml:"), std::string::npos) << e1;
  EXPECT_NE(e1.find("ARX does not recode locally under sample-uniqueness"), std::string::npos) << e1;
  const std::string e2 =
      error_of(head + "privacy: [{population-uniqueness: {threshold: 0.01, population-size: 1000000}}]\n" + lr);
  EXPECT_NE(e2.find("population-uniqueness"), std::string::npos) << e2;
  // k-map estimated from a population size is recoded (as k-anonymity).
  EXPECT_EQ(error_of(head + "privacy: [{k-map: {k: 5, population-size: 100000}}]\n" + lr), "");
  // Every quality model (ARX's passes take any): those without a gs-factor
  // ignore the passes'.
  for (const char* model : {"entropy", "height", "discernability", "aecs", "ambiguity", "kl-divergence",
                            "normalized-entropy", "precision"})
    EXPECT_EQ(error_of(head + "privacy: [{k-anonymity: {k: 5}}]\nquality: {model: " + model + "}\n" + lr), "")
        << model;
}

// With a research subset, ARX recodes under every model whose
// isLocalRecodingSupported() is true (k-anonymity and the others use its
// Inclusion criterion), not under δ-presence (DPresence: false).
TEST(LocalRecodingKeys, ResearchSubsetButNotDeltaPresence) {
  const std::string head = adult_head(false) + "subset: {column: sex, value: Female}\n";
  const std::string lr = "local-recoding: {mode: single}\n";
  EXPECT_EQ(error_of(head + "privacy: [{k-anonymity: {k: 5}}]\n" + lr), "");
  const std::string models = "privacy:\n  - k-anonymity: {k: 2}\n  - delta-presence: {min: 0, max: 0.5}\n";
  const std::string e = error_of(head + models + lr);
  EXPECT_NE(e.find("job.yaml:15:"), std::string::npos) << e;
  EXPECT_NE(e.find("ARX does not recode locally under delta-presence"), std::string::npos) << e;
  EXPECT_EQ(error_of(head + models), "");
}

// ------------------------------------------------------------ against ARX

const std::vector<nlohmann::json>& arx_runs() { return testing::reference_runs("arx-local-recoding.json"); }

// The shared data folder's cup (every column quasi-identifying).
std::string cup_head() {
  const std::filesystem::path dir = testing::reference_dataset_dir(nlohmann::json{{"dataset", "cup"}});
  std::string yaml = "input: {path: '" + (dir / "cup.csv").string() + "', delimiter: ';'}\nattributes:\n";
  for (const char* q : {"ZIP", "AGE", "GENDER", "INCOME", "STATE", "RAMNTALL", "NGIFTALL", "MINRAMNT"})
    yaml += fmt::format("  {}: {{role: quasi-identifying, hierarchy: '{}'}}\n", q,
                        (dir / "hierarchies" / (std::string(q) + ".csv")).string());
  return yaml;
}

// The job of reference run `ref`; `subset`: the research subset's file for
// a run with "subset" (testing::write_subset).
std::string job_of(const nlohmann::json& ref, const std::string& subset = "") {
  const std::string model = ref["model"].get<std::string>();
  std::string yaml = ref.value("dataset", "adult") == "cup"
                         ? cup_head()
                         : adult_head(model != "k", !ref.value("response_quasi_identifying", true));
  // age microaggregated, generalized before or not.
  if (ref.contains("microaggregation")) {
    const nlohmann::json& m = ref["microaggregation"];
    const std::size_t at = yaml.find("\n  age: ") + 1;
    const std::size_t end = yaml.find('\n', at);
    const std::string hierarchy = testing::example_path("adult") + "/hierarchies/age.csv";
    yaml.replace(at, end - at,
                 fmt::format("  age: {{role: quasi-identifying, transformation: microaggregation, function: {}{}}}",
                             m["function"].get<std::string>(),
                             m["generalize_before"].get<bool>() ? ", generalize-before: true, hierarchy: '" + hierarchy + "'"
                                                                : std::string()));
  }
  if (model == "k")
    yaml += fmt::format("privacy: [{{k-anonymity: {{k: {}}}}}]\n", ref["k"].get<int>());
  else if (model == "distinct-l")
    yaml += fmt::format("privacy: [{{l-diversity: {{attribute: occupation, variant: distinct, l: {}}}}}]\n",
                        ref["l"].get<double>());
  else if (model == "recursive-cl")
    yaml += fmt::format("privacy: [{{l-diversity: {{attribute: occupation, variant: recursive, l: {}, c: {}}}}}]\n",
                        ref["l"].get<double>(), ref["c"].get<double>());
  else
    yaml += fmt::format("privacy: [{{t-closeness: {{attribute: occupation, distance: equal, t: {}}}}}]\n",
                        ref["t"].get<double>());
  // Loss, or the run's quality model (classification with its response variables).
  const std::string quality = ref.contains("quality") ? ref["quality"].dump() : "{model: loss}";
  yaml += fmt::format("suppression-limit: {}\nquality: {}\noutput: {{utility: false}}\n",
                      ref["suppression_limit"].get<double>(), quality);
  if (!subset.empty()) yaml += "subset: {file: '" + subset + "'}\n";
  nlohmann::json lr = {{"mode", ref["mode"]}, {"gs-factor", ref["gs_factor"]}};
  if (ref.contains("max_iterations")) lr["max-iterations"] = ref["max_iterations"];
  if (ref.contains("adaption_factor")) lr["adaption-factor"] = ref["adaption_factor"];
  if (ref.contains("records")) lr["records"] = ref["records"];
  return yaml + "local-recoding: " + lr.dump() + "\n";
}

bool equal_loss(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max({std::abs(a), std::abs(b), 1e-300}); }

// The runs in which a pass of deid's (the index into ARX's steps) has a
// lower loss than ARX's: below gs-factor 0.5 ARX bounds precision with
// g * l / L and AECS with n / (classes * a), which a transformation that
// suppresses records falls below (quality/precision.h, aecs.h), and its
// Flash prunes the optimum. The replay of Flash reaches ARX's
// transformation; deid releases the optimum.
const std::map<std::string, std::size_t> kBelowArx = {
    {"adult_k10_s0.05_single_gs0.2_q_precision", 0},
    {"adult_k5_s0.05_iterative_gs0.05_it100_a0.05_q_aecs", 1},
};

class ArxLocalRecoding : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxLocalRecoding, SamePassesAndReleaseAsArx) {
  const nlohmann::json& ref = arx_runs()[GetParam()];
  if (ref.value("dataset", "adult") == "cup" &&
      !std::filesystem::exists(testing::reference_dataset_dir(ref) / "cup.csv"))
    GTEST_SKIP() << "cup is not in the shared data folder beside the repository";
  const testing::TempDir dir("local_recoding_" + ref["name"].get<std::string>());
  const std::string subset = ref.contains("subset") ? testing::write_subset(ref, dir / "subset.csv") : "";
  const Job job = parse_job(job_of(ref, subset), ref["name"].get<std::string>() + ".yaml", "");
  std::unique_ptr<PreparedJob> prepared = prepare(job);
  const Anonymization a = run_search(*prepared);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.result["transformation"], ref["global"]["transformation"]);
  // Loss to the bit; classification to about 1e-14 (ARX sums its penalties
  // class by class, deid per weight: quality/classification.h).
  if (ref.contains("quality"))
    EXPECT_TRUE(equal_loss(a.search.best->quality.value, ref["global"]["information_loss"].get<double>()))
        << a.search.best->quality.value;
  else
    EXPECT_EQ(a.search.best->quality.value, ref["global"]["information_loss"].get<double>());
  ASSERT_TRUE(a.local);
  // ARX's steps are the passes that found an optimum.
  std::vector<const nlohmann::json*> passes;
  for (const nlohmann::json& p : a.result["local_recoding"]["passes"])
    if (p["solution_found"].get<bool>()) passes.push_back(&p);
  const nlohmann::json& expected = ref["passes"];
  const auto below = kBelowArx.find(ref["name"].get<std::string>());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_LT(i, passes.size()) << "ARX has more passes";
    const nlohmann::json& p = *passes[i];
    const double loss = p["information_loss"].get<double>(), arx_loss = expected[i]["information_loss"].get<double>();
    if (below != kBelowArx.end() && below->second == i) {
      // deid's optimum is below ARX's; the replay keeps ARX's, with its
      // loss. The passes and the release differ from here on.
      EXPECT_LT(loss, arx_loss - 1e-9) << "pass " << i + 1;
      std::size_t found = 0;
      for (const LocalRecodingPass& pass : a.local->passes)
        if (pass.best && found++ == i) {
          ASSERT_TRUE(pass.arx_flash);
          nlohmann::json levels;
          for (std::size_t q = 0; q < pass.arx_flash->transformation.size(); ++q)
            levels[prepared->problem.qi_names[q]] = pass.arx_flash->transformation[q];
          EXPECT_EQ(levels, expected[i]["transformation"]);
          EXPECT_NEAR(pass.arx_flash->quality.value, arx_loss, 1e-10);
        }
      EXPECT_GT(found, i);
      return;
    }
    // Among optima of equal loss, the one ARX's Flash keeps.
    ASSERT_EQ(p["transformation"], expected[i]["transformation"])
        << "pass " << i + 1 << ": loss " << loss << ", ARX's " << arx_loss
        << (equal_loss(loss, arx_loss) ? " (a tie broken differently)" : "");
    // ARX sums doubles class by class before truncating each attribute's
    // loss to 10 digits, deid integers (quality/loss.h): a value near a
    // truncation step may differ in its 11th digit. The publisher's payout
    // (about 10^6) deid adds in fixed point (quality/publisher_payout.h).
    EXPECT_NEAR(loss, arx_loss, std::max(1e-10, 1e-12 * std::abs(arx_loss))) << "pass " << i + 1;
    EXPECT_EQ(p["recoded"], expected[i]["recoded"]) << "pass " << i + 1;
  }
  EXPECT_EQ(passes.size(), expected.size());
  EXPECT_EQ(a.local->suppressed_before, ref["suppressed_before"].get<std::uint64_t>());
  EXPECT_EQ(a.local->suppressed_after, ref["suppressed_after"].get<std::uint64_t>());
  // With the subset, ARX's outliers outside it stay so (deid: '*').
  if (ref.contains("suppressed_outside")) {
    EXPECT_EQ(a.result["subset"]["suppressed_outside"], ref["suppressed_outside"]);
  }
  std::ostringstream out;
  write_output(*prepared, a.search.best->transformation, *a.classes, out, &*a.local);
  EXPECT_EQ(sha256_hex(out.str()), ref["release_sha256"].get<std::string>());
  // With the subset, deid verify (which finds the subset again from the
  // job) accepts the mixed release and the result's counts.
  if (subset.empty()) return;
  const std::string job_path = dir / "job.yaml";
  std::ofstream(job_path) << job_of(ref, subset);
  const std::string files = " --output '" + (dir / "out.csv") + "' --result '" + (dir / "result.json") + "'";
  ASSERT_EQ(testing::run_deid("-q anonymize '" + job_path + "'" + files, dir / "stdout", dir / "stderr"), 0)
      << testing::slurp(dir / "stderr");
  EXPECT_EQ(testing::slurp(dir / "out.csv"), out.str());
  EXPECT_EQ(testing::run_deid("verify '" + job_path + "'" + files, dir / "verify.out", dir / "verify.err"), 0)
      << testing::slurp(dir / "verify.out") << testing::slurp(dir / "verify.err");
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxLocalRecoding, ::testing::Range<std::size_t>(0, arx_runs().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return deid::testing::test_name(arx_runs()[info.param]["name"].get<std::string>());
                         });

// ------------------------------------------------- the release and verify

TEST(LocalRecodingRelease, PassColumnAndVerifier) {
  const testing::TempDir dir("local_recoding_release");
  const std::string adult = testing::example_path("adult");
  const std::string job_path = dir / "job.yaml";
  std::ofstream(job_path) << adult_head(false)
                          << "privacy: [{k-anonymity: {k: 5}}]\nsuppression-limit: 0.05\nquality: {model: loss}\n"
                             "local-recoding: {mode: iterative, column: pass}\n"
                          << "output: {path: '" << (dir / "out.csv") << "', result: '" << (dir / "result.json")
                          << "', utility: false}\n";
  const Job job = read_job(job_path);
  const Anonymization a = anonymize(job);
  ASSERT_TRUE(a.found);
  const nlohmann::json& lr = a.result["local_recoding"];
  EXPECT_EQ(lr["suppressed_before"], 1346);
  EXPECT_EQ(lr["suppressed_after"], 3);
  EXPECT_EQ(lr["passes"].size(), 2u);
  EXPECT_EQ(lr["column"], "pass");

  // The pass column is last; a suppressed record's pass is '*'.
  std::ifstream in(dir / "out.csv");
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.substr(header.rfind(';') + 1), "pass");
  std::uint64_t per_pass[3] = {0, 0, 0}, stars = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string pass = line.substr(line.rfind(';') + 1);
    if (pass == "*")
      ++stars;
    else
      ++per_pass[std::stoi(pass)];
  }
  EXPECT_EQ(stars, 3u);
  EXPECT_EQ(per_pass[1], lr["passes"][0]["recoded"].get<std::uint64_t>());
  EXPECT_EQ(per_pass[2], lr["passes"][1]["recoded"].get<std::uint64_t>());
  EXPECT_EQ(per_pass[0] + per_pass[1] + per_pass[2] + stars, 30162u);

  verify::Options options;
  options.input_path = adult + "/adult.csv";
  options.output_path = dir / "out.csv";
  for (const char* q : kQis) options.quasi_identifiers.push_back({q, adult + "/hierarchies/" + q + ".csv"});
  options.k = 5;
  options.suppression_limit = 0.05;
  options.local_recoding = true;
  options.pass_column = "pass";
  const verify::Report ok = verify::check(options);
  EXPECT_TRUE(ok.valid()) << ok.to_string();
  EXPECT_EQ(ok.suppressed_records, 3u);

  // Without local recoding the verifier wants one level per attribute.
  verify::Options single = options;
  single.local_recoding = false;
  single.pass_column.clear();
  const verify::Report strict = verify::check(single);
  EXPECT_FALSE(strict.valid());

  // A broken mixed release: one record of pass 2 shown at pass 1's levels
  // (a class of one), and one pass-1 record claiming pass 2.
  std::ifstream again(dir / "out.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(again, line);) lines.push_back(line);
  std::size_t moved = 0;
  for (std::size_t i = 1; i < lines.size() && !moved; ++i)
    if (lines[i].ends_with(";2")) moved = i;
  ASSERT_NE(moved, 0u);
  // The record's own values at the global levels would be a class of its
  // own: give it its input values instead (level 0), keeping pass 2.
  std::ifstream input(adult + "/adult.csv");
  std::vector<std::string> rows;
  for (std::string line; std::getline(input, line);) rows.push_back(line);
  std::string original = rows[moved];
  if (!original.empty() && original.back() == '\r') original.pop_back();
  lines[moved] = original + ";2";
  {
    std::ofstream broken(dir / "broken.csv");
    for (const std::string& l : lines) broken << l << '\n';
  }
  options.output_path = dir / "broken.csv";
  const verify::Report bad = verify::check(options);
  EXPECT_FALSE(bad.valid());
  EXPECT_TRUE(bad.has(verify::Violation::Kind::class_too_small) ||
              bad.has(verify::Violation::Kind::not_single_level))
      << bad.to_string();
  EXPECT_TRUE(bad.has(verify::Violation::Kind::not_single_level)) << bad.to_string();
}

// Microaggregation: each pass aggregates its own classes (ARX copies each
// pass's microaggregated values into the output); deid verify checks each
// class's aggregate within its pass (the pass column).
// Generalized before aggregation too: verify then finds age's level per
// pass, and without the pass column leaves the aggregates unchecked.
class MicroaggregatedPerPass : public ::testing::TestWithParam<bool> {};

TEST_P(MicroaggregatedPerPass, ValuesArePerPassAndVerified) {
  const bool generalized = GetParam();
  const testing::TempDir dir(generalized ? "local_recoding_micro_g" : "local_recoding_micro");
  const std::string job = dir / "job.yaml";
  std::string head = adult_head(false);
  const std::size_t at = head.find("\n  age: ") + 1;
  const std::string hierarchy = testing::example_path("adult") + "/hierarchies/age.csv";
  head.replace(at, head.find('\n', at) - at,
               "  age: {role: quasi-identifying, transformation: microaggregation" +
                   (generalized ? ", generalize-before: true, hierarchy: '" + hierarchy + "'}" : std::string("}")));
  const std::string rest = "privacy: [{k-anonymity: {k: 5}}]\nsuppression-limit: 0.05\nquality: {model: loss}\n"
                           "output: {utility: false}\nlocal-recoding: {mode: iterative, gs-factor: 0.05";
  std::ofstream(job) << head << rest << ", column: pass}\n";
  const std::string files = " --output '" + (dir / "out.csv") + "' --result '" + (dir / "result.json") + "'";
  ASSERT_EQ(testing::run_deid("-q anonymize '" + job + "'" + files, dir / "stdout", dir / "stderr"), 0)
      << testing::slurp(dir / "stderr");
  EXPECT_EQ(testing::run_deid("verify '" + job + "'" + files, dir / "verify.out", dir / "verify.err"), 0)
      << testing::slurp(dir / "verify.out") << testing::slurp(dir / "verify.err");
  // Two passes recode records; each shows a mean of its pass's class.
  const nlohmann::json r = nlohmann::json::parse(testing::slurp(dir / "result.json"));
  ASSERT_EQ(r["local_recoding"]["passes"].size(), 2u);
  std::ifstream in(dir / "out.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::size_t first = 0;
  for (std::size_t i = 1; i < lines.size() && !first; ++i)
    if (lines[i].ends_with(";2")) first = i;
  ASSERT_NE(first, 0u);
  // age is the second column: a record of pass 2 showing another value is
  // caught.
  const std::size_t from = lines[first].find(';') + 1, to = lines[first].find(';', from);
  lines[first].replace(from, to - from, "999");
  {
    std::ofstream broken(dir / "broken.csv");
    for (const std::string& l : lines) broken << l << '\n';
  }
  EXPECT_NE(testing::run_deid("verify '" + job + "' --output '" + (dir / "broken.csv") + "'", dir / "bad.out",
                              dir / "bad.err"),
            0);
  EXPECT_NE(testing::slurp(dir / "bad.out").find("'999' is not the mean of its class"), std::string::npos)
      << testing::slurp(dir / "bad.out");
  if (!generalized) return;
  // Without the pass column age's level per pass is unknown.
  const std::string plain = dir / "plain.yaml";
  std::ofstream(plain) << head << rest << "}\n";
  ASSERT_EQ(testing::run_deid("-q anonymize '" + plain + "' --output '" + (dir / "plain.csv") + "'", dir / "p.out",
                              dir / "p.err"),
            0);
  EXPECT_EQ(testing::run_deid("verify '" + plain + "' --output '" + (dir / "plain.csv") + "'", dir / "pv.out",
                              dir / "pv.err"),
            0)
      << testing::slurp(dir / "pv.out");
  EXPECT_NE(testing::slurp(dir / "pv.out").find("without local-recoding.column"), std::string::npos)
      << testing::slurp(dir / "pv.out");
}

INSTANTIATE_TEST_SUITE_P(LocalRecodingRelease, MicroaggregatedPerPass, ::testing::Bool());

// deid verify with the result: the counts of the release after its passes.
TEST(LocalRecodingRelease, CommandLineVerifiesTheResult) {
  const testing::TempDir dir("local_recoding_cli");
  const std::string job = dir / "job.yaml";
  std::ofstream(job) << adult_head(false)
                     << "privacy: [{k-anonymity: {k: 10}}]\nsuppression-limit: 0.05\nquality: {model: loss}\n"
                        "local-recoding: {mode: single}\noutput: {utility: false}\n";
  ASSERT_EQ(testing::run_deid("-q anonymize '" + job + "' --output '" + (dir / "out.csv") + "' --result '" +
                                  (dir / "result.json") + "'",
                              dir / "stdout", dir / "stderr"),
            0)
      << testing::slurp(dir / "stderr");
  const nlohmann::json r = nlohmann::json::parse(testing::slurp(dir / "result.json"));
  EXPECT_EQ(r["local_recoding"]["suppressed_before"], 1437);
  EXPECT_EQ(r["local_recoding"]["suppressed_after"], 36);
  EXPECT_EQ(r["local_recoding"]["starred_records"], 36);
  EXPECT_EQ(testing::run_deid("verify '" + job + "' --output '" + (dir / "out.csv") + "' --result '" +
                                  (dir / "result.json") + "'",
                              dir / "verify.out", dir / "verify.err"),
            0)
      << testing::slurp(dir / "verify.out") << testing::slurp(dir / "verify.err");
  const std::string out = testing::slurp(dir / "verify.out");
  EXPECT_NE(out.find("local recoding: each value at a level of its input value"), std::string::npos) << out;
  EXPECT_NE(out.find("result counts        ok"), std::string::npos) << out;
}

// deid verify with a research subset: the records outside it stay
// suppressed (pass '*'), the passes recode suppressed records of the
// subset only, and the verifier, finding the subset again from the job,
// accepts the mixed release and its result's counts; a record outside the
// subset shown with its values fails it.
TEST(LocalRecodingRelease, CommandLineVerifiesAReleaseWithASubset) {
  const testing::TempDir dir("local_recoding_subset_cli");
  const std::string subset = testing::write_subset(nlohmann::json{{"dataset", "adult"}}, dir / "subset.csv");
  const std::string job = dir / "job.yaml";
  std::ofstream(job) << adult_head(false)
                     << "privacy: [{k-anonymity: {k: 5}}]\nsuppression-limit: 0.05\nquality: {model: loss}\n"
                        "local-recoding: {mode: iterative, column: pass}\noutput: {utility: false}\n"
                     << "subset: {file: '" << subset << "'}\n";
  ASSERT_EQ(testing::run_deid("-q anonymize '" + job + "' --output '" + (dir / "out.csv") + "' --result '" +
                                  (dir / "result.json") + "'",
                              dir / "stdout", dir / "stderr"),
            0)
      << testing::slurp(dir / "stderr");
  const nlohmann::json r = nlohmann::json::parse(testing::slurp(dir / "result.json"));
  const nlohmann::json& lr = r["local_recoding"];
  const std::uint64_t in_subset = r["subset"]["records"].get<std::uint64_t>();
  const std::uint64_t outside = r["subset"]["suppressed_outside"].get<std::uint64_t>();
  EXPECT_EQ(in_subset + outside, 30162u);
  EXPECT_EQ(lr["suppressed_before"], r["suppressed_records"]);
  ASSERT_GE(lr["passes"].size(), 1u);
  EXPECT_EQ(lr["passes"][0]["records"], lr["suppressed_before"]);
  EXPECT_LT(lr["suppressed_after"].get<std::uint64_t>(), lr["suppressed_before"].get<std::uint64_t>());
  // Every record outside the subset, and those of the subset still
  // suppressed, show pass '*'; the others one of the passes.
  std::ifstream in(dir / "out.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 30163u);
  std::uint64_t stars = 0, recoded = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string pass = lines[i].substr(lines[i].rfind(';') + 1);
    stars += pass == "*";
    recoded += pass != "*" && pass != "0";
  }
  EXPECT_EQ(stars, outside + lr["suppressed_after"].get<std::uint64_t>());
  EXPECT_EQ(recoded, lr["recoded"].get<std::uint64_t>());
  const auto verify = [&](const std::string& output) {
    return testing::run_deid("verify '" + job + "' --output '" + output + "' --result '" + (dir / "result.json") + "'",
                             dir / "verify.out", dir / "verify.err");
  };
  ASSERT_EQ(verify(dir / "out.csv"), 0) << testing::slurp(dir / "verify.out") << testing::slurp(dir / "verify.err");
  const std::string out = testing::slurp(dir / "verify.out");
  EXPECT_NE(out.find("research subset      ok"), std::string::npos) << out;
  EXPECT_NE(out.find("result counts        ok"), std::string::npos) << out;

  // The first record outside the subset (data row 1) shown with its input
  // values and pass 1.
  std::ifstream input(testing::example_path("adult") + "/adult.csv");
  std::string header, first;
  std::getline(input, header);
  std::getline(input, first);
  if (!first.empty() && first.back() == '\r') first.pop_back();
  ASSERT_TRUE(lines[1].ends_with(";*"));
  lines[1] = first + ";1";
  {
    std::ofstream broken(dir / "broken.csv");
    for (const std::string& l : lines) broken << l << '\n';
  }
  EXPECT_NE(verify(dir / "broken.csv"), 0);
  EXPECT_NE(testing::slurp(dir / "verify.out").find("outside the research subset are not suppressed"), std::string::npos)
      << testing::slurp(dir / "verify.out");
}

// The report of a release with local recoding: the passes, and the risk,
// suppression and class sizes of the mixed release (its classes, not the
// global transformation's).
TEST(LocalRecodingRelease, ReportShowsThePassesAndTheMixedRelease) {
  const testing::TempDir dir("local_recoding_report");
  const std::string job_path = dir / "job.yaml";
  std::ofstream(job_path) << adult_head(false)
                          << "privacy: [{k-anonymity: {k: 5}}]\nsuppression-limit: 0.05\nquality: {model: loss}\n"
                             "local-recoding: {mode: iterative}\n"
                          << "output: {path: '" << (dir / "out.csv") << "', report: '" << (dir / "report.html")
                          << "', utility: false}\n";
  const Anonymization a = anonymize(read_job(job_path));
  ASSERT_TRUE(a.found);
  ASSERT_TRUE(a.local.has_value());
  const nlohmann::json& lr = a.result["local_recoding"];
  std::ifstream in(dir / "report.html");
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<h2>Local recoding</h2>"), std::string::npos);
  // One row for the global transformation, one per pass.
  const std::size_t section = page.find("<h2>Local recoding</h2>");
  const std::size_t end = page.find("</table>", section);
  std::size_t rows = 0;
  for (std::size_t at = page.find("<tr><td>", section); at < end; at = page.find("<tr><td>", at + 1)) ++rows;
  EXPECT_EQ(rows, 1 + lr["passes"].size());
  EXPECT_NE(page.find(fmt::format("<b>{}</b> of {} records were released", lr["recoded"].get<std::uint64_t>(),
                                  lr["suppressed_before"].get<std::uint64_t>())),
            std::string::npos);
  // The class sizes are the mixed release's: the report's class count is
  // the result's local_recoding.classes, and they cover the records not shown
  // suppressed.
  EXPECT_NE(page.find(fmt::format("The release: {} classes, the smallest of {} records.", lr["classes"].get<std::uint64_t>(),
                                  lr["smallest_class_size"].get<std::uint64_t>())),
            std::string::npos);
  ASSERT_EQ(a.local->class_sizes.size(), lr["classes"].get<std::uint64_t>());
  std::uint64_t kept = 0;
  for (const std::uint64_t s : a.local->class_sizes) {
    EXPECT_GE(s, 5u);
    kept += s;
  }
  EXPECT_EQ(kept + lr["starred_records"].get<std::uint64_t>(), 30162u);
  // The suppression chart shows the starred records' share, not the global
  // transformation's 1,346.
  const double share = static_cast<double>(lr["starred_records"].get<std::uint64_t>()) / 30162.0;
  EXPECT_NE(page.find(fmt::format("{:.2f} %", 100 * share)), std::string::npos) << share;
}

// A given transformation (search.transformation) is the global one, and
// the passes search the records it suppressed: given the optimum, the
// release is the searched one's; given another, its suppressed records are
// recoded and every class still has k records.
TEST(LocalRecodingRelease, AfterAGivenTransformation) {
  const testing::TempDir dir("local_recoding_given");
  const auto run = [&](const std::string& given, const std::string& name) {
    const std::string job_path = dir / (name + ".yaml");
    std::ofstream(job_path) << adult_head(false)
                            << "privacy: [{k-anonymity: {k: 5}}]\nsuppression-limit: 0.05\nquality: {model: loss}\n"
                               "local-recoding: {mode: iterative}\n"
                            << (given.empty() ? "" : "search: {transformation: {" + given + "}}\n")
                            << "output: {path: '" << (dir / (name + ".csv")) << "', utility: false}\n";
    return anonymize(read_job(job_path));
  };
  const Anonymization searched = run("", "searched");
  ASSERT_TRUE(searched.found);
  std::string optimum;
  for (const auto& [q, level] : searched.result["transformation"].items())
    optimum += (optimum.empty() ? "" : ", ") + q + ": " + std::to_string(level.get<int>());
  const Anonymization same = run(optimum, "same");
  ASSERT_TRUE(same.found);
  EXPECT_EQ(same.result["local_recoding"], searched.result["local_recoding"]);
  EXPECT_EQ(testing::slurp(dir / "same.csv"), testing::slurp(dir / "searched.csv"));

  const Anonymization other = run(
      "sex: 0, age: 2, race: 0, marital-status: 1, education: 2, native-country: 1, workclass: 1, occupation: 2, "
      "salary-class: 0",
      "other");
  ASSERT_TRUE(other.found);
  const nlohmann::json& lr = other.result["local_recoding"];
  EXPECT_EQ(lr["suppressed_before"], other.result["suppressed_records"]);
  EXPECT_GE(lr["passes"].size(), 1u);
  EXPECT_LT(lr["suppressed_after"].get<std::uint64_t>(), lr["suppressed_before"].get<std::uint64_t>());
  EXPECT_GE(lr["smallest_class_size"].get<std::uint64_t>(), 5u);
  EXPECT_NE(testing::slurp(dir / "other.csv"), testing::slurp(dir / "searched.csv"));
}


}  // namespace
}  // namespace deid
