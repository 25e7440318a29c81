// An independent checker for local cell suppression (deid suppress,
// docs/cell-suppression.md). Like verify.h it shares no code with the
// engine: it links only the C++ standard library (and this folder's own CSV
// reader), and works on the strings of the files, never on codes.
//
// Convention checked (docs/cell-suppression.md, "Suppressed cells"): within
// a combination a suppressed cell is a value of its own, the marker; two
// records are in the same class when their strings in the combination's
// columns are equal. A record whose every cell of the combination is the
// marker is exempt (it tells nothing about that combination). Every other
// class must have at least k records.
//
// What a valid output is (each point is one CellViolation::Kind):
//  - one output row per input row (`row_count`);
//  - no removed (identifying) column is in the output (`removed_column_present`);
//  - every output column that is not released is a column of the input,
//    copied row by row (`value_changed`, `column_missing`);
//  - every cell of a released column is the marker or the input value of
//    its source column generalized to the column's level by the hierarchy
//    file (`wrong_value`; level 0 is the input value itself);
//  - suppression propagates: where a released column is the marker, every
//    released column of the same source at a finer level is the marker too
//    (`not_propagated`), so a suppressed value cannot be derived;
//  - every combination is k-anonymous under the convention above
//    (`class_too_small`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify.h"

namespace verify {

struct ReleasedColumn {
  std::string output_column;  // header name in the output
  std::string input_column;   // its source column in the input
  int level = 0;              // 0: the input value
  std::string hierarchy_path; // ARX hierarchy (value;level1;...); needed when level > 0
};

struct CellOptions {
  std::uint64_t k = 2;
  std::string marker = "*";
  char delimiter = ',';
  char hierarchy_delimiter = ';';
  std::vector<ReleasedColumn> released;
  std::vector<std::vector<std::string>> combinations;  // output column names
  std::vector<std::string> removed;                    // input columns absent from the output (identifying)
};

struct CellViolation {
  enum class Kind { unreadable, bad_options, row_count, column_missing, value_changed, wrong_value, not_propagated,
                    class_too_small, removed_column_present };
  Kind kind;
  std::string where;     // column or combination
  std::uint64_t row = 0; // first data row concerned (1-based); 0: none
  std::string message;
  std::uint64_t line = 0; // line of the output file on which `row` starts (0: none)
};

struct CellReport {
  std::vector<CellViolation> violations;
  std::uint64_t input_rows = 0, output_rows = 0;  // 0 when the tables were not compared
  std::uint64_t suppressed_cells = 0;        // marker cells in released columns
  std::vector<std::uint64_t> smallest_class;  // per combination, exempt class excluded (0: none)
  bool valid() const { return violations.empty(); }
  std::string to_string() const;
};

CellReport check_cell_suppression(const std::string& input_path, const std::string& output_path,
                                  const CellOptions& options);
CellReport check_cell_tables(const Table& input, const Table& output, const std::vector<Table>& hierarchies,
                             const CellOptions& options);

// Only the k-anonymity of the combinations, on an output table.
CellReport check_combinations(const Table& output, const CellOptions& options);

}  // namespace verify
