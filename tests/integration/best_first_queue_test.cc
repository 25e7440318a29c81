// Best-first's bounded queue (search.max-queue; docs/search.md,
// "Best-first's queue"):
// - on small random problems with a queue of a few entries, whenever the
//   outcome claims optimality it is exhaustive search's transformation and
//   loss, and the drops that happened were all above the best's loss;
//   otherwise it is stopped by "max-queue", its answer (if any) is a
//   solution no better than the optimum, and the smallest key dropped is a
//   lower bound of the optimum's loss;
// - the queue never holds more than the limit plus one expansion;
// - the same outcome for 1 and 4 threads;
// - the result's `stopped_by` through the pipeline (the job key:
//   HeuristicSearchKeys.MaxQueueIsASettingOfBestFirst).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <fmt/format.h>

#include <random>
#include <string>

#include "deid/job.h"
#include "deid/pipeline.h"
#include "deid/search.h"
#include "support/random_problem.h"
#include "support/reference.h"

namespace deid {
namespace {

constexpr double kLimits[] = {0.0, 0.02, 0.1, 0.3};

SearchOutcome run_best_first(const Problem& problem, std::uint64_t max_queue) {
  BestFirstOptions options;
  options.max_queue = max_queue;
  Evaluator ev(problem, SearchLimits{});
  return make_best_first_search(options)->run(ev);
}

TEST(BestFirstQueue, ClaimsTheOptimumOnlyWhenTheDropsCouldNotHoldABetterSolution) {
  std::mt19937_64 rng(20261130);
  int dropped_and_proven = 0, not_proven = 0, unbounded = 0;
  for (int trial = 0; trial < 200; ++trial) {
    auto rp = testing::random_problem(rng, trial % 2 ? "height" : "loss", kLimits);
    const std::string what = fmt::format("trial {}: {}", trial, rp->description);
    const Problem& problem = rp->problem;
    const std::uint64_t max_queue = std::uint64_t{2} << (trial % 6);
    Evaluator exhaustive_ev(problem, SearchLimits{});
    const SearchOutcome e = make_exhaustive_search()->run(exhaustive_ev);
    const SearchOutcome b = run_best_first(problem, max_queue);
    const nlohmann::json& s = b.statistics;
    const std::uint64_t dropped = s.at("queue_dropped").get<std::uint64_t>();
    EXPECT_EQ(s.at("max_queue").get<std::uint64_t>(), max_queue) << what;
    // A drop keeps max_queue / 2; between drops an expansion adds at most
    // one child per attribute.
    EXPECT_LE(s.at("largest_queue").get<std::uint64_t>(), max_queue + problem.hierarchies.size()) << what;
    EXPECT_EQ(dropped == 0, s.at("queue_dropped_key").is_null()) << what;

    if (b.optimal) {
      EXPECT_FALSE(b.stopped_by_limit) << what;
      EXPECT_TRUE(b.stopped_by.empty()) << what;
      ASSERT_EQ(e.best.has_value(), b.best.has_value()) << what;
      if (e.best) {
        EXPECT_EQ(to_string(b.best->transformation), to_string(e.best->transformation)) << what;
        EXPECT_EQ(b.best->quality.value, e.best->quality.value) << what;
      }
      if (dropped > 0) {
        ++dropped_and_proven;
        ASSERT_TRUE(b.best) << what;
        EXPECT_LT(b.best->quality.value, s.at("queue_dropped_key").get<double>()) << what;
      } else {
        ++unbounded;
      }
    } else {
      ++not_proven;
      EXPECT_TRUE(b.stopped_by_limit) << what;
      EXPECT_EQ(b.stopped_by, "max-queue") << what;
      ASSERT_GT(dropped, 0u) << what;
      const double key = s.at("queue_dropped_key").get<double>();
      if (b.best) {
        // The drop may have held a better solution: the best is not below
        // the smallest key dropped.
        EXPECT_TRUE(b.best->quality.value >= key || same_loss(b.best->quality.value, key)) << what;
        ASSERT_TRUE(e.best) << what;
        EXPECT_TRUE(b.best->solution) << what;
        // Not better than the optimum in better()'s order (losses within
        // same_loss() tie and break by rank and levels).
        EXPECT_FALSE(better(*b.best, *e.best)) << what;
      }
      // The smallest key dropped bounds the optimum from below.
      if (e.best) {
        EXPECT_LE(key, e.best->quality.value) << what;
      }
    }
  }
  // The trials reach every outcome. A drop that still proves the optimum
  // is rare: without level bounds (height) entries below a known
  // non-solution inherit their parent's key, so near the bottom most keys
  // are 0; with them (loss) the key is the entry's own bound, but the
  // queue's worse half still tends to hold keys below the optimum.
  EXPECT_GT(not_proven, 5);
  EXPECT_GT(unbounded, 5);
  EXPECT_GT(dropped_and_proven, 0);
  EXPECT_EQ(dropped_and_proven + not_proven + unbounded, 200);
}

TEST(BestFirstQueue, TheDefaultLimitDropsNothingOnSmallLattices) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    auto rp = testing::random_problem(rng, "loss", kLimits);
    Evaluator ev(rp->problem, SearchLimits{});
    const SearchOutcome b = make_best_first_search()->run(ev);
    EXPECT_TRUE(b.optimal) << rp->description;
    EXPECT_EQ(b.statistics.at("queue_dropped").get<std::uint64_t>(), 0u) << rp->description;
    EXPECT_EQ(b.statistics.at("max_queue").get<std::uint64_t>(), kBestFirstMaxQueue) << rp->description;
  }
}

