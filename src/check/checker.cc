#include "deid/check.h"

#include <absl/container/flat_hash_map.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <string>

#include "util/huge_pages.h"

namespace deid {

Lattice Problem::lattice() const {
  std::vector<int> heights;
  for (const auto& h : hierarchies) heights.push_back(h.height());
  return Lattice(heights);
}

bool Problem::monotonic() const {
  return std::all_of(privacy.begin(), privacy.end(), [](const auto& m) { return m->monotonic(); });
}

namespace {

// Per sensitive attribute, the distribution of each class (offsets per class
// into codes and counts): the same shape as the histogram's per-entry
// distributions, so classes can be rolled up from either.
using ClassDistributions = Histogram::Sensitive;

// The classes of a checked transformation, kept to roll later checks up from.
struct Snapshot {
  Transformation levels;
  CodeVector keys;
  std::vector<std::uint64_t> counts;
  std::vector<ClassDistributions> dists;  // when some model needs them
  std::uint64_t last_used = 0;
};

// Sources of grouping: the histogram (levels 0) or a snapshot.
struct Source {
  const std::uint32_t* keys;
  const std::uint64_t* counts;
  std::size_t size;
  const Transformation* levels;  // nullptr: the histogram (all levels 0)
};

// Direct addressing is used when the generalized domains at t's levels
// multiply to at most this many slots (1 MiB of uint32, so that the table
// stays in the L2 cache); larger products hash the slot.
constexpr std::uint64_t kDenseSlots = std::uint64_t{1} << 18;
constexpr std::uint32_t kMissing = UINT32_MAX;
// A check's classes are cached for roll-ups only when the histogram has at
// least this many times as many entries (Checker::remember).
constexpr std::size_t kSnapshotShare = 10;

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
  static constexpr std::size_t kInitialCells = std::size_t{1} << 12;

  // Starts a grouping expected to make about `classes` classes.
  void prepare(std::size_t classes) { resize_to(std::bit_ceil(std::max(kInitialCells, 2 * classes))); }
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
  std::uint32_t find_or_insert(std::uint64_t slot, std::size_t h, std::uint32_t fresh, bool& inserted,
                               std::uint64_t& cell) {
    while (true) {
      const std::uint32_t c = cls_[h];
      if (c == kMissing) {
        slot_[h] = slot;
        cls_[h] = fresh;
        inserted = true;
        cell = h;
        return fresh;
      }
      if (slot_[h] == slot) return c;
      h = (h + 1) & mask_;
    }
  }
  // Doubles the table, moving classes 0..classes-1 (whose cells are
  // where[c]) and updating where[].
  void grow(std::uint64_t* where, std::uint32_t classes) {
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
  void reset(const std::uint64_t* cells, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) cls_[cells[i]] = kMissing;
  }

