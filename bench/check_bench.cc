// Microbenchmarks of the check (src/check/checker.cc), the engine's hot
// path: grouping the histogram into a transformation's classes ("from
// rows"), and rolling classes up from the cached classes of a checked
// specialization.
//
//   build/bench/check_bench [--benchmark_filter=...]
//
// The job is examples/adult.yaml (k=5, 5 %, Loss), or the job named by the
// environment variable DEID_CHECK_BENCH_JOB (e.g. bench/jobs/cup.yaml).
// Each benchmark checks every transformation of one rank of the lattice in
// lexicographic order; transformations of one rank are incomparable, so
// none of them can be rolled up from another:
//
//   BM_CheckFromHistogram/R   rank R with an empty cache: every check groups
//                             the histogram.
//   BM_CheckRolledUp/R        rank R, each transformation right after its
//                             canonical parent (untimed): every check rolls
//                             up from the parent's cached classes.
//
// Counters: checks per second, `entries` (source classes or histogram
// entries grouped per second) and the share of rolled-up checks.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "deid/check.h"
#include "deid/job.h"
#include "deid/pipeline.h"

namespace {

std::string job_path() {
  if (const char* p = std::getenv("DEID_CHECK_BENCH_JOB")) return p;
  return std::string(DEID_EXAMPLES_DIR) + "/adult.yaml";
}

const deid::PreparedJob& prepared() {
  static const std::unique_ptr<deid::PreparedJob> p = [] {
    deid::Job job = deid::read_job(job_path());
    job.output = {};
    return deid::prepare(job);
  }();
  return *p;
}

std::vector<deid::Transformation> of_rank(const deid::Lattice& lattice, int rank) {
  std::vector<deid::Transformation> out;
  deid::Transformation t;
  for (bool more = lattice.first_of_rank(rank, t); more; more = lattice.next_of_rank(t)) out.push_back(t);
  return out;
}

void report(benchmark::State& state, const deid::CheckStatistics& total, std::size_t checks) {
  state.counters["checks"] = benchmark::Counter(static_cast<double>(checks), benchmark::Counter::kIsRate);
  state.counters["entries"] = benchmark::Counter(static_cast<double>(total.grouped), benchmark::Counter::kIsRate);
  state.counters["rolled_up"] =
      total.checks ? static_cast<double>(total.rolled_up) / static_cast<double>(total.checks) : 0.0;
}

void BM_CheckFromHistogram(benchmark::State& state) {
  const deid::Problem& problem = prepared().problem;
  const auto nodes = of_rank(problem.lattice(), static_cast<int>(state.range(0)));
  deid::CheckStatistics total;
  std::size_t checks = 0;
  for (auto _ : state) {
    deid::Checker checker(problem);
    for (const auto& t : nodes) benchmark::DoNotOptimize(checker.check(t).classes);
    total.grouped += checker.statistics().grouped;
    total.checks += checker.statistics().checks;
    total.rolled_up += checker.statistics().rolled_up;
    checks += nodes.size();
  }
  report(state, total, checks);
}

void BM_CheckRolledUp(benchmark::State& state) {
  const deid::Problem& problem = prepared().problem;
  const auto nodes = of_rank(problem.lattice(), static_cast<int>(state.range(0)));
  deid::CheckStatistics total;
  std::size_t checks = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto checker = std::make_unique<deid::Checker>(problem);
    state.ResumeTiming();
    for (const auto& t : nodes) {
      // Untimed: check t's canonical parent (its last non-zero level
      // lowered by one), so that t rolls up from the parent's classes.
      state.PauseTiming();
      deid::Transformation parent = t;
      for (std::size_t q = parent.size(); q-- > 0;)
        if (parent[q] > 0) {
          --parent[q];
          break;
        }
      checker->check(parent);
      const deid::CheckStatistics before = checker->statistics();
      state.ResumeTiming();
      benchmark::DoNotOptimize(checker->check(t).classes);
      state.PauseTiming();
      total.grouped += checker->statistics().grouped - before.grouped;
      total.checks += checker->statistics().checks - before.checks;
      total.rolled_up += checker->statistics().rolled_up - before.rolled_up;
      state.ResumeTiming();
    }
    checks += nodes.size();
    state.PauseTiming();
    checker.reset();
    state.ResumeTiming();
  }
  report(state, total, checks);
}

BENCHMARK(BM_CheckFromHistogram)->Arg(2)->Arg(6)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CheckRolledUp)->Arg(3)->Arg(7)->Arg(11)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
