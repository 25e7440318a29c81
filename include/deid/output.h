// Safe outputs: a run never writes a file it reads, and every file it writes
// appears whole or not at all (docs/reliability.md states the promises and
// how each is tested).
//
// Every front end gets these guarantees from the library: anonymize() and
// run_cell_suppression() call check_files() before they read anything and
// write through OutputFile; the CLI's own outputs (deid risk, deid
// hierarchy) do the same.
//
// Thread-safety: check_files() and sha256 functions have no shared state.
// OutputFile objects are independent; the registry of unpublished
// temporaries that discard_unpublished_outputs() empties is lock-free.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/dataset.h"

namespace deid {

// A file a command uses, with its role as messages name it ("input data",
// "hierarchy of 'age'", "output table", "result").
struct FileUse {
  std::string role;
  std::string path;
};

// Checks the files of a command before it does any work. Throws IoError
// (exit 2), naming the path and the roles concerned, when:
//  - an output is the same file as one of `reads`, or as another output.
//    Files are compared by identity: device and inode after resolving
//    symbolic links (so a symlink or a hard link to an input is caught);
//    an output that does not exist yet by its resolved directory and name.
//    Character devices (/dev/null) may be given as several outputs;
//  - an output's directory does not exist, is not a directory or is not
//    writable; the output is a directory; the output exists and is
//    read-only (its permissions say so: deid does not replace a file its
//    owner protected).
// Reads that do not exist are ignored (reading them reports that later);
// empty paths in either list are ignored.
void check_files(const std::vector<FileUse>& reads, const std::vector<FileUse>& writes);

// SHA-256 (FIPS 180-4) through OpenSSL's libcrypto, incrementally.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  // The digest as 64 lowercase hexadecimal digits; ends the computation.
  std::string hex();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_hex(std::string_view bytes);
// Of a file's content; throws IoError when it cannot be read.
std::string sha256_file(const std::string& path);

// A file a run read or wrote, for the result's "files" list: the result
// names the SHA-256 of its input and of every output, so that a table can
// always be tied to the result that describes it (and `deid verify
// --result` checks the tie).
struct FileDigest {
  std::string role;    // "input", "output", "report", "sample"
  std::string path;    // as the job resolved it
  std::string sha256;  // 64 lowercase hex digits
  std::uint64_t bytes = 0;
  // A table the database grouped or wrote itself (docs/databases.md,
  // "Pushdown"): "histogram" for the input (sha256 and bytes: of the
  // grouped text received), "database" for the output (no bytes passed
  // through deid: sha256 empty, bytes 0; rows: the rows written).
  std::string pushdown;
  std::uint64_t rows = 0;
};
nlohmann::json to_json(const std::vector<FileDigest>& files);

// An output written atomically. The bytes go to a temporary file in the
// target's directory (hidden: ".NAME.deid-RANDOM.tmp", created with
// O_EXCL, with the permissions the target would get: the umask for a new
// file, the existing file's mode when it is replaced). finish() flushes,
// fsyncs and closes it, checking each step; publish() renames it over the
// target, which replaces the file in one step: a reader sees the old file
// or the new one, never a mix, and two runs writing the same path never
// splice their rows (the last rename wins whole). Until publish(), the
// target is untouched; the destructor removes an unpublished temporary
// (an exception or an early return), and discard_unpublished_outputs()
// does so from a signal handler.
//
// A symbolic link as the target is followed: the file it points to is
// replaced and the link kept. A target that exists and is not a regular
// file (a character device such as /dev/null or /dev/stdout's pipe, a
// FIFO) cannot be replaced by a rename: it is written directly, with the
// same error checks.
//
// Errors are IoError naming the path, the role and the system's reason
// ("No space left on device", "File too large", "Permission denied").
class OutputFile {
 public:
  OutputFile(std::string path, std::string role);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Where to write the content. A write error sets the stream's badbit;
  // finish() reports it.
  std::ostream& stream();
  // Flushes, fsyncs and closes; returns the digest of what was written
  // (with `digest_role` as its role). Throws IoError on any failure.
  FileDigest finish(const std::string& digest_role);
  // Replaces the target with the finished temporary (rename(2)) and syncs
  // the directory. REQUIRES: finish() returned.
  void publish();

  const std::string& path() const { return path_; }

 private:
  class Buffer;
  std::string path_, role_;
  std::string target_;     // path_ with symbolic links resolved
  std::string temporary_;  // empty when writing the target directly
  int fd_ = -1;
  int slot_ = -1;          // in the registry of unpublished temporaries
  bool finished_ = false, published_ = false;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// Writes `text` to `path` as an OutputFile (finished and published).
FileDigest write_file_atomically(const std::string& path, const std::string& role, std::string_view text,
                                 const std::string& digest_role);

// Removes the temporary file of every OutputFile of this process that is
// not published yet. Async-signal-safe (unlink(2) on a fixed table): a
// front end calls it from its SIGINT/SIGTERM handler before it exits.
void discard_unpublished_outputs() noexcept;

// Whether a spreadsheet would run `cell` as a formula: it starts with '=',
// '+', '-' or '@' and is not a plain number ("-5", "+1.5e3" are numbers and
// never escaped). docs/reliability.md, "Formulas".
bool looks_like_formula(std::string_view cell);

// Appends a cell of an output table as append_csv_field (csv.h) does; with
// `escape_formulas` (output.escape-formulas), a cell that looks_like_formula
// gets a leading "'" first.
void append_output_field(std::string& out, std::string_view cell, char delimiter, bool escape_formulas);


// Warnings, one per column of `data` whose written values a spreadsheet
// would run as formulas (looks_like_formula, output.h). `written[c]`
// false skips column c (identifying); `released_labels[c]`, when not null,
// are the values written for column c (a quasi-identifier's labels at its
// released level) instead of its dictionary. Either vector may be shorter
// than the columns (then: written, dictionary values).
std::vector<std::string> formula_warnings(const Dataset& data, const std::vector<bool>& written,
                                          const std::vector<const std::vector<std::string>*>& released_labels);

}  // namespace deid
