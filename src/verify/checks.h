// The table of checks that `deid verify` prints (docs/verify.md): the
// verifier's reports (verify.h, cell_suppression_check.h) turned into one
// line per check, named after what was asked, with its status and a detail
// a person can read, and the comparison of a JSON result's claims (counts,
// levels, SHA-256 of its files) with what the verifier found itself.
//
// Like the rest of the verifier this uses only the C++ standard library (and
// sha256.h). It does not parse JSON: the caller reads the result file and
// fills ResultClaims (the CLI uses nlohmann/json, a parser the engine uses
// too for writing, but no code of the engine).
//
// A line's status is `failed` when some violation it owns was found,
// `skipped` when it could not be computed (e.g. the rows do not align, so
// no column can be compared row by row), else `ok`. Each violation kind
// belongs to exactly one line, so every violation shows up in the table.
//
// Thread-safety: pure functions; call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cell_suppression_check.h"
#include "sha256.h"
#include "verify.h"

namespace verify {

struct CheckLine {
  enum class Status { ok, failed, skipped };
  std::string name;    // e.g. "k-anonymity (k=5)"
  Status status = Status::ok;
  std::string detail;  // e.g. "smallest class 5"; for a failure the first violation's message
  // The first violation of a failed line: the column concerned (may be
  // empty), the data row of the output (1-based, header excluded; 0: none)
  // and the line of the output file on which that row starts (0: unknown).
  std::string column;
  std::uint64_t row = 0;
  std::uint64_t line = 0;
};

const char* to_string(CheckLine::Status status);

// The lines of an anonymization output: identifying columns, columns, rows,
// copied columns, generalization, suppression, k-anonymity (or classes when
// k = 1), one line per class requirement, population uniqueness (when
// required). REQUIRES: `report` is check_tables(options, ...)'s, with no
// violation of kind unreadable, bad_hierarchy or bad_options (those are
// errors of the invocation, not findings about the output).
std::vector<CheckLine> summarize(const Options& options, const Report& report);

// The lines of a cell-suppression output: identifying columns, columns,
// rows, copied columns, released values, propagation, k-anonymity of the
// combinations. REQUIRES: no violation of kind unreadable or bad_options.
std::vector<CheckLine> summarize(const CellOptions& options, const CellReport& report);

// The lines of a linked table's release (docs/verify.md, "Linked tables"):
// its columns; its rows (one per row of `table`, in order, less orphans
// and the rows of suppressed people where the job drops them); each row's
// key (the person's released value in `output`), copied values, released
// identifiers (recomputed with the secret and the person's offset) and
// quasi-identifiers (the level the person release shows, '*' for a
// suppressed person); and that no input value of an identifying column,
// of the table or of the input, is a cell of any row of the release. A
// person is suppressed when its row of `output` shows '*' in every
// quasi-identifier. `output` must be in the input's order and `hierarchies`
// those of options.quasi_identifiers (with rows for the linked values).
std::vector<CheckLine> check_linked(const Options& options, const Table& input, const Table& output,
                                    const std::vector<Table>& hierarchies, const LinkedTableOptions& linked,
                                    const Table& table, const Table& released);

// Whether a text the run wrote besides its tables (`what`: "report",
// "result") holds an input value of an identifying column (`values`:
// column, value): each value of kShortestIdentifierSought characters or
// more (kShortestNumberSought without a letter) looked for as a whole word (no letter, digit, '_', '-' or '@' right
// before or after it), as it is and as HTML and JSON escape it. Fails naming the
// column of the first value found, never the value. The caller leaves out
// values the input also holds in a column it releases.
inline constexpr std::size_t kShortestIdentifierSought = 3;
// A value without a letter (a number, a telephone number) is looked for
// when it has this many characters or more: shorter numbers meet the
// counts, sizes and times of a report by chance.
inline constexpr std::size_t kShortestNumberSought = 10;
CheckLine check_text_for_identifiers(const std::string& what, const std::string& text,
                                     const std::vector<std::pair<std::string, std::string>>& values);

// One entry of a result's "files" array.
struct FileClaim {
  std::string role;  // input, output, report, sample
  std::string path;  // as the job resolved it
  std::string sha256;  // empty: none (a table the database wrote itself)
  std::optional<std::uint64_t> bytes;
  // A table the database grouped ("histogram", role input) or wrote itself
  // ("database", role output) in a pushdown run (docs/databases.md); empty
  // otherwise. With "database", `rows` is the rows the result says were written.
  std::string pushdown;
  std::optional<std::uint64_t> rows;
};

// What a JSON result says, as far as the verifier can check it. A field
// that the result does not have stays nullopt and is not compared.
struct ResultClaims {
  std::optional<bool> solution_found;
  std::optional<std::uint64_t> records;
  std::optional<std::uint64_t> suppressed_records;   // deid anonymize
  std::optional<std::uint64_t> classes;
  std::optional<std::uint64_t> smallest_class_size;
  std::optional<std::vector<std::pair<std::string, int>>> transformation;  // quasi-identifier, level
  std::optional<std::uint64_t> k;                     // deid suppress
  std::optional<std::uint64_t> suppressed_cells;
  std::optional<std::vector<FileClaim>> files;        // nullopt: no "files" key
};

// The files `deid verify` was given: their digests are compared with the
// claims of role input and output.
struct VerifiedFiles {
  std::string input;
  std::string output;
  // A database table read instead of a file (docs/verify.md, "Tables"):
  // the digest of the CSV text received, compared instead of reading the
  // file at the path. A released table's text is not the text the run sent
  // (the server renders it anew), so for the output only its row count is
  // compared, with the rows a pushdown run says it wrote.
  std::optional<FileDigest> input_table;
  bool output_table = false;
  std::uint64_t output_rows = 0;
};

// "result counts": the claimed counts and levels against the report (a
// claimed level must be one of the levels that fit, Report::fitting_levels).
// Then "sha256 input", "sha256 output" (the files given, against the entry
// of that role; failed when the entry is missing), and one "sha256 ROLE"
// line per other entry (report, sample): compared when the file at the
// entry's path exists, skipped otherwise. An input the run grouped in its
// database (pushdown "histogram") has no digest of its rows: skipped. A
// released table read from a database: its rows against a pushdown
// entry's "rows", else skipped. Without a "files" key one line
// "sha256" skipped. A file that cannot be read is a failed line.
std::vector<CheckLine> check_result(const ResultClaims& claims, const Options& options, const Report& report,
                                    const VerifiedFiles& files);
std::vector<CheckLine> check_result(const ResultClaims& claims, const CellOptions& options, const CellReport& report,
                                    const VerifiedFiles& files);

// Whether every line is ok or skipped.
bool all_hold(const std::vector<CheckLine>& lines);

}  // namespace verify
