// Best-first's warm start (docs/search.md, "Warm start") and what `auto`
// picks (docs/search.md, "auto"):
// - on small random problems, best-first with the warm start returns
//   exactly exhaustive search's transformation and loss, as without it;
// - stopped by a budget of checks or a time limit, it is never worse than
//   the solutions of its warm start, nor than bottom-up Lightning run alone
//   with the warm start's share of the budget;
// - the same outcome for 1, 2 and 4 threads;
// - the evaluator's phase limits;
// - best-first on a lattice beyond 2^48 transformations (its queue's
//   32-byte entries; the others pack into 16 bytes);
// - auto: optimal, best-first, top-down by lattice size; bottom-up above a
//   threshold the job sets (ARX's rule); the default time limits.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "deid/pipeline.h"
#include "deid/search.h"
#include "support/random_problem.h"

namespace deid {
namespace {

// Limits of the suppression (shares of the rows) the random problems draw from.
constexpr double kLimits[] = {0.0, 0.02, 0.1, 0.3};

std::unique_ptr<testing::RandomProblem> random_problem(std::mt19937_64& rng, const std::string& quality) {
  return testing::random_problem(rng, quality, kLimits);
}

SearchOutcome run(SearchAlgorithm& algorithm, const Problem& problem, SearchLimits limits = {}) {
  Evaluator ev(problem, limits);
  return algorithm.run(ev);
}

// The warm start on any lattice (by default only above a million); `small`:
// heuristics too short to check these lattices whole, so that best-first's
// own search has something left to find.
WarmStart warm(bool small = false) {
  WarmStart w;
  w.enabled = true;
  w.min_lattice = 0;
  if (small) {
    w.bottom_up_checks = 3;
    w.genetic.subpopulation_size = 3;
    w.genetic.iterations = 2;
  }
  return w;
}

TEST(WarmStart, BestFirstReturnsExhaustiveSearchsTransformationWithAndWithoutIt) {
  std::mt19937_64 rng(20261129);
  int with_solution = 0, improved_on_warm_start = 0;
  for (int trial = 0; trial < 120; ++trial) {
    auto rp = random_problem(rng, trial % 2 ? "height" : "loss");
    const std::string what = fmt::format("trial {}: {}", trial, rp->description);
    const SearchOutcome e = run(*make_exhaustive_search(), rp->problem);
    const SearchOutcome cold = run(*make_best_first_search(), rp->problem);
    const SearchOutcome hot = run(*make_best_first_search(warm(trial % 4 < 2)), rp->problem);
    ASSERT_EQ(e.best.has_value(), hot.best.has_value()) << what;
    EXPECT_TRUE(hot.optimal) << what;
    EXPECT_FALSE(hot.stopped_by_limit) << what;
    ASSERT_TRUE(hot.statistics.contains("warm_start")) << what;
    EXPECT_FALSE(cold.statistics.contains("warm_start")) << what;
    if (!e.best) continue;
    ++with_solution;
    ASSERT_TRUE(cold.best) << what;
    EXPECT_EQ(to_string(hot.best->transformation), to_string(e.best->transformation)) << what;
    EXPECT_EQ(hot.best->quality.value, e.best->quality.value) << what;
    EXPECT_EQ(to_string(hot.best->transformation), to_string(cold.best->transformation)) << what;
    const nlohmann::json& ws = hot.statistics.at("warm_start");
    ASSERT_FALSE(ws.at("information_loss").is_null()) << what;
    EXPECT_GE(ws.at("information_loss").get<double>(), hot.best->quality.value) << what;
    if (ws.at("information_loss").get<double>() > hot.best->quality.value) ++improved_on_warm_start;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(with_solution, 60);
  // Loss and Height have optima the heuristics miss: best-first's own
  // search must have had something to do.
  EXPECT_GT(improved_on_warm_start, 0);
}

TEST(WarmStart, StoppedByALimitItIsNeverWorseThanItsHeuristics) {
  std::mt19937_64 rng(77);
  int stopped = 0, compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    auto rp = random_problem(rng, "loss");
    const std::string what = fmt::format("trial {}: {}", trial, rp->description);
    for (std::uint64_t budget : {2u, 6u, 20u, 60u}) {
      SearchLimits limits;
      limits.max_checks = budget;
      const SearchOutcome hot = run(*make_best_first_search(warm()), rp->problem, limits);
      // Bottom-up alone with the warm start's share of the budget checks
      // what the warm start's first phase checks.
      SearchLimits half;
      half.max_checks = budget / 2;
      const SearchOutcome bottom_up = run(*make_lightning_search(false), rp->problem, half);
      EXPECT_LE(hot.checked, budget + 1) << what;  // Lightning may take one check past its budget
      if (hot.stopped_by_limit) ++stopped;
      EXPECT_FALSE(hot.stopped_by_limit && hot.optimal) << what;
      if (bottom_up.best) {
        ++compared;
        ASSERT_TRUE(hot.best) << what << ", budget " << budget;
        EXPECT_LE(hot.best->quality.value, bottom_up.best->quality.value) << what << ", budget " << budget;
      }
      const nlohmann::json& ws = hot.statistics.at("warm_start");
      if (!ws.at("information_loss").is_null()) {
        ASSERT_TRUE(hot.best) << what;
        EXPECT_LE(hot.best->quality.value, ws.at("information_loss").get<double>()) << what;
      }
      if (::testing::Test::HasFailure()) return;
    }
    // A time limit that may stop it anywhere, even inside the warm start.
    SearchLimits limits;
    limits.time_limit_seconds = 0.002;
    const SearchOutcome hot = run(*make_best_first_search(warm()), rp->problem, limits);
    if (hot.statistics.contains("warm_start")) {
      const nlohmann::json& ws = hot.statistics.at("warm_start");
      if (!ws.at("information_loss").is_null()) {
        ASSERT_TRUE(hot.best) << what;
        EXPECT_LE(hot.best->quality.value, ws.at("information_loss").get<double>()) << what;
      }
    }
  }
  EXPECT_GT(stopped, 60);
  EXPECT_GT(compared, 30);
}

TEST(WarmStart, SameOutcomeFor1And2And4Threads) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 12; ++trial) {
    auto rp = random_problem(rng, "loss");
    std::vector<std::string> dumps;
    for (std::size_t n : {1u, 2u, 4u}) {
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, n);
      SearchOutcome o = run(*make_best_first_search(warm()), rp->problem);
      o.statistics.erase("time_to_best_ms");
      dumps.push_back(fmt::format("{} {} {} {}", o.best ? to_string(o.best->transformation) : "none",
                                  o.best ? o.best->quality.value : -1.0, o.checked, o.statistics.dump()));
    }
    EXPECT_EQ(dumps[0], dumps[1]) << rp->description;
    EXPECT_EQ(dumps[0], dumps[2]) << rp->description;
  }
}

