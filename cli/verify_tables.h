// The tables `deid verify` reads (cli/verify_command.cc): the input and
// the release (a CSV file with the verifier's own reader, a PostgreSQL table,
// a Parquet file), the job's hierarchies, and what the result claims.
#pragma once

#include <optional>
#include <string>

#include "checks.h"
#include "deid/dataset.h"
#include "deid/job.h"
#include "verify.h"

namespace deid::cli {

// A CSV file read with the verifier's reader; a file that cannot be opened
// or parsed is an error of the invocation (IoError, exit 2).
verify::Table read_table(const std::string& path, char delimiter, bool header, const char* what);
// The delimiter of a CSV file, detected from its header row.
char file_delimiter(const std::string& path, const char* what);

// A table verify reads: a CSV file, a PostgreSQL table (or query) fetched
// with the database layer's COPY, or a Parquet file read through the
// Python package's codec; the last two as CSV text parsed by the verifier's
// own reader.
struct Source {
  verify::Table table;
  std::string name;  // the path, or describe() of the table (no password)
  std::string text;  // the CSV text of a database table or a Parquet file
  bool database = false;
};

Source read_database(const PostgresTable& t, const char* what);
Source read_parquet_file(const std::string& path, const char* what);

// The hierarchies of a job, as tables of strings. A file is read by the
// verifier's reader; a table a front end holds in memory (the Python
// package's hierarchies=) is taken as it is; an inline definition is built
// by the library's builder from the input (encoded once, when the first
// inline definition needs it).
class Hierarchies {
 public:
  Hierarchies(const Job& job, const Source& input, char delimiter) : job_(job), input_(input), delimiter_(delimiter) {}

  verify::Table of(const AttributeSpec& a);
  // For messages.
  std::string name_of(const AttributeSpec& a) const;

 private:
  const Job& job_;
  const Source& input_;
  char delimiter_;
  std::optional<Dataset> data_;
};

// What the JSON result at `path` claims.
verify::ResultClaims read_claims(const std::string& path, bool cell_suppression);

}  // namespace deid::cli
