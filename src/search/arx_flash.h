// ARX 3.9.2's Flash traversal, simulated on a Problem to learn which of
// several optima of equal loss ARX keeps (docs/search.md, "Against ARX
// 3.9.2"). deid's searches order equal losses by rank, then levels
// (better()); ARX keeps the first optimum its traversal meets, replacing it
// only by a strictly lower loss or an equal loss at a lower level
// (AbstractAlgorithm.trackOptimum, exact double comparison), and prunes
// with lower bounds on the way, so which optimum it returns depends on the
// order in which it checks transformations. Local recoding uses this to
// pick, among a pass's optima, the one ARX picks.
//
// The semantics, read from ARX's source (no code copied): FLASHAlgorithm
// .create's configurations by the monotonicity of privacy and utility,
// FLASHAlgorithmImpl (outer loop by level, binary phase with its priority
// queue, linear phase, lower-bound pruning), FLASHStrategy (the order of
// transformations), SolutionSpace and JHPL's lattice (identifiers, the
// order of a level's transformations and of successors, predictive
// properties).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "deid/check.h"
#include "deid/problem.h"

namespace deid {

struct ArxFlashOutcome {
  // False when the configuration is not simulated: a quality model other
  // than loss (whose monotonicity and lower bounds the simulation knows),
  // or a lattice above kArxFlashMaxNodes.
  bool simulated = false;
  std::optional<CheckResult> optimum;  // ARX's global optimum; nullopt: none found
  std::uint64_t checks = 0;            // distinct transformations checked
};

inline constexpr std::uint64_t kArxFlashMaxNodes = std::uint64_t{1} << 20;

// `distinct[q][level]`: the number of distinct values at `level` (absolute)
// of quasi-identifier q's hierarchy over the values of the whole input
// (GeneralizationHierarchy.getDistinctValues, which FLASHStrategy reads).
// `suppression_limit`: the relative limit of the run (ARX's
// getMaxOutliers; 0 makes Loss monotonic).
ArxFlashOutcome arx_flash_optimum(const Problem& problem, const std::vector<std::vector<std::uint32_t>>& distinct,
                                  double suppression_limit);

}  // namespace deid