 private:
  // Uses the first `cap` cells (a power of two); all cells not in use by
  // the current grouping hold kMissing.
  void resize_to(std::size_t cap) {
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

// The grouping loop of the sequential path, specialized on the number of
// quasi-identifiers W (0: any, read from `w`) so that the slot sum is
// unrolled, and on direct addressing or hashing. A new class gets its count
// and its generalized key (codes[q][source code], read while the source key
// is in cache) appended to `out`, and its slot (dense) or cell (hashed) to
// used[c]; member[i] (when not null) receives the class of source member
// i. Returns the classes. REQUIRES: room for n classes in out_keys and
// out_counts.
struct GroupArgs {
  const std::uint32_t* keys;
  const std::uint64_t* counts;
  std::size_t n;
  std::uint32_t w;
  const std::uint64_t* const* tab;    // per attribute: source code -> generalized code x stride
  const std::uint32_t* const* codes;  // per attribute: source code -> generalized code
  std::uint32_t* dense;
  SlotTable* table;
  std::uint64_t* used;
  std::uint32_t* member;
  std::uint32_t* out_keys;     // room for n * w codes; null for group_partitioned (keys come later)
  std::uint64_t* out_counts;   // room for n counts
};

// Entries are taken in blocks: the slots (and hash cells) of a block are
// computed and their table cells prefetched before any is looked up, so the
// cache misses of a block overlap instead of stalling one after another
// (the lookup's load was 36 % of the check's samples on the synthetic
// 10-attribute search before).
constexpr std::size_t kBlock = 16;

template <int W, bool Dense>
std::uint32_t group_slots(const GroupArgs& a) {
  const std::uint32_t width = W > 0 ? static_cast<std::uint32_t>(W) : a.w;
  const std::uint64_t* const* tab = a.tab;
  const std::uint32_t* const* codes = a.codes;
  std::uint32_t* const dense = a.dense;
  SlotTable* const table = a.table;
  std::uint64_t* const used = a.used;
  std::uint32_t* const member = a.member;
  std::uint64_t* const sums = a.out_counts;
  std::uint32_t* out_key = a.out_keys;
  std::uint32_t classes = 0;
  std::uint64_t slot[kBlock];
  std::size_t cell[kBlock];
  for (std::size_t first = 0; first < a.n; first += kBlock) {
    const std::size_t m = std::min(kBlock, a.n - first);
    const std::uint32_t* key = a.keys + first * width;
    for (std::size_t j = 0; j < m; ++j, key += width) {
      std::uint64_t s = 0;
      for (std::uint32_t q = 0; q < width; ++q) s += tab[q][key[q]];
      slot[j] = s;
      if constexpr (Dense) {
        __builtin_prefetch(dense + s);
      } else {
        cell[j] = table->cell_of(s);
        table->prefetch(cell[j]);
      }
    }
    if constexpr (!Dense) {
      // Keep the load at most 1/2 for the whole block.
      if (2 * (std::size_t{classes} + m) > table->cells()) {
        table->grow(used, classes);
        for (std::size_t j = 0; j < m; ++j) cell[j] = table->cell_of(slot[j]);
      }
    }
    key = a.keys + first * width;
    for (std::size_t j = 0; j < m; ++j, key += width) {
      std::uint32_t cls;
      bool inserted;
      std::uint64_t where = slot[j];
      if constexpr (Dense) {
        cls = dense[where];
        inserted = cls == kMissing;
        if (inserted) cls = dense[where] = classes;
      } else {
        inserted = false;
        cls = table->find_or_insert(slot[j], cell[j], classes, inserted, where);
      }
      if (inserted) {
        used[classes] = where;
        sums[classes] = 0;
        for (std::uint32_t q = 0; q < width; ++q) out_key[q] = codes[q][key[q]];
        out_key += width;
        ++classes;
      }
      sums[cls] += a.counts[first + j];
      if (member) member[first + j] = cls;
    }
  }
  return classes;
}

template <bool Dense>
std::uint32_t group_slots_any(const GroupArgs& a) {
#define DEID_GROUP_CASE(N) \
  case N:                  \
    return group_slots<N, Dense>(a);
  switch (a.w) {
    DEID_GROUP_CASE(1)
    DEID_GROUP_CASE(2)
    DEID_GROUP_CASE(3)
    DEID_GROUP_CASE(4)
    DEID_GROUP_CASE(5)
    DEID_GROUP_CASE(6)
    DEID_GROUP_CASE(7)
    DEID_GROUP_CASE(8)
    DEID_GROUP_CASE(9)
    DEID_GROUP_CASE(10)
    DEID_GROUP_CASE(11)
    DEID_GROUP_CASE(12)
    DEID_GROUP_CASE(13)
    DEID_GROUP_CASE(14)
    DEID_GROUP_CASE(15)
    DEID_GROUP_CASE(16)
    default:
      return group_slots<0, Dense>(a);
  }
#undef DEID_GROUP_CASE
}

// Radix-partitioned grouping of a large source, used by checks whose
// classes nobody reads in first-appearance order (Checker::check without
// `classes`). Hand-written because it measurably wins on large sources: the
// slots of all members are computed in one sequential pass and scattered
// (stably) into kPartitions partitions by a hash of the slot; each
// partition is then grouped on its own with a table small enough for the
// L2 cache, and the partitions are grouped in parallel. Classes are
// numbered partition by partition, in first appearance within each, so the
// result is the same for any number of threads (the chunks and partitions
// are fixed by the source size alone). On the 1.2 M-row survey table one
// slot table for the whole source (up to 500 k classes, 12 MB) missed the
// cache on almost every member.
constexpr std::size_t kPartitionBits = 8;
constexpr std::size_t kPartitions = std::size_t{1} << kPartitionBits;
constexpr std::size_t kPartitionMinSource = std::size_t{1} << 17;
constexpr std::size_t kPartitionChunk = std::size_t{1} << 15;

inline std::size_t partition_of(std::uint64_t slot) {
  // Another multiplier than SlotTable's, whose top bits pick the cell.
  return static_cast<std::size_t>((slot * 0xD6E8FEB86659FD93ull) >> (64 - kPartitionBits));
}

struct PartitionScratch {
  std::vector<std::uint64_t> slot;     // per source member
  std::vector<std::uint64_t> pslot;    // partitioned: slot, count, source index, class
  std::vector<std::uint64_t> pcount;
  std::vector<std::uint32_t> pindex;
  std::vector<std::uint32_t> chunk_counts;      // [chunk][partition], then write positions
  std::vector<std::uint32_t> start;             // partition p: [start[p], start[p + 1])
  std::vector<std::uint32_t> classes;           // classes of partition p, then their offsets
  std::vector<std::uint32_t> rep;               // per class of the partition layout: first member
  std::vector<std::uint64_t> sum;               // per class of the partition layout: count
  tbb::enumerable_thread_specific<SlotTable> tables;
  // Keys not yet written (see partitioned_keys): the source's keys and the
  // per-attribute code maps of the last partitioned grouping.
  bool keys_pending = false;
  const std::uint32_t* source_keys = nullptr;
  std::uint32_t width = 0;
  std::vector<const std::uint32_t*> codes;
};

// Groups a.n members into classes (see above). Returns the classes; fills
// a.out_counts and (when not null) a.member, and leaves the keys to
// partitioned_keys().
std::uint32_t group_partitioned(const GroupArgs& a, PartitionScratch& ps) {
  const std::size_t n = a.n;
  const std::uint32_t w = a.w;
  const std::size_t chunks = (n + kPartitionChunk - 1) / kPartitionChunk;
  const auto room = [n](auto& v) {
    util::reserve_huge(v, n);
    v.resize(n);
  };
  for (auto* v : {&ps.slot, &ps.pslot, &ps.pcount, &ps.sum}) room(*v);
  for (auto* v : {&ps.pindex, &ps.rep}) room(*v);
  ps.chunk_counts.assign(chunks * kPartitions, 0);
  // Pass 1: slots and per-chunk partition sizes.
  tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
    const std::size_t first = c * kPartitionChunk, last = std::min(n, first + kPartitionChunk);
    std::uint32_t* count = ps.chunk_counts.data() + c * kPartitions;
    for (std::size_t i = first; i < last; ++i) {
      const std::uint32_t* key = a.keys + i * w;
      std::uint64_t s = 0;
      for (std::uint32_t q = 0; q < w; ++q) s += a.tab[q][key[q]];
      ps.slot[i] = s;
      ++count[partition_of(s)];
    }
  });
  // Write positions: partition-major, chunks in order within a partition
  // (a stable scatter: each partition keeps the source order).
  ps.start.assign(kPartitions + 1, 0);
  std::uint32_t pos = 0;
  for (std::size_t p = 0; p < kPartitions; ++p) {
    ps.start[p] = pos;
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::uint32_t k = ps.chunk_counts[c * kPartitions + p];
      ps.chunk_counts[c * kPartitions + p] = pos;
      pos += k;
    }
  }
  ps.start[kPartitions] = pos;
  // Pass 2: scatter.
  tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
    const std::size_t first = c * kPartitionChunk, last = std::min(n, first + kPartitionChunk);
    std::uint32_t* next = ps.chunk_counts.data() + c * kPartitions;
    for (std::size_t i = first; i < last; ++i) {
      const std::uint64_t s = ps.slot[i];
      const std::uint32_t at = next[partition_of(s)]++;
      ps.pslot[at] = s;
      ps.pcount[at] = a.counts[i];
      ps.pindex[at] = static_cast<std::uint32_t>(i);
    }
  });
  // Pass 3: group each partition; classes of partition p go to the class
  // range starting at start[p] (the worst case, every member its own class)
  // until their final offsets are known. pslot[at] is reused for the
  // member's class within its partition.
  ps.classes.assign(kPartitions + 1, 0);
  tbb::parallel_for(std::size_t{0}, kPartitions, [&](std::size_t p) {
    const std::uint32_t first = ps.start[p], last = ps.start[p + 1];
    if (first == last) return;
    SlotTable& table = ps.tables.local();
    table.prepare(last - first);
    std::uint32_t* rep = ps.rep.data() + first;
    std::uint64_t* sum = ps.sum.data() + first;
    // The slots per source member are no longer needed after the scatter:
    // that array's range of the partition holds its classes' cells, for
    // reset().
    std::uint32_t classes = 0;
    std::uint64_t* cell_of_class = ps.slot.data() + first;
    for (std::uint32_t at = first; at < last; at += kBlock) {
      const std::uint32_t m = std::min<std::uint32_t>(kBlock, last - at);
      std::size_t cell[kBlock];
      for (std::uint32_t j = 0; j < m; ++j) {
        cell[j] = table.cell_of(ps.pslot[at + j]);
        table.prefetch(cell[j]);
      }
      for (std::uint32_t j = 0; j < m; ++j) {
        bool inserted = false;
        std::uint64_t where = 0;
        const std::uint32_t cls = table.find_or_insert(ps.pslot[at + j], cell[j], classes, inserted, where);
        if (inserted) {
          cell_of_class[classes] = where;
          rep[classes] = ps.pindex[at + j];
          sum[classes] = 0;
          ++classes;
        }
        sum[cls] += ps.pcount[at + j];
        ps.pslot[at + j] = cls;
      }
    }
    table.reset(cell_of_class, classes);
    ps.classes[p] = classes;
  });
  // Final class offsets, then keys, counts and members in parallel.
  std::uint32_t total = 0;
  for (std::size_t p = 0; p < kPartitions; ++p) {
    const std::uint32_t k = ps.classes[p];
    ps.classes[p] = total;
    total += k;
  }
  ps.classes[kPartitions] = total;
  tbb::parallel_for(std::size_t{0}, kPartitions, [&](std::size_t p) {
    const std::uint32_t first = ps.start[p], offset = ps.classes[p];
    const std::uint32_t k = ps.classes[p + 1] - offset;
    for (std::uint32_t c = 0; c < k; ++c) a.out_counts[offset + c] = ps.sum[first + c];
    if (a.member)
      for (std::uint32_t at = first; at < ps.start[p + 1]; ++at)
        a.member[ps.pindex[at]] = offset + static_cast<std::uint32_t>(ps.pslot[at]);
  });
  // The keys are written later, and only when someone reads them.
  ps.keys_pending = true;
  ps.source_keys = a.keys;
  ps.width = w;
  ps.codes.assign(a.codes, a.codes + w);
  return total;
}

