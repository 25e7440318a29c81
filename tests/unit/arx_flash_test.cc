// ARX 3.9.2's Flash traversal simulated (search/arx_flash.h): which of two
// optima of equal loss ARX keeps.
//
// The problem: two binary attributes A and B, four records (a1,b1),
// (a1,b2), (a2,b1), (a2,b2), 2-anonymity. Generalizing either attribute
// alone gives two classes of two records, with the same loss (the
// hierarchies have the same shape), so [1,0] and [0,1] tie. deid's order
// (better(): loss, rank, then smaller levels) takes [0,1]. Flash, as read
// from ARX's source: the bottom is checked first and is no solution; its
// successors come in identifier order ([1,0] before [0,1]; FLASHStrategy
// ranks them equal and sorts stably), so findPath climbs [0,0] -> [1,0] ->
// [1,1]; checkPath checks the middle, [1,0], a solution, which becomes the
// optimum; [0,1], checked later, has the same loss at the same level and
// does not replace it (AbstractAlgorithm.trackOptimum).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "deid/job.h"
#include "deid/pipeline.h"
#include "pipeline/local_recoding.h"
#include "search/arx_flash.h"
#include "search/java_priority_queue.h"
#include "support/reference.h"

namespace deid {
namespace {

struct Tie {
  std::unique_ptr<PreparedJob> prepared;
  ArxFlashOutcome flash;
  Anonymization deid;
};

Tie run_tie(const testing::TempDir& dir, double suppression_limit, const std::string& quality = "loss",
            bool swapped = false) {
  if (swapped)
    std::ofstream(dir / "data.csv") << "B;A\nb1;a1\nb2;a1\nb1;a2\nb2;a2\n";
  else
    std::ofstream(dir / "data.csv") << "A;B\na1;b1\na1;b2\na2;b1\na2;b2\n";
  std::ofstream(dir / "A.csv") << "a1;*\na2;*\n";
  std::ofstream(dir / "B.csv") << "b1;*\nb2;*\n";
  const std::string yaml = "input: {path: '" + (dir / "data.csv") +
                           "', delimiter: ';'}\nattributes:\n  A: {role: quasi-identifying, hierarchy: '" +
                           (dir / "A.csv") + "'}\n  B: {role: quasi-identifying, hierarchy: '" + (dir / "B.csv") +
                           "'}\nprivacy: [{k-anonymity: {k: 2}}]\nsuppression-limit: " +
                           std::to_string(suppression_limit) + "\nquality: {model: " + quality +
                           "}\noutput: {utility: false}\n";
  Tie t;
  const Job job = parse_job(yaml, "job.yaml", "");
  t.prepared = prepare(job);
  t.flash = arx_flash_optimum(t.prepared->problem, arx_distinct_values(*t.prepared), suppression_limit);
  t.deid = run_search(*t.prepared);
  return t;
}

// The order OpenJDK 17's java.util.PriorityQueue polls these elements in
// (keys 2 1 1 0 1 2 | 0 1 1 2; six added, two polled, four added, all
// polled), printed by Java itself: ties come out neither first-in first-out
// nor by index.
TEST(ArxFlash, PriorityQueuePollsTiesAsJavaDoes) {
  const int keys[] = {2, 1, 1, 0, 1, 2, 0, 1, 1, 2};
  const auto compare = [&](int x, int y) { return keys[x] < keys[y] ? -1 : keys[x] > keys[y] ? 1 : 0; };
  JavaPriorityQueue<int, decltype(compare)> q(compare);
  std::vector<int> order;
  for (int i = 0; i < 6; ++i) q.add(i);
  order.push_back(q.poll());
  order.push_back(q.poll());
  for (int i = 6; i < 10; ++i) q.add(i);
  while (!q.empty()) order.push_back(q.poll());
  EXPECT_EQ(order, (std::vector<int>{3, 1, 6, 4, 8, 7, 2, 0, 5, 9}));
}

TEST(ArxFlash, DistinctValuesPerLevel) {
  const testing::TempDir dir("arx_flash_distinct");
  const Tie t = run_tie(dir, 0.0);
  const std::vector<std::vector<std::uint32_t>> d = arx_distinct_values(*t.prepared);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], (std::vector<std::uint32_t>{2, 1}));
  EXPECT_EQ(d[1], (std::vector<std::uint32_t>{2, 1}));
}

