// The store of predictive properties (include/deid/property_store.h): the
// antichain prefix tree of papers/000, "Efficient management of predictive
// properties". Oracle: a plain list of every inserted element, as in the
// paper's "Option 1".
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "deid/property_store.h"
#include "search/predictive.h"

namespace deid {
namespace {

// The list the paper starts from: every inserted element, nothing removed.
struct PlainList {
  Inheritance inheritance;
  std::vector<Transformation> items;

  bool covers(const Transformation& y, const Transformation& x) const {
    return inheritance == Inheritance::generalizations ? leq(y, x) : leq(x, y);
  }
  bool contains(const Transformation& x) const {
    return std::any_of(items.begin(), items.end(), [&](const auto& y) { return covers(y, x); });
  }
  // The antichain the store must hold: the inserted elements that no other
  // inserted element covers (minimal for P↑, maximal for P↓), once each.
  std::vector<Transformation> antichain() const {
    std::vector<Transformation> out;
    for (const auto& x : items) {
      const bool dominated = std::any_of(items.begin(), items.end(), [&](const auto& y) { return y != x && covers(y, x); });
      if (!dominated) out.push_back(x);
    }
    // Lexicographic order written out: GCC 12 reports a false
    // -Wstringop-overread for std::vector<std::uint8_t>'s operator<.
    std::sort(out.begin(), out.end(), [](const Transformation& a, const Transformation& b) {
      for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return a[i] < b[i];
      return false;
    });
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
};

Transformation random_transformation(std::mt19937_64& rng, const std::vector<int>& heights) {
  Transformation t(heights.size());
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(rng() % heights[i]);
  return t;
}

// Random elements near a random "rank band", so that inserts cover and
// remove each other often (uniform random elements are mostly incomparable).
Transformation banded_transformation(std::mt19937_64& rng, const std::vector<int>& heights) {
  Transformation t(heights.size());
  const int bias = static_cast<int>(rng() % 3);
  for (std::size_t i = 0; i < t.size(); ++i) {
    int v = static_cast<int>(rng() % heights[i]);
    if (bias == 0) v = std::min(v, static_cast<int>(rng() % heights[i]));
    if (bias == 2) v = std::max(v, static_cast<int>(rng() % heights[i]));
    t[i] = static_cast<std::uint8_t>(v);
  }
  return t;
}

// Returns how many inserts removed covered elements, so that callers can
// require that the comparison exercised removal.
std::uint64_t run_random_comparison(std::uint64_t seed, const std::vector<int>& heights, Inheritance inheritance,
                                    int operations) {
  std::mt19937_64 rng(seed);
  const Lattice lattice(heights);
  PropertyStore store(lattice, inheritance);
  PlainList list{inheritance, {}};
  std::uint64_t queries = 0, hits = 0, inserts = 0, largest = 0, removals = 0;
  for (int op = 0; op < operations; ++op) {
    const Transformation x = op % 2 ? banded_transformation(rng, heights) : random_transformation(rng, heights);
    if (rng() % 3 == 0) {
      const bool expected_new = !list.contains(x);
      const std::size_t before = store.size();
      EXPECT_EQ(store.insert(x), expected_new) << "seed " << seed << " insert " << to_string(x);
      list.items.push_back(x);
      if (expected_new) ++inserts;
      const auto expected = list.antichain();
      if (expected_new && expected.size() < before + 1) ++removals;
      EXPECT_EQ(store.size(), expected.size()) << "seed " << seed;
      EXPECT_EQ(store.elements(), expected) << "seed " << seed;
      if (::testing::Test::HasFailure()) return removals;
      largest = std::max<std::uint64_t>(largest, expected.size());
    } else {
      const bool expected = list.contains(x);
      if (op % 4 == 0) {
        // With a witness: an inserted element that covers x.
        Transformation witness;
        EXPECT_EQ(store.contains(x, witness), expected) << "seed " << seed << " query " << to_string(x);
        if (expected) {
          EXPECT_TRUE(list.covers(witness, x)) << "seed " << seed << " witness " << to_string(witness);
          EXPECT_NE(std::find(list.items.begin(), list.items.end(), witness), list.items.end())
              << "seed " << seed << " witness " << to_string(witness);
        }
      } else {
        EXPECT_EQ(store.contains(x), expected) << "seed " << seed << " query " << to_string(x);
      }
      if (::testing::Test::HasFailure()) return removals;
      ++queries;
      if (expected) ++hits;
    }
  }
  EXPECT_EQ(store.statistics().queries, queries);
  EXPECT_EQ(store.statistics().hits, hits);
  EXPECT_EQ(store.statistics().inserts, inserts);
  EXPECT_EQ(store.statistics().largest_antichain, largest);
  return removals;
}

TEST(PropertyStore, AnswersEveryQueryAsAPlainListForGeneralizations) {
  std::mt19937_64 rng(1);
  std::uint64_t removals = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    std::vector<int> heights(1 + rng() % 6);
    for (auto& h : heights) h = 1 + static_cast<int>(rng() % 5);
    removals += run_random_comparison(seed, heights, Inheritance::generalizations, 300);
  }
  EXPECT_GT(removals, 100u);
}

TEST(PropertyStore, AnswersEveryQueryAsAPlainListForSpecializations) {
  std::mt19937_64 rng(2);
  std::uint64_t removals = 0;
  for (std::uint64_t seed = 100; seed < 160; ++seed) {
    std::vector<int> heights(1 + rng() % 6);
    for (auto& h : heights) h = 1 + static_cast<int>(rng() % 5);
    removals += run_random_comparison(seed, heights, Inheritance::specializations, 300);
  }
  EXPECT_GT(removals, 100u);
}

TEST(PropertyStore, AnswersEveryQueryAsAPlainListWith30Dimensions) {
  std::mt19937_64 rng(3);
  std::vector<int> heights(30);
  for (auto& h : heights) h = 2 + static_cast<int>(rng() % 4);
  const std::uint64_t removals = run_random_comparison(200, heights, Inheritance::generalizations, 600) +
                                 run_random_comparison(201, heights, Inheritance::specializations, 600);
  EXPECT_GT(removals, 0u);
}

TEST(PropertyStore, AnswersEveryQueryAsAPlainListWithTallHierarchies) {
  run_random_comparison(300, {255, 3, 40}, Inheritance::generalizations, 400);
  run_random_comparison(301, {255, 3, 40}, Inheritance::specializations, 400);
}

// The subtree summaries (`below`: the smallest level at each of the next
// depths, capped) skip subtrees on queries and are recomputed on removal:
// lattices with more depths than a summary has lanes, with levels above the
// cap, and with ties of heights (the tree's depth order), under
// interleaved inserts, removals and queries with and without witness.
TEST(PropertyStore, AnswersEveryQueryAsAPlainListWithSubtreeSummaries) {
  std::mt19937_64 rng(4);
  std::uint64_t removals = 0;
  for (std::uint64_t seed = 400; seed < 440; ++seed) {
    std::vector<int> heights(6 + rng() % 12);
    for (auto& h : heights) h = 1 + static_cast<int>(rng() % (seed % 2 ? 6 : 14));
    const Inheritance inheritance = seed % 4 < 2 ? Inheritance::generalizations : Inheritance::specializations;
    removals += run_random_comparison(seed, heights, inheritance, 500);
  }
  EXPECT_GT(removals, 100u);
}

// papers/000, Fig. 3: P↑ holds for (1,1,1), (1,3,0), (3,2,0); the query for
// (1,2,2) finds (1,1,1).
TEST(PropertyStore, PaperFigure3QueryFindsASpecialization) {
  const Lattice lattice({4, 4, 3});
  PropertyStore store(lattice, Inheritance::generalizations);
  EXPECT_TRUE(store.insert({1, 1, 1}));
  EXPECT_TRUE(store.insert({1, 3, 0}));
  EXPECT_TRUE(store.insert({3, 2, 0}));
  EXPECT_EQ(store.size(), 3u);
  EXPECT_TRUE(store.contains({1, 2, 2}));
  EXPECT_TRUE(store.contains({1, 1, 1}));  // an element has its own property
  EXPECT_FALSE(store.contains({1, 2, 0}));
  EXPECT_FALSE(store.contains({0, 3, 2}));
  EXPECT_TRUE(store.contains({3, 3, 2}));
}

TEST(PropertyStore, InsertRemovesTheElementsTheNewOneCovers) {
  const Lattice lattice({4, 4, 4});
  PropertyStore up(lattice, Inheritance::generalizations);
  up.insert({2, 2, 2});
  up.insert({3, 1, 3});
  up.insert({0, 3, 0});
  EXPECT_TRUE(up.insert({1, 1, 1}));  // covers (2,2,2) and (3,1,3), not (0,3,0)
  EXPECT_EQ(up.elements(), (std::vector<Transformation>{{0, 3, 0}, {1, 1, 1}}));
  EXPECT_FALSE(up.insert({1, 2, 1}));  // already implied by (1,1,1)
  EXPECT_EQ(up.size(), 2u);
  EXPECT_EQ(up.statistics().largest_antichain, 3u);

  PropertyStore down(lattice, Inheritance::specializations);
  down.insert({1, 1, 1});
  down.insert({0, 2, 0});
  EXPECT_TRUE(down.contains({0, 1, 0}));
  EXPECT_FALSE(down.contains({2, 0, 0}));
  EXPECT_TRUE(down.insert({2, 2, 2}));  // covers both
  EXPECT_EQ(down.elements(), (std::vector<Transformation>{{2, 2, 2}}));
}

// Removing elements unlinks empty subtrees and recycles their nodes: after
// any sequence of inserts, the tree is as small as one built from the
// antichain alone.
TEST(PropertyStore, RemovalLeavesNoEmptySubtrees) {
  std::mt19937_64 rng(5);
  const std::vector<int> heights{3, 5, 2, 4, 3, 4};
  const Lattice lattice(heights);
  for (auto inheritance : {Inheritance::generalizations, Inheritance::specializations}) {
    PropertyStore store(lattice, inheritance);
    for (int i = 0; i < 500; ++i) {
      store.insert(banded_transformation(rng, heights));
      if (i % 50 != 49) continue;
      PropertyStore fresh(lattice, inheritance);
      for (const auto& e : store.elements()) fresh.insert(e);
      EXPECT_EQ(store.nodes(), fresh.nodes());
    }
  }
}

TEST(PropertyStore, EmptyStoreContainsNothing) {
  const Lattice lattice({2, 2});
  PropertyStore store(lattice, Inheritance::specializations);
  EXPECT_FALSE(store.contains({0, 0}));
  EXPECT_EQ(store.size(), 0u);
  EXPECT_EQ(store.statistics().queries, 1u);
  EXPECT_EQ(store.statistics().hits, 0u);
  // One dimension of height one: the only transformation.
  PropertyStore single(Lattice({1}), Inheritance::generalizations);
  EXPECT_TRUE(single.insert({0}));
  EXPECT_TRUE(single.contains({0}));
}

// The down-set's bits (search/predictive.h), which answer the
// insufficient-protection store's queries on small lattices: every query
// as the plain list of inserted non-solutions answers it, also on lattices
// whose levels are bounded (min and max levels), where indices count from
// the lowest level.
TEST(DownSet, AnswersEveryQueryAsAPlainListOfSpecializations) {
  std::mt19937_64 rng(7);
  int hits = 0, queries = 0;
  for (int trial = 0; trial < 80; ++trial) {
    // Every fourth lattice has a tall last attribute: its runs of bits span
    // whole 64-bit words.
    const bool tall = trial % 4 == 3;
    const std::size_t m = tall ? 1 + rng() % 3 : 1 + rng() % 5;
    std::vector<int> heights(m), lo(m), hi(m);
    for (std::size_t q = 0; q < m; ++q) {
      heights[q] = tall && q + 1 == m ? 60 + static_cast<int>(rng() % 140) : 1 + static_cast<int>(rng() % 5);
      lo[q] = trial % 2 ? static_cast<int>(rng() % heights[q]) : 0;
      hi[q] = trial % 2 ? lo[q] + static_cast<int>(rng() % (heights[q] - lo[q])) : heights[q] - 1;
    }
    const Lattice lattice(heights, lo, hi);
    search_internal::DownSet bits(lattice, true);
    ASSERT_TRUE(bits.enabled());
    PlainList list{Inheritance::specializations, {}};
    const auto random_member = [&] {
      Transformation t(m);
      for (std::size_t q = 0; q < m; ++q) t[q] = static_cast<std::uint8_t>(lo[q] + static_cast<int>(rng() % (hi[q] - lo[q] + 1)));
      return t;
    };
    for (int op = 0; op < 60; ++op) {
      const Transformation x = random_member();
      if (op % 4 == 0) {
        bits.insert(x);
        list.items.push_back(x);
      }
      // Every transformation of the lattice, after each insert.
      if (op % 4 != 0) continue;
      for (LatticeIndex i = 0; i < lattice.size(); ++i) {
        const Transformation t = lattice.at(i);
        const bool expected = list.contains(t);
        ASSERT_EQ(bits.contains(t), expected) << "trial " << trial << " t " << to_string(t);
        hits += expected;
        ++queries;
      }
    }
  }
  EXPECT_GT(hits, 1000);
  EXPECT_GT(queries - hits, 1000);
}

TEST(DownSet, IsOffForLatticesAboveItsLimitOrWhenNotWanted) {
  EXPECT_FALSE(search_internal::DownSet(Lattice(std::vector<int>(15, 5)), true).enabled());  // 5^15 > 2^28
  EXPECT_FALSE(search_internal::DownSet(Lattice({3, 3}), false).enabled());
  EXPECT_TRUE(search_internal::DownSet(Lattice({3, 3}), true).enabled());
}

}  // namespace
}  // namespace deid
