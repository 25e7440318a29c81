// Roll-up (include/deid/check.h): a check whose classes are rolled up from
// the cached classes of a specialization must give exactly what a check
// from the histogram gives; and the parallel histogram and grouping paths
// must number entries and classes as a plain sequential pass would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <fmt/format.h>

#include "deid/check.h"
#include "deid/pipeline.h"

namespace deid {
namespace {

namespace fs = std::filesystem;

// A random table with `qis` quasi-identifiers (values v0..v{d-1}, hierarchy
// levels grouping by 2, 4, ... then "*") and one sensitive attribute.
struct RandomJob {
  fs::path dir;
  Job job;
  std::string csv;
};

RandomJob make_random_job(std::mt19937_64& rng, int qis, int rows, int domain, bool sensitive, std::uint64_t k) {
  RandomJob r;
  r.dir = fs::temp_directory_path() / fmt::format("deid-rollup-{}-{}", ::getpid(), rng() % 1000000);
  fs::create_directories(r.dir);
  std::vector<int> domains, heights;
  for (int q = 0; q < qis; ++q) {
    domains.push_back(2 + static_cast<int>(rng() % static_cast<std::uint64_t>(domain)));
    heights.push_back(2 + static_cast<int>(rng() % 3));
  }
  for (int q = 0; q < qis; ++q) {
    std::ofstream h(r.dir / fmt::format("q{}.csv", q));
    for (int v = 0; v < domains[q]; ++v) {
      h << "v" << v;
      for (int l = 1; l + 1 < heights[q]; ++l) h << ";g" << (v >> l);
      h << ";*\n";
    }
    AttributeSpec a;
    a.name = fmt::format("q{}", q);
    a.role = Role::quasi_identifying;
    a.hierarchy = (r.dir / fmt::format("q{}.csv", q)).string();
    r.job.attributes.push_back(a);
  }
  std::string& csv = r.csv;
  for (int q = 0; q < qis; ++q) csv += fmt::format("q{},", q);
  csv += "s\n";
  for (int i = 0; i < rows; ++i) {
    for (int q = 0; q < qis; ++q) {
      // Skewed: low values more often, so classes of many sizes occur.
      const auto u = static_cast<int>(rng() % static_cast<std::uint64_t>(domains[q] * domains[q]));
      csv += fmt::format("v{},", static_cast<int>(std::sqrt(u)));
    }
    csv += fmt::format("s{}\n", rng() % 5);
  }
  AttributeSpec s;
  s.name = "s";
  s.role = sensitive ? Role::sensitive : Role::insensitive;
  r.job.attributes.push_back(s);
  r.job.privacy.push_back(KAnonymitySpec{k});
  if (sensitive) {
    LDiversitySpec l;
    l.attribute = "s";
    l.l = 2;
    r.job.privacy.push_back(l);
  }
  r.job.suppression_limit = 0.1;
  return r;
}

void expect_same(const CheckResult& a, const CheckResult& b) {
  EXPECT_EQ(a.solution, b.solution) << to_string(a.transformation);
  EXPECT_EQ(a.suppressed_records, b.suppressed_records) << to_string(a.transformation);
  EXPECT_EQ(a.classes, b.classes) << to_string(a.transformation);
  EXPECT_DOUBLE_EQ(a.lower_bound, b.lower_bound) << to_string(a.transformation);
  if (a.solution) {
    EXPECT_DOUBLE_EQ(a.quality.value, b.quality.value) << to_string(a.transformation);
  }
}

TEST(RollUp, RollUpFromCachedSpecializationsEqualsFromHistogram) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 12; ++round) {
    const bool sensitive = round % 2 == 1;
    RandomJob rj = make_random_job(rng, 3 + round % 3, 400 + 100 * round, 12, sensitive, 2 + round % 4);
    auto prepared = prepare(rj.job, read_dataset_text(rj.csv, "random.csv", CsvOptions{','}));
    const Problem& pr = prepared->problem;
    const Lattice lattice = pr.lattice();
    Checker warm(pr);
    // Bottom-up in index order, so most checks find a cached specialization.
    for (LatticeIndex i = 0; i < lattice.size(); ++i) {
      const Transformation t = lattice.at(i);
      Checker cold(pr);
      Classes from_histogram;
      expect_same(warm.check(t), cold.check(t, &from_histogram));
    }
    if (sensitive) {
      EXPECT_GT(warm.statistics().rolled_up, 0u) << "the test must exercise roll-ups";
    } else {
      // k-anonymity alone: checks from the histogram group by ranges of a
      // lead attribute (src/check/ranges.h), and no snapshot is cached.
      EXPECT_EQ(warm.statistics().rolled_up, 0u);
      EXPECT_GT(warm.statistics().ranged, 0u);
    }
    EXPECT_EQ(warm.statistics().rolled_up + warm.statistics().from_histogram, warm.statistics().checks);
      fs::remove_all(rj.dir);
  }
}

