// Internal to src/check: grouping a source (the histogram or a cached
// snapshot's classes) into the equivalence classes of a transformation. Each
// source member's generalized key becomes a mixed-radix slot (one table load
// per attribute), and the slot is looked up in a direct table when the
// slots are few, else in a SlotTable (hashed); see group_source. The
// radix-partitioned path for large sources (partitioned.h) uses the same
// table, loop arguments and blocks.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "deid/check.h"

namespace deid::check_internal {

constexpr std::uint32_t kMissing = UINT32_MAX;

// Open addressing on unique 64-bit keys (the mixed-radix slots of classes)
// for one sequential grouping: Fibonacci hashing, linear probing, only the
// used cells reset after a check. Hand-written because it beats
// absl::flat_hash_map here: no hash mixing beyond one multiply, no control
// bytes to clear for every check, and the table is reused across checks.
// Classes and slots in separate arrays: most probes of a grouping with many
// classes land on an empty cell and touch only the 4-byte class array (on
// cup, 16-byte cells holding both made the check 40 % slower).
//
// The table starts small and doubles (rehashing the classes so far) when
// the load passes 1/2, so that it stays as small as the classes, not the
// source: on the survey table, 925 k entries often fall into 44 k classes,
// whose table fits the L2 cache where one sized to the source would not.
class SlotTable {
 public:
  // A cell's index, as the groupings keep it for each class (to reset the
  // table after a check): 4 bytes, half of the per-class room a size_t
  // took. Classes are counted in 32 bits, so at most 2^32 cells are needed.
  using Cell = std::uint32_t;
  static constexpr std::size_t kMaxCells = std::size_t{1} << 32;
  static constexpr std::size_t kInitialCells = std::size_t{1} << 12;

