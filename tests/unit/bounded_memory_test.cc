// Bounded memory (search.memory: bounded, Problem::bounded_memory;
// docs/databases.md, "Memory"): the checker groups the histogram from a
// packed copy of its lead order (or a permutation when the codes do not fit
// a 64-bit word), in passes instead of radix partitions, and writes the
// classes' keys only when read. Every check must equal the fast mode's,
// and a whole run must release the same table and result.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "check/ranges.h"
#include "deid/check.h"
#include "deid/pipeline.h"

namespace deid {
namespace {

namespace fs = std::filesystem;

// A random table: `qis` quasi-identifiers of `domain` values each (skewed
// towards low values, so classes of many sizes occur), hierarchies grouping
// by 2, 4, ... then "*" (`height` levels), and a sensitive column.
struct Table {
  fs::path dir;
  std::string csv;
  std::vector<AttributeSpec> attributes;
};

Table make_table(std::uint64_t seed, int qis, int rows, int domain, int height) {
  std::mt19937_64 rng(seed);
  Table t;
  t.dir = fs::temp_directory_path() / fmt::format("deid-bounded-{}-{}", ::getpid(), seed);
  fs::create_directories(t.dir);
  for (int q = 0; q < qis; ++q) {
    std::ofstream h(t.dir / fmt::format("q{}.csv", q));
    for (int v = 0; v < domain; ++v) {
      h << "v" << v;
      for (int l = 1; l + 1 < height; ++l) h << ";g" << (v >> (2 * l));
      h << ";*\n";
    }
    AttributeSpec a;
    a.name = fmt::format("q{}", q);
    a.role = Role::quasi_identifying;
    a.hierarchy = (t.dir / fmt::format("q{}.csv", q)).string();
    t.attributes.push_back(a);
  }
  for (int q = 0; q < qis; ++q) t.csv += fmt::format("q{},", q);
  t.csv += "s\n";
  for (int i = 0; i < rows; ++i) {
    for (int q = 0; q < qis; ++q) {
      const auto u = static_cast<double>(rng() % static_cast<std::uint64_t>(domain * domain));
      t.csv += fmt::format("v{},", static_cast<int>(std::sqrt(u)));
    }
    t.csv += fmt::format("s{}\n", rng() % 4);
  }
  AttributeSpec s;
  s.name = "s";
  s.role = Role::sensitive;
  t.attributes.push_back(s);
  return t;
}

Job job_of(const Table& t, bool diversity, SearchSpec::Memory memory) {
  Job job;
  job.attributes = t.attributes;
  job.privacy.push_back(KAnonymitySpec{3});
  if (diversity) {
    LDiversitySpec l;
    l.attribute = "s";
    l.l = 2;
    job.privacy.push_back(l);
  }
  job.suppression_limit = 0.1;
  job.search.memory = memory;
  return job;
}

void expect_same(const CheckResult& a, const CheckResult& b) {
  const std::string t = to_string(a.transformation);
  EXPECT_EQ(a.solution, b.solution) << t;
  EXPECT_EQ(a.complete, b.complete) << t;
  EXPECT_EQ(a.suppressed_records, b.suppressed_records) << t;
  EXPECT_EQ(a.classes, b.classes) << t;
  EXPECT_EQ(a.kept_classes, b.kept_classes) << t;
  EXPECT_EQ(a.smallest_class, b.smallest_class) << t;
  EXPECT_EQ(a.lower_bound, b.lower_bound) << t;
  if (a.solution) {
    EXPECT_EQ(a.quality.value, b.quality.value) << t;
  }
}

// Every check of a sample of the lattice (and its neighbours, so that
// consecutive checks differ little, as in a search) in both modes, with and
// without early stops. k-anonymity alone groups by ranges of the lead
// (packed copy, or the permutation when the codes need more than 64 bits);
// with l-diversity the whole histogram is grouped, in passes, with members.
TEST(BoundedMemory, ChecksEqualTheFastModesOnLargeHistograms) {
  struct Case {
    int qis, rows, domain, height;
    bool diversity;
    bool packed;  // the codes fit one 64-bit word
  };
  for (const Case c : {Case{5, 60000, 40, 3, false, true}, Case{5, 60000, 40, 3, true, true},
                       Case{9, 40000, 300, 4, false, false}}) {
    const Table table = make_table(static_cast<std::uint64_t>(c.qis * 1000 + c.diversity), c.qis, c.rows, c.domain,
                                   c.height);
    auto bounded = prepare(job_of(table, c.diversity, SearchSpec::Memory::bounded),
                           read_dataset_text(table.csv, "random.csv", CsvOptions{','}));
    auto fast = prepare(job_of(table, c.diversity, SearchSpec::Memory::fast),
                        read_dataset_text(table.csv, "random.csv", CsvOptions{','}));
    const Problem& pb = bounded->problem;
    const Problem& pf = fast->problem;
    ASSERT_TRUE(pb.bounded_memory);
    ASSERT_FALSE(pf.bounded_memory);
    ASSERT_GE(pb.histogram.size(), std::size_t{1} << 15) << "grouping in passes needs a large histogram";
    std::uint32_t bits = 0;
    for (const Generalization& g : pb.hierarchies)
      bits += static_cast<std::uint32_t>(std::bit_width(g.map(0).size() - 1));
    EXPECT_EQ(bits <= 64, c.packed);

    Checker b_full(pb), f_full(pf), b_early(pb), f_early(pf);
    b_early.set_stop_early(true);
    f_early.set_stop_early(true);
    const Lattice lattice = pb.lattice();
    std::mt19937_64 rng(5);
    for (int round = 0; round < 40; ++round) {
      const Transformation t = lattice.at(static_cast<LatticeIndex>(rng() % lattice.size()));
      expect_same(b_full.check(t), f_full.check(t));
      expect_same(b_early.check(t), f_early.check(t));
      // Prefetched (Checker::prefetch) and then taken.
      const std::vector<Transformation> batch = lattice.successors(t);
      b_early.prefetch(batch);
      f_early.prefetch(batch);
      for (const Transformation& s : batch) expect_same(b_early.check(s), f_early.check(s));
    }
    if (!c.diversity) {
      EXPECT_GT(b_full.statistics().ranged, 0u) << "the test must exercise ranged grouping";
      EXPECT_GT(b_early.statistics().stopped_early, 0u) << "the test must exercise early stops";
    }
    EXPECT_EQ(b_full.statistics().grouped, f_full.statistics().grouped);
    fs::remove_all(table.dir);
  }
}

// Risk-based suppression (population uniqueness) and the dataset-level
// models group the whole histogram, in passes with bounded memory: which
// classes are suppressed, and so every check, must not depend on the order
// the passes find them in.
TEST(BoundedMemory, RiskBasedAndDatasetModelsAgreeWithTheFastMode) {
  const Table table = make_table(23, 5, 60000, 40, 3);
  PopulationUniquenessSpec pu;
  pu.threshold = 0.02;
  pu.population_size = 2e6;
  AverageRiskSpec average;
  average.threshold = 0.2;
  average.highest_risk = 0.5;
  average.records_at_risk = 0.05;
  SampleUniquenessSpec unique;
  unique.threshold = 0.01;
  for (const PrivacySpec& model : {PrivacySpec{pu}, PrivacySpec{average}, PrivacySpec{unique}}) {
    std::unique_ptr<PreparedJob> prepared[2];
    for (int i = 0; i < 2; ++i) {
      Job job = job_of(table, false, i == 0 ? SearchSpec::Memory::bounded : SearchSpec::Memory::fast);
      job.privacy = {model};
      job.suppression_limit = 0.2;
      prepared[i] = prepare(job, read_dataset_text(table.csv, "random.csv", CsvOptions{','}));
    }
    const Problem& pb = prepared[0]->problem;
    ASSERT_TRUE(pb.bounded_memory);
    Checker b(pb), f(prepared[1]->problem);
    const Lattice lattice = pb.lattice();
    std::mt19937_64 rng(8);
    int solutions = 0;
    for (int round = 0; round < 40; ++round) {
      const Transformation t = lattice.at(static_cast<LatticeIndex>(rng() % lattice.size()));
      const CheckResult x = b.check(t), y = f.check(t);
      expect_same(x, y);
      solutions += x.solution;
    }
    EXPECT_GT(solutions, 0) << "the test must see solutions (suppression, quality)";
  }
}

// The packed lead holds each entry's count in its word's spare bits when
// the largest count fits there, else in 32 bits beside it; either way every
// check equals the fast mode's.
TEST(BoundedMemory, PackedLeadHoldsTheCountInItsWordWhenItFits) {
  for (const bool repeated : {false, true}) {
    // Ten codes of 6 bits leave 4 bits: a record repeated 20 times needs 5.
    Table table = make_table(91, 10, 40000, 64, 3);
    const std::size_t second = table.csv.find('\n') + 1;
    const std::string row = table.csv.substr(second, table.csv.find('\n', second) + 1 - second);
    if (repeated)
      for (int i = 0; i < 20; ++i) table.csv += row;
    auto bounded = prepare(job_of(table, false, SearchSpec::Memory::bounded),
                           read_dataset_text(table.csv, "random.csv", CsvOptions{','}));
    auto fast = prepare(job_of(table, false, SearchSpec::Memory::fast),
                        read_dataset_text(table.csv, "random.csv", CsvOptions{','}));
    const Problem& pb = bounded->problem;
    const std::vector<check_internal::LeadOrder> leads = check_internal::build_leads(pb);
    ASSERT_FALSE(leads.empty());
    const check_internal::PackedKeys& packed = leads[0].packed;
    ASSERT_EQ(packed.words.size(), pb.histogram.size());
    EXPECT_EQ(packed.counts_in_words(), !repeated);
    EXPECT_EQ(packed.counts.empty(), !repeated);
    std::uint64_t records = 0;
    for (std::size_t i = 0; i < packed.words.size(); ++i) records += packed.count(i);
    EXPECT_EQ(records, pb.rows);
    EXPECT_TRUE(leads[0].entry.empty()) << "the permutation is freed once packed";
    EXPECT_EQ(leads[0].entry.capacity(), 0u);

    Checker b(pb), f(fast->problem);
    b.set_stop_early(true);
    f.set_stop_early(true);
    const Lattice lattice = pb.lattice();
    std::mt19937_64 rng(repeated ? 3 : 4);
    for (int round = 0; round < 40; ++round) {
      const Transformation t = lattice.at(static_cast<LatticeIndex>(rng() % lattice.size()));
      expect_same(b.check(t), f.check(t));
    }
    EXPECT_GT(b.statistics().ranged, 0u) << "the test must exercise ranged grouping";
    fs::remove_all(table.dir);
  }
}

// A whole run: the released table and the result (but the timings, the
// memory figures and the mode) byte for byte the same in both modes, and
// `auto` is bounded only above kBoundedMemoryHistogramBytes.
TEST(BoundedMemory, ReleasesTheFastModesTable) {
  const Table table = make_table(77, 6, 50000, 40, 3);
  {
    std::ofstream(table.dir / "in.csv") << table.csv;
  }
  std::string released[2];
  nlohmann::json results[2];
  for (int i = 0; i < 2; ++i) {
    Job job = job_of(table, false, i == 0 ? SearchSpec::Memory::bounded : SearchSpec::Memory::fast);
    job.input.path = (table.dir / "in.csv").string();
    job.quality.model = "loss";
    job.output.path = (table.dir / fmt::format("out{}.csv", i)).string();
    job.output.result = (table.dir / fmt::format("out{}.json", i)).string();
    const Anonymization a = anonymize(job);
    ASSERT_TRUE(a.found);
    std::ifstream in(job.output.path);
    std::stringstream text;
    text << in.rdbuf();
    released[i] = text.str();
    results[i] = a.result;
    EXPECT_EQ(results[i]["check"]["memory"], i == 0 ? "bounded" : "fast");
    // At least the keys (6 codes of 4 bytes) and counts (8 bytes) of every entry.
    EXPECT_GE(results[i]["check"]["histogram_bytes"].get<std::uint64_t>(),
              results[i]["check"]["histogram_entries"].get<std::uint64_t>() * (6 * 4 + 8));
    for (auto* key : {"time_ms", "peak_rss_bytes", "files"}) results[i].erase(key);
    results[i]["check"].erase("memory");
    results[i]["search"].erase("time_to_best_ms");
  }
  EXPECT_FALSE(released[0].empty());
  EXPECT_EQ(released[0], released[1]);
  EXPECT_EQ(results[0].dump(), results[1].dump());

  Job automatic = job_of(table, false, SearchSpec::Memory::automatic);
  auto p = prepare(automatic, read_dataset_text(table.csv, "random.csv", CsvOptions{','}));
  EXPECT_LT(p->problem.histogram.bytes(), kBoundedMemoryHistogramBytes);
  EXPECT_FALSE(p->problem.bounded_memory) << "a small histogram keeps the fast mode";
  fs::remove_all(table.dir);
}

}  // namespace
}  // namespace deid
