// The generalization lattice (include/deid/lattice.h): its shape, indices,
// neighbours and the enumeration by rank that the optimal search sweeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "deid/lattice.h"

namespace deid {
namespace {

// Lexicographic order written out: GCC 12 reports a false
// -Wstringop-overread for std::vector<std::uint8_t>'s operator<.
bool lex_less(const Transformation& a, const Transformation& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] != b[i]) return a[i] < b[i];
  return a.size() < b.size();
}

TEST(Lattice, SizeIsTheProductOfHeightsAndNeedsMoreThan64BitsFor30Attributes) {
  EXPECT_EQ(Lattice({5, 4, 3}).size(), static_cast<LatticeIndex>(60));
  // 30 quasi-identifiers of height 5: 5^30 ≈ 9.3e20 > 2^64.
  const Lattice big(std::vector<int>(30, 5));
  LatticeIndex expected = 1;
  for (int i = 0; i < 30; ++i) expected *= 5;
  EXPECT_EQ(big.size(), expected);
  EXPECT_GT(big.size(), static_cast<LatticeIndex>(UINT64_MAX));
  EXPECT_EQ(to_string(big.size()), "931322574615478515625");
}

TEST(Lattice, IndexAndAtAreInversesInLexicographicOrder) {
  const Lattice lattice({3, 2, 4});
  Transformation previous;
  for (LatticeIndex i = 0; i < lattice.size(); ++i) {
    const Transformation t = lattice.at(i);
    EXPECT_EQ(lattice.index(t), i);
    if (i > 0) {
      EXPECT_TRUE(lex_less(previous, t));
    }
    previous = t;
  }
}

TEST(Lattice, IndexRoundTripsAt30Dimensions) {
  const Lattice lattice(std::vector<int>(30, 6));
  std::mt19937_64 rng(7);
  for (int n = 0; n < 200; ++n) {
    Transformation t(30);
    for (auto& v : t) v = static_cast<std::uint8_t>(rng() % 6);
    EXPECT_EQ(lattice.at(lattice.index(t)), t);
  }
  EXPECT_EQ(lattice.index(lattice.top()), lattice.size() - 1);
}

TEST(Lattice, SuccessorsAndPredecessorsDifferByOneLevelInOneAttribute) {
  const Lattice lattice({2, 3, 1});
  const Transformation t{0, 1, 0};
  EXPECT_EQ(lattice.successors(t), (std::vector<Transformation>{{1, 1, 0}, {0, 2, 0}}));
  EXPECT_EQ(lattice.predecessors(t), (std::vector<Transformation>{{0, 0, 0}}));
  EXPECT_TRUE(lattice.successors(lattice.top()).empty());
  EXPECT_TRUE(lattice.predecessors(lattice.bottom()).empty());
}

TEST(Lattice, RejectsHeightsOutsideOneTo255) {
  EXPECT_THROW(Lattice({3, 0}), std::invalid_argument);
  EXPECT_THROW(Lattice({256}), std::invalid_argument);
}

TEST(Lattice, RankEnumerationVisitsEveryTransformationOnceInLexicographicOrder) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<int> heights(1 + rng() % 5);
    for (auto& h : heights) h = 1 + static_cast<int>(rng() % 4);
    const Lattice lattice(heights);
    std::set<LatticeIndex> seen;
    Transformation t;
    for (int r = 0; r <= lattice.max_rank(); ++r) {
      ASSERT_TRUE(lattice.first_of_rank(r, t));
      Transformation previous;
      bool first = true;
      do {
        EXPECT_EQ(rank(t), r);
        for (std::size_t i = 0; i < t.size(); ++i) EXPECT_LT(t[i], heights[i]);
        if (!first) {
          EXPECT_TRUE(lex_less(previous, t));
        }
        EXPECT_TRUE(seen.insert(lattice.index(t)).second) << to_string(t);
        previous = t;
        first = false;
      } while (lattice.next_of_rank(t));
    }
    EXPECT_EQ(static_cast<LatticeIndex>(seen.size()), lattice.size());
    EXPECT_FALSE(lattice.first_of_rank(lattice.max_rank() + 1, t));
    EXPECT_FALSE(lattice.first_of_rank(-1, t));
  }
}

