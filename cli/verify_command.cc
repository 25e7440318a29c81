// `deid verify JOB [--output FILE] [--result FILE] [--input FILE] [--json FILE]`:
// re-checks a released table against its job with the independent verifier
// (src/verify, docs/verify.md), which shares no code with the engine.
//
// What this file takes from the library: the job parser (`read_job`), which
// is the specification of what was asked, not engine code; and, for inline
// hierarchy definitions only, the hierarchy builder (`hierarchy_table`), which
// turns a definition into the table the verifier then checks against (the
// one part of the check that reuses the engine's code; docs/verify.md says
// so). Everything else (reading the tables, the levels, the classes, every
// privacy model, the digests) is the verifier's own. A PostgreSQL table is
// fetched by the library's database layer (read_postgres_text: the same
// COPY the engine reads with) and parsed by the verifier's own reader; its
// rows, which have no order, are paired with the input's by their values
// (pairing.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks.h"
#include "commands.h"
#include "deid/csv.h"
#include "deid/database.h"
#include "deid/dataset.h"
#include "deid/differential_privacy.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/output.h"
#include "deid/parquet.h"
#include "deid/pipeline.h"
#include "pairing.h"
#include "sha256.h"
#include "verify.h"
#include "verify_mapping.h"
#include "verify_tables.h"

namespace deid::cli {
namespace {

constexpr int kExitHold = 0;
constexpr int kExitFailed = 1;

void print_table(const std::vector<verify::CheckLine>& lines, bool failures_only) {
  std::size_t width = 0;
  for (const auto& l : lines) width = std::max(width, l.name.size());
  for (const auto& l : lines) {
    if (failures_only && l.status != verify::CheckLine::Status::failed) continue;
    fmt::print("{:<{}}  {:<7}  {}\n", l.name, width, verify::to_string(l.status), l.detail);
  }
}

}  // namespace

nlohmann::json to_json(const Verification& v) {
  const auto& lines = v.lines;
  const auto& output = v.output;
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& l : lines) {
    nlohmann::json c = {{"check", l.name}, {"status", verify::to_string(l.status)}, {"detail", l.detail}};
    if (l.status == verify::CheckLine::Status::failed) {
      if (!l.column.empty()) c["column"] = l.column;
      if (l.row) c["row"] = l.row;
      if (l.line) c["line"] = l.line;
    }
    checks.push_back(std::move(c));
  }
  // A failed check's detail quotes input values to locate the fault: the
  // table of checks is for the custodian (docs/reliability.md).
  return {{"output", output},
          {"valid", verify::all_hold(lines)},
          {"checks", std::move(checks)},
          {"custodian_only", true}};
}

namespace {

// "FILE:LINE (data row R, column 'C')" of a failed line, as much as is
// known. Rows paired by their values are named by their input row: "TABLE
// (the row paired with input row R, column 'C')" (a table has no lines).
std::string where(const verify::CheckLine& l, const std::string& output, bool paired) {
  std::string s = output;
  if (l.line) s += fmt::format(":{}", l.line);
  std::string in;
  if (l.row) in = paired ? fmt::format("the row paired with input row {}", l.row) : fmt::format("data row {}", l.row);
  if (!l.column.empty()) in += fmt::format("{}column '{}'", in.empty() ? "" : ", ", l.column);
  return in.empty() ? s : s + " (" + in + ")";
}

}  // namespace

// One count per line, as many lines as `rows`.
static std::vector<std::uint64_t> read_weights(const std::string& path, std::size_t rows) {
  std::ifstream in(path);
  if (!in) throw IoError(Location{path, 0, 0, {}}, "cannot open the row weights");
  std::vector<std::uint64_t> weights;
  std::string line;
  while (std::getline(in, line)) {
    std::uint64_t w = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), w);
    if (ec != std::errc() || end != line.data() + line.size() || w == 0)
      throw InputError(Location{path, weights.size() + 1, 0, {}},
                       fmt::format("a row weight must be a positive integer, got '{}'", line));
    weights.push_back(w);
  }
  if (weights.size() != rows)
    throw InputError(Location{path, 0, 0, {}},
                     fmt::format("{} row weights for {} rows", weights.size(), rows));
  return weights;
}

