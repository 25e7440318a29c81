#include "deid/search.h"

namespace deid {

// The optimal search sweeps the lattice (a few store queries per
// transformation), so its time grows with the lattice even where it checks
// little; best-first never enumerates the lattice. Up to a million
// transformations the sweep costs well under a second and the optimal search
// checks fewer transformations (docs/search.md, measurements).
SearchSpec::Algorithm choose_algorithm(const Problem& problem) {
  return problem.lattice().size() <= kOptimalMaxLattice ? SearchSpec::Algorithm::optimal
                                                        : SearchSpec::Algorithm::best_first;
}

std::unique_ptr<SearchAlgorithm> make_search(SearchSpec::Algorithm algorithm, const Problem& problem) {
  if (algorithm == SearchSpec::Algorithm::automatic) algorithm = choose_algorithm(problem);
  switch (algorithm) {
    case SearchSpec::Algorithm::exhaustive: return make_exhaustive_search();
    case SearchSpec::Algorithm::optimal: return make_optimal_search();
    case SearchSpec::Algorithm::best_first:
    case SearchSpec::Algorithm::automatic: break;
  }
  return make_best_first_search();
}

}  // namespace deid