// A Lightning expansion's neighbours, prefetched around the transformation
// they differ from in one attribute (Checker::prefetch's `around`):
// top-down's predecessors are grouped from its classes and one attribute's
// codes, bottom-up's successors from its slots by position of a lead's copy
// and one attribute's digit. Every check must equal a check from the
// histogram, solution or not (measured as the heuristics measure), under
// quality models that read keys lazily (loss), in their bound (ambiguity)
// or not at all (height); with 24 attributes the slots of the
// transformation around them are wider than 63 bits. Transformations in a
// batch that differ otherwise are checked the usual way.
TEST(RollUp, NeighboursGroupedAroundTheTransformationTheyDifferFromEqualChecksFromTheHistogram) {
  std::mt19937_64 rng(41);
  const char* models[] = {"loss", "ambiguity", "height"};
  for (int round = 0; round < 9; ++round) {
    const int qis = round == 8 ? 24 : 4 + round % 3;
    RandomJob rj = make_random_job(rng, qis, 1500 + 300 * round, round == 8 ? 40 : 60, false, 2 + round % 3);
    rj.job.quality.model = models[round % 3];
    auto prepared = prepare(rj.job, read_dataset_text(rj.csv, "random.csv", CsvOptions{','}));
    const Problem& pr = prepared->problem;
    const Lattice lattice = pr.lattice();
    Checker warm(pr);
    warm.set_measure_all(true);
    std::uint64_t checked = 0, down = 0, up = 0;
    for (int draw = 0; draw < 16; ++draw) {
      Transformation around(pr.hierarchies.size(), 0);
      for (std::size_t q = 0; q < around.size(); ++q)
        around[q] = static_cast<std::uint8_t>(rng() % static_cast<std::uint64_t>(pr.hierarchies[q].height()));
      const std::vector<Transformation> below = lattice.predecessors(around), above = lattice.successors(around);
      for (const bool raise : {false, true}) {
        std::vector<Transformation> batch = raise ? above : below;
        const std::vector<Transformation>& other = raise ? below : above;
        if (!other.empty()) batch.push_back(other.front());  // the other way: checked the usual way
        batch.push_back(lattice.bottom());
        const std::uint64_t before = warm.statistics().refined;
        warm.prefetch(batch, &around);
        for (const Transformation& t : batch) {
          Checker cold(pr);
          cold.set_measure_all(true);
          Classes from_histogram;
          const CheckResult a = warm.check(t), b = cold.check(t, &from_histogram);
          expect_same(a, b);
          // Classes in another order: sums of doubles may differ in the last bit.
          EXPECT_DOUBLE_EQ(a.quality.value, b.quality.value) << to_string(t);
          EXPECT_EQ(a.kept_classes, b.kept_classes) << to_string(t);
          ++checked;
        }
        (raise ? up : down) += warm.statistics().refined - before;
      }
    }
    EXPECT_EQ(warm.statistics().checks, checked);
    EXPECT_GT(down, 0u) << "the test must exercise specializations";
    EXPECT_GT(up, 0u) << "and generalizations";
    EXPECT_LT(warm.statistics().refined, checked) << "and checks the usual way beside them";
    fs::remove_all(rj.dir);
  }
}

// A plain sequential histogram: entries in order of first occurrence.
std::vector<std::vector<std::uint32_t>> reference_entries(const Dataset& ds, const std::vector<int>& cols,
                                                          std::vector<std::uint64_t>& counts) {
  std::map<std::vector<std::uint32_t>, std::size_t> index;
  std::vector<std::vector<std::uint32_t>> keys;
  for (std::uint64_t r = 0; r < ds.rows; ++r) {
    std::vector<std::uint32_t> key;
    for (int c : cols) key.push_back(ds.columns[c].codes[r]);
    auto [it, inserted] = index.emplace(key, keys.size());
    if (inserted) {
      keys.push_back(key);
      counts.push_back(0);
    }
    ++counts[it->second];
  }
  return keys;
}

