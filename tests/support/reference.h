// ARX reference results (tests/testdata/reference, copied from
// shared/reference): each run becomes a deid Job on examples/adult.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "deid/job.h"

namespace deid::testing {

// The "runs" of a reference file under tests/testdata/reference, read once
// per file (throws when it cannot be read).
const std::vector<nlohmann::json>& reference_runs(const std::string& file);
// All runs of arx-adult.json.
const std::vector<nlohmann::json>& arx_adult_runs();
// The run named `name` (throws when absent).
const nlohmann::json& arx_adult_run(const std::string& name);
// The job of a reference run: its quasi-identifiers with the adult
// hierarchies, its sensitive attribute (role sensitive, with its hierarchy),
// every other column insensitive, its privacy models, suppression limit and
// quality model; no output files. Privacy models are parsed from ARX's
// notation ("k=5", "ldiv-distinct=3", "ldiv-recursive=3,4",
// "tclose-ordered=0.2", "tclose-equal=0.2", "tclose-hier=0.2",
// "dankar=0.01", "pitman=0.01", "zayatz=0.01", "snb=0.01").
Job arx_adult_job(const nlohmann::json& run, SearchSpec::Algorithm algorithm = SearchSpec::Algorithm::automatic);

// The cases of reference/arx-adult-risk.json: ARX 3.9.2's risk estimates
// of the adult data, with each case's class size frequencies flattened as
// size, count, size, count, ...
const std::vector<nlohmann::json>& arx_adult_risk_cases();

// The whole content of a file, bytes as they are ("" when it cannot be read).
std::string slurp(const std::string& path);

// Writes to `path` a job file on examples/adult with absolute paths: the
// input (delimiter ';'), the nine quasi-identifiers with their hierarchies,
// `default-role: insensitive`, then `rest` (privacy and the rest); returns
// `path`.
std::string write_adult_job(const std::string& path, const std::string& rest);

// Runs the deid command line with `args` (shell words, quoted by the
// caller), standard output and error into the given files; returns the
// exit code, -1 when the process did not exit.
int run_deid(const std::string& args, const std::string& stdout_path, const std::string& stderr_path);

// Path of a file under examples/ or tests/testdata/.
std::string example_path(const std::string& relative);
std::string testdata_path(const std::string& relative);

// The data folder of a reference run with "dataset" "adult" (examples/adult)
// or "cup" (the shared data folder next to the repository, which may be
// absent).
std::filesystem::path reference_dataset_dir(const nlohmann::json& run);
// The job file text of a reference run with "dataset", "quasi_identifiers"
// (each with its hierarchy in the dataset's hierarchies/), "sensitive" (a
// name or null), "privacy" and "suppression_limit": every other column
// insensitive, `quality` (a YAML flow mapping), the search `algorithm`, and
// the utility analysis off.
std::string reference_job_text(const nlohmann::json& run, const std::string& quality,
                               const std::string& algorithm = "optimal");
// The "sha256" of the output file listed in a result's "files" ("" when none).
std::string output_sha256(const nlohmann::json& result);

// A fresh directory under the system's temporary directory, removed with
// everything in it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& name);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& file) const { return (path_ / file).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace deid::testing
