// Pairs the rows of a released table with the rows of its input when the
// two have no common order: a database table has none (docs/databases.md,
// "Row order"), and a release the database wrote itself (pushdown) is in
// the order the server inserted it. check_tables() compares row i of the
// output with row i of the input; pair_rows() finds, from the values alone,
// the order of the output rows that makes that comparison meaningful.
//
// Why any pairing is safe: the checks that follow hold for a pairing only
// if every output row is the generalization (or the suppression) of its
// paired input row and the classes satisfy the models. Then the output is
// a valid release of the input up to the order of its rows, which a table
// does not have. So a wrong pairing can only make a valid release fail,
// never an invalid one pass; pair_rows() tries to find the pairing under
// which a valid release holds:
//
//  1. per quasi-identifier, the level of its hierarchy at which the output
//     values of the records not starred (not '*' in every quasi-identifier)
//     are a sub-multiset of the input values generalized (the levels within
//     min_level and max_level with the fewest output values left over);
//  2. an output row not starred is paired with the first unpaired input row
//     (in input order) whose copied columns (every output column that is
//     neither a quasi-identifier, nor microaggregated, nor a released
//     identifier) are equal and whose
//     quasi-identifiers generalize to the output's values at those levels;
//  3. an output row not starred that no input row explains (a changed
//     cell) with the unpaired input row of equal copied columns whose
//     quasi-identifiers generalize to the most of its values, so that the
//     checks name the changed cell;
//  4. a starred output row (suppressed) with the first unpaired input row
//     with equal copied columns;
//  5. what is left with the input rows left, in input order, so that the
//     checks report them.
//
// When several levels fit a quasi-identifier equally, the combinations are
// tried in order (at most 64) and the first that pairs every row is kept.
// A microaggregated column is not compared (its value is its class's
// aggregate), so in a release with one, rows that differ only in it may be
// paired with each other's input: the microaggregation check then fails
// although some other pairing would hold (documented in docs/verify.md).
//
// Thread-safety: pure functions; call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "verify.h"

namespace verify {

struct Pairing {
  // Per output row, the input row it is paired with (a permutation).
  std::vector<std::size_t> input_row;
  // Output rows that no unpaired input row explains (paired in steps 3 and 5).
  std::uint64_t unexplained = 0;
};

// The pairing of `output`'s rows with `input`'s (see above); nullopt when
// there is none to find: the row counts differ, or an output column or a
// quasi-identifier of `options` is not an input column (check_tables()
// reports those as they are). `hierarchies[i]` belongs to
// options.quasi_identifiers[i].
std::optional<Pairing> pair_rows(const Options& options, const Table& input, const Table& output,
                                 const std::vector<Table>& hierarchies);

// `output` with its rows in the order of their paired input rows (row i is
// the one paired with input row i), each with its line number when `output`
// has them.
Table in_input_order(const Table& output, const Pairing& pairing);

}  // namespace verify