// Writes the keys of the last partitioned grouping into `out` (room for
// its classes): each class's key is its first member's, generalized. The
// members are scattered over the source, so this reads one random key per
// class; checks that are no solution and whose classes are not cached never
// need it (on the 1.2 M-row survey table this loop was a quarter of the
// check's time when it ran for every check).
void partitioned_keys(PartitionScratch& ps, std::uint32_t* out) {
  const std::uint32_t w = ps.width;
  const std::uint32_t* const keys = ps.source_keys;
  const std::uint32_t* const* codes = ps.codes.data();
  tbb::parallel_for(std::size_t{0}, kPartitions, [&](std::size_t p) {
    const std::uint32_t first = ps.start[p], offset = ps.classes[p];
    const std::uint32_t k = ps.classes[p + 1] - offset;
    std::uint32_t* out_key = out + std::size_t{offset} * w;
    // Prefetch ahead (without it this loop was 42 % of the survey's check
    // time).
    constexpr std::uint32_t kAhead = 16;
    for (std::uint32_t c = 0; c < k; ++c) {
      if (c + kAhead < k) __builtin_prefetch(keys + std::size_t{ps.rep[first + c + kAhead]} * w);
      const std::uint32_t* key = keys + std::size_t{ps.rep[first + c]} * w;
      for (std::uint32_t q = 0; q < w; ++q) out_key[q] = codes[q][key[q]];
      out_key += w;
    }
  });
  ps.keys_pending = false;
}

}  // namespace

