// The command-line tool on the bundled example job (examples/adult.yaml):
// exit code, the keys of the JSON result that users and scripts rely on
// (shared/job-format.md), an output that passes the independent verifier,
// and determinism across runs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/reference.h"
#include "verify.h"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code = -1;
  fs::path dir, output, result, log;
};

std::string slurp(const fs::path& path) { return deid::testing::slurp(path.string()); }

// Runs `deid -q anonymize examples/adult.yaml` with output and result in a
// fresh directory.
CliRun run_cli(const std::string& tag) {
  CliRun run;
  run.dir = fs::path(::testing::TempDir()) / ("example_test_" + std::to_string(::getpid()) + "_" + tag);
  fs::remove_all(run.dir);
  fs::create_directories(run.dir);
  run.output = run.dir / "adult-deid.csv";
  run.result = run.dir / "adult-deid.json";
  run.log = run.dir / "log.txt";
  const std::string command = std::string("'") + DEID_CLI_PATH + "' -q anonymize '" +
                              deid::testing::example_path("adult.yaml") + "' --output '" + run.output.string() +
                              "' --result '" + run.result.string() + "' > '" + run.log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// The verifier's options, read from the job file with yaml-cpp (not with the
// engine's job parser, so that the check stays independent of it).
verify::Options verifier_options(const fs::path& output) {
  const fs::path job_path = deid::testing::example_path("adult.yaml");
  const fs::path base = job_path.parent_path();
  const YAML::Node job = YAML::LoadFile(job_path.string());
  verify::Options o;
  o.input_path = (base / job["input"]["path"].as<std::string>()).string();
  o.output_path = output.string();
  if (job["input"]["delimiter"]) o.input_delimiter = job["input"]["delimiter"].as<std::string>().at(0);
  if (job["output"]["delimiter"]) o.output_delimiter = job["output"]["delimiter"].as<std::string>().at(0);
  for (const auto& a : job["attributes"]) {
    const std::string name = a.first.as<std::string>();
    const std::string role = a.second["role"].as<std::string>();
    if (role == "quasi-identifying")
      o.quasi_identifiers.push_back({name, (base / a.second["hierarchy"].as<std::string>()).string()});
    if (role == "identifying") o.identifying.push_back(name);
  }
  for (const auto& m : job["privacy"])
    if (m["k-anonymity"]) o.k = m["k-anonymity"]["k"].as<std::uint64_t>();
  if (job["suppression-limit"]) o.suppression_limit = job["suppression-limit"].as<double>();
  return o;
}

class ExampleJob : public ::testing::Test {
 protected:
  // One run of the CLI shared by the tests of this process (each run takes
  // seconds).
  static void SetUpTestSuite() { first_ = new CliRun(run_cli("first")); }
  static void TearDownTestSuite() {
    fs::remove_all(first_->dir);
    delete first_;
    first_ = nullptr;
  }
  static CliRun* first_;
};
CliRun* ExampleJob::first_ = nullptr;

TEST_F(ExampleJob, CliExitsZeroAndResultHasDocumentedKeys) {
  const CliRun& run = *first_;
  ASSERT_EQ(run.exit_code, 0) << slurp(run.log);
  const nlohmann::json r = nlohmann::json::parse(slurp(run.result));

  for (const char* key : {"transformation", "information_loss_per_attribute", "search", "time_ms"})
    EXPECT_TRUE(r.contains(key) && r[key].is_object()) << key;
  for (const char* key : {"information_loss", "average_class_size"})
    EXPECT_TRUE(r.contains(key) && r[key].is_number()) << key;
  for (const char* key : {"suppressed_records", "records", "classes", "peak_rss_bytes", "smallest_class_size"})
    EXPECT_TRUE(r.contains(key) && r[key].is_number_unsigned()) << key;
  EXPECT_TRUE(r.contains("quality_model") && r["quality_model"].is_string());
  EXPECT_TRUE(r.contains("optimal") && r["optimal"].is_boolean());
  ASSERT_TRUE(r["search"].is_object());
  EXPECT_TRUE(r["search"].contains("algorithm") && r["search"]["algorithm"].is_string());
  EXPECT_TRUE(r["search"].contains("transformations_checked") && r["search"]["transformations_checked"].is_number_unsigned());
  EXPECT_TRUE(r["search"].contains("lattice_size"));
  ASSERT_TRUE(r["time_ms"].is_object());
  for (const char* key : {"read", "encode", "search", "write", "total"})
    EXPECT_TRUE(r["time_ms"].contains(key) && r["time_ms"][key].is_number()) << "time_ms." << key;

  // The values: the example job is ARX's adult_k5_loss.
  const nlohmann::json& arx = deid::testing::arx_adult_run("adult_k5_loss");
  EXPECT_EQ(r["quality_model"], "loss");
  EXPECT_EQ(r["records"].get<std::uint64_t>(), arx["rows"].get<std::uint64_t>());
  EXPECT_EQ(r["search"]["lattice_size"].get<std::uint64_t>(), arx["lattice_size"].get<std::uint64_t>());
  EXPECT_NEAR(r["information_loss"].get<double>(), arx["information_loss"].get<double>(),
              1e-8 * arx["information_loss"].get<double>());
  EXPECT_TRUE(r["optimal"].get<bool>());
  EXPECT_EQ(r["transformation"].size(), arx["quasi_identifiers"].size());
  EXPECT_EQ(r["information_loss_per_attribute"].size(), arx["quasi_identifiers"].size());
  EXPECT_GE(r["smallest_class_size"].get<std::uint64_t>(), 5u);
}

TEST_F(ExampleJob, CliOutputPassesIndependentVerifier) {
  const CliRun& run = *first_;
  ASSERT_EQ(run.exit_code, 0) << slurp(run.log);
  const nlohmann::json r = nlohmann::json::parse(slurp(run.result));
  const verify::Options options = verifier_options(run.output);
  const verify::Report report = verify::check(options);
  EXPECT_TRUE(report.valid()) << report.to_string();
  ASSERT_EQ(report.levels.size(), options.quasi_identifiers.size());
  for (std::size_t q = 0; q < options.quasi_identifiers.size(); ++q)
    EXPECT_EQ(report.levels[q].value_or(-1), r["transformation"][options.quasi_identifiers[q].name].get<int>())
        << options.quasi_identifiers[q].name;
  EXPECT_EQ(report.suppressed_records, r["suppressed_records"].get<std::uint64_t>());
  EXPECT_EQ(report.classes, r["classes"].get<std::uint64_t>());
  EXPECT_EQ(report.smallest_class, r["smallest_class_size"].get<std::uint64_t>());
}

TEST_F(ExampleJob, TwoRunsGiveIdenticalOutputAndResult) {
  const CliRun& a = *first_;
  const CliRun b = run_cli("second");
  ASSERT_EQ(a.exit_code, 0) << slurp(a.log);
  ASSERT_EQ(b.exit_code, 0) << slurp(b.log);
  const std::string out_a = slurp(a.output), out_b = slurp(b.output);
  EXPECT_FALSE(out_a.empty());
  EXPECT_TRUE(out_a == out_b) << "the output CSVs differ";

  // Everything but the measurements of time and memory must agree.
  auto strip = [](nlohmann::json r) {
    r.erase("time_ms");
    r.erase("peak_rss_bytes");
    if (r.contains("search")) r["search"].erase("time_to_best_ms");
    // The runs write to different places; the digests must agree.
    for (auto& f : r["files"]) f.erase("path");
    return r;
  };
  const nlohmann::json ra = strip(nlohmann::json::parse(slurp(a.result)));
  const nlohmann::json rb = strip(nlohmann::json::parse(slurp(b.result)));
  EXPECT_EQ(ra, rb) << nlohmann::json::diff(ra, rb).dump(1);
  fs::remove_all(b.dir);
}

}  // namespace
