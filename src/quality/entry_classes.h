// Which class of a transformation each histogram entry falls in, for the
// quality models that need the records of each class (microaggregation's
// distinct values, KL divergence's input distribution).
#pragma once

#include <cstdint>
#include <vector>

#include "deid/lattice.h"

namespace deid {
struct Problem;
struct Classes;
}  // namespace deid

namespace deid::quality {

// Histogram entry -> class of `classes` (the classes of `t`, from a
// Checker): entry_class when the classes carry it, else by generalizing
// each entry's key to `t` and finding its class. Throws std::logic_error
// when an entry has no class (classes that are not those of `t`).
std::vector<std::uint32_t> entry_classes(const Problem& problem, const Transformation& t, const Classes& classes);

}  // namespace deid::quality