// Grouping state kept across checks to avoid reallocating the hash tables.
struct Checker::HashState {
  SlotTable slot_table;  // grouping by slot
  PartitionScratch partitions;  // partitioned grouping of large sources
  // Grouping of keys whose mixed-radix slot does not fit 63 bits.
  absl::flat_hash_map<std::string, std::uint32_t> wide_index;
  // up[q][a][b]: code at level a → code at level b (a < b) of attribute q.
  std::vector<std::vector<std::vector<std::vector<std::uint32_t>>>> up;
  std::vector<std::uint32_t> member;  // source class → class of the check
  // Direct-addressed grouping (see group_dense): slot → class, all unused
  // slots kMissing; `used` lists the slots to reset after a check.
  std::vector<std::uint32_t> dense;
  std::vector<std::uint64_t> used;
  std::vector<std::vector<std::uint64_t>> scaled;  // per attribute: code → slot contribution
  std::vector<std::vector<std::uint32_t>> codes;   // per attribute: the identity on codes
  std::unique_ptr<std::uint64_t[]> count_buffer;   // grouping output, room for buffer_classes
  std::size_t buffer_classes = 0;
  std::size_t last_classes = 0;  // classes of the last hashed grouping
  std::vector<Snapshot> cache;
  std::vector<Snapshot> spare;        // evicted snapshots, their buffers reused
  std::uint64_t cache_words = 0, budget_words = 0, tick = 0;
};

