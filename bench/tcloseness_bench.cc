// t-closeness with ordered distance, with and without the optimizations of
// papers/004 (section 3.2: Fibonacci-hashing table, check pruning, summand
// pruning), on two problems:
//   adult  examples/adult with age sensitive (72 distinct values) and the 8
//          other attributes of ARX's adult_tord02_age run as quasi-identifiers
//   spd100 the same, with age replaced by a synthetic sensitive attribute of
//          100 distinct values, 0..99, shifted by education (like the SPD
//          data of papers/004, 101 values: classes differ from the whole)
// Benchmarks:
//   BM_OrderedCheck/<data>/<t*100>/<mask>: the check alone, over every class
//     of every 8th transformation of the lattice (distributions prepared
//     beforehand); mask bit 1 = Fibonacci table, 2 = check pruning,
//     4 = summand pruning (0 = plain, 7 = all three).
//   BM_OrderedSearch/<data>/<t*100>/<mask>: the whole exhaustive search
//     (2592 transformations, 5 % suppression), as papers/004 measured.
// Run: build-*/bench/tcloseness_bench --benchmark_filter=Ordered
// Figures: docs/privacy-models.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "deid/check.h"
#include "deid/pipeline.h"
#include "privacy/ordered_distance.h"
#include "privacy/t_closeness.h"