TEST(BestFirstQueue, TheSameOutcomeForAnyThreadCount) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    auto rp = testing::random_problem(rng, trial % 2 ? "height" : "loss", kLimits);
    std::string first;
    for (int threads : {1, 4}) {
      const tbb::global_control control(tbb::global_control::max_allowed_parallelism, threads);
      const SearchOutcome b = run_best_first(rp->problem, 3 + trial % 5);
      const std::string text = fmt::format("{} {} {} {} {}", b.best ? to_string(b.best->transformation) : "none",
                                           b.optimal, b.checked, b.statistics.at("queue_dropped").dump(),
                                           b.statistics.at("queue_dropped_key").dump());
      if (threads == 1)
        first = text;
      else
        EXPECT_EQ(text, first) << rp->description;
    }
  }
}

// ------------------------------------------------------------- the result

TEST(BestFirstQueue, TheResultSaysTheQueueStoppedTheSearch) {
  // adult's k=5 job with a queue of 2 entries: the drops lose the optimum.
  const nlohmann::json& ref = testing::arx_adult_run("adult_k5_loss");
  Job job = testing::arx_adult_job(ref, SearchSpec::Algorithm::best_first);
  job.search.max_queue = 2;
  auto prepared = prepare(job);
  const Anonymization a = run_search(*prepared);
  const nlohmann::json& s = a.result.at("search");
  EXPECT_FALSE(a.result.at("optimal").get<bool>());
  EXPECT_TRUE(s.at("stopped_by_limit").get<bool>());
  EXPECT_EQ(s.at("stopped_by"), "max-queue");
  EXPECT_EQ(s.at("max_queue"), 2);
  EXPECT_GT(s.at("queue_dropped").get<std::uint64_t>(), 0u);
  // The smallest key dropped bounds ARX's optimum from below.
  EXPECT_LE(s.at("queue_dropped_key").get<double>(), ref["information_loss"].get<double>());
  // With the default limit the same job proves ARX's optimum.
  job.search.max_queue.reset();
  auto again = prepare(job);
  const Anonymization b = run_search(*again);
  EXPECT_TRUE(b.result.at("optimal").get<bool>());
  EXPECT_TRUE(b.result.at("search").at("stopped_by").is_null());
}

}  // namespace
}  // namespace deid