Checker::Checker(const Problem& problem) : problem_(problem), hash_(new HashState) {
  // Level-to-level maps, from the data codes' maps (hierarchy validation
  // guarantees that a level-a value has one ancestor at every level b > a).
  hash_->up.resize(problem.hierarchies.size());
  for (std::size_t q = 0; q < problem.hierarchies.size(); ++q) {
    const Generalization& g = problem.hierarchies[q];
    const int H = g.height();
    const std::size_t n = g.map(0).size();
    auto& up = hash_->up[q];
    up.resize(static_cast<std::size_t>(H));
    for (int a = 0; a < H; ++a) {
      up[a].resize(static_cast<std::size_t>(H));
      for (int b = a + 1; b < H; ++b) {
        auto& m = up[a][b];
        m.assign(g.domain_size(a), 0);
        for (std::size_t d = 0; d < n; ++d) m[g.map(a)[d]] = g.map(b)[d];
      }
    }
  }
  // The cache may hold about 8 times the histogram's keys, at least 4 Mi and
  // at most 16 Mi words (64 MiB): on the 1.2 M-row survey table, 8 times the
  // keys (266 MB) put the whole job at 1.2 GB peak.
  hash_->budget_words = std::clamp<std::uint64_t>(8 * problem.histogram.keys.size(), 1u << 22, 1u << 24);
}

Checker::~Checker() { delete hash_; }

// Groups `src` by `t` into `out` (keys and counts; nothing suppressed).
// `want_members`: fill hs.member (source member -> class); only the
// sensitive distributions and Checker::group need it.
// `ordered`: classes numbered in order of first appearance in the source
// (Checker::group); otherwise large sources are grouped partitioned.
static void group_source(const Problem& problem, Checker::HashState& hs, const Source& src, const Transformation& t,
                         Classes& out, bool want_members, bool ordered) {
  const std::uint32_t w = problem.histogram.width;
  out.width = w;
  out.keys.clear();
  out.counts.clear();
  out.suppressed.clear();
  out.entry_class.clear();
  out.suppressed_records = 0;
  hs.member.resize(src.size);
  hs.partitions.keys_pending = false;

  // Per attribute: the map from the source's level to t's (nullptr: same level).
  std::vector<const std::uint32_t*> maps(w);
  for (std::uint32_t q = 0; q < w; ++q) {
    const int from = src.levels ? (*src.levels)[q] : 0;
    maps[q] = from == t[q] ? nullptr
              : from == 0  ? problem.hierarchies[q].map(t[q]).data()
                           : hs.up[q][from][t[q]].data();
  }

  // Mixed-radix slot of a generalized key, when the domains at t's levels
  // multiply to less than 2^63 (always, unless the domains are huge).
  std::vector<std::uint64_t> stride(w);
  std::uint64_t slots = 1;
  bool fits = true;
  for (std::uint32_t q = w; q-- > 0;) {
    stride[q] = slots;
    const std::uint64_t d =
        t[q] == 0 ? problem.hierarchies[q].map(0).size() : problem.hierarchies[q].domain_size(t[q]);
    if (d != 0 && slots > (std::uint64_t{1} << 63) / d) {
      fits = false;
      break;
    }
    slots *= d;
  }
  if (fits) {
    // Sequential for any source size (see check.h: the parallel chunked
    // grouping below cost 3 times the CPU on the survey table).
    // Hand-written hot path: per attribute a table code → generalized code ×
    // stride, built once per check (domains are small), so a class's slot
    // is a sum of one load per attribute. The slot is then looked up
    // directly when the slots fit a table that stays in cache, else hashed
    // (the slot is a unique 64-bit key). On adult (optimal search, 1,086
    // checks) grouping took 2.7 G instructions with absl::flat_hash_map on
    // packed keys; a 16 MiB direct table spent a third of the grouping time
    // on cache misses (perf annotate), so direct addressing is now limited
    // to tables of at most kDenseSlots entries.
    hs.scaled.resize(w);
    hs.codes.resize(w);
    std::vector<const std::uint64_t*> tables(w);
    std::vector<const std::uint32_t*> codes(w);
    for (std::uint32_t q = 0; q < w; ++q) {
      const int from = src.levels ? (*src.levels)[q] : 0;
      const std::size_t domain =
          from == 0 ? problem.hierarchies[q].map(0).size() : problem.hierarchies[q].domain_size(from);
      auto& table = hs.scaled[q];
      table.resize(domain);
      for (std::size_t c = 0; c < domain; ++c) table[c] = (maps[q] ? maps[q][c] : c) * stride[q];
      tables[q] = table.data();
      if (maps[q]) {
        codes[q] = maps[q];
      } else {
        // Same level: the identity on the source's codes.
        auto& identity = hs.codes[q];
        if (identity.size() < domain) {
          const std::size_t old = identity.size();
          identity.resize(domain);
          for (std::size_t c = old; c < domain; ++c) identity[c] = static_cast<std::uint32_t>(c);
        }
        codes[q] = identity.data();
      }
    }
    // Room for the worst case (every member its own class), uninitialized
    // (a zero-filled vector of that size cost a memset per check).
    if (hs.used.size() < src.size) hs.used.resize(src.size);
    if (hs.buffer_classes < src.size) {
      hs.count_buffer.reset(new std::uint64_t[src.size]);
      hs.buffer_classes = src.size;
    }
    const bool partitioned = !ordered && slots > kDenseSlots && src.size >= kPartitionMinSource;
    // Keys are written straight into the output (uninitialized room for
    // every member its own class, trimmed afterwards); the partitioned
    // path writes them later, when needed (materialize_keys).
    if (!partitioned) {
      util::reserve_huge(out.keys, src.size * w);
      out.keys.resize(src.size * w);
    }
    GroupArgs args{src.keys,
                   src.counts,
                   src.size,
                   w,
                   tables.data(),
                   codes.data(),
                   nullptr,
                   &hs.slot_table,
                   hs.used.data(),
                   want_members ? hs.member.data() : nullptr,
                   partitioned ? nullptr : out.keys.data(),
                   hs.count_buffer.get()};
    std::uint32_t classes;
    if (partitioned) {
      classes = group_partitioned(args, hs.partitions);
    } else if (slots <= kDenseSlots) {
      if (hs.dense.size() < slots) hs.dense.assign(slots, kMissing);
      args.dense = hs.dense.data();
      classes = group_slots_any<true>(args);
      for (std::uint32_t c = 0; c < classes; ++c) hs.dense[hs.used[c]] = kMissing;
    } else {
      // The guess: the previous check's classes (consecutive checks of a
      // search are often alike), at least a quarter of the source; a wrong
      // guess costs a few doublings. (With the previous count alone,
      // doubling was 9 % of the synthetic 15-attribute best-first search.)
      hs.slot_table.prepare(std::min<std::size_t>(src.size, std::max(hs.last_classes, src.size / 4)));
      classes = group_slots_any<false>(args);
      hs.slot_table.reset(hs.used.data(), classes);
      hs.last_classes = classes;
    }
    if (!partitioned) out.keys.resize(std::size_t{classes} * w);
    out.counts.assign(hs.count_buffer.get(), hs.count_buffer.get() + classes);
  } else {
    auto& index = hs.wide_index;
    index.clear();
    std::string probe(w * sizeof(std::uint32_t), '\0');
    for (std::size_t i = 0; i < src.size; ++i) {
      const std::uint32_t* key = src.keys + i * w;
      for (std::uint32_t q = 0; q < w; ++q) {
        const std::uint32_t g = maps[q] ? maps[q][key[q]] : key[q];
        std::memcpy(probe.data() + q * sizeof(std::uint32_t), &g, sizeof g);
      }
      auto [it, inserted] = index.try_emplace(probe, static_cast<std::uint32_t>(out.counts.size()));
      if (inserted) {
        for (std::uint32_t q = 0; q < w; ++q) out.keys.push_back(maps[q] ? maps[q][key[q]] : key[q]);
        out.counts.push_back(0);
      }
      out.counts[it->second] += src.counts[i];
      hs.member[i] = it->second;
    }
  }
  out.suppressed.assign(out.counts.size(), 0);
}