namespace {

const char* const kQuasiIdentifiers[] = {"education", "marital-status", "native-country", "race",
                                         "salary-class", "sex", "workclass", "occupation"};

deid::Job ordered_job(double t) {
  const std::string dir = std::string(DEID_EXAMPLES_DIR) + "/adult";
  deid::Job job;
  job.input.path = dir + "/adult.csv";
  job.input.delimiter = ';';
  for (const char* q : kQuasiIdentifiers)
    job.attributes.push_back({q, deid::Role::quasi_identifying, dir + "/hierarchies/" + q + ".csv", {}, 0});
  job.attributes.push_back({"age", deid::Role::sensitive, "", {}, 0});
  job.default_role = deid::Role::insensitive;
  job.privacy.push_back(deid::TClosenessSpec{"age", deid::TClosenessSpec::Distance::ordered, t});
  job.suppression_limit = 0.05;
  job.search.algorithm = deid::SearchSpec::Algorithm::exhaustive;
  return job;
}

// Replaces column `name` by a synthetic attribute with 100 values: a value
// drawn uniformly from a window of 40 that moves up with the row's education
// code, so that the classes' distributions differ from the whole.
void synthesize_100_values(deid::Dataset& data, const std::string& name) {
  const int col = data.column_index(name);
  const int edu = data.column_index("education");
  std::mt19937 rng(101);
  deid::Column c;
  c.name = name;
  for (std::uint64_t r = 0; r < data.rows; ++r) {
    const std::uint32_t e = data.columns[edu].codes[r] % 16;
    const std::uint32_t v = std::min<std::uint32_t>(99, e * 4 + static_cast<std::uint32_t>(rng() % 40));
    const std::uint32_t code = c.dictionary.intern(std::to_string(v));
    if (code == c.first_line.size()) c.first_line.push_back(r + 2);
    c.codes.push_back(code);
  }
  // Every value 0..99 occurs (the window covers 0..99 across education codes).
  data.columns[col] = std::move(c);
}

std::unique_ptr<deid::PreparedJob> prepare_problem(bool synthetic, double t) {
  const deid::Job job = ordered_job(t);
  deid::Dataset data = deid::read_dataset(job.input.path, deid::CsvOptions{job.input.delimiter});
  if (synthetic) synthesize_100_values(data, "age");
  return deid::prepare(job, std::move(data));
}

// Replaces the t-closeness model with one using `mask`'s optimizations.
void set_options(deid::PreparedJob& p, int mask) {
  const deid::OrderedDistanceOptions o{(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
  const auto& spec = std::get<deid::TClosenessSpec>(p.job.privacy[0]);
  p.problem.privacy[0] = deid::make_t_closeness(spec, p.problem, o);
}

// The class distributions of every 8th transformation, merged from the
// histogram here (independently of the check) so that the benchmark times
// the distance alone.
struct SampledClasses {
  std::vector<std::vector<std::uint32_t>> codes;
  std::vector<std::vector<std::uint64_t>> counts;
  std::vector<std::uint64_t> sizes;
};

const SampledClasses& sampled_classes(bool synthetic) {
  static std::map<bool, SampledClasses> cache;
  auto it = cache.find(synthetic);
  if (it != cache.end()) return it->second;
  auto p = prepare_problem(synthetic, 0.2);
  const deid::Problem& pr = p->problem;
  const auto& s = pr.histogram.sensitive[0];
  deid::Checker checker(pr);
  deid::Classes grouped;
  SampledClasses out;
  const deid::Lattice lattice = pr.lattice();
  for (deid::LatticeIndex i = 0; i < lattice.size(); i += 8) {
    checker.group(lattice.at(i), grouped);
    std::vector<std::map<std::uint32_t, std::uint64_t>> dist(grouped.size());
    for (std::size_t e = 0; e < pr.histogram.size(); ++e)
      for (std::uint64_t j = s.offsets[e]; j < s.offsets[e + 1]; ++j) dist[grouped.entry_class[e]][s.codes[j]] += s.counts[j];
    for (std::size_t c = 0; c < grouped.size(); ++c) {
      out.codes.emplace_back();
      out.counts.emplace_back();
      for (const auto& [code, n] : dist[c]) {
        out.codes.back().push_back(code);
        out.counts.back().push_back(n);
      }
      out.sizes.push_back(grouped.counts[c]);
    }
  }
  return cache.emplace(synthetic, std::move(out)).first->second;
}

void BM_OrderedCheck(benchmark::State& state) {
  const bool synthetic = state.range(0) != 0;
  const double t = static_cast<double>(state.range(1)) / 100.0;
  const int mask = static_cast<int>(state.range(2));
  const SampledClasses& classes = sampled_classes(synthetic);
  auto p = prepare_problem(synthetic, t);
  set_options(*p, mask);
  const auto& model = static_cast<const deid::TCloseness&>(*p->problem.privacy[0]);
  const auto& distance = std::get<deid::OrderedDistance>(model.ground_distance());
  std::uint64_t close = 0;
  for (auto _ : state) {
    close = 0;
    for (std::size_t c = 0; c < classes.sizes.size(); ++c)
      close += distance.within({classes.codes[c], classes.counts[c]}, classes.sizes[c]);
    benchmark::DoNotOptimize(close);
  }
  state.counters["classes"] = static_cast<double>(classes.sizes.size());
  state.counters["t_close"] = static_cast<double>(close);
  state.counters["ns_per_class"] = benchmark::Counter(static_cast<double>(classes.sizes.size()),
                                                      benchmark::Counter::kIsIterationInvariantRate |
                                                          benchmark::Counter::kInvert);
}

void BM_OrderedSearch(benchmark::State& state) {
  const bool synthetic = state.range(0) != 0;
  const double t = static_cast<double>(state.range(1)) / 100.0;
  auto p = prepare_problem(synthetic, t);
  set_options(*p, static_cast<int>(state.range(2)));
  double loss = 0;
  for (auto _ : state) {
    const deid::Anonymization a = deid::run_search(*p);
    loss = a.found ? a.result["information_loss"].get<double>() : -1;
  }
  state.counters["loss"] = loss;
}

void check_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"spd100", "t", "opt"});
  for (int data : {0, 1})
    for (int t : {10, 20, 50})
      for (int mask : {0, 1, 6, 7}) b->Args({data, t, mask});
}

void search_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"spd100", "t", "opt"});
  for (int data : {0, 1})
    for (int t : {10, 20, 50})
      for (int mask : {0, 7}) b->Args({data, t, mask});
}

BENCHMARK(BM_OrderedCheck)->Apply(check_args)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OrderedSearch)->Apply(search_args)->Unit(benchmark::kMillisecond)->Iterations(3)->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
