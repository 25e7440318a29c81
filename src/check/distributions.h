// Internal to src/check: the sensitive distributions of a check's classes,
// rolled up from those of its source's members (histogram entries or a
// snapshot's classes), for the models that judge distributions
// (l-diversity, t-closeness).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "deid/problem.h"

namespace deid::check_internal {

// Per sensitive attribute, the distribution of each class (offsets per class
// into codes and counts): the same shape as the histogram's per-entry
// distributions, so classes can be rolled up from either.
using ClassDistributions = Histogram::Sensitive;

// Per histogram distribution of `problem` (the sensitive attributes', then
// the insensitive response variables'), the distributions of `classes`
// classes, where source member i belongs to class member[i] and `source`
// holds the source members' distributions (the histogram's, or a
// snapshot's, per sensitive attribute). Each class's codes ascend.
std::vector<ClassDistributions> roll_up_distributions(const Problem& problem,
                                                      const std::vector<Histogram::Sensitive>& source,
                                                      const std::vector<std::uint32_t>& member, std::size_t classes);

}  // namespace deid::check_internal
