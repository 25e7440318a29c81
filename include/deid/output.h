// Safe outputs: a run never writes a file it reads, and every file it writes
// appears whole or not at all (docs/reliability.md states the promises and
// how each is tested).
//
// Every front end gets these guarantees from the library: anonymize() and
// run_cell_suppression() call check_files() before they read anything and
// write through OutputFile; the CLI's own outputs (deid risk, deid
// hierarchy) do the same.
//
// Thread-safety: check_files() has no shared state.
// OutputFile objects are independent; the registry of unpublished
// temporaries that discard_unpublished_outputs() empties is lock-free.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deid/digest.h"

namespace deid {

// A file a command uses, with its role as messages name it ("input data",
// "hierarchy of 'age'", "output table", "result").
struct FileUse {
  std::string role;
  std::string path;
};

class CheckedFiles;
CheckedFiles check_files(const std::vector<FileUse>& reads, const std::vector<FileUse>& writes);

// Where an output goes, fixed once: the directory it is in, held open, and
// its name there, with symbolic links resolved when the target was made. An
// OutputFile writes and renames through the open directory, so nothing that
// happens to the path afterwards (a symbolic link or a hard link to an input
// swapped in during the search, a directory renamed or replaced) can send
// the bytes to another file: at worst the link placed there is replaced.
// Copies share the open directory. An empty target (no path) is "none".
class OutputTarget {
 public:
  OutputTarget() = default;
  // Resolves `path` now and opens its directory. Throws IoError when the
  // directory does not exist or is not a directory.
  OutputTarget(std::string path, std::string role);

  bool empty() const { return state_ == nullptr; }
  const std::string& path() const;      // as given
  const std::string& role() const;      // "output table", "result", ...
  const std::string& resolved() const;  // symbolic links resolved, absolute

 private:
  friend class OutputFile;
  friend CheckedFiles check_files(const std::vector<FileUse>&, const std::vector<FileUse>&);
  struct State;
  std::shared_ptr<const State> state_;
};

// The outputs of a command, each checked and fixed by check_files().
class CheckedFiles {
 public:
  // The output checked under `role`; an empty target when its path was
  // empty. Throws Error (a bug in the caller) when no output had the role.
  const OutputTarget& output(std::string_view role) const;

 private:
  friend CheckedFiles check_files(const std::vector<FileUse>&, const std::vector<FileUse>&);
  std::vector<std::pair<std::string, OutputTarget>> outputs_;  // role, target
};

// Checks the files of a command before it does any work and fixes where
// each output goes (OutputTarget). Throws IoError (exit 2), naming the path
// and the roles concerned, when:
//  - an output is the same file as one of `reads`, or as another output.
//    Files are compared by identity: device and inode after resolving
//    symbolic links (so a symlink or a hard link to an input is caught);
//    an output that does not exist yet by its resolved directory and name.
//    Character devices (/dev/null) may be given as several outputs;
//  - an output's directory does not exist, is not a directory or is not
//    writable; the output is a directory or a block device; the output
//    exists and is read-only. Read-only is judged by the permission bits
//    (no write bit for anyone, or none for the caller), not by access(2)
//    alone, so root is refused too: deid does not replace a file its owner
//    protected.
// Reads that do not exist are ignored (reading them reports that later);
// empty paths in either list are ignored.
CheckedFiles check_files(const std::vector<FileUse>& reads, const std::vector<FileUse>& writes);

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
  // Writes to `target` (from check_files(), so the place checked is the
  // place written). The path form resolves the path now (for outputs no
  // check precedes, such as tests').
  explicit OutputFile(const OutputTarget& target);
  OutputFile(std::string path, std::string role);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Where to write the content. A write error sets the stream's badbit;
  // finish() reports it.
  std::ostream& stream();
  // Makes the file readable and writable by its owner alone (mode 0600),
  // before anything is written to it. Throws IoError when it cannot.
  void owner_only();
  // Flushes, fsyncs and closes; returns the digest of what was written
  // (with `digest_role` as its role). Throws IoError on any failure.
  FileDigest finish(const std::string& digest_role);
  // Replaces the target with the finished temporary (renameat(2) in the
  // target's open directory) and syncs the directory. REQUIRES: finish()
  // returned. Several outputs of one run are published by publish_all().
  void publish();

  const std::string& path() const { return path_; }

 private:
  class Buffer;
  OutputTarget target_;
  std::string path_, role_;
  std::string temporary_;  // name in the target's directory; empty when writing the target directly
  int fd_ = -1;
  int slot_ = -1;          // in the registry of unpublished temporaries
  bool finished_ = false, published_ = false;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// Writes `text` to `path` as an OutputFile (finished and published).
FileDigest write_file_atomically(const std::string& path, const std::string& role, std::string_view text,
                                 const std::string& digest_role);
FileDigest write_file_atomically(const OutputTarget& target, std::string_view text, const std::string& digest_role);

// Publishes the finished outputs of one run (null entries skipped), in
// order, as one step for a terminating signal: a handler that asks
// defer_signal_while_publishing() during the renames gets true and returns,
// and the signal is raised again once the last output is in place. So a
// signal never leaves a new table beside an old result.
void publish_all(std::initializer_list<OutputFile*> files);
void publish_all(const std::vector<OutputFile*>& files);

// Publishing several outputs, or committing a database table with them, as
// one step for a terminating signal (publish_all() uses it; a run that also
// commits a database table holds one around the commit and the renames).
// Nests and may live in several threads at once.
class PublishBatch {
 public:
  PublishBatch();
  ~PublishBatch();  // raises a deferred signal when the last batch ends
  PublishBatch(const PublishBatch&) = delete;
  PublishBatch& operator=(const PublishBatch&) = delete;
};

// For a front end's SIGINT/SIGTERM/SIGHUP handler, first thing: true when
// a PublishBatch is under way, in which case the signal was recorded and
// the handler must return (it comes again when the batch ends); false when
// the handler may go on to discard_unpublished_outputs() and exit (from
// then on no batch starts). Async-signal-safe.
bool defer_signal_while_publishing(int sig) noexcept;

// Whether any output of this process was published (replaced its target).
// Async-signal-safe: a handler says what the run left behind.
bool outputs_published() noexcept;

// Removes the temporary file of every OutputFile of this process that is
// not published yet. Async-signal-safe (unlinkat(2) on a fixed table): a
// front end calls it from its SIGINT/SIGTERM handler before it exits.
void discard_unpublished_outputs() noexcept;

}  // namespace deid
