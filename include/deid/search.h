// Search of the generalization lattice.
//
// An algorithm sees transformations, check results and (in later
// algorithms) the store of predictive properties; nothing else. It asks the
// Evaluator to check transformations; the Evaluator counts the checks,
// keeps the best solution under one fixed order (better()), enforces the
// time limit and the budget, and reports progress.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/check.h"
#include "deid/job.h"
#include "deid/lattice.h"
#include "deid/problem.h"

namespace deid {

// Whether two losses count as equal: a relative difference of at most
// 1e-12 (sums of doubles in another order differ in the last bits).
bool same_loss(double x, double y);

// Whether solution `a` is preferred to solution `b`: lower information loss;
// on equal loss (relative difference below 1e-12), lower rank; then
// lexicographically smaller levels. Every algorithm uses this order, so all
// of them return the same transformation when they prove optimality.
bool better(const CheckResult& a, const CheckResult& b);

struct SearchProgress {
  std::uint64_t checked = 0;
  std::optional<double> best_loss;
  double elapsed_seconds = 0;
  std::optional<double> fraction_done;  // when the algorithm can estimate it
};
// Called by Evaluator::check() on the thread that runs the search. It may
// throw to abandon the search (a front end's interrupt, e.g. Ctrl-C in
// Python): the exception leaves the algorithm's run() and the pipeline's
// run_search() as it is, no check is left running (checks computed ahead
// of time have finished by then), and the problem can be searched again.
using ProgressFn = std::function<void(const SearchProgress&)>;

struct SearchLimits {
  std::optional<double> time_limit_seconds;
  std::optional<std::uint64_t> max_checks;
};

// A solution on the risk-utility frontier (Evaluator::frontier()): no other
// solution the search checked has both less (or equal) information loss and
// a lower (or equal) average prosecutor risk.
struct FrontierPoint {
  Transformation transformation;
  double information_loss = 0;
  double highest_risk = 0;  // 1 / the smallest released class
  double average_risk = 0;  // released classes / released records
  std::uint64_t suppressed_records = 0;
};

class Evaluator {
 public:
  Evaluator(const Problem& problem, SearchLimits limits, ProgressFn progress = {});

  // Checks `t` (every call is one check) and updates the best solution.
  const CheckResult& check(const Transformation& t);
  // Speculation: computes the checks of `ts` ahead of time, concurrently
  // (Checker::prefetch), at most as many as the budget of checks has left.
  // A later check() of one of them takes its result and counts it then;
  // the others cost time only: counts, statistics and the best solution
  // change only through check(), in the algorithm's order, so they are the
  // same for any number of threads. Replaces the previous speculation.
  // `around`: see Checker::prefetch.
  void prefetch(std::span<const Transformation> ts, const Transformation* around = nullptr);
  bool prefetched(const Transformation& t) const { return checker_.prefetched(t); }
  // True once the time limit or the budget of checks is used up (the
  // search's, or the phase's: set_phase_limits()).
  bool exhausted() const;
  // True once the time limit is used up (false without one).
  bool out_of_time() const;
  // The search's limits, as given.
  const SearchLimits& limits() const { return limits_; }
  // Narrower limits for one phase of a search (best-first's warm start runs
  // heuristics with a share of the time and checks): until cleared,
  // exhausted() and out_of_time() also answer true once the phase's time
  // (seconds since the evaluator started) or its checks (counted from the
  // evaluator's start) are reached. The search's own limits still hold.
  void set_phase_limits(SearchLimits phase) { phase_ = phase; }
  void clear_phase_limits() { phase_ = SearchLimits{}; }
  const std::optional<CheckResult>& best() const { return best_; }
  // The best solutions checked so far, best first under better(), each
  // transformation once; at most keep_best_solutions() of them. The first
  // is best(). Maintained only when a check is a solution and beats the
  // last one kept, so it costs nothing on the other checks.
  const std::vector<CheckResult>& best_solutions() const { return best_solutions_; }
  void keep_best_solutions(std::size_t n);
  // The solutions checked so far that no other checked solution dominates
  // in (information loss, average risk), by increasing loss (and so
  // decreasing risk). Of two with equal figures the first checked stays, so
  // the list is the same for any thread count.
  const std::vector<FrontierPoint>& frontier() const { return frontier_; }
  std::size_t keep_best_solutions() const { return keep_best_; }
  static constexpr std::size_t kDefaultBestSolutions = 10;
  std::uint64_t checked() const { return checked_; }
  double elapsed_seconds() const;
  double time_to_best_seconds() const { return time_to_best_; }
  // How the checker computed the classes (roll-ups, cache), for the result.
  const CheckStatistics& check_statistics() const { return checker_.statistics(); }
  // Lets algorithms report how far they are, for the progress display.
  void set_fraction_done(double f) { fraction_done_ = f; }
  // Whether checks may stop once they cannot be a solution (on by default;
  // Checker::set_stop_early).
  void set_stop_early(bool on) { checker_.set_stop_early(on); }
  // Whether every check measures its quality, solution or not
  // (Checker::set_measure_all; stops early no more). For ARX's heuristics.
  void set_measure_all(bool on) {
    checker_.set_measure_all(on);
    checker_.set_stop_early(!on);
  }
  const Problem& problem() const { return problem_; }

