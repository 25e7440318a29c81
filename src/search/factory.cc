#include "deid/search.h"

#include "privacy/differential_privacy.h"

namespace deid {
namespace {

// The data-dependent differential privacy model of `problem`, if it has one.
const DifferentialPrivacyModel* data_dependent_dp(const Problem& problem) {
  for (const auto& m : problem.privacy)
    if (const auto* dp = dynamic_cast<const DifferentialPrivacyModel*>(m.get()); dp && dp->spec().data_dependent())
      return dp;
  return nullptr;
}

}  // namespace

// The optimal search sweeps the lattice (a few store queries per
// transformation), so its time grows with the lattice even where it checks
// little; best-first never enumerates the lattice. Up to a million
// transformations the sweep costs well under a second and the optimal search
// checks fewer transformations (docs/search.md, measurements).
// Data-dependent differential privacy has its own search (SafePub), as in
// ARX (ARXAnonymizer.getAlgorithm); the job parser refuses any other.
// Above the heuristic threshold ARX runs a heuristic instead of its optimal
// search (ARXAnonymizer.getAlgorithm refuses OPTIMAL there; its GUI then
// selects bottom-up Lightning): so does deid when the job sets the
// threshold. Without it, deid picks what won on the wide tables measured
// (docs/search.md, "Wide tables" and "auto"): best-first with its warm start
// up to kAutoTopDownLattice (15 and 20 quasi-identifiers there: its warm
// start has the better of bottom-up's and genetic's answers, and best-first
// may improve on it), top-down above (30 and 50: the only search with a
// solution within 10 s, and the best).
SearchSpec::Algorithm choose_algorithm(const Problem& problem, std::optional<std::uint64_t> heuristic_threshold) {
  if (data_dependent_dp(problem)) return SearchSpec::Algorithm::safepub;
  const LatticeIndex size = problem.lattice().size();
  if (heuristic_threshold) {
    if (size > *heuristic_threshold) return SearchSpec::Algorithm::bottom_up;
  } else if (size > kAutoTopDownLattice) {
    return SearchSpec::Algorithm::top_down;
  }
  return size <= kOptimalMaxLattice ? SearchSpec::Algorithm::optimal : SearchSpec::Algorithm::best_first;
}

std::optional<double> default_time_limit(const SearchSpec& spec, const Problem& problem) {
  if (spec.time_limit_seconds) return spec.time_limit_seconds;
  const SearchSpec::Algorithm a = resolve_algorithm(spec, problem);
  if (is_heuristic(a)) return kDefaultHeuristicTimeLimitSeconds;
  if (spec.algorithm == SearchSpec::Algorithm::automatic && a == SearchSpec::Algorithm::best_first &&
      problem.lattice().size() > spec.heuristic_threshold.value_or(kDefaultHeuristicThreshold))
    return kDefaultHeuristicTimeLimitSeconds;
  return std::nullopt;
}

bool is_heuristic(SearchSpec::Algorithm a) {
  return a == SearchSpec::Algorithm::bottom_up || a == SearchSpec::Algorithm::top_down ||
         a == SearchSpec::Algorithm::genetic;
}

SearchSpec::Algorithm resolve_algorithm(const SearchSpec& spec, const Problem& problem) {
  if (spec.algorithm != SearchSpec::Algorithm::automatic) return spec.algorithm;
  return choose_algorithm(problem, spec.heuristic_threshold);
}

std::unique_ptr<SearchAlgorithm> make_search(const SearchSpec& spec, const Problem& problem) {
  const SearchSpec::Algorithm algorithm = resolve_algorithm(spec, problem);
  if (algorithm == SearchSpec::Algorithm::genetic) return make_genetic_search(spec.genetic);
  if (algorithm == SearchSpec::Algorithm::best_first) {
    BestFirstOptions options;
    options.warm.enabled = spec.warm_start;
    options.max_queue = spec.max_queue.value_or(kBestFirstMaxQueue);
    return make_best_first_search(options);
  }
  return make_search(algorithm, problem);
}

std::unique_ptr<SearchAlgorithm> make_search(SearchSpec::Algorithm algorithm, const Problem& problem) {
  if (algorithm == SearchSpec::Algorithm::automatic) algorithm = choose_algorithm(problem);
  switch (algorithm) {
    case SearchSpec::Algorithm::bottom_up: return make_lightning_search(false);
    case SearchSpec::Algorithm::top_down: return make_lightning_search(true);
    case SearchSpec::Algorithm::genetic: return make_genetic_search(GeneticSpec{});
    case SearchSpec::Algorithm::exhaustive: return make_exhaustive_search();
    case SearchSpec::Algorithm::optimal: return make_optimal_search();
    case SearchSpec::Algorithm::safepub:
      if (const DifferentialPrivacyModel* dp = data_dependent_dp(problem))
        return make_safepub_search(*dp);
      throw JobError(Location{}, "search.algorithm: safepub needs data-dependent differential privacy (the "
                                 "differential-privacy model without 'generalization')");
    case SearchSpec::Algorithm::best_first:
    case SearchSpec::Algorithm::automatic: break;
  }
  WarmStart warm;
  warm.enabled = true;
  return make_best_first_search(warm);
}

}  // namespace deid
