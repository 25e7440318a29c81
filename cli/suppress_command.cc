// `deid suppress JOB`: local cell suppression for combinations of
// quasi-identifiers (docs/cell-suppression.md). A command of its own rather
// than a mode of `deid anonymize`: it searches no lattice, changes cells
// rather than records, writes released levels as extra columns, and its
// result has another shape.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "deid/cell_suppression_job.h"
#include "deid/pipeline.h"
#include "deid/job.h"

namespace deid::cli {

Command add_suppress_command(CLI::App& app, const bool& quiet) {
  struct Options {
    std::string job, input, output, result;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "suppress", "Suppress cells until every combination of quasi-identifiers is k-anonymous (cell-suppression:)");
  sub->add_option("job", opts->job, "Job file (YAML) with a 'cell-suppression' section")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--input", opts->input, "Input table: CSV, or Parquet when named *.parquet (overrides the job's input)");
  sub->add_option("--output", opts->output, "Output table: CSV, or Parquet when named *.parquet (overrides the job's output)");
  sub->add_option("--result", opts->result, "JSON result (overrides output.result)");

  Command cmd;
  cmd.app = sub;
  cmd.run = [opts, &quiet]() -> int {
    Job job = read_job(opts->job);
    if (!opts->input.empty()) job.input.use_file(opts->input);
    if (!opts->output.empty()) job.output.use_file(opts->output);
    if (!opts->result.empty()) job.output.result = opts->result;
    const CellSuppressionRun run = run_cell_suppression(job);
    if (quiet) return 0;
    const auto& r = run.result;
    const InformationLoss& l = run.loss;
    fmt::print("k                {} ({} combinations)\n", run.k, r["combinations"].size());
    fmt::print("Records          {} ({} with a suppressed cell, {:.2f}%)\n", l.records, l.records_with_suppression,
               100.0 * l.records_with_suppression_fraction);
    fmt::print("Cells suppressed {} of {} ({:.2f}%): phase 1 {}, phase 2 {}, propagated {}\n", l.suppressed_cells,
               l.cells, 100.0 * l.suppressed_cells_fraction, run.stats.phase1_cells, run.stats.phase2_cells,
               run.stats.propagated_cells);
    for (const auto& c : l.columns)
      fmt::print("  {:<24} {:>10} ({:.2f}%)\n", c.name, c.suppressed, 100.0 * c.fraction);
    if (run.complete_loss)
      fmt::print("Complete         {} cells ({:.2f}%), {} records with a suppressed cell\n",
                 run.complete_loss->suppressed_cells, 100.0 * run.complete_loss->suppressed_cells_fraction,
                 run.complete_loss->records_with_suppression);
    fmt::print("Time             {:.0f} ms (suppression {:.0f} ms)\n", r["time_ms"]["total"].get<double>(),
               r["time_ms"]["suppress"].get<double>());
    if (!job.output.path.empty() || job.output.postgres) fmt::print("Output           {}\n", output_name(job));
    if (!job.output.result.empty()) fmt::print("Result           {}\n", job.output.result);
    return 0;
  };
  return cmd;
}

}  // namespace deid::cli