TEST(WarmStart, PhaseLimitsStopTheEvaluatorUntilCleared) {
  std::mt19937_64 rng(11);
  auto rp = random_problem(rng, "loss");
  Evaluator ev(rp->problem, SearchLimits{});
  const Transformation bottom = rp->problem.lattice().bottom();
  EXPECT_FALSE(ev.exhausted());
  SearchLimits phase;
  phase.max_checks = 1;
  ev.set_phase_limits(phase);
  EXPECT_FALSE(ev.exhausted());
  ev.check(bottom);
  EXPECT_TRUE(ev.exhausted());
  EXPECT_FALSE(ev.out_of_time());
  ev.clear_phase_limits();
  EXPECT_FALSE(ev.exhausted());
  phase = SearchLimits{};
  phase.time_limit_seconds = 0.0;
  ev.set_phase_limits(phase);
  EXPECT_TRUE(ev.out_of_time());
  EXPECT_TRUE(ev.exhausted());
  ev.clear_phase_limits();
  EXPECT_FALSE(ev.out_of_time());
}

// 50 attributes of two levels (2^50 transformations: the queue keeps
// 32-byte entries). Two records differ in the last attribute only, so with
// k = 2 and nothing suppressed the optimum generalizes that one alone.
struct TwoRecords {
  Dataset data;
  Problem problem;
};
std::unique_ptr<TwoRecords> two_records_50() {
  auto out = std::make_unique<TwoRecords>();
  std::string csv, row0, row1;
  for (int a = 0; a < 50; ++a) {
    csv += fmt::format("{}a{}", a ? ";" : "", a);
    row0 += fmt::format("{}v0", a ? ";" : "");
    row1 += fmt::format("{}v{}", a ? ";" : "", a == 49 ? 1 : 0);
  }
  out->data = read_dataset_text(csv + "\n" + row0 + "\n" + row1 + "\n", "wide.csv", CsvOptions{';'});
  const HierarchyTable table = read_hierarchy_text("v0;*\nv1;*\n", "two-levels.csv", CsvOptions{';'});
  const Dataset& data = out->data;
  Problem& pr = out->problem;
  for (int a = 0; a < 50; ++a) {
    pr.qi_names.push_back(data.columns[a].name);
    pr.qi_columns.push_back(a);
    pr.hierarchies.push_back(Generalization::build(table, data.columns[a], "wide.csv"));
  }
  pr.histogram = build_histogram(data, pr.qi_columns);
  pr.rows = data.rows;
  pr.max_suppressed = 0;
  QualitySpec q;
  q.model = "loss";
  pr.quality = make_quality_model(q);
  pr.privacy.push_back(make_privacy_model(KAnonymitySpec{2}, pr));
  return out;
}

