// Flash's path probe past the low bounds (search_internal::probe_path with
// past_quality; docs/search.md, "Paths past the low bounds"), on small
// random problems against direct checks:
// - after a probe every transformation on its path is resolved, and what
//   the stores then say of each (known non-solution, known solution) is
//   what a direct check of it says;
// - the probe spends at most a binary search's checks on each of the two
//   parts of the path, from its last transformation of sufficient quality
//   up and below it, and searches below only when that one is a solution.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <random>
#include <string>
#include <vector>

#include "deid/search.h"
#include "search/predictive.h"
#include "support/random_problem.h"

namespace deid {
namespace {

constexpr double kLimits[] = {0.0, 0.02, 0.1, 0.3};

// Checks a binary search of n positions makes at most.
std::uint64_t binary_checks(std::uint64_t n) { return static_cast<std::uint64_t>(std::bit_width(n)); }

TEST(ProbePath, PastTheLowBoundsResolvesThePathAsDirectChecksSayWithinTwoBinarySearches) {
  std::mt19937_64 rng(20261130);
  int probes = 0, with_region = 0, below_searched = 0;
  for (int trial = 0; trial < 120; ++trial) {
    auto rp = testing::random_problem(rng, "loss", kLimits);
    const std::string what = fmt::format("trial {}: {}", trial, rp->description);
    const Problem& problem = rp->problem;
    Evaluator truth(problem, SearchLimits{});
    Evaluator ev(problem, SearchLimits{});
    search_internal::PredictiveProperties props(ev, /*reexamine=*/true, /*level_bounds=*/true);
    ASSERT_TRUE(props.level_bounds()) << what;
    if (!props.monotonic()) continue;
    const Lattice& lattice = props.lattice();
    // The optimum as the best, so that no check of a probe changes it (and
    // with it the boundary of quality).
    Evaluator exhaustive(problem, SearchLimits{});
    const SearchOutcome optimum = make_exhaustive_search()->run(exhaustive);
    if (!optimum.best) continue;
    props.check(optimum.best->transformation);
    std::vector<Transformation> path;
    for (int start_draw = 0; start_draw < 6; ++start_draw) {
      const Transformation start = lattice.at(static_cast<LatticeIndex>(rng() % lattice.size()));
      if (props.checked(start) || props.insufficient_protection(start) || props.sufficient_protection(start))
        continue;
      const std::uint64_t before = ev.checked();
      ASSERT_TRUE(search_internal::probe_path(props, ev, start, path, /*past_quality=*/true)) << what;
      const std::uint64_t spent = ev.checked() - before;
      ++probes;
      ASSERT_FALSE(path.empty()) << what;
      EXPECT_EQ(to_string(path.front()), to_string(start)) << what;
      // The last transformation of sufficient quality (the part from it up
      // is searched first).
      std::size_t inside = 0;
      while (inside + 1 < path.size() && !props.insufficient_quality(path[inside + 1])) ++inside;
      with_region += inside > 0;
      for (std::size_t j = 0; j < path.size(); ++j) {
        if (j > 0) {
          EXPECT_TRUE(leq(path[j - 1], path[j]) && path[j - 1] != path[j]) << what << ", position " << j;
        }
        const bool solution = truth.check(path[j]).solution;
        EXPECT_EQ(props.sufficient_protection(path[j]), solution)
            << what << ": " << to_string(path[j]) << " at " << j << " of " << path.size();
        EXPECT_EQ(props.insufficient_protection(path[j]), !solution)
            << what << ": " << to_string(path[j]) << " at " << j << " of " << path.size();
      }
      const bool inside_solution = truth.check(path[inside]).solution;
      below_searched += inside_solution && inside > 0;
      const std::uint64_t most =
          binary_checks(path.size() - inside) + (inside_solution ? binary_checks(inside) : 0);
      EXPECT_LE(spent, most) << what << ": path of " << path.size() << ", inside " << inside;
    }
  }
  // The draws reach both parts of the probe.
  EXPECT_GT(probes, 200);
  EXPECT_GT(with_region, 20);
  EXPECT_GT(below_searched, 0);
}

}  // namespace
}  // namespace deid
