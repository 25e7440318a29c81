// Determinism across thread counts (docs/architecture.md, "Principles"):
// the same job gives byte-identical output and the same result, apart from
// timings, paths and memory, for any number of threads. The first table is
// large enough for the parallel histogram build and the parallel grouping of
// large sources; the others make the searches compute checks ahead of time
// and concurrently (Evaluator::prefetch): the optimal sweep with a
// non-monotonic model, and best-first.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "deid/pipeline.h"

namespace deid {
namespace {

namespace fs = std::filesystem;

struct Runs {
  std::vector<std::string> outputs, results;
  std::vector<nlohmann::json> checks;  // the result's "check" object per run
};

// A table of `rows` records with quasi-identifiers a..d (90, 40, 12 and 30
// values, hierarchies of 4 levels) and columns e (7 values) and s (5 values).
Job make_job(const fs::path& dir, int rows) {
  fs::create_directories(dir);
  std::mt19937_64 rng(3);
  std::string csv = "a,b,c,d,e,s\n";
  for (int i = 0; i < rows; ++i)
    csv += fmt::format("a{},b{},c{},d{},e{},s{}\n", rng() % 90, rng() % 40, rng() % 12, rng() % 30, rng() % 7,
                       rng() % 5);
  std::ofstream(dir / "data.csv") << csv;
  Job job;
  job.input.path = (dir / "data.csv").string();
  for (const auto& [name, n] : std::vector<std::pair<std::string, int>>{{"a", 90}, {"b", 40}, {"c", 12}, {"d", 30}}) {
    std::ofstream h(dir / (name + ".csv"));
    for (int v = 0; v < n; ++v) h << fmt::format("{}{};{}{};{}{};*\n", name, v, name, v / 3, name, v / 9);
    AttributeSpec a;
    a.name = name;
    a.role = Role::quasi_identifying;
    a.hierarchy = (dir / (name + ".csv")).string();
    job.attributes.push_back(a);
  }
  job.default_role = Role::insensitive;
  return job;
}

// Runs `job` with each of `threads`; the results without timings, output
// paths and peak memory.
Runs run_with(Job job, const fs::path& dir, std::initializer_list<int> threads) {
  Runs runs;
  for (int n : threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(n));
    job.output.path = (dir / fmt::format("out-{}.csv", n)).string();
    Anonymization a = anonymize(job);
    EXPECT_TRUE(a.found);
    std::ifstream in(job.output.path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    runs.outputs.push_back(ss.str());
    a.result.erase("time_ms");
    a.result.erase("peak_rss_bytes");
    a.result["search"].erase("time_to_best_ms");
    for (auto& f : a.result["files"]) f.erase("path");  // one output per thread count, equal digests
    runs.checks.push_back(a.result["check"]);
    runs.results.push_back(a.result.dump());
  }
  return runs;
}

void expect_all_equal(const Runs& runs) {
  for (std::size_t i = 1; i < runs.outputs.size(); ++i) {
    EXPECT_EQ(runs.outputs[0], runs.outputs[i]);
    EXPECT_EQ(runs.results[0], runs.results[i]);
  }
}

// Runs `job` with 1, 2 and 4 threads: it must have used checks computed
// ahead of time, and every run must give the same output and result.
void expect_speculation_deterministic(const Job& job, const fs::path& dir) {
  const Runs runs = run_with(job, dir, {1, 2, 4});
  EXPECT_GT(runs.checks[0]["speculative_used"].get<std::uint64_t>(), 20u);
  expect_all_equal(runs);
  fs::remove_all(dir);
}

TEST(Threads, OutputAndResultAreIdenticalFor1And2And8Threads) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("deid-threads-{}", ::getpid());
  Job job = make_job(dir, 150000);
  job.privacy.push_back(KAnonymitySpec{5});
  job.suppression_limit = 0.05;
  const Runs runs = run_with(job, dir, {1, 2, 8});
  // Large enough for the parallel histogram and the partitioned grouping
  // (sources of 2^17 entries or more, src/check/partitioned.h).
  EXPECT_GE(runs.checks[0]["histogram_entries"].get<std::uint64_t>(), std::uint64_t{1} << 17);
  EXPECT_GT(runs.outputs[0].size(), 1000000u);
  expect_all_equal(runs);
  fs::remove_all(dir);
}

// Population uniqueness is not monotonic: the optimal sweep checks every
// transformation that insufficient quality does not prune, in batches
// computed ahead of time, concurrently; the estimates run in both lanes.
TEST(Threads, SpeculativeSweepIsIdenticalFor1And2And4Threads) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("deid-threads-pu-{}", ::getpid());
  Job job = make_job(dir, 20000);
  job.privacy.push_back(PopulationUniquenessSpec{0.002, 1e6, PopulationUniquenessSpec::Estimator::dankar});
  job.suppression_limit = 1.0;
  job.search.algorithm = SearchSpec::Algorithm::optimal;
  expect_speculation_deterministic(job, dir);
}

// Best-first computes the next queue heads ahead of time; with t-closeness
// and suppression (not monotonic) every head it checks is a candidate.
TEST(Threads, SpeculativeBestFirstIsIdenticalFor1And2And4Threads) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("deid-threads-bf-{}", ::getpid());
  Job job = make_job(dir, 20000);
  AttributeSpec s;
  s.name = "s";
  s.role = Role::sensitive;
  job.attributes.push_back(s);
  job.privacy.push_back(KAnonymitySpec{3});
  job.privacy.push_back(TClosenessSpec{"s", TClosenessSpec::Distance::equal, 0.15});
  job.suppression_limit = 0.1;
  job.search.algorithm = SearchSpec::Algorithm::best_first;
  expect_speculation_deterministic(job, dir);
}

}  // namespace
}  // namespace deid