TEST(WarmStart, BestFirstBeyondTwoToTheFortyEight) {
  const auto two = two_records_50();
  Problem& pr = two->problem;
  ASSERT_GT(pr.lattice().size(), LatticeIndex{1} << 48);
  // Above 2^28 transformations best-first keeps inherited keys whatever
  // the model (level bounds need the down-set's bits), so its queue holds
  // and orders 32-byte entries.
  for (const char* model : {"loss", "height"}) {
    QualitySpec q;
    q.model = model;
    pr.quality = make_quality_model(q);
    const SearchOutcome out = run(*make_best_first_search(), pr);
    ASSERT_TRUE(out.best) << model;
    EXPECT_TRUE(out.optimal) << model;
    Transformation expected(50, 0);
    expected[49] = 1;
    EXPECT_EQ(to_string(out.best->transformation), to_string(expected)) << model;
    EXPECT_GT(out.statistics.at("dequeued").get<std::uint64_t>(), 1u) << model;
    EXPECT_FALSE(out.statistics.at("stores").at("insufficient_quality").contains("by_bound")) << model;
  }
}

// search.warm-start: a job's best-first runs its warm start on this lattice
// (above a million) unless the job turns it off; the optimum is the same.
TEST(WarmStart, TheJobTurnsItOnAndOff) {
  const auto two = two_records_50();
  SearchSpec spec;
  spec.algorithm = SearchSpec::Algorithm::best_first;
  const SearchOutcome on = run(*make_search(spec, two->problem), two->problem);
  spec.warm_start = false;
  const SearchOutcome off = run(*make_search(spec, two->problem), two->problem);
  EXPECT_TRUE(on.statistics.contains("warm_start"));
  EXPECT_FALSE(off.statistics.contains("warm_start"));
  ASSERT_TRUE(on.best && off.best);
  EXPECT_TRUE(on.optimal && off.optimal);
  EXPECT_EQ(to_string(on.best->transformation), to_string(off.best->transformation));
}

// `n` attributes of two levels: 2^n transformations.
Problem binary_lattice(const Dataset& data, const HierarchyTable& table, int n) {
  Problem p;
  for (int i = 0; i < n; ++i) p.hierarchies.push_back(Generalization::build(table, data.columns[0], "two.csv"));
  return p;
}

TEST(WarmStart, AutoPicksBySizeAndTheJobsThreshold) {
  const Dataset data = read_dataset_text("a\nv0\nv1\n", "two.csv", CsvOptions{';'});
  const HierarchyTable table = read_hierarchy_text("v0;*\nv1;*\n", "two-levels.csv", CsvOptions{';'});
  const Problem small = binary_lattice(data, table, 10);   // 1,024
  const Problem middle = binary_lattice(data, table, 22);  // 4.2 M
  const Problem wide = binary_lattice(data, table, 36);    // 6.9e10: above the heuristic threshold
  const Problem huge = binary_lattice(data, table, 44);    // 1.8e13: above kAutoTopDownLattice
  EXPECT_GT(wide.lattice().size(), kDefaultHeuristicThreshold);
  EXPECT_LE(wide.lattice().size(), kAutoTopDownLattice);
  EXPECT_GT(huge.lattice().size(), kAutoTopDownLattice);
  EXPECT_EQ(choose_algorithm(small), SearchSpec::Algorithm::optimal);
  EXPECT_EQ(choose_algorithm(middle), SearchSpec::Algorithm::best_first);
  EXPECT_EQ(choose_algorithm(wide), SearchSpec::Algorithm::best_first);
  EXPECT_EQ(choose_algorithm(huge), SearchSpec::Algorithm::top_down);
  EXPECT_EQ(choose_algorithm(huge, kDefaultHeuristicThreshold), SearchSpec::Algorithm::bottom_up);
  EXPECT_EQ(choose_algorithm(wide, kDefaultHeuristicThreshold), SearchSpec::Algorithm::bottom_up);

  SearchSpec spec;  // auto, no time limit
  EXPECT_FALSE(default_time_limit(spec, middle));
  EXPECT_EQ(default_time_limit(spec, wide), kDefaultHeuristicTimeLimitSeconds);
  EXPECT_EQ(default_time_limit(spec, huge), kDefaultHeuristicTimeLimitSeconds);
  EXPECT_EQ(make_search(spec, huge)->name(), "top-down");
  EXPECT_EQ(make_search(spec, wide)->name(), "best-first");
  spec.time_limit_seconds = 10.0;
  EXPECT_EQ(default_time_limit(spec, wide), 10.0);
  spec.time_limit_seconds.reset();
  spec.algorithm = SearchSpec::Algorithm::best_first;  // asked for: runs until it proves the optimum
  EXPECT_FALSE(default_time_limit(spec, wide));
  spec.algorithm = SearchSpec::Algorithm::genetic;
  EXPECT_EQ(default_time_limit(spec, small), kDefaultHeuristicTimeLimitSeconds);
}

}  // namespace
}  // namespace deid
