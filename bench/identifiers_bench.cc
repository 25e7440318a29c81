// Released identifiers (docs/identifiers.md): one keyed pseudonym, one date
// offset, and a column of N distinct values pseudonymized with
// IdentifierRelease on every core (10 M by default; DEID_BENCH_VALUES sets N).
//   build/bench/identifiers_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>

#include "deid/dataset.h"
#include "deid/identifiers.h"
#include "deid/job.h"

namespace {

constexpr const char* kSecret = "0123456789abcdef0123456789abcdef";

// "PREFIX<i>" (appended, not `"..." + std::string`, which GCC 12 at -O3
// warns about wrongly: -Wrestrict).
std::string numbered(const char* prefix, std::uint64_t i) {
  std::string s = prefix;
  s += std::to_string(i);
  return s;
}

void BM_Pseudonym(benchmark::State& state) {
  std::uint64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(deid::pseudonym(kSecret, numbered("MRN", i++), 16));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Pseudonym);

// The same with the key's blocks digested once (what IdentifierRelease does).
void BM_PseudonymKeyed(benchmark::State& state) {
  deid::Hmac keyed(kSecret);
  std::uint64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(deid::pseudonym(keyed, numbered("MRN", i++), 16));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PseudonymKeyed);

void BM_DateOffset(benchmark::State& state) {
  std::uint64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(deid::date_offset(kSecret, numbered("P", i++), 180));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DateOffset);

// A column of N distinct MRNs, released as pseudonyms (computed on every
// core, then checked for collisions).
void BM_PseudonymizeColumn(benchmark::State& state) {
  const char* env = std::getenv("DEID_BENCH_VALUES");
  const std::uint64_t n = env ? std::strtoull(env, nullptr, 10) : 10'000'000;
  deid::Dataset data;
  data.source = "bench";
  data.columns.resize(1);
  data.columns[0].name = "mrn";
  for (std::uint64_t r = 0; r < n; ++r) data.columns[0].codes.push_back(data.columns[0].dictionary.intern(numbered("MRN", r)));
  data.rows = n;
  ::setenv("DEID_BENCH_SECRET", kSecret, 1);
  deid::Job job;
  deid::AttributeSpec a;
  a.name = "mrn";
  a.role = deid::Role::identifying;
  a.identifier.action = deid::IdentifierAction::pseudonym;
  job.attributes.push_back(a);
  job.identifiers = deid::IdentifiersSpec{};
  job.identifiers->secret_env = "DEID_BENCH_SECRET";
  for (auto _ : state) {
    deid::IdentifierRelease release(job, data);
    benchmark::DoNotOptimize(release.value(0, n - 1));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_PseudonymizeColumn)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
