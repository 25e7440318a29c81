// The library's entry points for front ends that hold their data in memory
// (the Python package, docs/python.md): a hierarchy given as a table
// (AttributeSpec::hierarchy_data), risk of a Dataset, cell suppression of a
// Dataset with the tables kept in memory. Each gives what the file-based
// entry point gives.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <memory>

#include "deid/cell_suppression_job.h"
#include "deid/hierarchy.h"
#include "deid/pipeline.h"
#include "deid/risk.h"
#include "support/reference.h"

namespace fs = std::filesystem;

namespace {

using deid::testing::arx_adult_job;
using deid::testing::arx_adult_run;
using deid::testing::example_path;
using deid::testing::slurp;

TEST(InMemory, HierarchyTableGivesTheAnswerOfItsFile) {
  const deid::Job from_files = arx_adult_job(arx_adult_run("adult_k5_loss"));
  deid::Job in_memory = from_files;
  for (auto& a : in_memory.attributes) {
    a.hierarchy_data = std::make_shared<const deid::HierarchyTable>(deid::read_hierarchy(a.hierarchy));
    a.hierarchy = "does-not-exist.csv";  // ignored when the table is given
  }
  const deid::Anonymization a = deid::run_search(*deid::prepare(from_files));
  const deid::Anonymization b = deid::run_search(*deid::prepare(in_memory));
  ASSERT_TRUE(a.found && b.found);
  EXPECT_EQ(a.search.best->transformation, b.search.best->transformation);
  EXPECT_EQ(a.result["information_loss"], b.result["information_loss"]);
  EXPECT_EQ(a.result["suppressed_records"], b.result["suppressed_records"]);
}

TEST(InMemory, RiskOfADatasetEqualsRiskOfItsFile) {
  const deid::Job job = deid::read_job(example_path("adult.yaml"));
  const deid::RiskReport from_file = deid::assess_risk(job, std::string());
  const deid::Dataset data = deid::read_dataset(job.input.path, deid::CsvOptions{job.input.delimiter});
  deid::RiskReport from_data = deid::assess_risk(job, data);
  // A dataset does not know it is the job's input; the caller says so (as
  // the Python package does for deid.risk(None, job)).
  EXPECT_TRUE(from_file.custodian_only);
  EXPECT_FALSE(from_data.custodian_only);
  from_data.custodian_only = true;
  EXPECT_EQ(deid::to_json(from_file).dump(), deid::to_json(from_data).dump());
}

TEST(InMemory, CellSuppressionTablesEqualTheFilesWritten) {
  const fs::path dir = fs::temp_directory_path() / ("deid-in-memory-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  deid::Job job = deid::read_job(example_path("discharge/discharge.yaml"));
  job.output.path = (dir / "out.csv").string();
  job.output.result = (dir / "out.json").string();
  auto& samples = job.cell_suppression->samples;
  for (std::size_t i = 0; i < samples.size(); ++i)
    samples[i].path = (dir / ("sample" + std::to_string(i) + ".csv")).string();
  const deid::CellSuppressionRun written = deid::run_cell_suppression(job);

  deid::CellSuppressionTables tables;
  const deid::CellSuppressionRun kept = deid::run_cell_suppression(
      job, deid::read_dataset(job.input.path, deid::CsvOptions{job.input.delimiter}), tables);
  EXPECT_EQ(tables.table, slurp(job.output.path));
  ASSERT_EQ(tables.samples.size(), samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) EXPECT_EQ(tables.samples[i], slurp(samples[i].path)) << i;
  EXPECT_EQ(kept.result["information_loss"], written.result["information_loss"]);
  EXPECT_EQ(kept.result["attack3"], written.result["attack3"]);
  fs::remove_all(dir);
}

}  // namespace
