// What local cell suppression (deid/cell_suppression.h) cost (papers/003,
// "Measuring Information Loss", Tables 9-13): suppressed cells and records
// per column and overall, their non-uniform entropy, and the share of
// records suppressed per value of a grouping column.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "deid/cell_suppression.h"

namespace deid {

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
