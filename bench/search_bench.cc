// Benchmarks of the search (docs/search.md, "Measurements").
//
// Two modes.
//
// 1. A Table-4 row (papers/000): run one search on a job to the end and
//    print the size of the lattice, the transformations checked and, per
//    predictive property, inserts, hit rate and largest antichain (relative
//    to the inserts, as the paper reports them), with time and peak memory:
//
//      search_bench --job JOB.yaml [--algorithm best-first|optimal|exhaustive]
//                   [--time-limit SECONDS] [--max-checks N] [--json]
//
//    The jobs of the synthetic 15-quasi-identifier benchmark come from
//    bench/make_synthetic_dataset.py. Run it under /usr/bin/time -v for the
//    peak resident set as the kernel counts it (the row also prints
//    getrusage's figure).
//
// 2. Without --job: Google Benchmark microbenchmarks of the property store
//    (random inserts and queries at 9, 15 and 30 dimensions, both
//    directions) and of the searches on examples/adult (k=5, 5 %, Loss).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "deid/pipeline.h"
#include "deid/property_store.h"
#include "deid/search.h"

namespace {

// --- Table-4 mode ---------------------------------------------------------

struct Options {
  std::string job;
  std::string algorithm = "best-first";
  std::optional<double> time_limit;
  std::optional<std::uint64_t> max_checks;
  bool json = false;
};

double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

int run_table_row(const Options& o) {
  deid::Job job = deid::read_job(o.job);
  if (o.algorithm == "best-first")
    job.search.algorithm = deid::SearchSpec::Algorithm::best_first;
  else if (o.algorithm == "optimal")
    job.search.algorithm = deid::SearchSpec::Algorithm::optimal;
  else if (o.algorithm == "exhaustive")
    job.search.algorithm = deid::SearchSpec::Algorithm::exhaustive;
  else
    job.search.algorithm = deid::SearchSpec::Algorithm::automatic;
  job.search.time_limit_seconds = o.time_limit;
  job.search.max_checks = o.max_checks;
  job.output = {};

  auto prepared = deid::prepare(job);
  deid::RunOptions options;
  auto last = std::chrono::steady_clock::now();
  options.progress = [&last](const deid::SearchProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::seconds(30)) return;
    last = now;
    fmt::print(stderr, "  {:.0f} s: {} checked, best loss {}\n", p.elapsed_seconds, p.checked,
               p.best_loss ? fmt::format("{:.6f}", *p.best_loss) : std::string("none"));
  };
  const deid::Anonymization a = deid::run_search(*prepared, options);
  const nlohmann::json& s = a.result["search"];
  if (o.json) {
    fmt::print("{}\n", a.result.dump(2));
    return 0;
  }
  const double lattice = static_cast<double>(prepared->problem.lattice().size());
  const double checked = static_cast<double>(a.search.checked);
  fmt::print("job            {}\n", o.job);
  fmt::print("algorithm      {} ({})\n", s["algorithm"].get<std::string>(),
             a.search.optimal ? "optimum proven" : (a.search.stopped_by_limit ? "stopped by limit" : "not proven"));
  fmt::print("attributes     {}\n", prepared->problem.qi_names.size());
  fmt::print("records        {} ({} histogram entries)\n", prepared->problem.rows, prepared->problem.histogram.size());
  fmt::print("transformations {}\n", s["lattice_size"].dump());
  fmt::print("checked        {} ({:.2f} %)\n", a.search.checked, percent(checked, lattice));
  fmt::print("search time    {:.1f} s (best found after {:.1f} s, {} checks)\n", a.timings.search / 1000.0,
             a.search.time_to_best_seconds, s.value("checks_to_best", std::uint64_t{0}));
  fmt::print("peak RSS       {:.1f} MiB\n", static_cast<double>(deid::peak_rss_bytes()) / (1024.0 * 1024.0));
  if (a.found)
    fmt::print("optimum        {} loss {:.10f}\n", deid::to_string(a.search.best->transformation),
               a.search.best->quality.value);
  if (s.contains("stores")) {
    fmt::print("{:<26} {:>10} {:>12} {:>8} {:>12} {:>10}\n", "property", "inserts", "queries", "hits", "antichain",
               "pruned");
    for (const auto& [name, st] : s["stores"].items()) {
      const double inserts = st["inserts"].get<double>();
      const double queries = st["queries"].get<double>();
      const double hits = st["hits"].get<double>();
      const double largest = st["largest_antichain"].get<double>();
      const std::string pruned =
          s["pruned"].contains(name) ? s["pruned"][name].dump() : std::string("-");
      fmt::print("{:<26} {:>10} {:>12} {:>7.2f}% {:>7} {:>3.0f}% {:>10}\n", name, inserts, queries,
                 percent(hits, queries), largest, percent(largest, inserts), pruned);
    }
  }
  fmt::print("search         {}\n", s.dump());
  if (a.result.contains("check")) fmt::print("check          {}\n", a.result["check"].dump());
  return 0;
}