 private:
  const Problem& problem_;
  SearchLimits limits_;
  SearchLimits phase_;
  ProgressFn progress_;
  Checker checker_;
  CheckResult last_;
  std::optional<CheckResult> best_;
  std::vector<CheckResult> best_solutions_;  // sorted by better(), distinct transformations
  std::size_t keep_best_ = kDefaultBestSolutions;
  std::vector<FrontierPoint> frontier_;  // by increasing loss, strictly decreasing average risk
  void add_to_frontier(const CheckResult& r);
  std::uint64_t checked_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_report_;
  double time_to_best_ = 0;
  std::optional<double> fraction_done_;
};

struct SearchOutcome {
  std::string algorithm;
  std::optional<CheckResult> best;
  bool optimal = false;          // the search proved that best is optimal
  bool stopped_by_limit = false; // time limit or budget reached
  // The limit that stopped it when it is the algorithm's own (the job key
  // without "search.", e.g. "max-queue"); empty for the evaluator's (time
  // limit, budget of checks).
  std::string stopped_by;
  std::uint64_t checked = 0;
  double time_to_best_seconds = 0;
  nlohmann::json statistics = nlohmann::json::object();  // algorithm-specific
};

class SearchAlgorithm {
 public:
  virtual ~SearchAlgorithm() = default;
  virtual std::string name() const = 0;
  virtual SearchOutcome run(Evaluator& evaluator) = 0;
};

// Exhaustive search: checks every transformation. The oracle for the others.
std::unique_ptr<SearchAlgorithm> make_exhaustive_search();

// Globally-optimal search with complete information about both predictive
// properties (papers/000; the role Flash plays in ARX): a greedy ascent for
// an early good solution, then a bottom-up sweep by rank that skips what the
// property stores prune and, for monotonic privacy models, binary-searches
// greedy paths for the boundary of the solutions. Returns exactly
// exhaustive search's transformation. Memory grows with the checks, time
// with the lattice (the sweep enumerates it). docs/search.md.
std::unique_ptr<SearchAlgorithm> make_optimal_search();

// Largest lattice for which `auto` runs the optimal search; above it, auto
// runs best-first (docs/search.md says why).
inline constexpr LatticeIndex kOptimalMaxLattice = 1'000'000;

// Best-first's warm start (docs/search.md, "Warm start"): before its own
// search, best-first runs bottom-up Lightning (at most `bottom_up_checks`
// checks, half of what is left of a budget of checks and half of the time
// left) and then the genetic algorithm (`genetic`), through the same
// evaluator. Their best solution is best-first's bound from its first
// check on, and its answer if a limit stops it before it finds a better
// one. Every such solution was checked, so the proven optimum and its tie
// breaks are those of the search without warm start. Only on lattices
// larger than `min_lattice`: on smaller ones best-first proves the optimum
// in seconds, with fewer checks than the heuristics make.
inline constexpr std::uint64_t kWarmStartBottomUpChecks = 1'000;
struct WarmStart {
  bool enabled = false;
  std::uint64_t bottom_up_checks = kWarmStartBottomUpChecks;
  LatticeIndex min_lattice = kOptimalMaxLattice;
  GeneticSpec genetic;
};

// Best-first's queue holds at most this many entries unless the job says
// otherwise (search.max-queue): 1 GiB of queue on lattices of at most 2^48
// transformations (16 bytes per entry), 2 GiB above.
inline constexpr std::uint64_t kBestFirstMaxQueue = std::uint64_t{1} << 26;
struct BestFirstOptions {
  WarmStart warm;
  // Above this many entries the queue drops its worse half (docs/search.md,
  // "Best-first's queue"). At least 2.
  std::uint64_t max_queue = kBestFirstMaxQueue;
};

// Best-first branch and bound, bottom-up (papers/000, the BFS method):
// a priority queue ordered by the generalization-only loss bound, pruning
// with the property stores. Run to the end it is optimal (exhaustive
// search's transformation); stopped by the time limit or the budget of
// checks it returns the best solution so far with optimal = false. Memory
// grows with the queue (bounded by max_queue) and the stores, never with
// the lattice. When the queue drops entries that might hold a better
// solution, the outcome is not optimal and stopped_by is "max-queue".
// Without warm start; make_search() (a job's best-first) gives it one.
std::unique_ptr<SearchAlgorithm> make_best_first_search();
// Best-first with the warm start `warm` (when warm.enabled).
std::unique_ptr<SearchAlgorithm> make_best_first_search(const WarmStart& warm);
std::unique_ptr<SearchAlgorithm> make_best_first_search(const BestFirstOptions& options);

// No search: checks the one transformation `t` (the job's
// search.transformation, `deid anonymize --transformation`) and takes it
// when it is a solution. Its outcome is never `optimal`; its statistics say
// whether `t` satisfied the job and, when not, how many records it would
// have to suppress. REQUIRES: t is in the problem's lattice.
std::unique_ptr<SearchAlgorithm> make_given_search(Transformation t);

class DifferentialPrivacyModel;

// The SafePub search of (epsilon, delta)-differential privacy (Bild, Kuhn,
// Prasser, PoPETs 2018, Algorithm 1; ARX's DataDependentEDDPAlgorithm):
// from the top of the lattice, `steps` steps down, each picking the next
// transformation among the predecessors seen so far with the exponential
// mechanism over the quality model's score (quality/dp_score.h); releases
// the best-scoring transformation it visited. Never `optimal`; no
// predictive property is used. The model's sample is the problem's research
// subset (histogram counts: sampled records, Histogram::population: all).
// The same seed gives the same walk for any thread count. docs/search.md.
std::unique_ptr<SearchAlgorithm> make_safepub_search(const DifferentialPrivacyModel& model);

// ARX's heuristic searches for large lattices, after ARX 3.9.2's semantics
// (docs/search.md, "The heuristic searches"): Lightning bottom-up
// (BEST_EFFORT_BOTTOM_UP) or top-down (BEST_EFFORT_TOP_DOWN), and the
// genetic algorithm (BEST_EFFORT_GENETIC) with `spec`'s settings and seed.
// Every check measures the loss (Evaluator::set_measure_all); each
// transformation is checked once; the release is ARX's optimum among the
// checks (strictly lower loss, or equal loss and lower rank); never
// `optimal`. With ARX's limits they check ARX's transformations in ARX's
// order.
std::unique_ptr<SearchAlgorithm> make_lightning_search(bool top_down);
std::unique_ptr<SearchAlgorithm> make_genetic_search(const GeneticSpec& spec);

// Default of search.heuristic-threshold: `auto` proves the optimum (optimal,
// best-first) on lattices up to this size. Above it `auto` runs a search
// that cannot prove it within any useful time: with the threshold set in
// the job, bottom-up Lightning (ARX's choice for lattices above its
// heuristic search threshold); at the default, best-first with its warm
// start up to kAutoTopDownLattice and top-down above, each with
// kDefaultHeuristicTimeLimitSeconds unless the job sets a time limit
// (docs/search.md, "auto").
inline constexpr std::uint64_t kDefaultHeuristicThreshold = 10'000'000'000ULL;
inline constexpr LatticeIndex kAutoTopDownLattice = 10'000'000'000'000ULL;

// ARX's default time limit of its heuristic searches (30 s,
// ARXConfiguration.heuristicSearchTimeLimit): bottom-up, top-down and
// genetic use it when the job sets no search.time-limit.
inline constexpr double kDefaultHeuristicTimeLimitSeconds = 30.0;

// Whether `a` is one of ARX's heuristic searches.
bool is_heuristic(SearchSpec::Algorithm a);

// What `auto` resolves to for `problem` (never automatic): safepub with
// data-dependent differential privacy; above the heuristic threshold
// bottom-up when `heuristic_threshold` is given (ARX's rule) and top-down
// at the default (kDefaultHeuristicThreshold; the search that wins on
// lattices that large, docs/search.md "auto"); else optimal up to
// kOptimalMaxLattice and best-first (with its warm start) above.
SearchSpec::Algorithm choose_algorithm(const Problem& problem,
                                       std::optional<std::uint64_t> heuristic_threshold = std::nullopt);
// The time limit of a search run for `spec`: the job's, else
// kDefaultHeuristicTimeLimitSeconds for the heuristics and for `auto`'s
// best-first above the heuristic threshold, else none.
std::optional<double> default_time_limit(const SearchSpec& spec, const Problem& problem);
// `spec.algorithm`, or choose_algorithm() for auto.
SearchSpec::Algorithm resolve_algorithm(const SearchSpec& spec, const Problem& problem);

// The algorithm for `algorithm` (auto: choose_algorithm()).
std::unique_ptr<SearchAlgorithm> make_search(SearchSpec::Algorithm algorithm, const Problem& problem);
// The algorithm `spec` names (auto: resolve_algorithm()), with its settings.
std::unique_ptr<SearchAlgorithm> make_search(const SearchSpec& spec, const Problem& problem);

}  // namespace deid
