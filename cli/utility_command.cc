// `deid utility JOB [--input FILE] --output FILE [--json FILE] [--report
// FILE]`: the utility analysis (docs/utility.md) of a table `deid
// anonymize` released, read back and compared with the job's input. The
// same analysis as the "utility" section of anonymize's result; --report
// draws it as a self-contained HTML page (the section of anonymize's
// report).
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "deid/job.h"
#include "deid/output.h"
#include "deid/parquet.h"
#include "deid/pipeline.h"
#include "deid/report.h"
#include "deid/utility.h"

namespace deid::cli {

Command add_utility_command(CLI::App& app, const bool& quiet) {
  struct Options {
    std::string job, input, output, json, report;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("utility", "Compare a released table with its input: distributions, "
                                                "numeric summaries, dependencies");
  sub->add_option("job", opts->job, "Job file (YAML) the table was released with")->required()->check(CLI::ExistingFile);
  sub->add_option("--input", opts->input, "Input table: CSV, or Parquet when named *.parquet (overrides the job's input)");
  sub->add_option("--output", opts->output, "The released table (written by deid anonymize: CSV, or Parquet when named *.parquet)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--json", opts->json,
                  "Write the analysis as JSON to this file (default: print it, unless --report is given)");
  sub->add_option("--report", opts->report, "Write the analysis as a self-contained HTML page to this file");

  Command cmd;
  cmd.app = sub;
  cmd.run = [opts, &quiet]() -> int {
    const auto t0 = std::chrono::steady_clock::now();
    Job job = read_job(opts->job);
    if (!opts->input.empty()) job.input.use_file(opts->input);
    std::vector<FileUse> reads = job_reads(job);
    reads.push_back({"released table", opts->output});
    const CheckedFiles checked =
        check_files(reads, {{"utility JSON", opts->json}, {"HTML utility report", opts->report}});
    const std::unique_ptr<PreparedJob> prepared = prepare(job);
    const Dataset released =
        read_table_file(opts->output, table_format_of(opts->output),
                        CsvOptions{job.output.delimiter.value_or(prepared->data.delimiter), true}, "released table");
    const auto ta = std::chrono::steady_clock::now();
    const UtilityAnalysis analysis = analyze_utility(utility_input(*prepared, released));
    const double analysis_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ta).count();
    const nlohmann::json j = to_json(analysis);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (opts->json.empty() && opts->report.empty()) {
      std::cout << j.dump(2) << '\n';
      return 0;
    }
    // Both outputs complete before either replaces its target.
    std::optional<OutputFile> json_file, html_file;
    if (!opts->json.empty()) {
      json_file.emplace(checked.output("utility JSON"));
      json_file->stream() << j.dump(2) << '\n';
      json_file->finish("utility JSON");
    }
    if (!opts->report.empty()) {
      html_file.emplace(checked.output("HTML utility report"));
      html_file->stream() << render_html_utility_report(j, opts->job, input_name(job), opts->output);
      html_file->finish("report");
    }
    publish_all({json_file ? &*json_file : nullptr, html_file ? &*html_file : nullptr});
    if (quiet) return 0;
    fmt::print("Records          {} ({} suppressed)\n", analysis.records, analysis.suppressed_records);
    fmt::print("{:<24} {:>5} {:>10} {:>10} {:>10}\n", "Attribute", "level", "suppressed", "TVD", "JSD");
    for (const AttributeUtility& a : analysis.attributes)
      fmt::print("{:<24} {:>5} {:>10} {:>10.6f} {:>10.6f}\n", a.name, a.level >= 0 ? fmt::format("{}", a.level) : "-",
                 a.suppressed, a.total_variation, a.jensen_shannon);
    fmt::print("Time             {:.0f} ms (analysis {:.0f} ms)\n", ms, analysis_ms);
    if (!opts->json.empty()) fmt::print("JSON             {}\n", opts->json);
    if (!opts->report.empty()) fmt::print("Report           {}\n", opts->report);
    return 0;
  };
  return cmd;
}

}  // namespace deid::cli
