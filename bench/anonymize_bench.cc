// Benchmarks of the standard job (examples/adult.yaml: adult data, 9
// quasi-identifiers, 5-anonymity, 5 % suppression, Loss): the whole job and
// its parts. bench/README.md says how to run them and lists measured figures.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "deid/check.h"
#include "deid/histogram.h"
#include "deid/job.h"
#include "deid/pipeline.h"

namespace {

const std::string kJob = std::string(DEID_EXAMPLES_DIR) + "/adult.yaml";

std::string temp_output() {
  return (std::filesystem::temp_directory_path() / ("anonymize_bench_" + std::to_string(::getpid()) + ".csv")).string();
}

// The job with its output sent to a temporary file and no result file.
deid::Job adult_job() {
  deid::Job job = deid::read_job(kJob);
  job.output.path = temp_output();
  job.output.result.clear();
  return job;
}

// ARX's optimum for adult_k5_loss (tests/testdata/reference/arx-adult.json),
// in ARX's order of quasi-identifiers. The job lists them in the CSV's column
// order, so the levels are mapped by name.
deid::Transformation arx_optimum(const deid::Problem& problem) {
  const std::pair<const char*, int> levels[] = {{"age", 3},     {"education", 2},    {"marital-status", 0},
                                                {"native-country", 1}, {"race", 0},  {"salary-class", 0},
                                                {"sex", 0},     {"workclass", 1},    {"occupation", 2}};
  deid::Transformation t(problem.qi_names.size(), 0);
  for (std::size_t q = 0; q < problem.qi_names.size(); ++q) {
    bool found = false;
    for (const auto& [name, level] : levels)
      if (problem.qi_names[q] == name) {
        t[q] = static_cast<std::uint8_t>(level);
        found = true;
      }
    if (!found) throw std::runtime_error("quasi-identifier " + problem.qi_names[q] + " has no ARX level");
  }
  return t;
}

// Prepared once and shared by the benchmarks of the parts.
const deid::PreparedJob& prepared_adult() {
  static const std::unique_ptr<deid::PreparedJob> prepared = deid::prepare(adult_job());
  return *prepared;
}

// The whole job as `deid anonymize` runs it: read and encode the data, bind
// the hierarchies, build the histogram, search, write the output.
void BM_AdultJob(benchmark::State& state) {
  const deid::Job job = adult_job();
  std::uint64_t checked = 0;
  for (auto _ : state) {
    const deid::Anonymization a = deid::anonymize(job);
    if (!a.found) state.SkipWithError("no solution");
    checked = a.search.checked;
  }
  state.counters["transformations_checked"] = static_cast<double>(checked);
  std::filesystem::remove(job.output.path);
}
BENCHMARK(BM_AdultJob)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reading, encoding and the histogram: everything before the search.
void BM_AdultPrepare(benchmark::State& state) {
  const deid::Job job = adult_job();
  for (auto _ : state) benchmark::DoNotOptimize(deid::prepare(job));
}
BENCHMARK(BM_AdultPrepare)->Unit(benchmark::kMillisecond)->UseRealTime();

// The check of one transformation (ARX's optimum): the search's hot path.
void BM_CheckArxOptimum(benchmark::State& state) {
  const deid::PreparedJob& p = prepared_adult();
  const deid::Transformation t = arx_optimum(p.problem);
  deid::Checker checker(p.problem);
  deid::CheckResult r;
  for (auto _ : state) {
    r = checker.check(t);
    benchmark::DoNotOptimize(r);
  }
  if (!r.solution) state.SkipWithError("ARX's optimum is no solution");
  state.counters["classes_before_suppression"] = static_cast<double>(r.classes);
  state.counters["suppressed"] = static_cast<double>(r.suppressed_records);
  state.counters["histogram_entries"] = static_cast<double>(p.problem.histogram.size());
}
BENCHMARK(BM_CheckArxOptimum)->Unit(benchmark::kMicrosecond);

// Building the histogram of the quasi-identifiers from the encoded columns.
void BM_HistogramBuild(benchmark::State& state) {
  const deid::PreparedJob& p = prepared_adult();
  std::size_t entries = 0;
  for (auto _ : state) {
    const deid::Histogram h = deid::build_histogram(p.data, p.problem.qi_columns);
    entries = h.size();
    benchmark::DoNotOptimize(entries);
  }
  state.counters["entries"] = static_cast<double>(entries);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.data.rows));
}
BENCHMARK(BM_HistogramBuild)->Unit(benchmark::kMicrosecond);

// Writing the output table for ARX's optimum (to memory, not to disk).
void BM_WriteOutput(benchmark::State& state) {
  const deid::PreparedJob& p = prepared_adult();
  const deid::Transformation t = arx_optimum(p.problem);
  deid::Checker checker(p.problem);
  deid::Classes classes;
  checker.check(t, &classes);
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    deid::write_output(p, t, classes, out);
    bytes = out.str().size();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_WriteOutput)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
