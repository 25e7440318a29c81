// The generalization lattice (include/deid/lattice.h): its shape, indices,
// neighbours and the enumeration by rank that the optimal search sweeps.
#include <gtest/gtest.h>

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
