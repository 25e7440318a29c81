// Subcommands of the deid CLI that live in their own files. Each registers
// its options on the app and returns the function that runs it; the
// function returns the process exit code and may throw deid errors, which
// main() maps to exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks.h"
#include "deid/job.h"

namespace deid::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Registers a command on the app; `quiet` is read when the command runs.
using AddCommand = Command (*)(CLI::App& app, const bool& quiet);

// The whole command line, `deid [-q] [-j N] COMMAND ...`: parses `argv`,
// runs the command, prints what it prints and returns the exit code
// (docs/job-file.md). `add_serve` adds `deid serve` (add_serve_command);
// without it (the Python package, which links no HTTP server) there is no
// such command. Installs the handlers of SIGINT, SIGTERM and SIGHUP that
// remove unpublished outputs.
// `add_share` adds `deid share` (add_share_command) likewise.
int run(int argc, char** argv, AddCommand add_serve, AddCommand add_share = nullptr);

// `deid hierarchy intervals|masking|dates|grouping ...`: writes an ARX
// hierarchy CSV built from the distinct values of a column (or a list).
Command add_hierarchy_command(CLI::App& app);

// `deid suppress JOB`: local cell suppression for combinations of
// quasi-identifiers (docs/cell-suppression.md). Prints a summary unless
// `quiet` (read when the command runs).
Command add_suppress_command(CLI::App& app, const bool& quiet);

// `deid utility JOB [--input FILE] --output FILE [--json FILE]`: the utility
// analysis (docs/utility.md) of a released table against the job's input;
// prints the JSON, or writes it and prints a summary unless `quiet`.
Command add_utility_command(CLI::App& app, const bool& quiet);

// `deid inspect DATA [--json FILE] [--job FILE] [--max-combination-size N]`:
// profiles a raw table (types, HIPAA identifiers, attribute risk) and
// writes a starter job (docs/inspect.md). Prints a summary unless `quiet`.
Command add_inspect_command(CLI::App& app, const bool& quiet);

// `deid verify JOB [--output FILE] [--result FILE] [--input FILE]`: checks a
// released table against its job with the independent verifier
// (docs/verify.md); returns 0 when every check holds, 1 when one fails.
// With `quiet` prints only the failed checks.
Command add_verify_command(CLI::App& app, const bool& quiet);

// `deid serve [--host H] [--port P] [--data-dir DIR] [--token T] ...`: the
// REST API of docs/web.md (serve/) until SIGINT or SIGTERM; prints the
// address to open (with the access token). Returns 0 after a signal.
Command add_serve_command(CLI::App& app, const bool& quiet);

// `deid share token add|revoke|list ...`, `deid share proxy CONFIG` and
// `deid share run CONFIG`: the controlled data-sharing environment of
// docs/share.md (src/share). The proxy runs until SIGINT or SIGTERM (exit
// 0); `run` also ends, with 3, when a component of its desktop exits;
// `token revoke` returns 1 when the recipient had no token to revoke.
Command add_share_command(CLI::App& app, const bool& quiet);

// What `deid verify` checks and finds, for the command and the Python
// package: the released table `output` (default: the job's output.path or
// output table) against `job` and its input (`input`, default: the job's
// input.path or input table), and the counts and SHA-256s of `result` when
// given. Throws the errors the command reports with exit code 2 (a
// DatabaseError for a server that cannot be reached or a table that cannot
// be read).
struct Verification {
  std::string output;                     // the table checked
  std::vector<verify::CheckLine> lines;   // one per check, as printed
  // A database table was read (input or output): the output's rows were
  // paired with the input's by their values (pairing.h), so a line's row
  // is the input row's; an output table has no lines.
  bool paired = false;
  // The lines of each linked table ("linked 'NAME' ...") are about its
  // release: name -> path.
  std::vector<std::pair<std::string, std::string>> linked_outputs = {};
};
// `weights` (deid.spark.verify): a file of one count per line, the records
// each row of the two tables stands for (verify::Table::weights), or empty.
Verification verify_release(Job job, const std::string& input, const std::string& output, const std::string& result,
                            const std::string& weights = "");
// The table of checks as `deid verify --json` writes it.
nlohmann::json to_json(const Verification& v);

}  // namespace deid::cli
