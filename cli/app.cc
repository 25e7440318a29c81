// deid: the command-line front end. It parses options, calls the library
// and prints; no algorithm lives here. Exit codes (docs/job-file.md):
// 0 a solution was found and written, 1 no transformation satisfies the job,
// 2 invalid input or job, 3 internal error.
//
// run() is the whole command line: main() calls it (cli/main.cc), and so
// does the Python package's `python -m deid` in its own process
// (deid._core.run_cli), where a Parquet codec is registered (parquet.h).
#include <tbb/global_control.h>
#include <unistd.h>

#include <csignal>
#include <cmath>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <iostream>

#include "commands.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/output.h"
#include "deid/pipeline.h"
#include "deid/report.h"
#include "deid/risk.h"
#include "progress.h"

namespace {

constexpr int kExitFound = 0;
constexpr int kExitNoSolution = 1;
constexpr int kExitInvalid = 2;
constexpr int kExitInternal = 3;

void print_summary(const deid::Job& job, const deid::Anonymization& a) {
  const auto& r = a.result;
  if (!a.found && r["search"].contains("given_violating_records")) {
    fmt::print("The given transformation does not satisfy the job: {} records are in classes that violate it "
               "(at most {} may be suppressed).\n",
               r["search"]["given_violating_records"].get<std::uint64_t>(),
               r["suppression_limit_records"].get<std::uint64_t>());
    return;
  }
  if (!a.found && r["search"].value("stopped_by", nlohmann::json()).is_string()) {
    // Cut short, the search proved nothing: the job may be satisfiable.
    fmt::print("The search stopped at search.{} after {} of {} transformations checked, before it found one that "
               "satisfies the job; the job may still be satisfiable: raise or remove the limit.\n",
               r["search"]["stopped_by"].get<std::string>(), r["search"]["transformations_checked"].get<std::uint64_t>(),
               r["search"]["lattice_size"].dump());
    return;
  }
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
  if (r.contains("local_recoding")) {
    const auto& lr = r["local_recoding"];
    fmt::print("Local recoding   {} pass(es) released {} of the {} suppressed records ({} still suppressed, {} "
               "classes)\n",
               lr["passes"].size(), lr["recoded"].get<std::uint64_t>(), lr["suppressed_before"].get<std::uint64_t>(),
               lr["suppressed_after"].get<std::uint64_t>(), lr["classes"].get<std::uint64_t>());
  }
  fmt::print("Search           {}: {} of {} transformations checked in {:.0f} ms\n",
             r["search"]["algorithm"].get<std::string>(), r["search"]["transformations_checked"].get<std::uint64_t>(),
             r["search"]["lattice_size"].dump(), a.timings.search);
  if (!job.output.path.empty() || job.output.postgres) fmt::print("Output           {}\n", deid::output_name(job));
  if (!job.output.result.empty()) fmt::print("Result           {}\n", job.output.result);
  if (!job.output.report.empty()) fmt::print("Report           {}\n", job.output.report);
}

// Warnings of a result (e.g. formula-like cells) on standard error.
void print_warnings(const nlohmann::json& result) {
  if (!result.contains("warnings")) return;
  for (const auto& w : result["warnings"]) fmt::print(stderr, "deid: warning: {}\n", w.get<std::string>());
}

// SIGINT, SIGTERM, SIGHUP: remove the temporaries of unfinished outputs
// (the targets are untouched until an output is complete) and exit with
// 128 + the signal number. Only async-signal-safe calls here.
// While a run publishes its outputs the signal waits until all are in
// place (deid::PublishBatch), so the message is true either way.
extern "C" void on_terminating_signal(int sig) {
  if (deid::defer_signal_while_publishing(sig)) return;
  deid::discard_unpublished_outputs();
  static const char unchanged[] = "\ndeid: interrupted; no output was changed by this run\n";
  static const char written[] = "\ndeid: interrupted after this run's outputs were written whole\n";
  const bool published = deid::outputs_published();
  [[maybe_unused]] const ssize_t n = published ? ::write(STDERR_FILENO, written, sizeof written - 1)
                                               : ::write(STDERR_FILENO, unchanged, sizeof unchanged - 1);
  ::_exit(128 + sig);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_terminating_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  // A file-size limit or a closed pipe makes write(2) fail with EFBIG or
  // EPIPE, which the output code reports (exit 2), instead of killing the
  // process mid-write.
  ::signal(SIGXFSZ, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
}

// `deid risk JOB [--input FILE] [--json FILE] [--report FILE]`: the risk of
// the job's input, or of an output of `deid anonymize`, over the job's
// quasi-identifiers (docs/risk-models.md). Prints a table; writes the JSON
// and the HTML report when asked.
deid::cli::Command add_risk_command(CLI::App& app, const bool& quiet) {
  struct Options {
    std::string job, input, json, report;
    std::optional<double> threshold;
    std::vector<std::string> populations;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* risk = app.add_subcommand("risk", "Measure the re-identification risk of a table (input or output)");
  risk->add_option("job", opts->job, "Job file (YAML): quasi-identifiers, input, risk settings")
      ->required()
      ->check(CLI::ExistingFile);
  risk->add_option("--input", opts->input, "Table to measure (default: the job's input), e.g. an anonymized output");
  risk->add_option("--json", opts->json, "Write the report as JSON to this file");
  risk->add_option("--report", opts->report, "Write the report as a self-contained HTML page to this file");
  risk->add_option("--threshold", opts->threshold, "Risk above which a record is at risk (overrides risk.threshold)");
  risk->add_option("--population", opts->populations,
                   "Population NAME=SIZE to estimate population uniques for (repeatable; replaces the list)");
  auto run = [opts, &quiet]() {
    // CLI::Range lets NaN through (every comparison with it is false).
    // The same range as risk.threshold in a job: the attacks use
    // k = ceil(1 / threshold), which must stay a count.
    if (opts->threshold && !(*opts->threshold >= 1e-18 && *opts->threshold <= 1.0))
      throw deid::JobError(deid::Location{}, fmt::format("--threshold {}: expected a number in (0, 1], at least 1e-18",
                                                         *opts->threshold));
    const deid::Job job = deid::read_job(opts->job);
    const std::string input = opts->input.empty() ? job.input.path : opts->input;
    // Every file the job names is a read: no output of deid risk replaces
    // the job, its input, a hierarchy or a subset table.
    std::vector<deid::FileUse> reads = deid::job_reads(job);
    reads.push_back({"table measured", input});
    const deid::CheckedFiles checked =
        deid::check_files(reads, {{"risk JSON", opts->json}, {"HTML risk report", opts->report}});
    deid::RiskOptions options = deid::risk_options(job);
    if (opts->threshold) options.threshold = *opts->threshold;
    if (!opts->populations.empty()) {
      options.populations.clear();
      for (const auto& p : opts->populations) {
        const auto eq = p.rfind('=');
        double size = 0;
        try {
          size = eq == std::string::npos ? 0.0 : std::stod(p.substr(eq + 1));
        } catch (const std::exception&) {
        }
        // The same range as risk.populations in a job.
        if (eq == std::string::npos || eq == 0 || !(size >= 1 && size <= 1e12))
          throw deid::JobError(deid::Location{}, fmt::format("--population '{}': expected NAME=SIZE with SIZE from 1 "
                                                             "to 1e12, e.g. USA=318.9e6",
                                                             p));
        options.populations.emplace_back(p.substr(0, eq), size);
      }
    }
    const deid::RiskReport report = deid::assess_risk(job, opts->input, options);
    // Both outputs complete before either replaces its target.
    std::optional<deid::OutputFile> json, html;
    if (!opts->json.empty()) {
      json.emplace(checked.output("risk JSON"));
      json->stream() << deid::to_json(report).dump(2) << '\n';
      json->finish("risk JSON");
    }
    if (!opts->report.empty()) {
      html.emplace(checked.output("HTML risk report"));
      html->stream() << deid::render_html_risk_report(report);
      html->finish("report");
    }
    deid::publish_all({json ? &*json : nullptr, html ? &*html : nullptr});
    if (!quiet) fmt::print("{}", deid::to_text(report));
    return kExitFound;
  };
  return {risk, run};
}

}  // namespace

int deid::cli::run(int argc, char** argv, AddCommand add_serve, AddCommand add_share) {
  CLI::App app{"deid: de-identification of structured health data"};
  app.require_subcommand(1);
  // Subcommands created after this pass options they do not know to the
  // app: `deid anonymize JOB --quiet` works as well as `deid --quiet anonymize JOB`.
  app.fallthrough();
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "Print nothing but errors");
  std::size_t threads = 0;
  app.add_option("-j,--threads", threads,
                 "Threads to use (default: all cores); the output is the same for any number")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1024}));

  std::string job_path, input, output, result;
  auto* anon = app.add_subcommand("anonymize", "Find the optimal transformation for a job and write the output");
  anon->add_option("job", job_path, "Job file (YAML)")->required()->check(CLI::ExistingFile);
  anon->add_option("--input", input, "Input table: CSV, or Parquet when named *.parquet (overrides the job's input)");
  anon->add_option("--output", output, "Output table: CSV, or Parquet when named *.parquet (overrides the job's output)");
  anon->add_option("--result", result, "JSON result (overrides output.result)");
  std::string report, transformation;
  anon->add_option("--report", report, "Self-contained HTML report (overrides output.report)");
  anon->add_option("--transformation", transformation,
                   "Release this transformation instead of searching, e.g. age=2,sex=0,... (every "
                   "quasi-identifier; overrides search.transformation); exit 1 when it does not satisfy the job");

  const deid::cli::Command inspect = deid::cli::add_inspect_command(app, quiet);
  const deid::cli::Command hierarchy = deid::cli::add_hierarchy_command(app);
  const deid::cli::Command suppress = deid::cli::add_suppress_command(app, quiet);
  const deid::cli::Command risk = add_risk_command(app, quiet);
  const deid::cli::Command verify = deid::cli::add_verify_command(app, quiet);
  const deid::cli::Command utility = deid::cli::add_utility_command(app, quiet);
  const deid::cli::Command serve = add_serve ? add_serve(app, quiet) : deid::cli::Command{};
  const deid::cli::Command share = add_share ? add_share(app, quiet) : deid::cli::Command{};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 says only "A subcommand is required" for `deid frobnicate`:
    // name the word and the commands.
    if (app.get_subcommands().empty() && e.get_exit_code() != 0) {
      std::string commands;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        commands += (commands.empty() ? "" : ", ") + sub->get_name();
      for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-j" || arg == "--threads") {
          ++i;
          continue;
        }
        if (arg.empty() || arg[0] == '-') continue;
        fmt::print(stderr, "deid: error: unknown command '{}' (commands: {}; see deid --help)\n", arg, commands);
        return kExitInvalid;
      }
    }
    // Likewise for `deid hierarchy bogus`: a command that needs one of its
    // own subcommands names the word it did not know and its subcommands.
    for (CLI::App* cmd : app.get_subcommands()) {
      if (e.get_exit_code() == 0 || cmd->get_require_subcommand_min() == 0 || !cmd->get_subcommands().empty()) continue;
      std::string kinds;
      for (const CLI::App* sub : cmd->get_subcommands([](CLI::App*) { return true; }))
        kinds += (kinds.empty() ? "" : ", ") + sub->get_name();
      std::string word;
      bool after = false;
      for (int i = 1; i < argc && word.empty(); ++i) {
        const std::string arg = argv[i];
        if (after && !arg.empty() && arg[0] != '-') word = arg;
        if (arg == cmd->get_name()) after = true;
      }
      if (word.empty())
        fmt::print(stderr, "deid: error: 'deid {}' needs one of: {} (see deid {} --help)\n", cmd->get_name(), kinds,
                   cmd->get_name());
      else
        fmt::print(stderr, "deid: error: unknown {} kind '{}' (one of: {}; see deid {} --help)\n", cmd->get_name(),
                   word, kinds, cmd->get_name());
      return kExitInvalid;
    }
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitInvalid;
  }

  install_signal_handlers();
  std::optional<tbb::global_control> thread_limit;
  if (threads > 0) thread_limit.emplace(tbb::global_control::max_allowed_parallelism, threads);

  try {
    if (*inspect.app) return inspect.run();
    if (*hierarchy.app) return hierarchy.run();
    if (*suppress.app) return suppress.run();
    if (*risk.app) return risk.run();
    if (*verify.app) return verify.run();
    if (*utility.app) return utility.run();
    if (serve.app && *serve.app) return serve.run();
    if (share.app && *share.app) return share.run();
    if (*anon) {
      deid::Job job = deid::read_job(job_path);
      // A file on the command line replaces a database table of the job.
      if (!input.empty()) job.input.use_file(input);
      if (!output.empty()) job.output.use_file(output);
      if (!result.empty()) job.output.result = result;
      if (!report.empty()) job.output.report = report;
      if (anon->count("--transformation") > 0) {
        job.search.transformation = deid::parse_transformation(transformation, "--transformation");
        job.search.transformation_source = "--transformation";
        job.search.transformation_line = 0;
      }
      if (job.privacy.empty())
        throw deid::JobError(deid::Location{job.path, 0, 0, {}},
                             "the job has no privacy model, only a 'cell-suppression' section: run 'deid suppress'");
      // A progress line on a terminal only (never in a pipe, a file or a
      // log), and not with --quiet.
      std::optional<deid::cli::ProgressDisplay> display;
      deid::RunOptions options;
      if (!quiet && isatty(STDERR_FILENO)) options = display.emplace().run_options();
      const deid::Anonymization a = deid::anonymize(job, options);
      if (display) display->finish();
      if (!quiet) print_warnings(a.result);
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
