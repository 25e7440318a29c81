// Subcommands of the deid CLI that live in their own files. Each registers
// its options on the app and returns the function that runs it; the
// function returns the process exit code and may throw deid errors, which
// main() maps to exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace deid::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// `deid hierarchy intervals|masking|dates|grouping ...`: writes an ARX
// hierarchy CSV built from the distinct values of a column (or a list).
Command add_hierarchy_command(CLI::App& app);

// `deid suppress JOB`: local cell suppression for combinations of
// quasi-identifiers (docs/cell-suppression.md). Prints a summary unless
// `quiet` (read when the command runs).
Command add_suppress_command(CLI::App& app, const bool& quiet);

// `deid verify JOB [--output FILE] [--result FILE] [--input FILE]`: checks a
// released table against its job with the independent verifier
// (docs/verify.md); returns 0 when every check holds, 1 when one fails.
// With `quiet` prints only the failed checks.
Command add_verify_command(CLI::App& app, const bool& quiet);

}  // namespace deid::cli
