// Determinism across thread counts (docs/architecture.md, "Principles"):
// the same job gives byte-identical output and the same result, apart from
// timings and memory, with 1, 2 and 8 threads. The table is large enough for
// the parallel histogram build and the parallel grouping of large sources.
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

TEST(Threads, OutputAndResultAreIdenticalFor1And2And8Threads) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("deid-threads-{}", ::getpid());
  fs::create_directories(dir);
  std::mt19937_64 rng(3);
  std::string csv = "a,b,c,d,e\n";
  for (int i = 0; i < 150000; ++i)
    csv += fmt::format("a{},b{},c{},d{},e{}\n", rng() % 90, rng() % 40, rng() % 12, rng() % 30, rng() % 7);
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
  job.privacy.push_back(KAnonymitySpec{5});
  job.suppression_limit = 0.05;

  std::vector<std::string> outputs, results;
  for (int threads : {1, 2, 8}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    job.output.path = (dir / fmt::format("out-{}.csv", threads)).string();
    Anonymization a = anonymize(job);
    ASSERT_TRUE(a.found);
    std::ifstream in(job.output.path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    outputs.push_back(ss.str());
    // Large enough for the parallel histogram and the partitioned grouping
    // (sources of 2^17 entries or more, src/check/partitioned.h).
    EXPECT_GE(a.result["check"]["histogram_entries"].get<std::uint64_t>(), std::uint64_t{1} << 17);
    a.result.erase("time_ms");
    a.result.erase("peak_rss_bytes");
    a.result["search"].erase("time_to_best_ms");
    for (auto& f : a.result["files"]) f.erase("path");  // one output per thread count, equal digests
    results.push_back(a.result.dump());
  }
  EXPECT_GT(outputs[0].size(), 1000000u);
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_EQ(outputs[0], outputs[2]);
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace deid