TEST(RollUp, ParallelHistogramAndGroupingNumberLikeASequentialPass) {
  // Enough rows and distinct tuples for the chunked parallel histogram.
  std::mt19937_64 rng(11);
  RandomJob rj = make_random_job(rng, 6, 200000, 60, false, 3);
  auto prepared = prepare(rj.job, read_dataset_text(rj.csv, "random.csv", CsvOptions{','}));
  const Problem& pr = prepared->problem;
  std::vector<std::uint64_t> counts;
  const auto keys = reference_entries(prepared->data, pr.qi_columns, counts);
  ASSERT_GT(keys.size(), 70000u) << "the parallel histogram needs a large source";
  ASSERT_EQ(pr.histogram.size(), keys.size());
  for (std::size_t e = 0; e < keys.size(); ++e) {
    const auto k = pr.histogram.key(e);
    ASSERT_EQ(std::vector<std::uint32_t>(k.begin(), k.end()), keys[e]) << "entry " << e;
    ASSERT_EQ(pr.histogram.counts[e], counts[e]);
  }
  for (std::uint64_t r = 0; r < prepared->data.rows; r += 997) {
    const auto k = pr.histogram.key(pr.histogram.row_entry[r]);
    for (std::size_t q = 0; q < pr.qi_columns.size(); ++q)
      ASSERT_EQ(k[q], prepared->data.columns[pr.qi_columns[q]].codes[r]);
  }

  // Grouping at a level where the domains are too large to address directly
  // goes through the slot hash table; classes in order of first entry.
  Checker checker(pr);
  Transformation t(pr.qi_columns.size(), 0);
  t[0] = 1;
  Classes classes;
  checker.group(t, classes);
  std::map<std::vector<std::uint32_t>, std::uint32_t> seen;
  std::uint32_t next = 0;
  for (std::size_t e = 0; e < pr.histogram.size(); ++e) {
    std::vector<std::uint32_t> g;
    for (std::size_t q = 0; q < t.size(); ++q) g.push_back(pr.hierarchies[q].map(t[q])[pr.histogram.key(e)[q]]);
    auto [it, inserted] = seen.emplace(g, next);
    if (inserted) ++next;
    ASSERT_EQ(classes.entry_class[e], it->second) << "entry " << e;
  }
  ASSERT_EQ(classes.size(), next);
  fs::remove_all(rj.dir);
}

// Sources of at least 2^15 members are grouped partitioned by Checker::check
// (src/check/partitioned.h): classes numbered partition by partition, members
// written afterwards, keys only when read. Its results, and checks rolled up
// from its cached classes (keys) or merging their distributions (members),
// must equal the ordered grouping's. The table: 140,000 distinct ids whose
// level 1 is one of 47 blocks, and four attributes that are functions of
// the block, so that at (1,0,0,0,0) the domains multiply beyond direct
// addressing (799 k slots) while there are only 47 classes: partitioned,
// small enough to cache.
TEST(RollUp, PartitionedGroupingOfLargeSourcesEqualsOrderedGrouping) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("deid-partitioned-{}", ::getpid());
  fs::create_directories(dir);
  constexpr int kRows = 140000, kBlock = 3000;
  const int moduli[] = {7, 11, 13, 17};
  {
    std::ofstream h(dir / "id.csv");
    for (int i = 0; i < kRows; ++i) h << fmt::format("i{};b{};*\n", i, i / kBlock);
    for (int a = 0; a < 4; ++a) {
      std::ofstream m(dir / fmt::format("a{}.csv", a));
      for (int v = 0; v < moduli[a]; ++v) m << fmt::format("v{};*\n", v);
    }
  }
  std::string csv = "id,a0,a1,a2,a3,s\n";
  for (int i = 0; i < kRows; ++i) {
    const int block = i / kBlock;
    csv += fmt::format("i{},v{},v{},v{},v{},s{}\n", i, block % 7, block % 11, block % 13, block % 17, (i * 7919) % 5);
  }
  for (const bool sensitive : {false, true}) {
    Job job;
    for (const std::string name : {"id", "a0", "a1", "a2", "a3"}) {
      AttributeSpec a;
      a.name = name;
      a.role = Role::quasi_identifying;
      a.hierarchy = (dir / (name + ".csv")).string();
      job.attributes.push_back(a);
    }
    AttributeSpec s;
    s.name = "s";
    s.role = sensitive ? Role::sensitive : Role::insensitive;
    job.attributes.push_back(s);
    job.privacy.push_back(KAnonymitySpec{2});
    if (sensitive) {
      LDiversitySpec l;
      l.attribute = "s";
      l.l = 2;
      job.privacy.push_back(l);
    }
    job.suppression_limit = 0.1;
    auto prepared = prepare(job, read_dataset_text(csv, "blocks.csv", CsvOptions{','}));
    const Problem& pr = prepared->problem;
    ASSERT_GE(pr.histogram.size(), std::size_t{1} << 17) << "the partitioned path needs a large source";
    Checker warm(pr);
    const Transformation source{1, 0, 0, 0, 0};
    Checker cold(pr);
    Classes ordered;
    expect_same(warm.check(source), cold.check(source, &ordered));
    ASSERT_EQ(ordered.size(), std::size_t{47});
    ASSERT_EQ(warm.statistics().from_histogram, 1u);
    // Its generalizations roll up from its cached classes: with the id
    // generalized away, each subset of the four attributes has as many
    // classes as its residues of the 47 blocks, so a wrong key shows.
    std::uint64_t ups = 0;
    for (int id_level : {1, 2})
      for (int mask = 1; mask < 16; ++mask) {
        Transformation up(5, 0);
        up[0] = static_cast<Transformation::value_type>(id_level);
        for (int a = 0; a < 4; ++a) up[1 + a] = static_cast<Transformation::value_type>((mask >> a) & 1);
        Checker cold_up(pr);
        Classes ordered_up;
        expect_same(warm.check(up), cold_up.check(up, &ordered_up));
        ++ups;
      }
    if (sensitive) {
      EXPECT_EQ(warm.statistics().rolled_up, ups) << "the generalizations must roll up from the partitioned classes";
    } else {
      // k-anonymity alone groups the histogram by ranges of a lead (at
      // least the checks with the id at level 1: 47 blocks) and caches
      // nothing.
      EXPECT_EQ(warm.statistics().rolled_up, 0u);
      EXPECT_GE(warm.statistics().ranged, 1u + ups / 2);
    }
  }
  fs::remove_all(dir);
}

