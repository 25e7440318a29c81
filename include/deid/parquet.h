// Parquet tables: `input.parquet`, `output.parquet`, and a file named
// "*.parquet" on the command line (docs/job-file.md).
//
// libdeid has no Parquet reader or writer of its own. A front end that has
// one registers it here: the Python package does, through pyarrow, when it
// is imported, so a job with Parquet tables runs under `python -m deid` and
// the package's functions (docs/python.md). Without a codec, a Parquet table
// is an InputError that says how to run the job.
//
// Thread-safety: set_parquet_codec() is called once, before any run (at
// import); the other functions only read the codec.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "deid/dataset.h"
#include "deid/job.h"

namespace deid {

struct ParquetCodec {
  // The table at `path`, each cell as text (the front end's rendering of
  // its type, docs/python.md "Arrow in and out"). Throws InputError for a
  // file that is not a Parquet table.
  std::function<Dataset(const std::string& path)> read;
  // Writes the released table, given as the CSV text write_output() makes
  // with `delimiter`, to `out` as a Parquet file: one string column per CSV
  // column, in order, each cell's text as the CSV has it (an empty cell is
  // the empty string, not null).
  std::function<void(std::string_view csv, char delimiter, std::ostream& out)> write;
};

void set_parquet_codec(ParquetCodec codec);
bool have_parquet_codec();

// Throws InputError naming `path` and `role` ("input data", "output table")
// when no codec is registered.
void require_parquet(const std::string& path, const std::string& role);
// Throws the same for the job's Parquet tables, before a run does any work.
void require_table_formats(const Job& job);

// The table at `path` read through the codec, with the file's SHA-256 and
// size (Dataset::sha256, bytes) and `path` as its source.
Dataset read_parquet(const std::string& path, const std::string& role);

// A table file in `format`: read_dataset() for CSV, read_parquet() else.
Dataset read_table_file(const std::string& path, TableFormat format, const CsvOptions& csv, const std::string& role);

// Writes the released table's CSV text (write_output()) to `out` as Parquet.
void write_parquet(std::string_view csv, char delimiter, std::ostream& out, const std::string& path,
                   const std::string& role);

}  // namespace deid
