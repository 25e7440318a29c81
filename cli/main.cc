// deid: the command-line front end. It parses options, calls the library
// and prints; no algorithm lives here. Exit codes (docs/job-file.md):
// 0 a solution was found and written, 1 no transformation satisfies the job,
// 2 invalid input or job, 3 internal error.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>
#include <iostream>

#include "commands.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/pipeline.h"

namespace {

constexpr int kExitFound = 0;
constexpr int kExitNoSolution = 1;
constexpr int kExitInvalid = 2;
constexpr int kExitInternal = 3;

void print_summary(const deid::Job& job, const deid::Anonymization& a) {
  const auto& r = a.result;
  if (!a.found) {
    fmt::print("No transformation satisfies the job ({} transformations checked).\n",
               r["search"]["transformations_checked"].get<std::uint64_t>());
    return;
  }
  std::string levels;
  for (const auto& [name, level] : r["transformation"].items())
    levels += fmt::format("{}{}={}", levels.empty() ? "" : ", ", name, level.get<int>());
  fmt::print("Transformation   {}\n", levels);
  fmt::print("Information loss {:.6f} ({}){}\n", r["information_loss"].get<double>(), r["quality_model"].get<std::string>(),
             r["optimal"].get<bool>() ? ", optimal" : ", not proven optimal");
  fmt::print("Records          {} ({} suppressed, limit {})\n", r["records"].get<std::uint64_t>(),
             r["suppressed_records"].get<std::uint64_t>(), r["suppression_limit_records"].get<std::uint64_t>());
  fmt::print("Classes          {} (smallest {}, average {:.1f})\n", r["classes"].get<std::uint64_t>(),
             r["smallest_class_size"].get<std::uint64_t>(), r["average_class_size"].get<double>());
  fmt::print("Search           {}: {} of {} transformations checked in {:.0f} ms\n",
             r["search"]["algorithm"].get<std::string>(), r["search"]["transformations_checked"].get<std::uint64_t>(),
             r["search"]["lattice_size"].dump(), a.timings.search);
  if (!job.output.path.empty()) fmt::print("Output           {}\n", job.output.path);
  if (!job.output.result.empty()) fmt::print("Result           {}\n", job.output.result);
  if (!job.output.report.empty()) fmt::print("Report           {}\n", job.output.report);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"deid: de-identification of structured health data"};
  app.require_subcommand(1);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "Print nothing but errors");

  std::string job_path, input, output, result;
  auto* anon = app.add_subcommand("anonymize", "Find the optimal transformation for a job and write the output");
  anon->add_option("job", job_path, "Job file (YAML)")->required()->check(CLI::ExistingFile);
  anon->add_option("--input", input, "Input CSV (overrides input.path)");
  anon->add_option("--output", output, "Output CSV (overrides output.path)");
  anon->add_option("--result", result, "JSON result (overrides output.result)");
  std::string report;
  anon->add_option("--report", report, "Self-contained HTML report (overrides output.report)");

  const deid::cli::Command hierarchy = deid::cli::add_hierarchy_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitInvalid;
  }

  try {
    if (*hierarchy.app) return hierarchy.run();
    if (*anon) {
      deid::Job job = deid::read_job(job_path);
      if (!input.empty()) job.input.path = input;
      if (!output.empty()) job.output.path = output;
      if (!result.empty()) job.output.result = result;
      if (!report.empty()) job.output.report = report;
      deid::RunOptions options;
      if (!quiet && isatty(STDERR_FILENO)) {
        options.progress = [](const deid::SearchProgress& p) {
          std::string best = p.best_loss ? fmt::format("{:.6f}", *p.best_loss) : std::string("none yet");
          std::string done = p.fraction_done ? fmt::format(" {:5.1f}%", 100.0 * *p.fraction_done) : std::string();
          fmt::print(stderr, "\rsearch{}  checked {}  best loss {}  {:.1f} s   ", done, p.checked, best,
                     p.elapsed_seconds);
          std::fflush(stderr);
        };
      }
      const deid::Anonymization a = deid::anonymize(job, options);
      if (options.progress) fmt::print(stderr, "\r\033[K");
      if (!quiet) print_summary(job, a);
      return a.found ? kExitFound : kExitNoSolution;
    }
  } catch (const deid::InputError& e) {
    fmt::print(stderr, "deid: error: {}\n", e.what());
    return kExitInvalid;
  } catch (const std::exception& e) {
    fmt::print(stderr, "deid: internal error: {}\n", e.what());
    return kExitInternal;
  }
  return kExitInternal;
}