// Keys whose mixed-radix slot does not fit 63 bits are grouped by tuples of
// slots, one per run of attributes that fits (WideTable, with 2, 3 and more
// parts), and beyond kMaxParts parts by a hash map on their codes
// (src/check/grouping.h). Here 24, 48 and 120 attributes of up to 41 values
// at level 0 (the bottom's slots take about 130, 260 and 640 bits). The
// classes must be those of a plain map from generalized key to count, and
// checks from the histogram by ranges of a lead (k-anonymity) must agree.
TEST(RollUp, KeysBeyondSixtyThreeBitSlotsGroupLikeAPlainMap) {
  std::mt19937_64 rng(31);
  for (const int qis : {24, 48, 120}) {
    RandomJob rj = make_random_job(rng, qis, 3000, 40, false, 2);
    auto prepared = prepare(rj.job, read_dataset_text(rj.csv, "random.csv", CsvOptions{','}));
    const Problem& pr = prepared->problem;
    // The mixed-radix slots of t: its generalized domains multiplied.
    const auto slots_of = [&pr](const Transformation& t) {
      long double slots = 1;
      for (std::size_t q = 0; q < t.size(); ++q)
        slots *= static_cast<long double>(t[q] == 0 ? pr.hierarchies[q].map(0).size()
                                                    : pr.hierarchies[q].domain_size(t[q]));
      return slots;
    };
    ASSERT_GT(slots_of(Transformation(pr.hierarchies.size(), 0)), 9.3e18L) << "the bottom's slots must not fit 63 bits";
    Checker warm(pr);
    std::uint64_t wide = 0;
    for (int round = 0; round < 30; ++round) {
      // Mostly low levels, so that many checks stay beyond 63 bits.
      Transformation t(pr.hierarchies.size(), 0);
      for (std::size_t q = 0; q < t.size(); ++q)
        if (rng() % 10 == 0) t[q] = static_cast<int>(rng() % static_cast<std::uint64_t>(pr.hierarchies[q].height()));
      if (slots_of(t) > 9.3e18L) ++wide;
      Checker cold(pr);
      Classes classes;
      const CheckResult r = cold.check(t, &classes);
      std::map<std::vector<std::uint32_t>, std::uint64_t> expected;
      for (std::size_t e = 0; e < pr.histogram.size(); ++e) {
        std::vector<std::uint32_t> g;
        for (std::size_t q = 0; q < t.size(); ++q) g.push_back(pr.hierarchies[q].map(t[q])[pr.histogram.key(e)[q]]);
        expected[g] += pr.histogram.counts[e];
      }
      std::map<std::vector<std::uint32_t>, std::uint64_t> got;
      for (std::size_t c = 0; c < classes.size(); ++c) {
        std::vector<std::uint32_t> g(classes.keys.begin() + static_cast<std::ptrdiff_t>(c * t.size()),
                                     classes.keys.begin() + static_cast<std::ptrdiff_t>((c + 1) * t.size()));
        got[g] += classes.counts[c];
      }
      EXPECT_EQ(classes.size(), expected.size()) << to_string(t);
      EXPECT_EQ(got, expected) << to_string(t);
      expect_same(warm.check(t), r);
    }
    EXPECT_GT(wide, 10u) << "most checks must group beyond 63-bit slots";
    if (qis == 120) {
      EXPECT_GT(slots_of(Transformation(pr.hierarchies.size(), 0)), 1e152L) << "beyond 8 parts";
    }
    fs::remove_all(rj.dir);
  }
}

