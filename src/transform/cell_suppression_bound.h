// Internal to the cell-suppression job (cell_suppression_job.cc): the job
// bound to its data, and what the job's run hands to the files beside it:
// writing the released table (cell_suppression_output.cc) and the parts of
// the JSON result (cell_suppression_result.cc: information loss, the
// algorithm's statistics, the attacks' risks, the registry's attacks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/attack_risk.h"
#include "deid/cell_suppression_job.h"
#include "deid/hierarchy.h"
#include "deid/job.h"

namespace deid::detail {

// Everything the job needs, bound to the data.
struct Bound {
  Dataset data;
  std::vector<Role> roles;                     // per data column
  std::vector<HierarchyTable> tables;          // per quasi-identifier with release levels above 0
  std::vector<Generalization> hierarchies;
  std::vector<int> qi_columns;                 // data columns, in data order
  std::vector<ReleaseAttribute> attributes;    // per quasi-identifier
  ReleasePlan plan;
};

// The label of a released cell.
const std::string& label(const Bound& b, std::size_t column, std::uint32_t code);

// The columns of the released table, in order: identifying columns
// dropped, each quasi-identifier replaced by its released columns.
struct OutColumn {
  int data_column = -1;  // copied column
  std::size_t table_column = 0;
};
std::vector<OutColumn> output_columns(const Bound& b, const CellTable& t);

// The released table as columns of codes and labels (CellSuppressionTables).
std::vector<CellSuppressionTables::Column> released_columns(const Bound& b, const CellTable& t,
                                                            const std::string& marker, bool escape);

// Writes the released table, all rows or the rows listed.
// With `escape` (output.escape-formulas), a cell a spreadsheet would run as
// a formula gets a leading "'".
void write_table(const Bound& b, const CellTable& t, const std::string& marker, char delim, bool escape,
                 std::ostream& out, const std::vector<std::uint64_t>* rows);

nlohmann::json loss_json(const InformationLoss& l);
nlohmann::json stats_json(const CellSuppressionStats& s, const CellSuppressionSpec& spec, const CellTable& t);
nlohmann::json targeted_json(const TargetedAttackRisk& r);

// Class sizes of `rows` (all when null) within the classes of `cls`;
// exempt classes (every cell suppressed) count 0.
std::vector<std::uint64_t> sizes_of(const CombinationClasses& cls, const std::vector<std::uint64_t>* rows);

// Attacks 1 and 2 over the registry's attributes (their finest released
// columns), with population counts when given.
nlohmann::json registry_json(const Job& job, const Bound& b, const CellTable& t, double tau,
                             const std::vector<std::vector<std::uint64_t>>& samples);

}  // namespace deid::detail