// Writes the keys of `cls` when its grouping left them for later.
static void materialize_keys(Checker::HashState& hs, Classes& cls) {
  if (!hs.partitions.keys_pending) return;
  const std::size_t words = cls.size() * cls.width;
  cls.keys.clear();
  util::reserve_huge(cls.keys, words);
  cls.keys.resize(words);
  partitioned_keys(hs.partitions, cls.keys.data());
}

void Checker::group(const Transformation& t, Classes& out) {
  const Histogram& hist = problem_.histogram;
  group_source(problem_, *hash_, Source{hist.keys.data(), hist.counts.data(), hist.size(), nullptr}, t, out, true,
               true);
  out.entry_class = hash_->member;
}

namespace {

// The source members (histogram entries or rolled-up classes) of each
// class: entries[starts[c] .. starts[c+1]). A counting sort on the member →
// class map, shared by all sensitive attributes of one check.
struct EntriesByClass {
  std::vector<std::uint32_t> starts;
  std::vector<std::uint32_t> entries;
};

EntriesByClass entries_by_class(const std::vector<std::uint32_t>& member, std::size_t classes) {
  EntriesByClass b;
  b.starts.assign(classes + 1, 0);
  for (std::uint32_t c : member) ++b.starts[c + 1];
  for (std::size_t c = 0; c < classes; ++c) b.starts[c + 1] += b.starts[c];
  b.entries.resize(member.size());
  std::vector<std::uint32_t> next(b.starts.begin(), b.starts.end() - 1);
  for (std::size_t e = 0; e < member.size(); ++e) b.entries[next[member[e]]++] = static_cast<std::uint32_t>(e);
  return b;
}

// Linear in the (entry, code) pairs of the histogram: a class's counts
// accumulate in a dense array over the attribute's `domain` codes, and only
// the codes touched are read back, in ascending order. A class of one entry
// takes that entry's distribution as it is (already sorted by code).
// Replaces a sort of all pairs by (class, code), which took about a third of
// the time of an adult check with l-diversity (docs/privacy-models.md).
ClassDistributions merge_distributions(const Histogram::Sensitive& s, const EntriesByClass& by_class,
                                       std::uint32_t domain) {
  const std::size_t classes = by_class.starts.size() - 1;
  ClassDistributions d;
  d.offsets.assign(classes + 1, 0);
  d.codes.reserve(s.codes.size());
  d.counts.reserve(s.codes.size());
  std::vector<std::uint64_t> sum(domain, 0);
  std::vector<std::uint32_t> touched;
  for (std::size_t c = 0; c < classes; ++c) {
    const std::uint32_t* first = by_class.entries.data() + by_class.starts[c];
    const std::uint32_t* last = by_class.entries.data() + by_class.starts[c + 1];
    if (last - first == 1) {
      const std::uint64_t b = s.offsets[*first], e = s.offsets[*first + 1];
      d.codes.insert(d.codes.end(), s.codes.begin() + b, s.codes.begin() + e);
      d.counts.insert(d.counts.end(), s.counts.begin() + b, s.counts.begin() + e);
    } else {
      for (const std::uint32_t* entry = first; entry != last; ++entry)
        for (std::uint64_t i = s.offsets[*entry]; i < s.offsets[*entry + 1]; ++i) {
          const std::uint32_t code = s.codes[i];
          if (sum[code] == 0) touched.push_back(code);
          sum[code] += s.counts[i];
        }
      std::sort(touched.begin(), touched.end());
      for (std::uint32_t code : touched) {
        d.codes.push_back(code);
        d.counts.push_back(sum[code]);
        sum[code] = 0;
      }
      touched.clear();
    }
    d.offsets[c + 1] = d.codes.size();
  }
  return d;
}

}  // namespace