  // Starts a grouping expected to make about `classes` classes, in a table
  // of at least `min_cells` cells.
  void prepare(std::size_t classes, std::size_t min_cells = kInitialCells) {
    resize_to(std::bit_ceil(std::max(min_cells, 2 * classes)));
  }
  std::size_t cells() const { return mask_ + 1; }
  std::size_t cell_of(std::uint64_t slot) const {
    return static_cast<std::size_t>((slot * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void prefetch(std::size_t h) const {
    __builtin_prefetch(cls_.data() + h);
    __builtin_prefetch(slot_.data() + h);
  }
  // The class of `slot`, probing from cell `h` (= cell_of(slot)), or
  // `fresh` after inserting it (`inserted` set, `cell` set to where it
  // went, for reset()).
  std::uint32_t find_or_insert(std::uint64_t slot, std::size_t h, std::uint32_t fresh, bool& inserted, Cell& cell) {
    while (true) {
      const std::uint32_t c = cls_[h];
      if (c == kMissing) {
        slot_[h] = slot;
        cls_[h] = fresh;
        inserted = true;
        cell = static_cast<Cell>(h);
        return fresh;
      }
      if (slot_[h] == slot) return c;
      h = (h + 1) & mask_;
    }
  }
  // Doubles the table, moving classes 0..classes-1 (whose cells are
  // where[c]) and updating where[].
  // At kMaxCells it stays: a grouping has fewer classes than cells.
  void grow(Cell* where, std::uint32_t classes) {
    if (cells() == kMaxCells) return;
    moved_.resize(classes);
    for (std::uint32_t c = 0; c < classes; ++c) {
      moved_[c] = slot_[where[c]];
      cls_[where[c]] = kMissing;
    }
    resize_to(2 * cells());
    for (std::uint32_t c = 0; c < classes; ++c) {
      bool inserted = false;
      find_or_insert(moved_[c], cell_of(moved_[c]), c, inserted, where[c]);
    }
  }
  // Empties the given cells (where the classes went).
  template <class C>  // Cell, or a wider integer
  void reset(const C* cells, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) cls_[cells[i]] = kMissing;
  }

 private:
  // Uses the first `cap` cells (a power of two); all cells not in use by
  // the current grouping hold kMissing.
  void resize_to(std::size_t cap) {
    cap = std::min(cap, kMaxCells);
    if (cap > cls_.size()) {
      cls_.resize(cap, kMissing);
      slot_.resize(cap, 0);
    }
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
  }

  std::vector<std::uint32_t> cls_;
  std::vector<std::uint64_t> slot_;
  std::vector<std::uint64_t> moved_;
  std::size_t mask_ = 15;
  int shift_ = 60;
};

// Keys whose mixed-radix slot does not fit 63 bits (wide tables near the
// bottom of the lattice: 84 bits at the bottom of the synthetic table's 15
// attributes, 122 at 20) are split into at most kMaxParts runs of
// attributes, each run's slot below 2^63, and a class is the tuple of its
// parts' slots.
constexpr std::uint32_t kMaxParts = 8;

// Open addressing on such tuples for one sequential grouping: cell → class,
// each class's tuple beside it (compared on a hit, so the hash may collide),
// only the used cells reset after a grouping. Hand-written like SlotTable:
// the former fallback hashed and compared every member's codes (a chain of
// one multiply per attribute, and each member's key written out), which made
// checks near the bottom of the census-like table's 20 attributes a fifth of
// bottom-up's time.
class WideTable {
 public:
  // Starts a grouping of at most `most` classes of `parts`-word tuples,
  // expected to make about `classes`.
  void prepare(std::size_t classes, std::size_t most, std::uint32_t parts) {
    parts_ = parts;
    if (tuples_.size() < most * parts) tuples_.resize(most * parts);
    if (where_.size() < most) where_.resize(most);
    resize_to(std::bit_ceil(std::max<std::size_t>(64, 2 * classes)));
  }
  std::size_t cells() const { return mask_ + 1; }
  std::size_t cell_of(const std::uint64_t* tuple) const {
    std::uint64_t x = 0;
    for (std::uint32_t p = 0; p < parts_; ++p) x = (x + tuple[p]) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(((x ^ (x >> 32)) * 0xD6E8FEB86659FD93ull) >> shift_);
  }
  void prefetch(std::size_t h) const { __builtin_prefetch(cls_.data() + h); }
  // The class of `tuple`, probing from cell `h` (= cell_of(tuple)), or
  // `fresh` after inserting it (`inserted` set).
  std::uint32_t find_or_insert(const std::uint64_t* tuple, std::size_t h, std::uint32_t fresh, bool& inserted) {
    while (true) {
      const std::uint32_t c = cls_[h];
      if (c == kMissing) {
        cls_[h] = fresh;
        where_[fresh] = static_cast<std::uint32_t>(h);
        std::copy_n(tuple, parts_, tuples_.data() + std::size_t{fresh} * parts_);
        inserted = true;
        return fresh;
      }
      if (std::equal(tuple, tuple + parts_, tuples_.data() + std::size_t{c} * parts_)) return c;
      h = (h + 1) & mask_;
    }
  }
  // Doubles the table, moving classes 0..classes-1.
  void grow(std::uint32_t classes) {
    reset(classes);
    resize_to(2 * cells());
    for (std::uint32_t c = 0; c < classes; ++c) {
      std::size_t h = cell_of(tuples_.data() + std::size_t{c} * parts_);
      while (cls_[h] != kMissing) h = (h + 1) & mask_;
      cls_[h] = c;
      where_[c] = static_cast<std::uint32_t>(h);
    }
  }
  // Empties the cells of classes 0..classes-1.
  void reset(std::uint32_t classes) {
    for (std::uint32_t c = 0; c < classes; ++c) cls_[where_[c]] = kMissing;
  }

 private:
  void resize_to(std::size_t cap) {
    if (cap > cls_.size()) cls_.resize(cap, kMissing);
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
  }

  std::vector<std::uint32_t> cls_;
  std::vector<std::uint64_t> tuples_;
  std::vector<std::uint32_t> where_;
  std::uint32_t parts_ = 1;
  std::size_t mask_ = 63;
  int shift_ = 58;
};

// Bounded memory (Problem::bounded_memory): a copy of the histogram's keys
// in one 64-bit word per entry, each attribute's level-0 code in the bits
// its domain needs, and the count in the word's remaining bits when it fits
// there, else in 32 bits beside it (on the survey table 8 bytes per entry
// instead of the histogram's 44; a permutation of the histogram took 4
// bytes per entry but made its ranged checks three to four times slower,
// every key a cache miss).
struct PackedKeys {
  std::vector<std::uint64_t> words;
  std::vector<std::uint32_t> counts;  // empty when the counts are in the words
  std::uint32_t count_shift = 64;     // the count is words[i] >> count_shift (< 64)
  std::vector<std::uint32_t> shift;  // per attribute
  std::vector<std::uint64_t> mask;   // per attribute, before the shift
  std::uint32_t code(std::size_t i, std::uint32_t q) const {
    return static_cast<std::uint32_t>((words[i] >> shift[q]) & mask[q]);
  }
  bool counts_in_words() const { return count_shift < 64; }
  std::uint64_t count(std::size_t i) const { return counts_in_words() ? words[i] >> count_shift : counts[i]; }
  // Sets shift and mask for the level-0 domains of `problem`. Returns false
  // when they need more than 64 bits or a count more than 32.
  bool layout(const Problem& problem);
};

// The arguments of a grouping loop (group_slots in grouping.cc, the
// sequential path; group_partitioned in partitioned.h): the n source members
// with their keys and counts, the per-attribute tables of this check, the
// table to look slots up in, and where the classes go.
struct GroupArgs {
  const std::uint32_t* keys;
  const std::uint16_t* keys16;        // the keys in two bytes per code instead (ranges.h), or null
  const std::uint64_t* counts;
  std::size_t n;
  std::uint32_t w;
  const std::uint64_t* const* tab;    // per attribute: source code -> generalized code x stride
  const std::uint32_t* const* codes;  // per attribute: source code -> generalized code
  std::uint32_t* dense;
  SlotTable* table;
  SlotTable::Cell* used;  // per class: its cell in `dense` (its slot) or in `table`
  std::uint32_t* member;
  std::uint32_t* out_keys;     // room for n * w codes; null for group_partitioned (keys come later)
  std::uint64_t* out_counts;   // room for n counts
  // Bounded memory (Problem::bounded_memory): member i of the source is
  // source entry index[i] (a sorted order kept as a permutation instead of
  // a copy), and, with out_keys null, each new class's first source entry
  // goes to out_rep instead of its key (keys written later, when read).
  const std::uint32_t* index = nullptr;
  std::uint32_t* out_rep = nullptr;
  // Or the source is positions [packed_first, packed_first + n) of a packed
  // copy (keys, keys16, counts and index unused); out_rep receives positions.
  const PackedKeys* packed = nullptr;
  std::size_t packed_first = 0;
  // Added to the representatives (out_rep) of an unindexed source: the
  // position of its first member in a larger array (a range of a lead's
  // sorted copy, ranges.h).
  std::uint32_t rep_first = 0;
  // Slots wider than 63 bits (group_wide): the table, and per part the end
  // of its run of attributes (`parts` of them).
  WideTable* wide = nullptr;
  const std::uint32_t* part_end = nullptr;
  std::uint32_t parts = 1;
};

// Entries are taken in blocks: the slots (and hash cells) of a block are
// computed and their table cells prefetched before any is looked up, so the
// cache misses of a block overlap instead of stalling one after another
// (without the blocks, the lookup's load is 36 % of the check's samples on
// the synthetic 10-attribute search).
constexpr std::size_t kBlock = 16;

// The block loop of the groupings whose members have one-word slots and
// whose new classes record their first member (group_refined,
// group_ranges_from_base): members [first, last), member i's slot
// slot_of(i) and count counts[i], looked up directly in `dense` (Dense)
// or in `table`; class c's cell (for the reset) goes to used[c], its count
// to sums[c], its first member to rep[c]. Returns the classes.
template <bool Dense, class SlotOf>
std::uint32_t group_one_word(std::size_t first, std::size_t last, const SlotOf& slot_of, const std::uint64_t* counts,
                             std::uint32_t* dense, SlotTable& table, SlotTable::Cell* used, std::uint64_t* sums,
                             std::uint32_t* rep) {
  std::uint32_t classes = 0;
  std::uint64_t slot[kBlock];
  std::size_t cell[kBlock];
  for (std::size_t at = first; at < last; at += kBlock) {
    const std::size_t m = std::min(kBlock, last - at);
    for (std::size_t j = 0; j < m; ++j) {
      const std::uint64_t x = slot_of(at + j);
      slot[j] = x;
      if constexpr (Dense) {
        __builtin_prefetch(dense + x);
      } else {
        cell[j] = table.cell_of(x);
        table.prefetch(cell[j]);
      }
    }
    if constexpr (!Dense) {
      // Keep the load at most 1/2 for the whole block.
      if (2 * (std::size_t{classes} + m) > table.cells()) {
        table.grow(used, classes);
        for (std::size_t j = 0; j < m; ++j) cell[j] = table.cell_of(slot[j]);
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      std::uint32_t cls;
      bool inserted;
      SlotTable::Cell where = static_cast<SlotTable::Cell>(slot[j]);  // below kDenseSlots when dense
      if constexpr (Dense) {
        cls = dense[where];
        inserted = cls == kMissing;
        if (inserted) cls = dense[where] = classes;
      } else {
        inserted = false;
        cls = table.find_or_insert(slot[j], cell[j], classes, inserted, where);
      }
      if (inserted) {
        used[classes] = where;
        sums[classes] = 0;
        rep[classes] = static_cast<std::uint32_t>(at + j);
        ++classes;
      }
      sums[cls] += counts[at + j];
    }
  }
  return classes;
}

// Direct addressing is used when the generalized domains at t's levels
// multiply to at most this many slots (1 MiB of uint32, so that the table
// stays in the L2 cache); larger products hash the slot.
constexpr std::uint64_t kDenseSlots = std::uint64_t{1} << 18;

// Makes `dense` (all kMissing) hold at least `slots` slots, growing it at
// least twofold up to kDenseSlots: a table grown to each check's exact size
// took a fresh allocation, and its page faults, at every growth.
inline void ensure_dense(std::vector<std::uint32_t>& dense, std::uint64_t slots) {
  if (dense.size() < slots) dense.assign(std::min(kDenseSlots, std::max<std::uint64_t>(slots, 2 * dense.size())), kMissing);
}

// The per-check tables of a grouping by `t` of a source at `levels`
// (nullptr: the histogram, all levels 0): per attribute the source code's
// slot contribution (generalized code × stride) and its generalized code,
// and the number of slots.
// When the slots do not fit 63 bits, the attributes are split into parts
// (see WideTable): part_end lists where each part's run of attributes ends,
// the strides start over in each, and `slots` is 0. One part otherwise.
struct SlotTables {
  std::vector<const std::uint64_t*> tab;
  std::vector<const std::uint32_t*> codes;
  std::uint64_t slots = 0;
  std::vector<std::uint32_t> part_end;
  std::vector<std::uint64_t> stride;  // per attribute, within its part
  std::uint32_t parts() const { return static_cast<std::uint32_t>(part_end.size()); }
};
// Fills `out` (the tables live in hs) and `maps` (per attribute, source
// code → t's code, null when the levels are equal). Returns false, leaving
// `out` unfilled, when the slots need more than kMaxParts parts.
bool slot_tables(const Problem& problem, Checker::HashState& hs, const Transformation* levels,
                 const Transformation& t, std::vector<const std::uint32_t*>& maps, SlotTables& out);

// Groups the histogram by `t` from the classes of a generalization g of t
// that differs from t in attribute q alone (g_q > t_q): `member` gives each
// histogram entry's class of g (`base_classes` of them), `column` each
// entry's level-0 code of q. A class of t is a class of g and t's value of
// q (that value determines g's), so a member's slot is its class of g times
// q's domain at t_q plus that value: one code per member instead of one per
// attribute. Classes in order of first appearance, counts in out.counts,
// each class's first entry in hs.partitions.rep, keys left to
// materialize_keys.
void group_refined(const Problem& problem, Checker::HashState& hs, const std::uint32_t* member,
                   std::uint32_t base_classes, const std::uint32_t* column, std::uint32_t q,
                   const Transformation& t, Classes& out);

// Per attribute, the map from its level-0 codes to its codes at t's level
// (the identity at level 0, kept in hs): how the keys of classes whose
// first members are histogram entries are written.
std::vector<const std::uint32_t*> level_codes(const Problem& problem, Checker::HashState& hs, const Transformation& t);

// The grouping loop of slots wider than 63 bits (a.wide, a.parts > 1, keys
// or keys16, neither indexed nor packed): as group_sequential, classes in
// order of first appearance, new classes' keys to a.out_keys or their first
// members to a.out_rep. Returns the classes; a.wide is left with them (reset
// it after reading).
std::uint32_t group_wide(const GroupArgs& a);

// The sequential grouping loop over a.n members (see grouping.cc): with
// direct addressing (a.dense) or the slot table (a.table). Returns the
// classes.
std::uint32_t group_sequential(const GroupArgs& a, bool dense);

// Empties `out` for a grouping of keys `width` codes wide.
inline void reset_classes(Classes& out, std::uint32_t width) {
  out.width = width;
  out.keys.clear();
  out.counts.clear();
  out.suppressed.clear();
  out.entry_class.clear();
  out.suppressed_records = 0;
}

// Sources of grouping: the histogram (levels 0) or a snapshot.
struct Source {
  const std::uint32_t* keys;
  const std::uint64_t* counts;
  std::size_t size;
  const Transformation* levels;  // nullptr: the histogram (all levels 0)
};

// Groups `src` by `t` into `out` (keys and counts; nothing suppressed).
// `want_members`: fill hs.member (source member -> class); only the
// sensitive distributions and Checker::group need it.
// `ordered`: classes numbered in order of first appearance in the source
// (Checker::group); otherwise large sources are grouped partitioned.
// REQUIRES: hs was set up by the Checker of `problem`.
void group_source(const Problem& problem, Checker::HashState& hs, const Source& src, const Transformation& t,
                  Classes& out, bool want_members, bool ordered);

}  // namespace deid::check_internal
