// What `deid serve` holds: the uploaded datasets, the jobs on them and the
// workers that run the jobs (docs/web.md). Everything it writes is under
// its state directory:
//
//   STATE/datasets/ID/data.csv            the upload
//   STATE/datasets/ID/jobs/JOB/job.json   the job as the server runs it
//   STATE/datasets/ID/jobs/JOB/hierarchy-N.csv   inline hierarchies
//   STATE/datasets/ID/jobs/JOB/output.csv, result.json, report.html
//
// so deleting a dataset removes its jobs' files too. A job is one of three
// commands, each run through the library call of its command line:
// `deid anonymize` (deid::anonymize()), `deid risk` (deid::assess_risk())
// and `deid suppress` (deid::run_cell_suppression()), on a pool of
// workers; a job that fails (any exception) fails alone. Once a job is done
// its result names no path of the server (publish_names in store_run.cc). Thread-safe: every
// member may be called from any HTTP thread. Nothing here prints or exits.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/job.h"
#include "deid/pipeline.h"

namespace deid::serve {

enum class JobStatus { queued, running, done, failed, cancelled };
const char* to_string(JobStatus status);

// The command line a job runs as ("command" of POST /api/v1/jobs).
enum class Command { anonymize, risk, suppress };
const char* to_string(Command command);
inline bool finished(JobStatus s) { return s == JobStatus::done || s == JobStatus::failed || s == JobStatus::cancelled; }

// Thrown from the progress hooks of a job whose cancellation was asked
// (the hooks may throw: search.h, ProgressFn); never leaves the worker.
struct Cancelled {};

// One job. The fields under `m` change while it runs; `version` grows with
// every change, and `changed` is notified, for the event stream.
struct JobState {
  std::string id, dataset_id;
  Command command = Command::anonymize;
  // The dataset's file name, which the result and the report give as the
  // input instead of the server's path.
  std::string input_name;
  std::filesystem::path dir;
  Job job;
  std::atomic<bool> cancel{false};

  mutable std::mutex m;
  std::condition_variable changed;
  JobStatus status = JobStatus::queued;
  nlohmann::json progress = nlohmann::json::object();
  std::string error;
  bool solution_found = false;
  std::uint64_t version = 0;
  // The job as the client sent it (without "dataset" and "command"), for
  // job.yaml, is dir/spec.json: kept on disk, not in memory.

  // Whether GET .../output and .../report have something to send once the
  // job is done: a released table (anonymize with a solution, suppress), an
  // HTML report (anonymize, risk).
  bool releases_table() const { return command == Command::suppress || (command == Command::anonymize && solution_found); }
  bool writes_report() const { return command != Command::suppress; }

  // {"id", "dataset", "command", "status", "progress", "error",
  // "solution_found"}; under m.
  nlohmann::json status_json() const;
};

// Applies `change` to the job under its lock and wakes its event streams.
template <class F>
void update(JobState& job, F&& change) {
  {
    std::lock_guard lock(job.m);
    change();
    ++job.version;
  }
  job.changed.notify_all();
}

// Whether a job (its JSON, as a client sends it) releases an identifying
// column by a keyed action (pseudonym, date-shift): then the server's
// secret keys it (store_jobs.cc) and its job.yaml names one
// (store_helpers.cc).
bool keys_identifiers(const nlohmann::json& spec);

struct StoreOptions {
  std::filesystem::path state_dir;  // exists, this server's alone
  std::filesystem::path data_dir;   // canonical; empty: no hierarchy files may be named
  std::size_t workers = 2;
  // Quotas: datasets held, and jobs held (in any state) over all datasets;
  // beyond them a new one is refused (409) until one is deleted.
  std::size_t max_datasets = 100;
  std::size_t max_jobs = 1000;
  // The server's secret file (absolute; empty: none) and its fingerprint.
  std::filesystem::path secret_file;
  std::string secret_fingerprint;
  // A test hook: called on the worker at the start of each phase of a job,
  // before the job's cancel flag is checked.
  std::function<void(const std::string& job_id, Phase phase)> on_phase;
};

class Store {
 public:
  explicit Store(StoreOptions options);
  ~Store();  // stop()

