// Benchmarks of population uniqueness (papers/002, VII-C): the 1 % job
// (Dankar's rule, USA) on adult as a whole, one check of its optimum, and
// the estimators on the adult input. ARX 3.9.2 takes 0.6 s for the job on a
// 2-vCPU machine (shared/reference/arx-adult.json, adult_dankar001).
//
//   build-*/bench/risk_bench --benchmark_filter=. --benchmark_min_time=1x
#include <benchmark/benchmark.h>

#include <string>

#include "deid/check.h"
#include "deid/pipeline.h"
#include "deid/risk.h"
#include "risk/models.h"

namespace {

deid::Job adult_job(double threshold, const char* estimator) {
  // The job as a user writes it (docs/job-file.md), paths relative to examples/adult.
  std::string yaml = "input: {path: adult.csv, delimiter: ';'}\nattributes:\n";
  for (const char* q : {"age", "education", "marital-status", "native-country", "race", "salary-class", "sex",
                        "workclass", "occupation"})
    yaml += std::string("  ") + q + ": {role: quasi-identifying, hierarchy: hierarchies/" + q + ".csv}\n";
  yaml += "default-role: insensitive\nprivacy:\n  - population-uniqueness: {threshold: " + std::to_string(threshold) +
          ", population-size: 318.9e6, estimator: " + estimator + "}\nsuppression-limit: 1.0\n";
  return deid::parse_job(yaml, "risk_bench.yaml", std::string(DEID_EXAMPLES_DIR) + "/adult");
}

// The whole job: search (as `deid anonymize` runs it, without I/O).
void BM_DankarAdultJob(benchmark::State& state) {
  const deid::Job job = adult_job(0.01, "dankar");
  auto prepared = deid::prepare(job);
  for (auto _ : state) {
    const deid::Anonymization a = deid::run_search(*prepared);
    benchmark::DoNotOptimize(a.found);
    state.counters["checked"] = static_cast<double>(a.search.checked);
    state.counters["loss"] = a.result["information_loss"].get<double>();
  }
}
BENCHMARK(BM_DankarAdultJob)->Unit(benchmark::kMillisecond)->Iterations(1);

// One check of ARX's optimum (2,0,0,0,0,0,0,0,0): grouping, the estimate,
// the binary search over the suppressible classes, the loss.
void BM_DankarCheckOfOptimum(benchmark::State& state) {
  const deid::Job job = adult_job(0.01, "dankar");
  auto prepared = deid::prepare(job);
  deid::Checker checker(prepared->problem);
  const deid::Transformation t = {0, 2, 0, 0, 0, 0, 0, 0, 0};  // CSV column order: sex, age, ...
  for (auto _ : state) {
    const deid::CheckResult r = checker.check(t);
    benchmark::DoNotOptimize(r.solution);
    state.counters["suppressed"] = static_cast<double>(r.suppressed_records);
  }
}
BENCHMARK(BM_DankarCheckOfOptimum)->Unit(benchmark::kMillisecond);

deid::ClassSizeFrequencies adult_input() {
  const deid::Job job = adult_job(0.01, "dankar");
  deid::RiskOptions none;
  none.populations.clear();
  return deid::assess_risk(job, "", none).frequencies;
}

void BM_PitmanAdultInput(benchmark::State& state) {
  const deid::ClassSizeFrequencies f = adult_input();
  for (auto _ : state) benchmark::DoNotOptimize(deid::estimate_pitman(f, 318.9e6).uniques);
}
BENCHMARK(BM_PitmanAdultInput)->Unit(benchmark::kMicrosecond);

void BM_ZayatzAdultInput(benchmark::State& state) {
  const deid::ClassSizeFrequencies f = adult_input();
  for (auto _ : state) benchmark::DoNotOptimize(deid::estimate_zayatz(f, 318.9e6).uniques);
}
BENCHMARK(BM_ZayatzAdultInput)->Unit(benchmark::kMicrosecond);

void BM_SnbAdultInput(benchmark::State& state) {
  const deid::ClassSizeFrequencies f = adult_input();
  for (auto _ : state) benchmark::DoNotOptimize(deid::estimate_snb(f, 318.9e6).uniques);
}
BENCHMARK(BM_SnbAdultInput)->Unit(benchmark::kMicrosecond);

// papers/002, VI-H: one evaluation of the equations and their Jacobian by
// the closed forms against the exact sums.
void BM_PitmanClosedForms(benchmark::State& state) {
  const deid::ClassSizeFrequencies f = adult_input();
  for (auto _ : state) benchmark::DoNotOptimize(deid::risk::pitman_closed(f, {90.0, 0.3}).f.x);
}
BENCHMARK(BM_PitmanClosedForms);

void BM_PitmanExactSums(benchmark::State& state) {
  const deid::ClassSizeFrequencies f = adult_input();
  for (auto _ : state) benchmark::DoNotOptimize(deid::risk::pitman_exact(f, {90.0, 0.3}).f.x);
}
BENCHMARK(BM_PitmanExactSums);

}  // namespace

BENCHMARK_MAIN();
