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

// Information loss of class `c` alone, as the job's quality model measures
// one class (QualityModel::class_loss, after ARX's
// Metric.getInformationLoss(transformation, entry)): for Loss the job's
// aggregate over the quasi-identifiers of count * share; for the other
// models a function of the class's size. Empty when the problem has no
// quality model.
std::optional<double> class_information_loss(const Problem& problem, const Transformation& t,
                                             const Classes& classes, std::size_t c);

// The classes of `t` not yet suppressed, in the order ARX suppresses them
// (HashGroupifyDistribution): ascending size; on equal size ascending
// class information loss (above); then the class whose first record comes
// first in the data (ARX's "representative"; deid numbers classes in that
// order); with a research subset, ARX's representative is the class's last
// record of the subset in input order, and that comes first. Class losses
// are computed only when the model's can differ between classes of one
// size (class_loss_depends_on_values).
std::vector<std::uint32_t> suppression_order(const Problem& problem, const Transformation& t,
                                             const Classes& classes);

// The first `prefix` classes of suppression_order(), computed without the
// full order: every class smaller than the last one selected, and of that
// size the first ones by (information loss, representative as above).
// Information losses are computed only for the classes of that one size.
// The result is in no particular order. REQUIRES: prefix <= the number of
// classes not suppressed. `boundary`, when the caller knows it (from the
// class-size frequencies), is the size of the last class selected.
std::vector<std::uint32_t> first_for_suppression(const Problem& problem, const Transformation& t,
                                                 const Classes& classes, std::size_t prefix,
                                                 std::optional<std::uint64_t> boundary = std::nullopt);

}  // namespace deid::risk
