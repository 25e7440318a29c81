// Earth mover's distance (EMD) with ordered ground distance, the distance of
// t-closeness for totally ordered sensitive values (Li, Li and
// Venkatasubramanian, "t-Closeness: Privacy beyond k-anonymity and
// l-diversity", ICDE 2007, section 4.2), with the three optimizations of
// papers/004 (Bild, Eicher, Prasser, "Efficient Protection of Health Data
// from Sensitive Attribute Disclosure", 2020, section 3.2).
//
// With the m values of the attribute in the input ranked 1..m, P the
// relative frequencies in a class, Q those in the whole input, and
// r_i = p_i - q_i:
//
//   D[P,Q] = 1/(m-1) * sum_{i=1..m} |r_1 + ... + r_i|
//
// and a class is t-close when D[P,Q] <= t. As ARX does, the check compares
// the unnormalized sum with t(m-1) and stops as soon as the running sum
// exceeds it.
//
// Optimizations (each can be switched off, for tests and benchmarks):
//  1. Fibonacci hashing (FibonacciTable): the class's frequencies are put in a
//     minimal open-addressing table so that each rank can be looked up while
//     the ranks are walked in order.
//  2. Check pruning: with y the smallest rank present in the class, the first
//     y summands are |-q_1|, |-q_1-q_2|, ...; their prefix sums are computed
//     once. When they exceed t(m-1) already before rank y (y > x, x the
//     first rank where they do), the class is not t-close.
//  3. Summand pruning: otherwise the walk starts at rank y from the
//     precomputed prefix sum instead of at rank 1.
// The optimized and the plain check compute the same floating-point sums in
// the same order, so they agree exactly (not only up to rounding).
//
// Thread-safety: const methods may be called from several threads at once
// (the per-class table lives in thread-local scratch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "deid/privacy.h"
#include "deid/problem.h"

namespace deid {

// A minimal open-addressing hash table from uint32 keys to doubles, for the
// values of one equivalence class (papers/004, section 3.2, optimization 1).
// It supports only what the ordered-distance check needs: reset, insert of a
// new key, and lookup with default 0. Slots are found by Fibonacci hashing
// (multiplication by 2^64 / golden ratio, keeping the top bits) and linear
// probing; the load factor stays at or below one half.
//
// Hand-written on purpose: a general table (absl::flat_hash_map, ARX's HPPC
// maps before papers/004) pays for erase, growth and generic hashing; see
// docs/privacy-models.md for the measurement.
class FibonacciTable {
 public:
  // Empties the table and sizes it for up to `keys` insertions.
  void reset(std::size_t keys);
  // REQUIRES: `key` not yet inserted since reset(), key != UINT32_MAX, and at
  // most the number of keys given to reset() inserted.
  void insert(std::uint32_t key, double value) {
    std::size_t s = slot(key);
    while (slots_[s].key != kEmpty) s = (s + 1) & mask_;
    slots_[s] = {key, value};
  }
  // The value of `key`, or 0 when absent.
  double get(std::uint32_t key) const {
    for (std::size_t s = slot(key);; s = (s + 1) & mask_) {
      if (slots_[s].key == key) return slots_[s].value;
      if (slots_[s].key == kEmpty) return 0.0;
    }
  }

 private:
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    std::uint32_t key;
    double value;
  };
  std::size_t slot(std::uint32_t key) const {
    // 2^64 / golden ratio; the top `bits_` bits of the product spread
    // consecutive keys (ranks) evenly over the table.
    return static_cast<std::size_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

struct OrderedDistanceOptions {
  bool fibonacci_table = true;  // optimization 1; else absl::flat_hash_map
  bool check_pruning = true;    // optimization 2
  bool summand_pruning = true;  // optimization 3
  // The straightforward check of papers/004, section 3.1 (ARX before the
  // optimizations): a general hash table, the walk over all ranks.
  static OrderedDistanceOptions plain() { return {false, false, false}; }
};

class OrderedDistance {
 public:
  // `reference_counts[code]`: occurrences of each code of the attribute in
  // the whole input (Q); `rank[code]`: its position in the total order, a
  // permutation of 0..m-1 with m = reference_counts.size(); `t` the threshold.
  // REQUIRES: every code present in the input has a count >= 1.
  OrderedDistance(std::vector<std::uint64_t> reference_counts, std::vector<std::uint32_t> rank, double t,
                  OrderedDistanceOptions options = {});

  // Whether the class with distribution `cls` (codes and counts, `count`
  // records) is t-close: sum_i |r_1+...+r_i| <= t(m-1), evaluated as ARX
  // 3.9 (OrderedDistanceTCloseness) does.
  bool within(const ClassView::Distribution& cls, std::uint64_t count) const;
  // D[P,Q] itself (normalized by m-1; 0 when m == 1). For tests and reports.
  double distance(const ClassView::Distribution& cls, std::uint64_t count) const;

  double t() const { return t_; }
  std::size_t values() const { return q_.size(); }
  // x of papers/004: the first rank at which the prefix sums of |-q| exceed
  // t(m-1) (m when they never do).
  std::size_t pruning_rank() const { return min_rank_; }
  const OrderedDistanceOptions& options() const { return options_; }

 private:
  template <class Table>
  bool within_with(const Table& table, std::size_t y) const;

  std::vector<std::uint32_t> rank_;  // code → rank
  std::vector<double> q_;            // rank → q
  std::vector<double> base_sum_;     // rank k → -(q_1+...+q_k), as the walk computes it
  std::vector<double> base_distance_;  // rank k → |-q_1| + ... + |-q_1-...-q_k|
  double t_;
  double threshold_;                 // t(m-1)
  std::size_t min_rank_;
  OrderedDistanceOptions options_;
};

// The rank of every code of `attribute`'s column for ordered distance:
// numeric order when every value parses as a finite number (ties by first
// occurrence), otherwise the order declared in the job
// (attributes.NAME.order). Throws JobError when neither applies, or when the
// declared order lacks a value of the data or lists one twice.
std::vector<std::uint32_t> ordered_ranks(const SensitiveAttribute& attribute);

}  // namespace deid