Verification verify_release(Job job, const std::string& input_path, const std::string& output_path,
                            const std::string& result_path, const std::string& weights_path) {
  if (!input_path.empty()) job.input.use_file(input_path);
  if (!output_path.empty()) job.output.use_file(output_path);
  const std::string& output = job.output.path;
  if (output.empty() && !job.output.postgres)
    throw JobError(Location{job.path, 0, 0, {}},
                   "nothing to verify: the job has no output.path or output table; give --output FILE");
  // A table appended to holds other rows than this release's.
  if (job.output.postgres && job.output.postgres->mode == PostgresTable::Mode::append)
    throw JobError(Location{job.path, job.output.postgres->line, 0, {}},
                   "deid verify cannot check an output table of mode append: it holds the rows of other runs too; "
                   "export this run's rows and give --output FILE");

  // The input: its file, or its table read through the database layer.
  Source input;
  char input_delimiter = ',';
  if (job.input.postgres) {
    input = read_database(*job.input.postgres, "input table");
  } else if (job.input.format == TableFormat::parquet) {
    input = read_parquet_file(job.input.path, "input");
  } else {
    input_delimiter = job.input.delimiter ? *job.input.delimiter : file_delimiter(job.input.path, "input");
    input.name = job.input.path;
    input.table = read_table(job.input.path, input_delimiter, true, "input");
  }
  for (const auto& a : job.attributes)
    if (std::find(input.table.header.begin(), input.table.header.end(), a.name) == input.table.header.end())
      throw JobError(Location{job.path, a.line, 0, {}},
                     fmt::format("attribute '{}' is not a column of {}", a.name, input.name));
  Hierarchies hierarchies(job, input, input_delimiter);

  std::vector<verify::CheckLine> lines;
  std::optional<verify::Table> released;
  verify::VerifiedFiles files{input.name, output, {}, false, 0};
  if (input.database) files.input_table = verify::FileDigest{verify::sha256_hex(input.text), input.text.size()};
  if (job.output.postgres) {
    Source out = read_database(*job.output.postgres, "released table");
    files.output = out.name;
    files.output_table = true;
    files.output_rows = out.table.rows.size();
    released = std::move(out.table);
  } else if (job.output.format == TableFormat::parquet) {
    released = read_parquet_file(output, "output").table;
  } else {
    const char output_delimiter = job.output.delimiter.value_or(input_delimiter);
    std::string why;
    released = verify::read_csv_file(output, output_delimiter, true, &why);
    if (!released) {
      std::ifstream probe(output, std::ios::binary);
      if (!probe) throw IoError(Location{output, 0, 0, {}}, "cannot open the output to verify");
      // A released table that is not CSV fails verification (exit 1).
      lines.push_back({"output csv", verify::CheckLine::Status::failed, why, {}, 0, 0});
    }
  }
  // Rows of a table have no order (docs/databases.md, "Row order"): with a
  // table on either side the output's rows are paired with the input's by
  // their values (pairing.h); files are compared in their order.
  const bool unordered = input.database || files.output_table;
  if (!released) {
  } else if (job.cell_suppression) {
    // deid suppress streams its release into a new table in input order,
    // and a new table is read back in the order it was written: compared as
    // it reads (docs/verify.md).
    const MappedCells m = map_cell_suppression(job, input.table, hierarchies);
    const verify::CellReport report = verify::check_cell_tables(input.table, *released, m.hierarchies, m.options);
    for (const auto& v : report.violations)
      if (v.kind == verify::CellViolation::Kind::unreadable || v.kind == verify::CellViolation::Kind::bad_options)
        throw JobError(Location{job.path, 0, 0, {}}, fmt::format("the job does not fit the data: {}", v.message));
    lines = verify::summarize(m.options, report);
    if (!result_path.empty()) {
      const auto more = verify::check_result(read_claims(result_path, true), m.options, report, files);
      lines.insert(lines.end(), more.begin(), more.end());
    }
  } else {
    if (!weights_path.empty()) {
      input.table.weights = read_weights(weights_path, input.table.rows.size());
      released->weights = input.table.weights;
    }
    const Mapped m = map_anonymization(job, input.table, hierarchies);
    if (unordered)
      if (const auto pairing = verify::pair_rows(m.options, input.table, *released, m.hierarchies))
        released = verify::in_input_order(*released, *pairing);
    const verify::Report report =
        verify::check_tables(m.options, input.table, *released, m.hierarchies, m.aggregated_hierarchies);
    for (const auto& v : report.violations)
      if (v.kind == verify::Violation::Kind::unreadable || v.kind == verify::Violation::Kind::bad_options ||
          v.kind == verify::Violation::Kind::bad_hierarchy)
        throw JobError(Location{job.path, 0, 0, {}}, fmt::format("the job does not fit the data: {}", v.message));
    lines = verify::summarize(m.options, report);
    lines.insert(lines.end(), m.unchecked.begin(), m.unchecked.end());
    const auto linked = check_linked_tables(job, m, input.table, *released);
    lines.insert(lines.end(), linked.begin(), linked.end());
    // The texts the run wrote beside its tables hold no identifying value.
    const auto values = identifying_values(job, input.table);
    const std::pair<const char*, std::string> texts[] = {
        {"report", job.output.report}, {"result", result_path.empty() ? job.output.result : result_path}};
    for (const auto& [what, path] : texts) {
      if (values.empty() || path.empty()) continue;
      std::ifstream in(path, std::ios::binary);
      if (!in) continue;  // not written (verify checks the tables; --result names a result that must exist)
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      lines.push_back(verify::check_text_for_identifiers(what, text, values));
    }
    if (!result_path.empty()) {
      const auto more = verify::check_result(read_claims(result_path, false), m.options, report, files);
      lines.insert(lines.end(), more.begin(), more.end());
    }
  }
  if (files.output_table)
    for (auto& l : lines) l.line = 0;  // a table has no lines
  if (unordered && released && released->rows.size() != input.table.rows.size())
    for (auto& l : lines) {
      // Rows without an order part nowhere in particular.
      if (l.name != "rows" || l.status != verify::CheckLine::Status::failed) continue;
      l.detail = fmt::format("the output has {} rows, the input {} (one output row per input row is required)",
                             released->rows.size(), input.table.rows.size());
      l.row = l.line = 0;
    }
  Verification v{files.output, std::move(lines), unordered && !job.cell_suppression};
  for (const LinkedTable& t : job.linked) v.linked_outputs.emplace_back(t.name, t.output);
  return v;
}

