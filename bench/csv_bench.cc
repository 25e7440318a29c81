// Reading and encoding CSV (read_dataset: parallel parse straight into
// narrow codes), the sequential callback reader (read_csv_text), and the
// histogram build from the encoded columns. bench/README.md lists figures.
//
// The survey table is generated in memory with the shape of
// bench/tools/gen_survey.cc (9 columns of survey codes and labels, about 56
// bytes per row); set DEID_SURVEY_CSV to a file (e.g. the output of
// gen_survey) to read that instead. Arguments: the number of threads
// (oneTBB's parallelism is capped with global_control).
#include <benchmark/benchmark.h>
#include <tbb/global_control.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "deid/csv.h"
#include "deid/dataset.h"
#include "deid/histogram.h"

namespace {

// A survey-like table: year, quarter, region, person number, age, marital
// status, sex, race, education (cardinalities as in gen_survey).
std::string make_survey(std::uint64_t rows) {
  static const char* kRegions[] = {"Northeast", "Midwest", "South", "West"};
  static const char* kMarital[] = {"Married", "Widowed", "Divorced", "Separated", "Never married",
                                   "Living with partner", "Unknown"};
  static const char* kRace[] = {"White", "Black", "American Indian", "Asian", "Pacific Islander", "Multiple", "Other"};
  static const char* kEduc[] = {"Never attended", "Grade 1-4", "Grade 5-8", "Grade 9", "Grade 10", "Grade 11",
                                "Grade 12 no diploma", "High school graduate", "GED", "Some college",
                                "Associate vocational", "Associate academic", "Bachelor", "Master", "Professional",
                                "Doctorate", "Unknown"};
  std::uint64_t s = 20161122;
  auto next = [&] {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  std::string out = "YEAR,QUARTER,REGION,PERNUM,AGE,MARSTAT,SEX,RACEA,EDUC\n";
  out.reserve(rows * 60);
  char line[256];
  for (std::uint64_t r = 0; r < rows; ++r) {
    const int n = std::snprintf(line, sizeof line, "%d,%d,%s,%d,%d,%s,%s,%s,%s\n", 1997 + static_cast<int>(next() % 18),
                                1 + static_cast<int>(next() % 4), kRegions[next() % 4], 1 + static_cast<int>(next() % 12),
                                static_cast<int>(next() % 100), kMarital[next() % 7], next() % 2 ? "Female" : "Male",
                                kRace[next() % 7], kEduc[next() % 17]);
    out.append(line, static_cast<std::size_t>(n));
  }
  return out;
}

// The table as a file (generated once per process, or DEID_SURVEY_CSV).
const std::string& survey_path() {
  static const std::string path = [] {
    if (const char* p = std::getenv("DEID_SURVEY_CSV")) return std::string(p);
    const auto file = std::filesystem::temp_directory_path() / "deid_csv_bench_survey.csv";
    std::ofstream(file, std::ios::binary) << make_survey(300000);
    return file.string();
  }();
  return path;
}

std::int64_t file_size(const std::string& path) { return static_cast<std::int64_t>(std::filesystem::file_size(path)); }

void BM_ReadDatasetSurvey(benchmark::State& state) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(state.range(0)));
  const std::string& path = survey_path();
  std::uint64_t rows = 0;
  for (auto _ : state) {
    const deid::Dataset ds = deid::read_dataset(path, {});
    rows = ds.rows;
    benchmark::DoNotOptimize(ds.columns.data());
  }
  state.SetBytesProcessed(state.iterations() * file_size(path));
  state.counters["rows"] = static_cast<double>(rows);
}
BENCHMARK(BM_ReadDatasetSurvey)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadDatasetAdult(benchmark::State& state) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(state.range(0)));
  const std::string path = std::string(DEID_EXAMPLES_DIR) + "/adult/adult.csv";
  for (auto _ : state) {
    const deid::Dataset ds = deid::read_dataset(path, {});
    benchmark::DoNotOptimize(ds.columns.data());
  }
  state.SetBytesProcessed(state.iterations() * file_size(path));
}
BENCHMARK(BM_ReadDatasetAdult)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The sequential reader with a callback (hierarchies use it), on the survey
// text in memory: parse only, no encoding.
void BM_ReadCsvCallbackSurvey(benchmark::State& state) {
  std::ifstream in(survey_path(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (auto _ : state) {
    std::size_t fields = 0;
    deid::read_csv_text(text, "survey.csv", {}, [&](const deid::CsvRecord& rec) { fields += rec.fields.size(); });
    benchmark::DoNotOptimize(fields);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_ReadCsvCallbackSurvey)->Unit(benchmark::kMillisecond);

void BM_HistogramBuildSurvey(benchmark::State& state) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(state.range(0)));
  static const deid::Dataset ds = deid::read_dataset(survey_path(), {});
  const std::vector<int> columns = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  std::size_t entries = 0;
  for (auto _ : state) {
    const deid::Histogram h = deid::build_histogram(ds, columns);
    entries = h.size();
    benchmark::DoNotOptimize(h.counts.data());
  }
  state.counters["rows"] = static_cast<double>(ds.rows);
  state.counters["entries"] = static_cast<double>(entries);
}
BENCHMARK(BM_HistogramBuildSurvey)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
