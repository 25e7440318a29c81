// Risk-based record suppression (papers/002, VI-E and VI-G): the order in
// which the classes of a transformation are offered for suppression.
// Internal to deid; the binary search over that order is in
// include/deid/risk.h (find_suppression_prefix).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "deid/check.h"
#include "deid/problem.h"

namespace deid::risk {

// Information loss of class `c` alone, as ARX's quality model measures one
// class (Metric.getInformationLoss(transformation, entry)), where deid
// knows it: for Loss, the aggregate over the quasi-identifiers of
// count * share, share = hierarchy rows under the class's value / hierarchy
// rows (MetricMDNMLoss), with ARX's default aggregate, the geometric mean.
// Empty for the other models (ARX then orders by size alone).
std::optional<double> class_information_loss(const Problem& problem, const Transformation& t,
                                             const Classes& classes, std::size_t c);

// The classes of `t` not yet suppressed, in the order ARX suppresses them
// (HashGroupifyDistribution): ascending size; on equal size ascending
// class information loss (above), when the quality model has one; then
// the class whose first record comes first in the data (ARX's
// "representative"; deid numbers classes in that order).
std::vector<std::uint32_t> suppression_order(const Problem& problem, const Transformation& t,
                                             const Classes& classes);

// The first `prefix` classes of suppression_order(), computed without the
// full order: every class smaller than the last one selected, and of that
// size the first ones by (information loss, index). Information losses are
// computed only for the classes of that one size. The result is in no
// particular order. REQUIRES: prefix <= the number of classes not suppressed.
std::vector<std::uint32_t> first_for_suppression(const Problem& problem, const Transformation& t,
                                                 const Classes& classes, std::size_t prefix);

}  // namespace deid::risk