void Checker::remember(const Transformation& t, Classes& cls, std::vector<Histogram::Sensitive>& dists) {
  HashState& hs = *hash_;
  const std::uint64_t words = std::uint64_t{cls.size()} * cls.width;
  // Only snapshots of at most a tenth of the histogram's entries are kept
  // (one no smaller than the histogram is never a better source):
  // larger ones were rarely the source of a later check, and keeping them
  // (writing their keys, evicting smaller ones) cost more than they saved.
  // On the survey table, keeping every snapshot smaller than the histogram
  // gave 279 roll-ups and 40.7 s of CPU, a tenth 92 roll-ups and 32.2 s
  // (peak RSS 404 → 333 MB); cup 1.69 → 1.51 s; adult and the synthetic
  // 10-attribute best-first search unchanged.
  if (cls.size() * kSnapshotShare > problem_.histogram.size() || words > hs.budget_words / 2) return;
  materialize_keys(hs, cls);
  while (!hs.cache.empty() && (hs.cache_words + words > hs.budget_words || hs.cache.size() >= 256)) {
    auto lru = std::min_element(hs.cache.begin(), hs.cache.end(),
                                [](const Snapshot& a, const Snapshot& b) { return a.last_used < b.last_used; });
    hs.cache_words -= lru->keys.size();
    // Keep a few evicted buffers for reuse and free the rest: one large
    // insert can evict many snapshots, and keeping all their buffers made
    // memory grow without bound (349 MB peak on the synthetic 10-QI search).
    if (hs.spare.size() < 2) hs.spare.push_back(std::move(*lru));
    *lru = std::move(hs.cache.back());
    hs.cache.pop_back();
  }
  // The snapshot gets a copy of the classes, into the buffers of an evicted
  // snapshot when there is one; the check's own buffers, with room for a
  // whole source, stay with the checker. (Handing them to the snapshot and
  // taking smaller ones back made most checks allocate fresh buffers: the
  // kernel's zeroing of their pages was a fifth of an adult run.)
  Snapshot sn;
  if (!hs.spare.empty()) {
    sn = std::move(hs.spare.back());
    hs.spare.pop_back();
  }
  sn.levels = t;
  sn.keys.assign(cls.keys.begin(), cls.keys.end());
  sn.counts.assign(cls.counts.begin(), cls.counts.end());
  sn.dists.swap(dists);
  sn.last_used = ++hs.tick;
  hs.cache_words += sn.keys.size();
  hs.cache.push_back(std::move(sn));
  stats_.cached_snapshots = hs.cache.size();
  stats_.largest_cache_words = std::max(stats_.largest_cache_words, hs.cache_words);
}