// Without suppression Loss is monotonic: one binary phase
// (FLASHAlgorithm.createFullFull).
TEST(ArxFlash, TieWithoutSuppressionGoesToTheFirstOnFlashsPath) {
  const testing::TempDir dir("arx_flash_full_full");
  const Tie t = run_tie(dir, 0.0);
  ASSERT_TRUE(t.flash.simulated);
  ASSERT_TRUE(t.flash.optimum);
  EXPECT_EQ(t.flash.optimum->transformation, (Transformation{1, 0}));
  ASSERT_TRUE(t.deid.found);
  EXPECT_EQ(t.deid.search.best->transformation, (Transformation{0, 1}));
  EXPECT_EQ(t.flash.optimum->quality.value, t.deid.search.best->quality.value);
}

// With suppression: the binary phase, then the linear phase from each
// path's lowest solution, with lower-bound pruning
// (FLASHAlgorithm.createFullNone). The same optimum.
TEST(ArxFlash, TieWithSuppressionGoesToTheFirstOnFlashsPath) {
  const testing::TempDir dir("arx_flash_full_none");
  const Tie t = run_tie(dir, 0.25);
  ASSERT_TRUE(t.flash.simulated);
  ASSERT_TRUE(t.flash.optimum);
  EXPECT_EQ(t.flash.optimum->transformation, (Transformation{1, 0}));
  EXPECT_EQ(t.flash.optimum->quality.value, t.deid.search.best->quality.value);
}

// The pick follows the quasi-identifiers' order (the columns', as ARX's),
// not their names: with the columns swapped, the first column's attribute
// is the one generalized.
TEST(ArxFlash, TieFollowsTheAttributeOrder) {
  const testing::TempDir dir("arx_flash_order");
  const Tie t = run_tie(dir, 0.25, "loss", true);
  ASSERT_TRUE(t.flash.optimum);
  const Problem& pr = t.prepared->problem;
  ASSERT_EQ(pr.qi_names, (std::vector<std::string>{"B", "A"}));
  Transformation first_generalized(2, 0);
  first_generalized[0] = 1;
  EXPECT_EQ(t.flash.optimum->transformation, first_generalized) << pr.qi_names[0] << ", " << pr.qi_names[1];
}

// Every model that describes itself to the replay (QualityModel::
// arx_flash_traits) is simulated: the hierarchies have the same shape, so
// each model ties [1,0] and [0,1], and Flash keeps the first on its path.
TEST(ArxFlash, EveryDescribedQualityModelIsSimulated) {
  for (const char* model : {"entropy", "precision", "height", "discernability", "aecs", "normalized-entropy",
                            "ambiguity", "kl-divergence"}) {
    for (double limit : {0.0, 0.25}) {
      const testing::TempDir dir(std::string("arx_flash_") + model);
      const Tie t = run_tie(dir, limit, model);
      ASSERT_TRUE(t.flash.simulated) << model;
      ASSERT_TRUE(t.flash.optimum) << model;
      EXPECT_EQ(t.flash.optimum->transformation, (Transformation{1, 0})) << model << " " << limit;
      EXPECT_EQ(t.flash.optimum->quality.value, t.deid.search.best->quality.value) << model << " " << limit;
    }
  }
}

// The publisher's payout too (monotonic under neither, so no binary
// phase; ARX's bound from every check, its sums in class order).
TEST(ArxFlash, PublisherPayoutIsSimulated) {
  for (double limit : {0.0, 0.25}) {
    const testing::TempDir dir("arx_flash_payout");
    const Tie t = run_tie(dir, limit,
                          "publisher-payout}\ncost-benefit: {publisher-benefit: 1000, publisher-loss: 500, "
                          "adversary-gain: 200, adversary-cost: 10");
    ASSERT_TRUE(t.flash.simulated);
    ASSERT_TRUE(t.flash.optimum);
    EXPECT_EQ(t.flash.optimum->transformation, (Transformation{1, 0})) << limit;
    EXPECT_EQ(t.flash.optimum->quality.value, t.deid.search.best->quality.value) << limit;
  }
}

}  // namespace
}  // namespace deid