  // The fingerprint of the server's secret (docs/identifiers.md); empty
  // when it has none.
  const std::string& secret_fingerprint() const { return options_.secret_fingerprint; }
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Moves `upload` (a file in the state directory) into a new dataset and
  // reads it with the library. Returns the dataset's id. Throws
  // HttpError(400) with the library's message (naming the file
  // "dataset.csv") when it is not a table deid can read; the upload is
  // then removed.
  // `name` is the file name the client gave (its last component is kept;
  // "dataset.csv" when empty), the input of the job's job.yaml.
  std::string add_dataset(const std::filesystem::path& upload, const std::string& name = {});
  // Copies the CSV file `relative` of the data directory into a new dataset.
  // Throws HttpError(403) for a path outside the data directory (or without
  // one), 404 for a missing file, else as add_dataset.
  std::string add_dataset_file(const std::string& relative);
  // {"files": ["adult.csv", "hierarchies/age.csv", ...]}: the .csv files
  // under the data directory (links are not followed), sorted, at most 10000.
  nlohmann::json files() const;
  // The rows the builder `builder` (an inline hierarchy of a job,
  // docs/job-file.md) makes of the distinct values of `column`, in the order
  // they first occur: {"column", "levels", "rows": [[...]]}. Throws
  // HttpError(404) for an unknown dataset or column, 400 for a builder the
  // library rejects (its message).
  nlohmann::json hierarchy_preview(const std::string& id, const std::string& column,
                                   const nlohmann::json& builder) const;
  // The inspection of the dataset (docs/web.md, "Inspection"):
  // {"inspection": deid::to_json of deid::inspect() (docs/inspect.md),
  //  "requested_combination_size", "starter_job": the text `deid inspect
  //  --job` writes beside the data, "attributes": that job's attributes as
  //  JSON}. Combinations of up to `max_combination_size` (1 to 8) columns,
  //  fewer when the records would make the work too large (the size used
  //  is inspection.max_combination_size). Kept in the dataset's directory
  //  once computed. Throws HttpError(404) for an unknown dataset, 400 for a
  //  size out of range or a table the library rejects.
  nlohmann::json inspect(const std::string& id, int max_combination_size) const;
  // The job as a job file in YAML (docs/web.md, "job.yaml"): the client's
  // job with input.path the dataset's file name and the outputs beside it
  // (none for a risk job, whose outputs are options of `deid risk`), under
  // a comment giving the command that runs it. Throws HttpError(409) when
  // the job has inline rows (a job file cannot hold them).
  std::string job_yaml(const std::string& id) const;
  // A fresh path in the state directory for an upload in progress.
  std::filesystem::path upload_path();
  // {"id", "rows", "columns": [{"name", "distinct"}], "sample": [[...]]}.
  // Throws HttpError(404) for an unknown id.
  nlohmann::json dataset(const std::string& id) const;
  // Cancels its jobs, forgets them and removes the dataset's directory.
  void delete_dataset(const std::string& id);

  // Builds a job from its JSON (docs/web.md, "Jobs") and queues it.
  // Throws HttpError(409) when the job quota is full.
  // Throws HttpError(400) for an unknown command, a section that does not
  // fit it, or a job the library rejects (its message), 403 for a
  // hierarchy or registry path outside the data directory, 404 for an
  // unknown dataset.
  std::string add_job(nlohmann::json spec);
  // Throws HttpError(404) for an unknown id.
  std::shared_ptr<JobState> job(const std::string& id) const;
  // Asks a job to stop: a queued job is cancelled at once, a running one at
  // its next progress report. False when it had finished already.
  bool cancel_job(const std::string& id);

  // `message` without the server's directories: paths under the state
  // directory become relative to it, paths under the data directory
  // relative to that (as a client names them).
  std::string redact(std::string message) const;

  // Stops the workers (running jobs are cancelled) and wakes every event
  // stream. Idempotent.
  void stop();
  bool stopping() const { return stopping_; }

 private:
  // What a dataset keeps in memory: its summary (summary.json) and each
  // column's distinct values (values-N.json, in order of first occurrence)
  // are files of its directory, read when asked for, so that memory does
  // not grow with the datasets' contents.
  struct Dataset {
    std::filesystem::path dir, csv;
    std::string name;  // the client's file name
    std::vector<std::string> jobs;
  };
  std::string add_named_dataset(const std::filesystem::path& upload, const std::string& name);
  // A library message about `job_dir`'s job on the dataset `csv`: the
  // dataset named `input_name`, the job's files by their names alone.
  std::string scrub(std::string message, const std::filesystem::path& csv, const std::string& input_name,
                    const std::filesystem::path& job_dir) const;
  void work();
  void run(JobState& job);
  // Runs the job's command; whether it found a solution (anonymize).
  bool run_command(JobState& job, const RunOptions& options) const;

  StoreOptions options_;
  mutable std::mutex m_;
  std::condition_variable queue_changed_;
  std::map<std::string, Dataset> datasets_;
  std::map<std::string, std::shared_ptr<JobState>> jobs_;
  std::deque<std::shared_ptr<JobState>> queue_;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

}  // namespace deid::serve
