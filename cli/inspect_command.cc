// `deid inspect DATA [--delimiter C] [--json FILE] [--job FILE]
// [--report FILE] [--max-combination-size N]`, or with `--table NAME` /
// `--query SQL` (`--connection`, `--schema`) instead of DATA for a
// PostgreSQL table (docs/databases.md): what each column of a raw table holds,
// which identify people, which combinations of quasi-identifiers make
// records unique, and a starter job (docs/inspect.md). The library does
// the work (deid/inspect.h) and renders the HTML report (deid/report.h);
// this prints it and writes the files.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "commands.h"
#include "deid/database.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/inspect.h"
#include "deid/output.h"
#include "deid/report.h"

namespace deid::cli {
namespace {

namespace fs = std::filesystem;

// The PostgreSQL table or query the options name instead of DATA, checked
// as the job's input.postgres is (docs/databases.md); none for a CSV file.
template <class Options>
std::optional<PostgresTable> postgres_source(const Options& o) {
  const bool database = !o.table.empty() || !o.query.empty();
  if (!database) {
    if (o.data.empty()) throw JobError(Location{}, "deid inspect needs DATA (a CSV file), or --table or --query");
    if (!o.connection.empty() || !o.schema.empty())
      throw JobError(Location{}, "--connection and --schema go with --table or --query");
    return std::nullopt;
  }
  if (!o.data.empty())
    throw JobError(Location{}, fmt::format("DATA '{}' and --table/--query both name the table; give one", o.data));
  if (!o.table.empty() && !o.query.empty()) throw JobError(Location{}, "give --table or --query, not both");
  if (!o.query.empty() && !o.schema.empty()) throw JobError(Location{}, "--schema goes with --table, not --query");
  if (!o.delimiter.empty()) throw JobError(Location{}, "--delimiter is for a CSV file, not a PostgreSQL table");
  for (const auto& [what, name] : {std::pair{"--table", &o.table}, std::pair{"--schema", &o.schema}})
    if (name->size() > 63)
      throw JobError(Location{}, fmt::format("{} '{}' is {} bytes long; PostgreSQL names hold at most 63", what, *name,
                                             name->size()));
  PostgresTable t;
  t.connection = o.connection;
  t.schema = o.schema;
  t.table = o.table;
  t.query = o.query;
  return t;
}

// The connection as the starter job names it: without its password (none
// is ever written), empty for libpq's defaults.
std::string connection_without_password(const std::string& connection) {
  if (connection.empty()) return {};
  const std::string redacted = redact_connection(connection);
  // A string of a password only leaves libpq's defaults.
  return redacted.starts_with("the default connection") ? std::string() : redacted;
}

// The stem of the release's files: the table's name in characters safe in
// a file name, or "query".
std::string output_stem(const PostgresTable& t) {
  if (t.table.empty()) return "query";
  std::string stem = t.table;
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return stem.front() == '.' ? "_" + stem : stem;
}

// The data file as the job at `job_path` names it: relative to the job's
// directory when the two share more than the root, else absolute.
std::string relative_to_job(const fs::path& data_path, const std::string& job_path) {
  const fs::path job_dir = fs::absolute(job_path).parent_path();
  fs::path relative = data_path.lexically_relative(job_dir);
  const auto up = std::count(relative.begin(), relative.end(), fs::path(".."));
  const fs::path below_root = job_dir.relative_path();
  const auto depth = std::distance(below_root.begin(), below_root.end());
  if (relative.empty() || up >= depth) relative = data_path;
  return relative.generic_string();
}

}  // namespace

Command add_inspect_command(CLI::App& app, const bool& quiet) {
  struct Options {
    std::string data, delimiter, json, job, report;
    std::string connection, schema, table, query;
    int max_combination_size = 3;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("inspect", "Profile a raw table: column types, HIPAA identifiers, attribute "
                                                "risk of quasi-identifier combinations, and a starter job");
  sub->add_option("data", opts->data, "The table (CSV with a header row); or --table/--query for a PostgreSQL table")
      ->check(CLI::ExistingFile);
  sub->add_option("--delimiter", opts->delimiter, "Field delimiter (default: detected from the header)");
  sub->add_option("--json", opts->json, "Write the inspection as JSON to this file");
  sub->add_option("--job", opts->job, "Write a commented starter job (YAML) to this file");
  sub->add_option("--report", opts->report, "Write the inspection as a self-contained HTML report to this file");
  sub->add_option("--max-combination-size", opts->max_combination_size,
                  "Measure combinations of up to this many quasi-identifiers (1 to 8)")
      ->default_val(3);
  sub->add_option("--table", opts->table, "Inspect this PostgreSQL table instead of a CSV file");
  sub->add_option("--query", opts->query, "Inspect the rows of this PostgreSQL query instead of a CSV file");
  sub->add_option("--schema", opts->schema, "The --table's schema (default: the connection's search_path)");
  sub->add_option("--connection", opts->connection,
                  "libpq connection string or URI of --table/--query (default: the PG* environment variables)");

  Command cmd;
  cmd.app = sub;
  cmd.run = [opts, &quiet]() -> int {
    const std::optional<PostgresTable> table = postgres_source(*opts);
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
    std::vector<FileUse> inputs;
    if (!table) inputs.push_back({"input data", opts->data});
    const CheckedFiles checked = check_files(
        inputs, {{"inspection JSON", opts->json}, {"starter job", opts->job}, {"inspection report", opts->report}});
    // A table streams through COPY into the encoder the CSV path uses.
    const Dataset data = table ? read_postgres(*table) : read_dataset(opts->data, csv);
    InspectOptions options;
    options.max_combination_size = opts->max_combination_size;
    const Inspection inspection = inspect(data, options);

    // The starter job for a job file at `job_file`: a table's, or the data
    // file's path relative to the file's directory.
    const auto job_text = [&](const std::string& job_file) {
      if (table) {
        StarterInput input;
        input.postgres = *table;
        input.postgres->connection = connection_without_password(table->connection);
        return starter_job(inspection, input, output_stem(*table));
      }
      const fs::path data_path = fs::absolute(opts->data);
      return starter_job(inspection, relative_to_job(data_path, job_file), data_path.stem().string());
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