Command add_verify_command(CLI::App& app, const bool& quiet) {
  struct Options {
    std::string job, input, output, result, json;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "verify", "Check a released table against its job with the independent verifier (docs/verify.md)");
  sub->add_option("job", opts->job, "Job file (YAML) the table was released with")->required()->check(CLI::ExistingFile);
  sub->add_option("--output", opts->output, "The released table (default: the job's output.path)");
  sub->add_option("--result", opts->result, "The JSON result of the run: its counts and SHA-256s are checked too");
  sub->add_option("--input", opts->input, "The input table (default: the job's input): CSV, or Parquet when named *.parquet");
  sub->add_option("--json", opts->json, "Also write the table of checks as JSON to this file");

  Command cmd;
  cmd.app = sub;
  cmd.run = [opts, &quiet]() -> int {
    Job job = read_job(opts->job);
    // Every file verify reads (the job, everything it names, the input,
    // the released table and the result) is safe from --json, which is
    // written whole or not at all like every other output.
    std::vector<FileUse> reads = job_reads(job);
    reads.push_back({"input data", opts->input.empty() ? job.input.path : opts->input});
    reads.push_back({"released table", opts->output.empty() ? job.output.path : opts->output});
    reads.push_back({"result", opts->result});
    for (const LinkedTable& t : job.linked) reads.push_back({linked_output_role(t), t.output});
    const CheckedFiles checked = check_files(reads, {{"table of checks", opts->json}});
    const Verification v = verify_release(std::move(job), opts->input, opts->output, opts->result);
    const std::vector<verify::CheckLine>& lines = v.lines;
    const std::string& output = v.output;

    if (!opts->json.empty()) write_file_atomically(checked.output("table of checks"), to_json(v).dump(2) + "\n", "checks");
    print_table(lines, quiet);
    if (verify::all_hold(lines)) return kExitHold;
    const auto first = std::find_if(lines.begin(), lines.end(),
                                    [](const auto& l) { return l.status == verify::CheckLine::Status::failed; });
    // A linked table's line is about its release, whose rows are in order.
    std::string file = output;
    bool paired = v.paired;
    for (const auto& [name, path] : v.linked_outputs)
      if (first->name.rfind(fmt::format("linked '{}' ", name), 0) == 0) {
        file = path;
        paired = false;
      }
    fmt::print(stderr, "deid: verify: {} failed at {}: {}\n", first->name, where(*first, file, paired),
               first->detail);
    return kExitFailed;
  };
  return cmd;
}

}  // namespace deid::cli
