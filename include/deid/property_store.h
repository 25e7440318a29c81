// The store of a predictive property: which transformations are known to
// have it, kept implicitly (papers/000, "Efficient management of predictive
// properties").
//
// A predictive property is inherited either by all generalizations of a
// transformation that has it (P↑, e.g. insufficient quality) or by all its
// specializations (P↓, e.g. insufficient protection). Instead of marking
// every transformation of the lattice, the store keeps only the elements for
// which the property was discovered, reduced to an antichain: when x is
// inserted, every stored element that x covers (its generalizations for P↑,
// its specializations for P↓) is removed, and x itself is not added when a
// stored element already covers it. Memory is therefore proportional to the
// antichain, never to the lattice.
//
// The antichain is kept in a prefix tree over level vectors: the root's
// children give the level of the first quasi-identifier, their children the
// level of the second, and so on; every root-to-leaf path is one stored
// element. Each node holds its level, its children, the smallest (n.min)
// and largest (n.max) rank of the elements beneath it, and the smallest
// level at each of the next depths beneath it (`below`, see Node). A query
// is a range query: for P↑ it follows only children with level <= x_i
// whose n.min can still be reached within x's remaining levels (the paper's
// "m.level <= x_i and m.min < rank(x)", tightened to the suffix of x) and
// whose `below` is at most x's levels; for P↓ the same with >=, n.max.
// Removal on insert is the opposite range query.
//
// Representation: nodes live in one flat array with index links (first
// child, next sibling) and a free list, so the tree needs no per-node
// allocation; all traversals are iterative, their depth is the number of
// quasi-identifiers (up to 255 levels per attribute, any number of
// attributes). A P↓ store keeps mirrored levels (h_i - 1 - l), so that one
// traversal serves both directions: "y >= x" becomes "mirror(y) <= mirror(x)"
// and the paper's n.max of a P↓ tree is (max rank - n.min) of the mirrored one.
//
// Not thread-safe. Queries update the statistics, so they are non-const.
#pragma once

#include <cstdint>
#include <vector>

#include "deid/lattice.h"

namespace deid {

// Which transformations inherit a predictive property from one that has it.
enum class Inheritance {
  generalizations,  // P↑: x has it ⇒ every y with x ≤ y has it
  specializations,  // P↓: x has it ⇒ every y with y ≤ x has it
};

class PropertyStore {
 public:
  struct Statistics {
    std::uint64_t inserts = 0;            // insert() calls that added an element
    std::uint64_t queries = 0;            // contains() calls
    std::uint64_t hits = 0;               // contains() calls that returned true
    std::uint64_t largest_antichain = 0;  // most elements stored at any time
  };

  // An empty store for transformations of `lattice` (only its heights are
  // kept). REQUIRES: at least one dimension.
  PropertyStore(const Lattice& lattice, Inheritance inheritance);

  Inheritance inheritance() const { return inheritance_; }

  // Whether `x` has the property: some stored y with y ≤ x (generalizations)
  // or x ≤ y (specializations). A stored element equal to x counts.
  // REQUIRES: x is a transformation of the lattice.
  bool contains(const Transformation& x);
  // contains(), and on a hit sets `witness` to a stored element that
  // implies it (y with y ≤ x, or x ≤ y): a transformation known to have the
  // property, so that callers can answer queries it covers without the
  // store (the property stays true when y later leaves the antichain).
  bool contains(const Transformation& x, Transformation& witness);
  // contains() without counting the query: for look-ahead (speculative
  // checks) that must leave the statistics as they are.
  bool peek(const Transformation& x);

  // Records that `x` has the property. Returns false and changes nothing
  // when the store already implies it; otherwise removes the stored
  // elements that x covers, adds x and returns true. The stored elements
  // always form an antichain.
  bool insert(const Transformation& x);

  // Elements stored now (the antichain).
  std::size_t size() const { return size_; }
  // The stored elements, in lexicographic order (for tests and debugging).
  std::vector<Transformation> elements() const;
  // Nodes of the prefix tree in use (a measure of its memory).
  std::size_t nodes() const { return nodes_.size() - free_count_; }
  const Statistics& statistics() const { return stats_; }

 private:
  // Summary of a subtree (`below`): for the next kLanes depths under a
  // node, the smallest level stored there, kLaneBits bits a depth, levels
  // above kLaneMax counted as kLaneMax (a lower bound stays a lower bound);
  // depths past the last are kLaneMax. A query for y ≤ key_ skips a node
  // when some lane exceeds key_'s level at that depth, without reading its
  // children, so a miss need not walk every subtree the rank bound lets
  // through. It fills bytes that would otherwise be a Node's padding.
  // Hand-written (SWAR lanes): on the synthetic 12-attribute job the
  // queries visit 1.06 G nodes with it and 1.33 G without (a P↑ miss 69
  // against 89); 15 attributes took 599 s of CPU against 623 s without it
  // (one run each, on a loaded machine).
  static constexpr unsigned kLaneBits = 3;
  static constexpr unsigned kLanes = 24 / kLaneBits;
  static constexpr std::uint32_t kLaneMax = (1u << kLaneBits) - 1;
  static constexpr std::uint32_t kBelowMask = (1u << (kLanes * kLaneBits)) - 1;

