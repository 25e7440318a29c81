#include "deid/search.h"

namespace deid {

std::unique_ptr<SearchAlgorithm> make_search(SearchSpec::Algorithm algorithm, const Problem& problem) {
  (void)problem;
  switch (algorithm) {
    case SearchSpec::Algorithm::exhaustive:
    case SearchSpec::Algorithm::automatic:
    case SearchSpec::Algorithm::optimal:
    case SearchSpec::Algorithm::best_first:
      // The pruning algorithms land with the search issue; until then every
      // choice runs the exhaustive search, which is optimal.
      return make_exhaustive_search();
  }
  return make_exhaustive_search();
}

}  // namespace deid
