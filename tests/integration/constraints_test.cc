// Generalization constraints (min-level, max-level), attribute weights and a
// given transformation (search.transformation), against ARX 3.9.2's results
// (tests/testdata/reference/arx-adult-constraints.json) and against
// exhaustive search of the bounded lattice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;
using deid::testing::example_path;
using deid::testing::testdata_path;

const std::vector<nlohmann::json>& reference_runs() {
  return deid::testing::reference_runs("arx-adult-constraints.json");
}

std::string scalar(const nlohmann::json& v) { return v.is_number_integer() ? std::to_string(v.get<int>()) : v.dump(); }

// The adult job of a reference run: k = 5, 5 %, the run's quality model and
// each attribute's min-level, max-level and weight.
std::string job_text(const nlohmann::json& run, const std::string& search = "optimal",
                     const std::string& extra_search = "") {
  const std::string adult = example_path("adult");
  std::string yaml = "input: {path: '" + adult + "/adult.csv', delimiter: ';'}\nattributes:\n";
  for (const char* q : {"age", "education", "marital-status", "native-country", "race", "salary-class", "sex",
                        "workclass", "occupation"}) {
    yaml += std::string("  ") + q + ": {role: quasi-identifying, hierarchy: '" + adult + "/hierarchies/" + q + ".csv'";
    if (run["attributes"].contains(q))
      for (const auto& [key, value] : run["attributes"][q].items()) yaml += ", " + key + ": " + scalar(value);
    yaml += "}\n";
  }
  yaml += "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: 5}\nsuppression-limit: 0.05\n";
  yaml += "quality: {model: " + run["quality_model"].get<std::string>();
  if (!run["aggregate"].is_null()) yaml += ", aggregate: " + run["aggregate"].get<std::string>();
  yaml += "}\nsearch: {algorithm: " + search + extra_search + "}\n";
  return yaml;
}

deid::Job job_of(const nlohmann::json& run, const std::string& search = "optimal",
                 const std::string& extra_search = "") {
  return deid::parse_job(job_text(run, search, extra_search), "constraints.yaml", ".");
}

class ArxConstraints : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxConstraints, SearchFindsArxOptimumInArxLattice) {
  const nlohmann::json& run = reference_runs()[GetParam()];
  auto prepared = deid::prepare(job_of(run));
  const deid::Problem& pr = prepared->problem;
  EXPECT_EQ(pr.quality->describe(), run["arx_quality_model"].get<std::string>());
  // ARX's loss to the last bits: the weighted aggregates are computed in
  // ARX's order.
  const deid::Anonymization a = deid::testing::expect_arx_search(*prepared, run);
  ASSERT_TRUE(a.found);
  for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
    const int level = a.result["transformation"][pr.qi_names[q]].get<int>();
    const auto& spec = run["attributes"].contains(pr.qi_names[q]) ? run["attributes"][pr.qi_names[q]] : nlohmann::json{};
    if (spec.contains("min-level")) {
      EXPECT_GE(level, spec["min-level"].get<int>());
    }
    if (spec.contains("max-level")) {
      EXPECT_LE(level, spec["max-level"].get<int>());
    }
  }
}

TEST_P(ArxConstraints, ExhaustiveSearchOfTheBoundedLatticeAgrees) {
  const nlohmann::json& run = reference_runs()[GetParam()];
  auto optimal = deid::prepare(job_of(run));
  auto exhaustive = deid::prepare(job_of(run, "exhaustive"));
  const deid::Anonymization o = deid::run_search(*optimal);
  const deid::Anonymization e = deid::run_search(*exhaustive);
  ASSERT_TRUE(e.found);
  // Exhaustive search checks exactly the bounded lattice, nothing outside.
  EXPECT_EQ(e.result["search"]["transformations_checked"].get<std::uint64_t>(),
            run["lattice_size"].get<std::uint64_t>());
  EXPECT_EQ(e.result["information_loss"], o.result["information_loss"]);
  EXPECT_EQ(e.result["transformation"], o.result["transformation"]);
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxConstraints, ::testing::Range<std::size_t>(0, 7),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return reference_runs()[info.param]["name"].get<std::string>();
                         });

