// Non-overlapping random samples of the rows of a table (papers/003, "Focus
// of PUMF": each public use file is "a different non-overlapping 10% random
// sample from the population DAD data set", drawn after the population was
// de-identified).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace deid {

// Draws one simple random sample without replacement per fraction, no row
// in two samples. Sample i has round(fractions[i] * rows) rows, listed in
// ascending row order (so that a sample keeps the table's order).
// Deterministic: the same rows, fractions and seed give the same samples on
// every platform (a partial Fisher-Yates shuffle driven by std::mt19937_64,
// whose output the C++ standard fixes, with rejection sampling for bounded
// draws instead of the implementation-defined std distributions).
// Throws std::invalid_argument when a fraction is outside [0, 1] or the
// samples together need more rows than the table has.
std::vector<std::vector<std::uint64_t>> draw_disjoint_samples(std::uint64_t rows, std::span<const double> fractions,
                                                              std::uint64_t seed);

}  // namespace deid