// --- Microbenchmarks -------------------------------------------------------

std::vector<deid::Transformation> random_elements(std::size_t n, const std::vector<int>& heights, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<deid::Transformation> out(n, deid::Transformation(heights.size()));
  for (auto& t : out) {
    // Around the middle rank, where searches insert most.
    for (std::size_t i = 0; i < t.size(); ++i)
      t[i] = static_cast<std::uint8_t>((rng() % heights[i] + rng() % heights[i]) / 2);
  }
  return out;
}

std::vector<int> heights_of(int dims) {
  std::vector<int> h(dims);
  for (int i = 0; i < dims; ++i) h[i] = 2 + i % 4;
  return h;
}

// Inserts of random elements; state.range(0) dimensions, range(1) 0 = P↑, 1 = P↓.
void BM_StoreInsert(benchmark::State& state) {
  const auto heights = heights_of(static_cast<int>(state.range(0)));
  const auto elements = random_elements(20000, heights, 1);
  const deid::Lattice lattice(heights);
  const auto dir = state.range(1) ? deid::Inheritance::specializations : deid::Inheritance::generalizations;
  std::size_t antichain = 0;
  for (auto _ : state) {
    deid::PropertyStore store(lattice, dir);
    for (const auto& e : elements) store.insert(e);
    antichain = store.size();
    benchmark::DoNotOptimize(antichain);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(elements.size()));
  state.counters["antichain"] = static_cast<double>(antichain);
}
BENCHMARK(BM_StoreInsert)->ArgsProduct({{9, 15, 30}, {0, 1}})->Unit(benchmark::kMillisecond);

// Queries against a store filled with 20,000 random inserts.
void BM_StoreQuery(benchmark::State& state) {
  const auto heights = heights_of(static_cast<int>(state.range(0)));
  const deid::Lattice lattice(heights);
  const auto dir = state.range(1) ? deid::Inheritance::specializations : deid::Inheritance::generalizations;
  deid::PropertyStore store(lattice, dir);
  for (const auto& e : random_elements(20000, heights, 2)) store.insert(e);
  const auto queries = random_elements(100000, heights, 3);
  std::size_t hits = 0;
  for (auto _ : state) {
    hits = 0;
    for (const auto& q : queries) hits += store.contains(q);
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(queries.size()));
  state.counters["antichain"] = static_cast<double>(store.size());
  state.counters["hit_rate"] = static_cast<double>(hits) / static_cast<double>(queries.size());
}
BENCHMARK(BM_StoreQuery)->ArgsProduct({{9, 15, 30}, {0, 1}})->Unit(benchmark::kMillisecond);

// The searches on examples/adult, all nine quasi-identifiers, k=5, 5 %, Loss.
void BM_AdultSearch(benchmark::State& state) {
  deid::Job job = deid::read_job(std::string(DEID_EXAMPLES_DIR) + "/adult.yaml");
  job.output = {};
  auto prepared = deid::prepare(job);
  std::uint64_t checked = 0;
  for (auto _ : state) {
    auto algorithm = state.range(0) == 0 ? deid::make_optimal_search() : deid::make_best_first_search();
    deid::Evaluator ev(prepared->problem, {});
    checked = algorithm->run(ev).checked;
  }
  state.counters["checked"] = static_cast<double>(checked);
  state.SetLabel(state.range(0) == 0 ? "optimal" : "best-first");
}
BENCHMARK(BM_AdultSearch)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool table = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "{} needs a value\n", a);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--job") {
      o.job = value();
      table = true;
    } else if (a == "--algorithm") {
      o.algorithm = value();
    } else if (a == "--time-limit") {
      o.time_limit = std::stod(value());
    } else if (a == "--max-checks") {
      o.max_checks = std::stoull(value());
    } else if (a == "--json") {
      o.json = true;
    }
  }
  if (table) {
    try {
      return run_table_row(o);
    } catch (const std::exception& e) {
      fmt::print(stderr, "search_bench: {}\n", e.what());
      return 2;
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