TEST(ArxConstraintsReference, HasSevenRuns) { EXPECT_EQ(reference_runs().size(), 7u); }

// Equal weights, given or not, leave every loss as without weights.
TEST(Weights, EqualWeightsChangeNothing) {
  nlohmann::json plain = reference_runs()[1];
  plain["attributes"] = nlohmann::json::object();
  nlohmann::json equal = plain;
  for (const char* q : {"age", "education", "marital-status", "native-country", "race", "salary-class", "sex",
                        "workclass", "occupation"})
    equal["attributes"][q] = {{"weight", 0.3}};
  auto p = deid::prepare(job_of(plain));
  auto q = deid::prepare(job_of(equal));
  EXPECT_TRUE(q->problem.weights.empty());
  const deid::Anonymization a = deid::run_search(*p);
  const deid::Anonymization b = deid::run_search(*q);
  EXPECT_EQ(a.result["information_loss"], b.result["information_loss"]);
  EXPECT_EQ(a.result["search"]["transformations_checked"], b.result["search"]["transformations_checked"]);
}

// --- the risk-utility frontier -------------------------------------------------

// The frontier of an exhaustive search is the Pareto set, in (information
// loss, average risk), of every solution of the lattice, computed here by
// checking each transformation on its own.
TEST(Frontier, OfAnExhaustiveSearchIsTheParetoSetOfAllSolutions) {
  const nlohmann::json& run = reference_runs()[0];  // a lattice of 2,592
  auto prepared = deid::prepare(job_of(run, "exhaustive"));
  const deid::Problem& pr = prepared->problem;
  const deid::Anonymization a = deid::run_search(*prepared);
  const nlohmann::json& frontier = a.result["search"]["frontier"];

  struct Point {
    double loss, risk, highest;
  };
  std::vector<Point> all;
  deid::Checker checker(pr);
  const deid::Lattice lattice = pr.lattice();
  for (deid::LatticeIndex i = 0; i < lattice.size(); ++i) {
    deid::Classes classes;
    const deid::CheckResult r = checker.check(lattice.at(i), &classes);
    if (!r.solution) continue;
    std::uint64_t kept = 0, records = 0, smallest = 0;
    for (std::size_t c = 0; c < classes.size(); ++c)
      if (!classes.suppressed[c]) {
        ++kept;
        records += classes.counts[c];
        if (smallest == 0 || classes.counts[c] < smallest) smallest = classes.counts[c];
      }
    all.push_back({r.quality.value, static_cast<double>(kept) / static_cast<double>(records),
                   1.0 / static_cast<double>(smallest)});
  }
  std::vector<Point> pareto;
  for (const Point& p : all) {
    bool dominated = false;
    for (const Point& q : all)
      dominated = dominated || (q.loss <= p.loss && q.risk <= p.risk && (q.loss < p.loss || q.risk < p.risk));
    bool duplicate = false;
    for (const Point& q : pareto) duplicate = duplicate || (q.loss == p.loss && q.risk == p.risk);
    if (!dominated && !duplicate) pareto.push_back(p);
  }
  std::sort(pareto.begin(), pareto.end(), [](const Point& x, const Point& y) { return x.loss < y.loss; });
  ASSERT_GE(pareto.size(), 2u);
  ASSERT_EQ(a.result["search"]["frontier_size"].get<std::size_t>(), pareto.size());
  ASSERT_EQ(frontier.size(), std::min<std::size_t>(pareto.size(), 100));
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    EXPECT_EQ(frontier[i]["information_loss"].get<double>(), pareto[i].loss) << i;
    EXPECT_EQ(frontier[i]["average_risk"].get<double>(), pareto[i].risk) << i;
    EXPECT_EQ(frontier[i]["highest_risk"].get<double>(), pareto[i].highest) << i;
  }
  // The optimum is the frontier's first point.
  EXPECT_EQ(frontier[0]["transformation"], a.result["transformation"]);
}

// --- search.transformation ----------------------------------------------------

