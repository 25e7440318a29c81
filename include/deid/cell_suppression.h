// Local cell suppression for combinations of quasi-identifiers, and the
// release of every level of a hierarchy (papers/003: El Emam, Paton, Dankar,
// Koru, "De-identifying a public use microdata file from the Canadian
// national discharge abstract database", BMC 2011; sections "Strategies for
// Improving Data Utility" and "Suppression Algorithm for Combinations").
//
// The adversary of papers/003 (attack 3, a neighbour) knows some of the
// quasi-identifiers of a target, not all of them, and may know a coded
// quasi-identifier such as a diagnosis only at some level of its hierarchy.
// What he may know is a list of *combinations* of columns. The algorithm
// suppresses single cells (never whole records; sensitive and other values
// stay) until, in every combination, every equivalence class has at least k
// records, k = ceil(1/tau) for a risk threshold tau.
//
// Convention for suppressed cells (docs/cell-suppression.md, "Suppressed
// cells"): within a combination a suppressed cell is a value of its own,
// the marker. Two records are in the same class when their cells in the
// combination are equal, marker equal to marker. This is the convention the
// paper's walkthrough implies (record 8, its year of birth suppressed in
// phase 1, is a class of size one in phase 2), and it is the stricter one:
// a class under it is a subset of the records an adversary who treats the
// marker as "any value" cannot tell apart, so k records per class here
// means at least k there. One exception: a record whose every cell in the
// combination is suppressed tells nothing on that combination and is exempt
// (no cell is left to suppress in it). A "mole" is a class smaller than k
// that is not exempt.
//
// The algorithm (papers/003, Figure 4):
//  phase 1: in every column that belongs to a combination, suppress the
//    values whose support (number of records holding the value, not
//    suppressed) is below k: they make a mole in every combination.
//  phase 2: take the combinations with moles, most moles first; in each,
//    repeatedly take the value, over the combination's columns, of smallest
//    weighted support wsup = support * weight among the values held by a
//    mole, and suppress it in every mole that holds it, until no mole is
//    left. Ties: lower position in the combination, then lower code.
//  Suppressing a cell in one combination can split a class of another one
//  already processed (the paper is silent on this), so phase 2 runs in
//  rounds until a round finds no mole in any combination.
// Suppression propagates: every column lists the columns that must be
// suppressed with it (a finer level of the same attribute, which would
// reveal the suppressed value; a coarser level released as a copy of its
// suppression, see ReleaseAttribute).
//
// Cost: supports are counted once and kept up to date. After phase 1 every
// combination is grouped once (a hash of each row's codes); from then on a
// suppressed cell re-files its row in the other combinations that hold the
// column, so class sizes are never recomputed. In the combination being
// processed, class members are linked lists over the rows and every value
// knows the moles holding it, so a pass touches only the rows it
// suppresses. All functions are deterministic and single-threaded; they
// share no state, so different tables may be processed concurrently.
//
// The release of every level of a hierarchy is
// deid/cell_suppression_release.h, the information lost
// deid/cell_suppression_report.h, and the whole job (`deid suppress`)
// deid/cell_suppression_job.h.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace deid {

// The code of a suppressed cell.
inline constexpr std::uint32_t kSuppressedCell = std::numeric_limits<std::uint32_t>::max();

// The columns the algorithm works on: codes per column and row, a code
// being < cardinality[c] or kSuppressedCell.
struct CellTable {
  std::vector<std::string> names;
  std::vector<std::vector<std::uint32_t>> codes;  // [column][row]
  std::vector<std::uint32_t> cardinality;         // per column
  std::uint64_t rows = 0;

  std::size_t columns() const { return codes.size(); }
  // Index of the column named `name`, or -1.
  int column_index(const std::string& name) const;
};

struct CellSuppressionSpec {
  std::uint64_t k = 2;
  // Each combination: distinct column indices of the table.
  std::vector<std::vector<std::size_t>> combinations;
  // Per column, in [0, 1]; empty: all 1. A higher weight protects a column:
  // its values have a larger weighted support and are suppressed later.
  std::vector<double> weights;
  // Per column, the columns suppressed together with it (empty: none). Need
  // not be transitively closed: suppress_cells() closes it.
  std::vector<std::vector<std::size_t>> propagate;
  // Testing only: always use the wide (byte string) class keys instead of
  // packed 64-bit keys, so that both paths are exercised on small data.
  bool force_wide_keys = false;
  // Record every pass in the stats (phase 1 values and phase 2 passes).
  bool trace = true;
};

// One suppression decision: a value of a column, suppressed in `cells`
// cells (propagated cells not counted) of `classes` classes.
struct SuppressionPass {
  int phase = 1;                // 1 or 2
  std::size_t round = 0;        // phase 2: round of the outer loop (0-based)
  std::size_t combination = 0;  // phase 2: index into spec.combinations
  std::size_t column = 0;
  std::uint32_t value = 0;
  std::uint64_t support = 0;    // at the time it was chosen
  double weighted_support = 0;
  std::uint64_t classes = 0;    // phase 2: moles it was suppressed in
  std::uint64_t cells = 0;
};

struct CellSuppressionStats {
  std::uint64_t phase1_cells = 0;      // cells suppressed in phase 1 (propagation excluded)
  std::uint64_t phase2_cells = 0;      // cells suppressed in phase 2 (propagation excluded)
  std::uint64_t propagated_cells = 0;  // cells suppressed by propagation
  std::size_t rounds = 0;              // rounds of phase 2 that found moles
  std::uint64_t phase2_passes = 0;
  // Moles per combination after phase 1 (what orders the first round).
  std::vector<std::uint64_t> moles_after_phase1;
  double phase1_ms = 0, phase2_ms = 0;
  std::vector<SuppressionPass> passes;  // when spec.trace
};

// Runs the combinations algorithm on `table` in place. Cells already equal
// to kSuppressedCell stay suppressed. Throws std::invalid_argument (a
// programming error, not bad input) when the spec names columns out of
// range, repeats a column in a combination, has a weight outside [0, 1],
// or k < 1, and when the table has fewer rows than k (no suppression can
// then help); the job runner checks these with the user's names first.
// Postcondition: every combination has no mole.
CellSuppressionStats suppress_cells(CellTable& table, const CellSuppressionSpec& spec);

// The classes of one combination.
struct CombinationClasses {
  std::vector<std::uint64_t> sizes;      // per class
  std::vector<std::uint32_t> row_class;  // per row
  std::vector<bool> exempt;              // per class: every cell suppressed
};
// The equivalence classes of `table` over `columns` under the marker-as-
// value convention: classes numbered in order of their first row.
CombinationClasses combination_classes(const CellTable& table, std::span<const std::size_t> columns);

// The "complete" algorithm of papers/003 ("Performance of Suppression
// Algorithm"): the same spec with one combination of every column that is
// in some combination.
CellSuppressionSpec complete_spec(const CellSuppressionSpec& spec, std::size_t columns);

}  // namespace deid
