// Which class of a transformation each histogram entry falls in, for what
// needs the records of each class: microaggregation's distinct values, the
// quality models of KL divergence and classification, the risk of the
// records a solution keeps.
#pragma once

#include <cstdint>
#include <vector>

#include "deid/lattice.h"

namespace deid {

struct Problem;
struct Classes;


// Histogram entry -> class of `classes` (the classes of `t`, from a
// Checker): entry_class when the classes carry it, else by generalizing
// each entry's key to `t` and finding its class. Throws std::logic_error
// when an entry has no class (classes that are not those of `t`).
std::vector<std::uint32_t> entry_classes(const Problem& problem, const Transformation& t, const Classes& classes);

}  // namespace deid