  struct Node {
    std::int32_t first_child = -1;
    std::int32_t next_sibling = -1;  // siblings are sorted by ascending level
    std::uint16_t min_rank = 0;      // over the (mirrored) elements beneath
    std::uint16_t max_rank = 0;
    std::uint32_t word = 0;  // the level (bits 0-7) and `below` (bits 8-31)

    std::uint8_t level() const { return static_cast<std::uint8_t>(word); }
    std::uint32_t below() const { return word >> 8; }
    void set(std::uint8_t level, std::uint32_t below) { word = level | below << 8; }
  };

  // Lane-wise min of two summaries.
  static std::uint32_t lane_min(std::uint32_t a, std::uint32_t b);
  // Whether every lane of `below` is at most the same lane of `key`
  // (SWAR: the lanes' top bits carry the comparison).
  static bool lanes_leq(std::uint32_t below, std::uint32_t key) {
    constexpr std::uint32_t kTop = [] {
      std::uint32_t t = 0;
      for (unsigned j = 0; j < kLanes; ++j) t |= 1u << (j * kLaneBits + kLaneBits - 1);
      return t;
    }();
    // Per lane, the top bit of z is set iff key's low bits >= below's.
    const std::uint32_t z = (key | kTop) - (below & ~kTop);
    const std::uint32_t ge = ((key & ~below) | (~(key ^ below) & z)) & kTop;
    return ge == kTop;
  }

  // The level at tree depth d as stored, from the attribute's level, or
  // back (mirrored for specializations, h−1−l, which is its own inverse).
  std::uint8_t stored_level(std::size_t depth, std::uint8_t level) const {
    return inheritance_ == Inheritance::generalizations ? level
                                                        : static_cast<std::uint8_t>(heights_[depth] - 1 - level);
  }
  // Levels as stored: in depth order, mirrored for specializations.
  void load(const Transformation& x);
  // Whether a stored element y ≤ key_ exists (in stored coordinates); on a
  // hit, recent_ row hit_row_ is such an element.
  bool covered() const;
  // Whether recent_ row r covers key_ (y ≤ key_ in stored coordinates).
  bool recent_covers(std::size_t r) const;
  // Removes every stored y with key_ ≤ y; keeps n.min/n.max exact.
  void remove_covered_by_key();
  void add_key();
  std::int32_t allocate(std::uint8_t level, std::uint32_t below, int rank);
  void release(std::int32_t node);
  void refresh_bounds(std::int32_t node);

  Inheritance inheritance_;
  std::vector<int> heights_;        // per tree depth
  std::vector<std::size_t> order_;  // tree depth → attribute
  std::vector<Node> nodes_;  // nodes_[0] is the root
  std::int32_t free_head_ = -1;
  std::size_t free_count_ = 0;
  std::size_t size_ = 0;
  Statistics stats_;

  // Scratch for one operation, sized to the dimensions.
  std::vector<std::uint8_t> key_;
  std::vector<int> suffix_;  // suffix_[d] = key_[d] + ... + key_[m-1]; suffix_[m] = 0
  // below_key_[d] = key_'s levels at depths d, d+1, ... in the lanes of a
  // summary (capped at kLaneMax; depths past the last kLaneMax): compared
  // with the `below` of a node at depth d - 1.
  std::vector<std::uint32_t> below_key_;
  mutable std::vector<std::int32_t> cur_, prev_;
  mutable std::vector<int> prefix_;
  mutable std::vector<std::uint64_t> removed_mark_;

  // The elements that answered the last kRecent queries from the tree (in
  // stored coordinates, a row of stride_ bytes each, zero beyond the
  // dimensions, as is key_), tried before the tree: queries of a search
  // come in neighbourhoods, and a hit in the tree visited 180 to 320 nodes
  // on the synthetic 12-attribute job. An element that has left the
  // antichain still has the property, so every row stays an answer.
  static constexpr std::size_t kRecent = 16;
  static constexpr std::size_t kRecentUp = 64;
  std::size_t recent_rows_ = kRecent;
  std::size_t stride_ = 16;
  mutable std::vector<std::uint8_t> recent_;
  mutable std::size_t recent_count_ = 0, recent_next_ = 0, hit_row_ = 0;
};

}  // namespace deid
