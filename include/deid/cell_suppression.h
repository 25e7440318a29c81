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
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/attack_risk.h"  // k_for_threshold
#include "deid/dataset.h"
#include "deid/hierarchy.h"

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

// ---------------------------------------------------------------------------
// Releasing every level of a hierarchy (papers/003, "Disclosing All Levels
// of the Hierarchy", Tables 5, 7 and 8).

// How one quasi-identifier is released.
struct ReleaseAttribute {
  std::string name;                         // the input column
  const Column* column = nullptr;           // its encoded values
  const Generalization* hierarchy = nullptr;  // null: only level 0 can be released
  // Levels released, each as its own output column, ascending; default {0}.
  std::vector<int> levels;
  // Output column name per released level; default: the attribute's name
  // for the finest released level, "<name>_L<level>" for the others.
  std::vector<std::string> names;
  // The finest level at which the adversary knows the attribute (he then
  // also knows every coarser level). Default: the finest released level.
  // Released levels finer than it are in no combination: they only receive
  // the suppression of the coarser levels they would reveal.
  std::optional<int> known_level;
  // Levels at which combinations are evaluated. Default: the known level
  // only when `totally_ordered`, else every released level >= the known
  // level. A released level coarser than the known level that is not
  // evaluated is suppressed exactly where the nearest finer evaluated level
  // is (the paper: "the suppressions in DIAG_BLOCK performed on combination
  // 1c can just be propagated to DIAG_CHAPTER without having to evaluate
  // combination 1d"); this is sound because a deid hierarchy maps each
  // value to one value per level, so the coarser column's classes are
  // unions of the finer column's classes.
  std::vector<int> evaluate;
  bool totally_ordered = true;
  double weight = 1.0;  // for every released column of the attribute
};

// A release: the table of released columns and the spec to run.
struct ReleasePlan {
  CellTable table;
  CellSuppressionSpec spec;
  // Per table column: the attribute (index into the attributes given) and
  // its level.
  std::vector<std::size_t> column_attribute;
  std::vector<int> column_level;
  // Per table column: whether it is in some combination.
  std::vector<bool> evaluated;
};

// A combination of attributes (what an adversary may know): each attribute
// is expanded into its evaluated levels, giving one combination of columns
// per element of the cartesian product (papers/003 Table 7: two
// hierarchical attributes with 4 and 2 levels give 8 combinations). An
// entry may also name a released column directly (that level only).
// `combinations` empty: one combination of every attribute.
// Throws JobError (naming `job_file` and the attribute) for unknown
// attributes or columns, levels outside the hierarchy, a known level or an
// evaluated level that is not released, weights outside [0, 1], duplicate
// output names, and a hierarchy label equal to `marker` at a released level.
ReleasePlan plan_release(const std::vector<ReleaseAttribute>& attributes,
                         const std::vector<std::vector<std::string>>& combinations, std::uint64_t k,
                         const std::string& marker, const std::string& job_file);

// The "complete" algorithm of papers/003 ("Performance of Suppression
// Algorithm"): the same spec with one combination of every column that is
// in some combination.
CellSuppressionSpec complete_spec(const CellSuppressionSpec& spec, std::size_t columns);

// ---------------------------------------------------------------------------
// Information loss (papers/003, "Measuring Information Loss", Tables 9-13).

struct ColumnLoss {
  std::string name;
  std::uint64_t suppressed = 0;   // records with this column suppressed
  double fraction = 0;            // of all records
  // Non-uniform entropy (Gionis and Tassa) of the column's suppression, in
  // bits: sum over suppressed cells of log2(n / count of the original
  // value), where a value that is kept costs 0.
  double entropy = 0;
};

struct InformationLoss {
  std::uint64_t records = 0;
  std::uint64_t cells = 0;             // quasi-identifier cells: records * columns
  std::uint64_t suppressed_cells = 0;
  double suppressed_cells_fraction = 0;
  std::uint64_t records_with_suppression = 0;
  double records_with_suppression_fraction = 0;
  double entropy = 0;                  // sum over columns
  std::vector<ColumnLoss> columns;
};

// Loss of `after` against `before` (same shape; `before` without suppressed
// cells, or with the cells counted as already lost).
InformationLoss information_loss(const CellTable& before, const CellTable& after);

// Per value of a grouping column (`by_codes`, one code per row, e.g. the
// region before suppression), the share of records whose column `variable`
// is suppressed in `after` (papers/003, Tables 11-13). Groups without
// records are left out; rows whose group code is kSuppressedCell are not
// counted.
struct Missingness {
  std::string variable, by;
  struct Group {
    std::uint32_t value = 0;   // group code
    std::uint64_t records = 0;
    std::uint64_t suppressed = 0;
    double fraction = 0;
  };
  std::vector<Group> groups;   // by code
};
Missingness missingness(const CellTable& after, std::size_t variable,
                        std::span<const std::uint32_t> by_codes, std::uint32_t by_cardinality);

}  // namespace deid

// ---------------------------------------------------------------------------
// `deid suppress JOB`: the whole job (docs/cell-suppression.md).

namespace deid {

struct Job;

struct CellSuppressionRun {
  std::uint64_t k = 0;
  CellSuppressionStats stats;
  InformationLoss loss;
  std::optional<InformationLoss> complete_loss;    // compare-complete only
  std::optional<CellSuppressionStats> complete_stats;
  nlohmann::json result;                           // what job.output.result receives
};

// Reads the job's input and hierarchies, releases every quasi-identifier at
// its levels, runs the combinations algorithm, and writes: job.output.path
// (one row per input row, in input order; identifying columns removed; each
// quasi-identifier replaced by its released columns, finest level first;
// suppressed cells written as the marker), each sample of `samples`, and
// job.output.result (JSON). Unset outputs are not written.
// Throws JobError when the job has no cell-suppression section or does not
// fit the data (unknown or role-less columns, unknown names in weights,
// combinations or missingness, fewer rows than k), and InputError/IoError
// for unreadable or malformed files.
CellSuppressionRun run_cell_suppression(const Job& job);

// The released tables of a run kept in memory: the output table and each
// sample, as the CSV text run_cell_suppression(job) writes to their files.
struct CellSuppressionTables {
  std::string table;
  std::vector<std::string> samples;
  // The same table as columns, in the order written: per column its name,
  // the input column it copies (-1 for a released quasi-identifier column)
  // and per row a code into `labels`, the text written (escaped as
  // output.escape-formulas asks; the marker for a suppressed cell).
  struct Column {
    std::string name;
    int input_column = -1;
    Codes codes;
    std::vector<std::string> labels;
  };
  std::vector<Column> columns;
  std::vector<std::vector<std::uint64_t>> sample_rows;  // the rows of each sample, in the order written
};

// The same run on `data` (read already, or built in memory by a front end),
// writing no file: the tables go to `tables` (the output table even when
// job.output.path is empty), the result stays in the returned run. The
// result's "files" lists the input only.
CellSuppressionRun run_cell_suppression(const Job& job, Dataset data, CellSuppressionTables& tables);

}  // namespace deid