TEST(GivenTransformation, ReleasesTheOptimumAsTheSearchDoes) {
  const nlohmann::json& run = reference_runs()[0];
  std::string given = ", transformation: {";
  bool first = true;
  for (const auto& [name, level] : run["optimum"].items()) {
    given += (first ? "" : ", ") + name + ": " + std::to_string(level.get<int>());
    first = false;
  }
  given += "}";
  auto searched = deid::prepare(job_of(run));
  auto fixed = deid::prepare(job_of(run, "optimal", given));
  const deid::Anonymization s = deid::run_search(*searched);
  const deid::Anonymization g = deid::run_search(*fixed);
  ASSERT_TRUE(g.found);
  EXPECT_EQ(g.result["search"]["algorithm"], "given");
  EXPECT_EQ(g.result["search"]["transformations_checked"], 1);
  EXPECT_FALSE(g.result["optimal"].get<bool>());
  for (const char* key : {"transformation", "information_loss", "information_loss_per_attribute", "suppressed_records",
                          "classes", "smallest_class_size"})
    EXPECT_EQ(g.result[key], s.result[key]) << key;
}

TEST(GivenTransformation, ANonSolutionIsNoSolutionAndSaysWhy) {
  nlohmann::json run = reference_runs()[1];
  run["attributes"] = nlohmann::json::object();
  auto p = deid::prepare(job_of(run, "optimal",
                                ", transformation: {age: 0, education: 0, marital-status: 0, native-country: 0, "
                                "race: 0, salary-class: 0, sex: 0, workclass: 0, occupation: 0}"));
  const deid::Anonymization a = deid::run_search(*p);
  EXPECT_FALSE(a.found);
  EXPECT_FALSE(a.result["search"]["given_is_solution"].get<bool>());
  // Every record of a class smaller than 5 at level 0, counted in full (the
  // check does not stop early): more than the 5 % limit.
  EXPECT_GT(a.result["search"]["given_violating_records"].get<std::uint64_t>(),
            a.result["suppression_limit_records"].get<std::uint64_t>());
}

std::string given_error(const std::string& given, std::size_t run_index = 0) {
  const nlohmann::json& run = reference_runs()[run_index];
  try {
    auto p = deid::prepare(job_of(run, "optimal", given));
    deid::given_transformation(p->job, p->problem);
  } catch (const deid::JobError& e) {
    return e.what();
  }
  return "";
}

TEST(GivenTransformation, RefusesWhatTheLatticeDoesNotHold) {
  const std::string all = "education: 1, marital-status: 1, native-country: 1, race: 0, salary-class: 0, sex: 0, "
                          "workclass: 1, occupation: 2";
  // Run 0 bounds age to [1, 3].
  EXPECT_NE(given_error(", transformation: {age: 0, " + all + "}").find("outside its min-level and max-level [1, 3]"),
            std::string::npos);
  EXPECT_NE(given_error(", transformation: {age: 9, " + all + "}").find("above its hierarchy's top level 4"),
            std::string::npos);
  EXPECT_NE(given_error(", transformation: {age: 2, income: 1, " + all + "}").find("'income', which is not a quasi"),
            std::string::npos);
  const std::string missing = given_error(", transformation: {age: 2}");
  EXPECT_NE(missing.find("gives no level for "), std::string::npos) << missing;
  EXPECT_NE(missing.find("'education'"), std::string::npos) << missing;
  EXPECT_EQ(missing.find("'age'"), std::string::npos) << missing;
  // The message names the job file's line of the mapping.
  EXPECT_NE(given_error(", transformation: {age: 2}").find("constraints.yaml:"), std::string::npos);
}

TEST(GivenTransformation, ParsesTheOptionsText) {
  const auto t = deid::parse_transformation(" age=2, sex = 0 ,race=1", "--transformation");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], (std::pair<std::string, int>{"age", 2}));
  EXPECT_EQ(t[1], (std::pair<std::string, int>{"sex", 0}));
  EXPECT_EQ(t[2], (std::pair<std::string, int>{"race", 1}));
  for (const char* bad : {"age", "age=", "=2", "age=2,", "age=-1", "age=256", "age=1.5", "age=1,age=2"})
    EXPECT_THROW(deid::parse_transformation(bad, "--transformation"), deid::JobError) << bad;
}

// --- deid verify -----------------------------------------------------------------

