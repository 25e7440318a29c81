// A job as the verifier's options (cli/verify_command.cc): which column is
// what, the hierarchies as tables, every privacy model the release can
// show, and the `cell-suppression` section's combinations.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cell_suppression_check.h"
#include "checks.h"
#include "deid/job.h"
#include "verify.h"
#include "verify_tables.h"

namespace deid::cli {

// The role of every input column (the job's, or its default role; a column
// without either is taken as copied, the strictest reading).
Role role_of(const Job& job, const std::string& column);

struct Mapped {
  verify::Options options;
  std::vector<verify::Table> hierarchies;  // per quasi-identifier
  std::vector<verify::Table> aggregated_hierarchies;  // per microaggregated column (empty: not generalized)
  // Models of the job the table cannot show (reported as skipped).
  std::vector<verify::CheckLine> unchecked;
};

// The job as verifier options (anonymization).
Mapped map_anonymization(const Job& job, const verify::Table& input, Hierarchies& hierarchies);

struct MappedCells {
  verify::CellOptions options;
  std::vector<verify::Table> hierarchies;  // per released column (empty at level 0)
};

// The job's `cell-suppression` section as checker options
// (docs/cell-suppression.md).
MappedCells map_cell_suppression(const Job& job, const verify::Table& input, Hierarchies& hierarchies);

// The job's linked tables (docs/identifiers.md), each read with the
// verifier's reader and checked against the input and the job's release
// `released` (in the input's order) by verify::check_linked.
// The input values of identifying columns, of the input and of the linked
// tables (column, value; each once), that verify looks for in the report
// and the result: less shifted dates (which fall on other dates all the
// time) and values the input also holds in a column it releases.
std::vector<std::pair<std::string, std::string>> identifying_values(const Job& job, const verify::Table& input);

std::vector<verify::CheckLine> check_linked_tables(const Job& job, const Mapped& m, const verify::Table& input,
                                                  const verify::Table& released);

}  // namespace deid::cli
