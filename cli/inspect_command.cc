// `deid inspect DATA [--delimiter C] [--json FILE] [--job FILE]
// [--report FILE] [--max-combination-size N]`: what each column of a raw table holds,
// which identify people, which combinations of quasi-identifiers make
// records unique, and a starter job (docs/inspect.md). The library does
// the work (deid/inspect.h) and renders the HTML report (deid/report.h);
// this prints it and writes the files.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>

#include "commands.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/inspect.h"
#include "deid/output.h"
#include "deid/report.h"

namespace deid::cli {

Command add_inspect_command(CLI::App& app, const bool& quiet) {
  struct Options {
    std::string data, delimiter, json, job, report;
    int max_combination_size = 3;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("inspect", "Profile a raw table: column types, HIPAA identifiers, attribute "
                                                "risk of quasi-identifier combinations, and a starter job");
  sub->add_option("data", opts->data, "The table (CSV with a header row)")->required()->check(CLI::ExistingFile);
  sub->add_option("--delimiter", opts->delimiter, "Field delimiter (default: detected from the header)");
  sub->add_option("--json", opts->json, "Write the inspection as JSON to this file");
  sub->add_option("--job", opts->job, "Write a commented starter job (YAML) to this file");
  sub->add_option("--report", opts->report, "Write the inspection as a self-contained HTML report to this file");
  sub->add_option("--max-combination-size", opts->max_combination_size,
                  "Measure combinations of up to this many quasi-identifiers (1 to 8)")
      ->default_val(3);

  Command cmd;
  cmd.app = sub;
  cmd.run = [opts, &quiet]() -> int {
    namespace fs = std::filesystem;
    CsvOptions csv;
    csv.header = true;
    if (!opts->delimiter.empty()) {
      const std::string d = opts->delimiter == "\\t" ? "\t" : opts->delimiter;
      if (d.size() != 1 || d[0] == '"' || d[0] == '\r' || d[0] == '\n')
        throw JobError(Location{}, fmt::format("--delimiter '{}': expected one character other than a quote or a line "
                                               "break (\\t for a tab)",
                                               opts->delimiter));
      csv.delimiter = d[0];
    }
    if (opts->max_combination_size < 1 || opts->max_combination_size > 8)
      throw JobError(Location{}, fmt::format("--max-combination-size {}: expected 1 to 8", opts->max_combination_size));
    const CheckedFiles checked =
        check_files({{"input data", opts->data}},
                    {{"inspection JSON", opts->json}, {"starter job", opts->job}, {"inspection report", opts->report}});
    const Dataset data = read_dataset(opts->data, csv);
    InspectOptions options;
    options.max_combination_size = opts->max_combination_size;
    const Inspection inspection = inspect(data, options);

    // The starter job for a job file at `job_file`: its paths relative to
    // the file's directory when the two share more than the root.
    const auto job_text = [&](const std::string& job_file) {
      const fs::path job_dir = fs::absolute(job_file).parent_path();
      const fs::path data_path = fs::absolute(opts->data);
      fs::path relative = data_path.lexically_relative(job_dir);
      const auto up = std::count(relative.begin(), relative.end(), fs::path(".."));
      const fs::path below_root = job_dir.relative_path();
      const auto depth = std::distance(below_root.begin(), below_root.end());
      if (relative.empty() || up >= depth) relative = data_path;
      return starter_job(inspection, relative.generic_string(), data_path.stem().string());
    };

    // Every output complete before any replaces its target.
    std::optional<OutputFile> json, job, report;
    if (!opts->json.empty()) {
      json.emplace(checked.output("inspection JSON"));
      json->stream() << to_json(inspection).dump(2) << '\n';
      json->finish("inspection JSON");
    }
    if (!opts->job.empty()) {
      job.emplace(checked.output("starter job"));
      job->stream() << job_text(opts->job);
      job->finish("starter job");
    }
    if (!opts->report.empty()) {
      // The report shows the starter job as --job writes it (or as it would
      // be written beside the report).
      report.emplace(checked.output("inspection report"));
      report->stream() << render_html_inspection_report(to_json(inspection),
                                                         job_text(opts->job.empty() ? opts->report : opts->job));
      report->finish("inspection report");
    }
    publish_all({json ? &*json : nullptr, job ? &*job : nullptr, report ? &*report : nullptr});
    if (quiet) return 0;
    fmt::print("{}", to_text(inspection));
    if (!opts->json.empty()) fmt::print("\nJSON             {}\n", opts->json);
    if (!opts->job.empty()) fmt::print("{}Starter job      {} (run: deid anonymize {})\n", opts->json.empty() ? "\n" : "",
                                       opts->job, opts->job);
    if (!opts->report.empty())
      fmt::print("{}Report           {}\n", opts->json.empty() && opts->job.empty() ? "\n" : "", opts->report);
    return 0;
  };
  return cmd;
}

}  // namespace deid::cli