// The verifier reads the bounds from the job: a release whose level of an
// attribute lies outside them fails with level_outside_bounds.
TEST(VerifyConstraints, ALevelOutsideTheBoundsIsAViolation) {
  const fs::path dir = fs::temp_directory_path() / ("deid_constraints_verify_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  nlohmann::json run = reference_runs()[1];
  run["attributes"] = nlohmann::json::object();
  std::ofstream(dir / "free.yaml") << job_text(run);
  run["attributes"] = {{"age", {{"max-level", 2}}}};
  std::ofstream(dir / "bounded.yaml") << job_text(run);
  run["attributes"] = {{"age", {{"min-level", 3}, {"max-level", 3}}}};
  std::ofstream(dir / "exact.yaml") << job_text(run);
  const std::string out = (dir / "out.csv").string(), so = (dir / "so").string(), se = (dir / "se").string();
  ASSERT_EQ(deid::testing::run_deid("-q anonymize '" + (dir / "free.yaml").string() + "' --output '" + out + "'", so, se),
            0);
  // The optimum releases age at level 3.
  EXPECT_EQ(deid::testing::run_deid("verify '" + (dir / "exact.yaml").string() + "' --output '" + out + "'", so, se), 0)
      << deid::testing::slurp(so);
  EXPECT_EQ(deid::testing::run_deid("verify '" + (dir / "bounded.yaml").string() + "' --output '" + out + "'", so, se),
            1);
  EXPECT_NE(deid::testing::slurp(so).find("'age' is generalized at level 3, outside its min-level and max-level [0, 2]"),
            std::string::npos)
      << deid::testing::slurp(so);
  fs::remove_all(dir);
}

// The command line: an empty or malformed --transformation is exit 2 with
// the option named, and nothing is written.
TEST(GivenTransformationCli, MalformedOptionIsExitTwo) {
  const fs::path dir = fs::temp_directory_path() / ("deid_constraints_cli_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "job.yaml") << job_text(reference_runs()[1]);
  const std::string so = (dir / "so").string(), se = (dir / "se").string();
  for (const char* bad : {"''", "'age=1,'", "'age=x'"}) {
    EXPECT_EQ(deid::testing::run_deid("anonymize '" + (dir / "job.yaml").string() + "' --output '" +
                                          (dir / "out.csv").string() + "' --transformation " + bad,
                                      so, se),
              2)
        << bad;
    EXPECT_NE(deid::testing::slurp(se).find("--transformation: "), std::string::npos) << deid::testing::slurp(se);
    EXPECT_FALSE(fs::exists(dir / "out.csv"));
  }
  fs::remove_all(dir);
}

// --- job errors ---------------------------------------------------------------

std::string job_error(const std::string& text) {
  try {
    auto p = deid::prepare(deid::parse_job(text, "bad.yaml", "."));
  } catch (const deid::JobError& e) {
    return e.what();
  }
  return "";
}

TEST(ConstraintErrors, NameTheLineAndTheProblem) {
  nlohmann::json run = reference_runs()[0];
  run["attributes"] = {{"age", {{"max-level", 7}}}};
  const std::string above = job_error(job_text(run));
  EXPECT_NE(above.find("max-level 7 is above its hierarchy's top level 4"), std::string::npos) << above;
  EXPECT_NE(above.find("bad.yaml:3"), std::string::npos) << above;
  run["attributes"] = {{"age", {{"min-level", 3}, {"max-level", 2}}}};
  EXPECT_NE(job_error(job_text(run)).find("max-level 2 is below min-level 3"), std::string::npos);
  run["attributes"] = {{"age", {{"weight", 1.5}}}};
  EXPECT_NE(job_error(job_text(run)).find("weight must be in [0, 1]"), std::string::npos);
  run["attributes"] = {{"age", {{"min-level", -1}}}};
  EXPECT_NE(job_error(job_text(run)).find("min-level must be an integer >= 0"), std::string::npos);
  const std::string adult = example_path("adult");
  const std::string insensitive =
      "input: {path: '" + adult + "/adult.csv', delimiter: ';'}\nattributes:\n  age: {role: insensitive, weight: 1}\n";
  EXPECT_NE(job_error(insensitive).find("'weight' is only used for quasi-identifying attributes"), std::string::npos);
}

}  // namespace
