// The statistics of the utility analysis (docs/utility.md), as pure
// functions of counts, so that each can be tested on a hand-computed
// example.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "deid/utility.h"

namespace deid::utility {

// A plain decimal number ("39", "-1.5", "2e3"); nullopt for anything else
// (empty, spaces, "inf", "nan", a label).
std::optional<double> read_number(std::string_view text);
// An ISO date "YYYY-MM-DD" as days since 1970-01-01; nullopt otherwise.
std::optional<double> read_date(std::string_view text);
// A released label read back as a number (docs/utility.md, "Reading labels
// back"): for numbers, a number is itself, an interval "a-b", "[a, b)",
// "[a, b[", "[a, b]", "(a, b]" its midpoint (a + b) / 2, anything else
// ('*', "<0", ">=100", a name) missing; for dates, a date is its day number,
// anything else missing.
std::optional<double> read_back(std::string_view label, bool date);

// Total variation distance 1/2 sum_i |p_i - q_i| between the distributions
// p = before / sum(before) and q = after / sum(after), one count per
// category (same length). 0 when either is all zeros.
double total_variation(std::span<const std::uint64_t> before, std::span<const std::uint64_t> after);
// Jensen-Shannon divergence in bits, 1/2 KL(p || m) + 1/2 KL(q || m) with
// m = (p + q) / 2 and 0 log 0 = 0; in [0, 1]. Same arguments.
double jensen_shannon(std::span<const std::uint64_t> before, std::span<const std::uint64_t> after);

// Summary of the weighted sample `values` ((value, count) pairs, any order,
// counts > 0) with `missing` cells that are not numbers (NumericSummary).
NumericSummary summarize(std::vector<std::pair<double, std::uint64_t>> values, std::uint64_t missing);

// One cell of a contingency table.
struct Cell {
  std::uint32_t row = 0, col = 0;
  std::uint64_t count = 0;
};
// Cramér's V without bias correction, sqrt(chi2 / (n (min(r, c) - 1))),
// of the table whose cells are `cells` (a cell may be listed more than
// once; its counts add up) with rows < `rows` and cols < `cols`; r and c are
// the rows and columns with a record. nullopt when min(r, c) < 2.
std::optional<double> cramers_v(std::vector<Cell> cells, std::uint32_t rows, std::uint32_t cols);

}  // namespace deid::utility