// A bounded lattice (min-level, max-level) against the full lattice
// filtered to the bounds: the same transformations, indices a bijection onto
// [0, size), rank enumeration complete and in lexicographic order, and
// neighbours within the bounds.
TEST(BoundedLattice, IsTheFullLatticeFilteredToTheBounds) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<int> heights(1 + rng() % 5), lo, hi;
    for (auto& h : heights) {
      h = 1 + static_cast<int>(rng() % 5);
      const int a = static_cast<int>(rng() % h), b = static_cast<int>(rng() % h);
      lo.push_back(std::min(a, b));
      hi.push_back(std::max(a, b));
    }
    const Lattice full(heights), bounded(heights, lo, hi);
    std::vector<Transformation> inside;
    for (LatticeIndex i = 0; i < full.size(); ++i)
      if (bounded.contains(full.at(i))) inside.push_back(full.at(i));
    ASSERT_EQ(static_cast<LatticeIndex>(inside.size()), bounded.size());
    // Indices number the sublattice in lexicographic order.
    for (std::size_t i = 0; i < inside.size(); ++i) {
      EXPECT_EQ(bounded.index(inside[i]), static_cast<LatticeIndex>(i));
      EXPECT_EQ(bounded.at(static_cast<LatticeIndex>(i)), inside[i]);
    }
    EXPECT_EQ(bounded.bottom(), inside.front());
    EXPECT_EQ(bounded.top(), inside.back());
    // Rank enumeration: every transformation once, each rank lexicographic.
    std::set<LatticeIndex> seen;
    Transformation t;
    EXPECT_FALSE(bounded.first_of_rank(bounded.min_rank() - 1, t));
    EXPECT_FALSE(bounded.first_of_rank(bounded.max_rank() + 1, t));
    for (int r = bounded.min_rank(); r <= bounded.max_rank(); ++r) {
      ASSERT_TRUE(bounded.first_of_rank(r, t));
      Transformation previous;
      do {
        EXPECT_EQ(rank(t), r);
        EXPECT_TRUE(bounded.contains(t)) << to_string(t);
        if (!previous.empty()) {
          EXPECT_TRUE(lex_less(previous, t));
        }
        EXPECT_TRUE(seen.insert(bounded.index(t)).second) << to_string(t);
        previous = t;
      } while (bounded.next_of_rank(t));
    }
    EXPECT_EQ(static_cast<LatticeIndex>(seen.size()), bounded.size());
    // Neighbours: exactly those of the full lattice that are inside.
    for (const Transformation& x : inside) {
      std::vector<Transformation> up, down;
      for (const Transformation& s : full.successors(x))
        if (bounded.contains(s)) up.push_back(s);
      for (const Transformation& p : full.predecessors(x))
        if (bounded.contains(p)) down.push_back(p);
      EXPECT_EQ(bounded.successors(x), up);
      EXPECT_EQ(bounded.predecessors(x), down);
    }
    EXPECT_EQ(bounded.bounded(), lo != std::vector<int>(heights.size(), 0) || [&] {
      for (std::size_t i = 0; i < heights.size(); ++i)
        if (hi[i] != heights[i] - 1) return true;
      return false;
    }());
  }
}

TEST(BoundedLattice, RejectsBoundsOutsideTheHierarchy) {
  EXPECT_THROW(Lattice({3, 3}, {0, 2}, {2, 1}), std::invalid_argument);  // min > max
  EXPECT_THROW(Lattice({3, 3}, {0, 0}, {2, 3}), std::invalid_argument);  // max >= height
  EXPECT_THROW(Lattice({3, 3}, {-1, 0}, {2, 2}), std::invalid_argument);
  EXPECT_THROW(Lattice({3, 3}, {0}, {2, 2}), std::invalid_argument);     // one bound per attribute
  EXPECT_EQ(Lattice({3, 4}, {1, 3}, {1, 3}).size(), 1u);
}

TEST(Lattice, FirstOfRankIsLexicographicallySmallest) {
  const Lattice lattice({3, 3, 3});
  Transformation t;
  ASSERT_TRUE(lattice.first_of_rank(3, t));
  EXPECT_EQ(t, (Transformation{0, 1, 2}));
  ASSERT_TRUE(lattice.next_of_rank(t));
  EXPECT_EQ(t, (Transformation{0, 2, 1}));
  ASSERT_TRUE(lattice.first_of_rank(6, t));
  EXPECT_EQ(t, lattice.top());
  EXPECT_FALSE(lattice.next_of_rank(t));
}

TEST(Lattice, LeqIsTheComponentwiseOrder) {
  EXPECT_TRUE(leq({0, 1, 2}, {0, 1, 2}));
  EXPECT_TRUE(leq({0, 1, 2}, {1, 1, 2}));
  EXPECT_FALSE(leq({0, 2, 0}, {1, 1, 2}));
  EXPECT_EQ(rank({1, 2, 3}), 6);
}

}  // namespace
}  // namespace deid
