// What the tests share: the ARX reference results (tests/testdata/reference,
// copied from shared/reference) as deid jobs, a reference job run through
// the command line (CliRun) or the library and compared with ARX's run,
// temporary directories and files, and running the command line.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "deid/job.h"
#include "deid/pipeline.h"

namespace verify {
struct Options;  // verify.h, the independent verifier's
}

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

// The comparison of a result with an arx-adult.json run that every test of
// that file makes: the information loss within a relative 1e-8, and, when
// the optimum's levels are ARX's, the suppressed records and the classes; a
// tie of equal loss broken differently is allowed and recorded as the
// test's property tie_broken_differently. Returns the levels in the order
// of the run's quasi-identifiers.
std::vector<int> expect_arx_adult_optimum(const nlohmann::json& result, const nlohmann::json& run);
// The job of an arx-adult.json run (automatic search) with its output
// written to a file of gtest's temporary directory named after `prefix`
// and the run.
Job arx_adult_job_with_output(const nlohmann::json& run, const std::string& prefix);

// The independent verifier's options (verify.h) for the release of an
// arx-adult.json run by `job`: its input and output, the input's delimiter
// ';', the run's quasi-identifiers with the adult hierarchies and its
// suppression limit; the privacy models are the caller's to add.
// (reference_verify.cc: only the tests linked with the verifier have it.)
verify::Options arx_adult_verify_options(const nlohmann::json& run, const Job& job);

// A reference job run in-process (prepare, run_search) and expected to be
// ARX's optimum: ARX's lattice size, an optimal solution, the information
// loss to the last bit, the transformation and the suppressed records.
// Returns the anonymization (its `found` is false when it failed).
Anonymization expect_arx_search(PreparedJob& prepared, const nlohmann::json& run);
// The same job searched optimally and exhaustively (every transformation
// checked): expects both to find the same loss and transformation; returns
// the exhaustive search's anonymization.
Anonymization expect_exhaustive_agrees(const Job& optimal, const Job& exhaustive);

// The cases of reference/arx-adult-risk.json: ARX 3.9.2's risk estimates
// of the adult data, with each case's class size frequencies flattened as
// size, count, size, count, ...
const std::vector<nlohmann::json>& arx_adult_risk_cases();

// The whole content of a file, bytes as they are ("" when it cannot be read).
std::string slurp(const std::string& path);

// The start of a job file on examples/adult with absolute paths: the input
// (delimiter ';') and the nine quasi-identifiers with their hierarchies.
std::string adult_job_head();
// Writes to `path` adult_job_head(), `default-role: insensitive`, then
// `rest` (privacy and the rest); returns `path`.
std::string write_adult_job(const std::string& path, const std::string& rest);

// Writes `text`, bytes as they are, to NAME-PID.csv in the system's
// temporary directory (PID this process's id); returns its path, empty when
// the file cannot be written.
std::filesystem::path write_temp_csv(const std::string& name, const std::string& text);

// Runs the deid command line with `args` (shell words, quoted by the
// caller), standard output and error into the given files; returns the
// exit code, -1 when the process did not exit.
int run_deid(const std::string& args, const std::string& stdout_path, const std::string& stderr_path);

// Path of a file under examples/ or tests/testdata/.
std::string example_path(const std::string& relative);
std::string testdata_path(const std::string& relative);

// A reference run's name as a test name: every character that is not a
// letter or digit becomes '_'.
std::string test_name(std::string name);

// The data folder of a reference run with "dataset" "adult" (examples/adult)
// or "cup" (the shared data folder next to the repository, which may be
// absent).
std::filesystem::path reference_dataset_dir(const nlohmann::json& run);
// The reference runs' research subset: every tenth record of the run's
// data from the fourth (record i with i % 10 == 3), as the generators
// wrote it for ARX, into `path` (returned).
std::string write_subset(const nlohmann::json& run, const std::string& path);
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

// A reference job run through the command line, as the reference tests run
// it: `job_text` written to job.yaml in a fresh TempDir(`name`), then
// `deid -q anonymize job.yaml --output out.csv --result result.json`;
// `result` is the result file read back (null unless the run exited 0).
class CliRun {
 public:
  // Makes the directory; anonymize() runs the job.
  explicit CliRun(const std::string& name);
  // Makes the directory and runs `job_text`.
  CliRun(const std::string& name, const std::string& job_text);
  void anonymize(const std::string& job_text);

  const TempDir dir;
  const std::string job, output, result_path;
  int exit_code = -1;
  nlohmann::json result;

  // What the run wrote to standard error.
  std::string errors() const;
  // `deid verify job.yaml --output out.csv --result result.json`: its exit
  // code; verify_report() is what it printed.
  int verify() const;
  std::string verify_report() const;
};

// The comparison most reference tests make of a result with ARX's run: the
// quality model's description, the lattice's size, the optimum, its
// information loss (within `loss_tolerance`), the suppressed records and
// the released table's SHA-256.
void expect_arx_optimum(const nlohmann::json& result, const nlohmann::json& run, double loss_tolerance);

}  // namespace deid::testing

// Skips the test when the data of a reference run is absent (cup lives in
// the shared data folder next to the repository).
#define DEID_SKIP_WITHOUT_REFERENCE_DATA(run)                                      \
  if (!std::filesystem::exists(deid::testing::reference_dataset_dir(run)))         \
  GTEST_SKIP() << "no data at " << deid::testing::reference_dataset_dir(run).string()