CheckResult Checker::check(const Transformation& t, Classes* classes_out) {
  Classes& cls = classes_out ? *classes_out : scratch_;
  HashState& hs = *hash_;
  const Histogram& hist = problem_.histogram;

  // The source: the smallest cached specialization of t, else the histogram.
  // A caller that wants the classes gets them from the histogram, with
  // entry_class filled.
  Snapshot* from = nullptr;
  if (!classes_out)
    for (Snapshot& sn : hs.cache)
      if (sn.counts.size() < (from ? from->counts.size() : hist.size()) && leq(sn.levels, t)) from = &sn;
  std::uint64_t min_size = 1;
  bool need_dist = false;
  for (const auto& m : problem_.privacy) {
    min_size = std::max(min_size, m->minimal_class_size());
    need_dist = need_dist || m->needs_distributions();
  }
  ++stats_.checks;
  stats_.grouped += from ? from->counts.size() : hist.size();
  if (from) {
    from->last_used = ++hs.tick;
    ++stats_.rolled_up;
    group_source(problem_, hs, Source{from->keys.data(), from->counts.data(), from->counts.size(), &from->levels}, t,
                 cls, need_dist, false);
  } else if (classes_out) {
    ++stats_.from_histogram;
    group(t, cls);
  } else {
    ++stats_.from_histogram;
    group_source(problem_, hs, Source{hist.keys.data(), hist.counts.data(), hist.size(), nullptr}, t, cls, need_dist,
                 false);
  }

  CheckResult r;
  r.transformation = t;
  r.classes = cls.size();

  std::vector<ClassDistributions> dists;
  if (need_dist) {
    const EntriesByClass by_class = entries_by_class(hs.member, cls.size());
    for (std::size_t i = 0; i < problem_.histogram.sensitive.size(); ++i) {
      const auto& s = from ? from->dists[i] : problem_.histogram.sensitive[i];
      // Codes are below the column's dictionary size; without the column
      // (problems built by hand), below the largest code + 1.
      std::uint32_t domain = 0;
      if (i < problem_.sensitive.size() && problem_.sensitive[i].data)
        domain = problem_.sensitive[i].data->dictionary.size();
      else
        for (std::uint32_t code : s.codes) domain = std::max(domain, code + 1);
      dists.push_back(merge_distributions(s, by_class, domain));
    }
  }
  dist_scratch_.resize(dists.size());

  std::uint64_t suppressed = 0;
  for (std::size_t c = 0; c < cls.size(); ++c) {
    bool holds = cls.counts[c] >= min_size;
    if (holds) {
      ClassView view;
      view.count = cls.counts[c];
      if (need_dist) {
        for (std::size_t s = 0; s < dists.size(); ++s) {
          const auto& d = dists[s];
          const auto b = d.offsets[c], e = d.offsets[c + 1];
          dist_scratch_[s] = {std::span<const std::uint32_t>(d.codes.data() + b, e - b),
                              std::span<const std::uint64_t>(d.counts.data() + b, e - b)};
        }
        view.sensitive = dist_scratch_;
      }
      for (const auto& m : problem_.privacy)
        if (!m->holds(view)) {
          holds = false;
          break;
        }
    }
    if (!holds) {
      cls.suppressed[c] = 1;
      suppressed += cls.counts[c];
    }
  }
  // Dataset-level models (population uniqueness) see the output after the
  // class-level suppression and may suppress further classes (privacy.h);
  // like ARX, only when the class-level suppression is within the limit.
  bool dataset_models_hold = true;
  if (suppressed <= problem_.max_suppressed) {
    // Dataset-level models and the quality of a solution may read keys;
    // otherwise only remember() does (lower bounds never read them).
    materialize_keys(hs, cls);
    cls.suppressed_records = suppressed;
    for (const auto& m : problem_.privacy)
      if (m->dataset_level() && !m->enforce(problem_, t, cls, problem_.max_suppressed)) {
        dataset_models_hold = false;
        break;
      }
    suppressed = cls.suppressed_records;
  }
  r.suppressed_records = suppressed;
  r.solution = dataset_models_hold && suppressed <= problem_.max_suppressed;

  // The bound is the loss with nothing suppressed.
  std::vector<std::uint8_t> flags;
  flags.swap(cls.suppressed);
  cls.suppressed.assign(cls.size(), 0);
  cls.suppressed_records = 0;
  r.lower_bound = problem_.quality->lower_bound(problem_, t, cls);
  cls.suppressed.swap(flags);
  cls.suppressed_records = suppressed;
  if (r.solution) r.quality = problem_.quality->evaluate(problem_, t, cls);
  if (!classes_out) remember(t, cls, dists);
  return r;
}

}  // namespace deid