// Grouping the histogram range by range of its lead attribute
// (src/check/ranges.h): a job whose first attributes have up to 300 values,
// so that some attribute splits the histogram into many ranges at its lower
// levels. Every check of the lattice must equal the ordered grouping's, and
// with early stopping (what the searches use) a check may only end early
// when it cannot be a solution: same verdict and bound, and a solution's
// figures unchanged.
TEST(Ranges, RangedChecksEqualOrderedGroupingAndStopOnlyWhenNoSolution) {
  std::mt19937_64 rng(23);
  for (int round = 0; round < 6; ++round) {
    RandomJob rj = make_random_job(rng, 3 + round % 2, 3000 + 1000 * round, 300, false, 2 + round % 3);
    rj.job.quality.model = round % 3 == 2 ? "height" : "loss";
    auto prepared = prepare(rj.job, read_dataset_text(rj.csv, "random.csv", CsvOptions{','}));
    const Problem& pr = prepared->problem;
    const Lattice lattice = pr.lattice();
    Checker full(pr), early(pr);
    early.set_stop_early(true);
    for (LatticeIndex i = 0; i < lattice.size(); ++i) {
      const Transformation t = lattice.at(i);
      Checker cold(pr);
      Classes ordered;
      const CheckResult want = cold.check(t, &ordered);
      const CheckResult got = full.check(t);
      EXPECT_TRUE(got.complete);
      expect_same(got, want);
      const CheckResult fast = early.check(t);
      EXPECT_EQ(fast.solution, want.solution) << to_string(t);
      EXPECT_DOUBLE_EQ(fast.lower_bound, want.lower_bound) << to_string(t);
      if (fast.complete) {
        expect_same(fast, want);
      } else {
        EXPECT_FALSE(want.solution) << to_string(t);
        EXPECT_GT(fast.suppressed_records, pr.max_suppressed) << to_string(t);
        EXPECT_LE(fast.suppressed_records, want.suppressed_records) << to_string(t);
        EXPECT_LT(fast.classes, want.classes) << to_string(t);
      }
    }
    EXPECT_GT(full.statistics().ranged, 0u) << "the test must exercise ranged grouping";
    EXPECT_EQ(full.statistics().stopped_early, 0u) << "checks stop early only when asked to";
    EXPECT_GT(early.statistics().stopped_early, 0u) << "the test must exercise early stops";
    EXPECT_LT(early.statistics().grouped, full.statistics().grouped);
    fs::remove_all(rj.dir);
  }
}

// Early stopping needs a bound that does not read the classes and models
// that judge a class by its size: with discernability (whose bound sums
// the squared class sizes) checks run to the end, and with l-diversity
// (which reads distributions) the histogram is not grouped by ranges.
TEST(Ranges, NoEarlyStopWhenTheBoundOrTheModelsReadTheClasses) {
  std::mt19937_64 rng(29);
  for (const bool sensitive : {false, true}) {
    RandomJob rj = make_random_job(rng, 3, 4000, 300, sensitive, 3);
    if (!sensitive) rj.job.quality.model = "discernability";
    auto prepared = prepare(rj.job, read_dataset_text(rj.csv, "random.csv", CsvOptions{','}));
    const Problem& pr = prepared->problem;
    const Lattice lattice = pr.lattice();
    Checker early(pr);
    early.set_stop_early(true);
    for (LatticeIndex i = 0; i < lattice.size(); ++i) {
      const Transformation t = lattice.at(i);
      Checker cold(pr);
      Classes ordered;
      expect_same(early.check(t), cold.check(t, &ordered));
    }
    EXPECT_EQ(early.statistics().stopped_early, 0u);
    if (sensitive) {
      EXPECT_EQ(early.statistics().ranged, 0u);
    } else {
      EXPECT_GT(early.statistics().ranged, 0u);
    }
    fs::remove_all(rj.dir);
  }
}

}  // namespace
}  // namespace deid
