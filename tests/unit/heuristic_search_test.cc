// ARX's heuristic searches (docs/search.md, "The heuristic searches"):
// bottom-up and top-down Lightning and the genetic algorithm.
// - The job keys: accepted, defaults, errors.
// - On small random problems: every answer is a solution (re-checked by a
//   fresh Checker), never better than exhaustive search's optimum, never
//   claimed optimal; without limits Lightning finds a solution whenever
//   one exists (monotonic models); the limits stop the searches.
// - The same outcome for 1 and several threads; a genetic seed repeats.
// - ARX 3.9.2's runs (tests/testdata/reference/arx-heuristics.json, from
//   bench/arx/ArxHeuristics.java): the same transformation and the same
//   information loss, with as many checks, run for run.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <fmt/format.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/pipeline.h"
#include "deid/search.h"
#include "support/random_problem.h"
#include "support/reference.h"

namespace deid {
namespace {

// ---------------------------------------------------------------- job keys

const std::string kJob =
    "input: {path: data.csv}\n"
    "attributes:\n"
    "  age: {role: quasi-identifying, hierarchy: h/age.csv}\n"
    "privacy:\n"
    "  - k-anonymity: {k: 2}\n";

Job parse(const std::string& search) { return parse_job(kJob + "search: " + search + "\n", "job.yaml", "/base"); }

std::string error_of(const std::string& search) {
  try {
    parse(search);
  } catch (const JobError& e) {
    return e.what();
  }
  return "";
}

TEST(HeuristicSearchKeys, AlgorithmsAndTheirSettingsParse) {
  EXPECT_EQ(parse("{algorithm: bottom-up}").search.algorithm, SearchSpec::Algorithm::bottom_up);
  EXPECT_EQ(parse("{algorithm: top-down}").search.algorithm, SearchSpec::Algorithm::top_down);
  const Job j = parse(
      "{algorithm: genetic, subpopulation-size: 20, elite-fraction: 0.1, crossover-fraction: 0.3, "
      "mutation-probability: 0.4, immigration-fraction: 1, immigration-interval: 3, production-fraction: 0.5, "
      "iterations: 7, seed: 42, max-checks: 100, time-limit: 5s}");
  EXPECT_EQ(j.search.algorithm, SearchSpec::Algorithm::genetic);
  const GeneticSpec& g = j.search.genetic;
  EXPECT_EQ(g.subpopulation_size, 20u);
  EXPECT_EQ(g.elite_fraction, 0.1);
  EXPECT_EQ(g.crossover_fraction, 0.3);
  EXPECT_EQ(g.mutation_probability, 0.4);
  EXPECT_EQ(g.immigration_fraction, 1.0);
  EXPECT_EQ(g.immigration_interval, 3u);
  EXPECT_EQ(g.production_fraction, 0.5);
  EXPECT_EQ(g.iterations, 7u);
  EXPECT_EQ(g.seed, 42);
  EXPECT_EQ(*j.search.max_checks, 100u);
  EXPECT_EQ(parse("{algorithm: genetic, seed: arx}").search.genetic.seed, kArxDeterministicSeed);
  EXPECT_EQ(parse("{heuristic-threshold: 100000}").search.heuristic_threshold, 100000u);
  EXPECT_TRUE(parse("{algorithm: best-first}").search.warm_start);
  EXPECT_FALSE(parse("{algorithm: best-first, warm-start: false}").search.warm_start);
  EXPECT_FALSE(parse("{warm-start: false}").search.warm_start);
}

TEST(HeuristicSearchKeys, DefaultsAreArxs) {
  const GeneticSpec g = parse("{algorithm: genetic}").search.genetic;
  EXPECT_EQ(g.subpopulation_size, 100u);
  EXPECT_EQ(g.elite_fraction, 0.2);
  EXPECT_EQ(g.crossover_fraction, 0.2);
  EXPECT_EQ(g.mutation_probability, 0.2);
  EXPECT_EQ(g.immigration_fraction, 0.2);
  EXPECT_EQ(g.immigration_interval, 10u);
  EXPECT_EQ(g.production_fraction, 0.2);
  EXPECT_EQ(g.iterations, 50u);
  EXPECT_EQ(g.seed, kArxDeterministicSeed);
  EXPECT_FALSE(parse("{algorithm: bottom-up}").search.heuristic_threshold.has_value());
}

TEST(HeuristicSearchKeys, ErrorsNameTheKeyAndValue) {
  EXPECT_NE(error_of("{algorithm: lightning}").find("bottom-up, top-down, genetic"), std::string::npos)
      << error_of("{algorithm: lightning}");
  const std::string wrong_algorithm = error_of("{algorithm: bottom-up, iterations: 5}");
  EXPECT_NE(wrong_algorithm.find("search.iterations"), std::string::npos) << wrong_algorithm;
  EXPECT_NE(wrong_algorithm.find("algorithm: genetic"), std::string::npos) << wrong_algorithm;
  EXPECT_NE(error_of("{subpopulation-size: 5}").find("algorithm: auto"), std::string::npos);
  EXPECT_NE(error_of("{algorithm: genetic, elite-fraction: 1.5}").find("elite-fraction must be in [0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of("{algorithm: genetic, subpopulation-size: 0}").find("subpopulation-size"), std::string::npos);
  EXPECT_NE(error_of("{algorithm: genetic, immigration-interval: 0}").find("immigration-interval"),
            std::string::npos);
  EXPECT_NE(error_of("{algorithm: genetic, production-fraction: 0}").find("production-fraction"),
            std::string::npos);
  EXPECT_NE(error_of("{algorithm: genetic, seed: x1}").find("'x1'"), std::string::npos);
  EXPECT_NE(error_of("{heuristic-threshold: 0}").find("heuristic-threshold"), std::string::npos);
  const std::string not_best_first = error_of("{algorithm: optimal, warm-start: false}");
  EXPECT_NE(not_best_first.find("search.warm-start is a setting of best-first"), std::string::npos) << not_best_first;
  EXPECT_NE(not_best_first.find("'algorithm: optimal'"), std::string::npos) << not_best_first;
  EXPECT_NE(error_of("{warm-start: maybe}").find("warm-start"), std::string::npos) << error_of("{warm-start: maybe}");
  EXPECT_NE(error_of("{step-limit: 5}").find("unknown key"), std::string::npos) << error_of("{step-limit: 5}");
}

TEST(HeuristicSearchKeys, MaxQueueIsASettingOfBestFirst) {
  EXPECT_FALSE(parse("{algorithm: best-first}").search.max_queue);
  EXPECT_EQ(parse("{max-queue: 1000}").search.max_queue, 1000u);
  EXPECT_EQ(parse("{algorithm: best-first, max-queue: 2}").search.max_queue, 2u);
  const std::string genetic = error_of("{algorithm: genetic, max-queue: 100}");
  EXPECT_NE(genetic.find("search.max-queue is a setting of best-first"), std::string::npos) << genetic;
  EXPECT_NE(genetic.find("'algorithm: genetic'"), std::string::npos) << genetic;
  EXPECT_NE(error_of("{max-queue: 1}").find("max-queue"), std::string::npos) << error_of("{max-queue: 1}");
  EXPECT_NE(error_of("{max-queue: lots}").find("max-queue"), std::string::npos) << error_of("{max-queue: lots}");
}

// --------------------------------------------------------- random problems

// Limits of the suppression (shares of the rows) the random problems draw from.
constexpr double kLimits[] = {0.0, 0.02, 0.1};

std::unique_ptr<testing::RandomProblem> random_problem(std::mt19937_64& rng) {
  return testing::random_problem(rng, "loss", kLimits);
}

SearchOutcome run(SearchAlgorithm& algorithm, const Problem& problem, SearchLimits limits = {}) {
  Evaluator ev(problem, limits);
  return algorithm.run(ev);
}

GeneticSpec small_genetic() {
  GeneticSpec g;
  g.subpopulation_size = 8;
  g.iterations = 6;
  return g;
}

std::vector<std::unique_ptr<SearchAlgorithm>> heuristics() {
  std::vector<std::unique_ptr<SearchAlgorithm>> out;
  out.push_back(make_lightning_search(false));
  out.push_back(make_lightning_search(true));
  out.push_back(make_genetic_search(small_genetic()));
  return out;
}

TEST(HeuristicSearch, AnswersAreSolutionsNoBetterThanTheOptimumAndNeverClaimedOptimal) {
  std::mt19937_64 rng(424242);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    auto rp = random_problem(rng);
    const Problem& pr = rp->problem;
    const auto exhaustive = make_exhaustive_search();
    const SearchOutcome e = run(*exhaustive, pr);
    for (const auto& h : heuristics()) {
      const std::string what = fmt::format("trial {} {}", trial, h->name());
      const SearchOutcome o = run(*h, pr);
      EXPECT_EQ(o.algorithm, h->name());
      EXPECT_FALSE(o.optimal) << what;
      EXPECT_LE(o.checked, static_cast<std::uint64_t>(pr.lattice().size())) << what;  // each checked once
      // k-anonymity is monotonic: Lightning run to the end reaches a
      // solution whenever there is one (the queue reaches the top).
      if (h->name() != "genetic") {
        EXPECT_FALSE(o.stopped_by_limit) << what;
        EXPECT_EQ(o.best.has_value(), e.best.has_value()) << what;
      }
      if (!o.best) continue;
      ASSERT_TRUE(e.best) << what;
      Checker checker(pr);
      const CheckResult again = checker.check(o.best->transformation);
      EXPECT_TRUE(again.solution) << what;
      EXPECT_EQ(again.quality.value, o.best->quality.value) << what;
      EXPECT_GE(o.best->quality.value, e.best->quality.value * (1 - 1e-12)) << what;
      ++compared;
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(compared, 100);
}

TEST(HeuristicSearch, LimitsStopTheSearches) {
  std::mt19937_64 rng(77);
  int stopped = 0;
  for (int trial = 0; trial < 30; ++trial) {
    auto rp = random_problem(rng);
    if (rp->problem.lattice().size() < 30) continue;
    for (const auto& h : heuristics()) {
      SearchLimits limits;
      limits.max_checks = 6;
      const SearchOutcome o = run(*h, rp->problem, limits);
      // As ARX, a check started within the budget finishes an expansion's
      // test: at most one check more.
      EXPECT_LE(o.checked, 7u) << h->name();
      if (o.stopped_by_limit) ++stopped;
      EXPECT_FALSE(o.optimal);
    }
    // A time limit of zero: the first checks only.
    for (const auto& h : heuristics()) {
      SearchLimits limits;
      limits.time_limit_seconds = 0.0;
      const SearchOutcome o = run(*h, rp->problem, limits);
      EXPECT_TRUE(o.stopped_by_limit) << h->name();
      EXPECT_LE(o.checked, 2u) << h->name();
    }
  }
  EXPECT_GT(stopped, 20);
}

TEST(HeuristicSearch, GeneticRunsRepeatForASeedAndDifferAcrossSeeds) {
  std::mt19937_64 rng(99);
  int differed = 0;
  for (int trial = 0; trial < 10; ++trial) {
    auto rp = random_problem(rng);
    GeneticSpec a = small_genetic();
    const SearchOutcome x = run(*make_genetic_search(a), rp->problem);
    const SearchOutcome y = run(*make_genetic_search(a), rp->problem);
    EXPECT_EQ(x.checked, y.checked);
    EXPECT_EQ(x.best.has_value(), y.best.has_value());
    if (x.best && y.best) {
      EXPECT_EQ(x.best->transformation, y.best->transformation);
    }
    a.seed = 12345;
    const SearchOutcome z = run(*make_genetic_search(a), rp->problem);
    if (z.checked != x.checked) ++differed;
  }
  EXPECT_GT(differed, 0);
}

TEST(HeuristicSearch, SameOutcomeForOneAndSeveralThreads) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 8; ++trial) {
    auto rp = random_problem(rng);
    for (const auto& h : heuristics()) {
      std::vector<std::string> seen;
      for (int threads : {1, 4}) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        const SearchOutcome o = run(*h, rp->problem);
        seen.push_back(fmt::format("{} {} {}", o.checked, o.best ? to_string(o.best->transformation) : "-",
                                   o.best ? o.best->quality.value : -1.0));
      }
      EXPECT_EQ(seen[0], seen[1]) << h->name();
    }
  }
}

TEST(HeuristicSearch, AutoRunsBottomUpAboveTheHeuristicThreshold) {
  std::mt19937_64 rng(3);
  auto rp = random_problem(rng);
  const auto size = static_cast<std::uint64_t>(rp->problem.lattice().size());
  EXPECT_EQ(choose_algorithm(rp->problem), SearchSpec::Algorithm::optimal);
  EXPECT_EQ(choose_algorithm(rp->problem, size), SearchSpec::Algorithm::optimal);
  EXPECT_EQ(choose_algorithm(rp->problem, size - 1), SearchSpec::Algorithm::bottom_up);
  SearchSpec spec;
  spec.heuristic_threshold = size - 1;
  EXPECT_EQ(make_search(spec, rp->problem)->name(), "bottom-up");
  spec.algorithm = SearchSpec::Algorithm::genetic;
  EXPECT_EQ(make_search(spec, rp->problem)->name(), "genetic");
  EXPECT_TRUE(is_heuristic(SearchSpec::Algorithm::top_down));
  EXPECT_FALSE(is_heuristic(SearchSpec::Algorithm::best_first));
}

// ------------------------------------------------------------ against ARX

const std::vector<nlohmann::json>& arx_runs() { return testing::reference_runs("arx-heuristics.json"); }

class ArxHeuristics : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxHeuristics, SameTransformationAndLossAsArx) {
  const nlohmann::json& ref = arx_runs()[GetParam()];
  const std::string adult = testing::example_path("adult");
  std::string yaml = "input: {path: '" + adult + "/adult.csv', delimiter: ';'}\nattributes:\n";
  for (const char* q : {"sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                        "occupation", "salary-class"})
    yaml += fmt::format("  {}: {{role: quasi-identifying, hierarchy: '{}/hierarchies/{}.csv'}}\n", q, adult, q);
  yaml += fmt::format("privacy: [{{k-anonymity: {{k: {}}}}}]\nsuppression-limit: {}\nquality: {{model: loss}}\n",
                      ref["k"].get<int>(), ref["suppression_limit"].get<double>());
  nlohmann::json search = {{"algorithm", ref["algorithm"]}, {"time-limit", "1h"}};
  if (!ref["step_limit"].is_null()) search["max-checks"] = ref["step_limit"];
  if (ref.contains("genetic"))
    for (const auto& [key, value] : ref["genetic"].items()) search[key] = value;
  yaml += "search: " + search.dump() + "\n";
  const Job job = parse_job(yaml, ref["name"].get<std::string>() + ".yaml", "");
  auto prepared = prepare(job);
  const Anonymization a = run_search(*prepared);
  EXPECT_EQ(a.result["search"]["algorithm"], ref["algorithm"]);
  EXPECT_EQ(a.result["optimal"], false);
  if (ref["transformation"].is_null()) {
    EXPECT_FALSE(a.found) << a.result["transformation"].dump();
  } else {
    ASSERT_TRUE(a.found);
    EXPECT_EQ(a.result["transformation"], ref["transformation"]);
    EXPECT_EQ(a.search.best->quality.value, ref["information_loss"].get<double>());  // to the last bit
  }
  // ARX's own count of checks (getTransformationsChecked): the same walk.
  EXPECT_EQ(a.search.checked, ref["checks"].get<std::uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxHeuristics, ::testing::Range<std::size_t>(0, arx_runs().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return deid::testing::test_name(arx_runs()[info.param]["name"].get<std::string>());
                         });

}  // namespace
}  // namespace deid
