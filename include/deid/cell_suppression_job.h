// `deid suppress JOB`: the whole cell-suppression job
// (docs/cell-suppression.md): the input and hierarchies read, every
// quasi-identifier released at its levels (deid/cell_suppression_release.h),
// the combinations algorithm run (deid/cell_suppression.h), its cost
// measured (deid/cell_suppression_report.h), the attack-based risk
// (deid/attack_risk.h) and the outputs written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/attack_risk.h"  // k_for_threshold
#include "deid/cell_suppression.h"
#include "deid/cell_suppression_release.h"
#include "deid/cell_suppression_report.h"
#include "deid/dataset.h"

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
