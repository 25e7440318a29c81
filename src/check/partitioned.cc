// The radix-partitioned grouping of large sources (see partitioned.h): slots
// computed and scattered into partitions, each partition grouped with its
// own cache-sized table, in parallel; the classes' keys written only when
// read.
#include "check/partitioned.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <bit>

#include "util/huge_pages.h"

namespace deid::check_internal {
namespace {

// The layout of a partitioned grouping, fixed by the source's size alone
// (so results do not depend on the thread count): about kMembersPerPartition
// members per partition (their table of a few KiB stays in the L1 cache), at
// most 2^kMaxPartitionBits partitions; passes 1 and 2 cut the source into
// chunks of about n / kChunks members, at least kMinChunk.
constexpr int kMaxPartitionBits = 8;
constexpr std::size_t kMembersPerPartition = 256;
constexpr std::size_t kChunks = 8;
constexpr std::size_t kMinChunk = std::size_t{1} << 12;

struct Layout {
  int bits;                // partitions: 1 << bits
  std::size_t partitions;
  std::size_t chunk;       // members per chunk (the last may have fewer)
  std::size_t chunks;

  explicit Layout(std::size_t n) {
    bits = std::clamp(static_cast<int>(std::bit_width(n / kMembersPerPartition)), 1, kMaxPartitionBits);
    partitions = std::size_t{1} << bits;
    chunk = std::max(kMinChunk, (n + kChunks - 1) / kChunks);
    chunks = (n + chunk - 1) / chunk;
  }
  std::size_t partition_of(std::uint64_t slot) const {
    // Another multiplier than SlotTable's, whose top bits pick the cell.
    return static_cast<std::size_t>((slot * 0xD6E8FEB86659FD93ull) >> (64 - bits));
  }
};

// Runs body(i) for i in [0, n), the range split evenly among the threads
// once (tbb::static_partitioner): the passes below are short and even, and
// work stealing over many small tasks cost more than it balanced (on cup,
// 63 k members per check, TBB's scheduling took half of the CPU of a
// two-thread run with the default partitioner).
template <class F>
void for_each_index(std::size_t n, const F& body) {
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, n),
      [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) body(i);
      },
      tbb::static_partitioner());
}

}  // namespace

std::uint32_t group_partitioned(const GroupArgs& a, PartitionScratch& ps) {
  const std::size_t n = a.n;
  const std::uint32_t w = a.w;
  const Layout layout(n);
  const std::size_t chunks = layout.chunks, chunk = layout.chunk, partitions = layout.partitions;
  ps.partitions = partitions;
  const auto room = [n](auto& v) {
    util::reserve_huge(v, n);
    v.resize(n);
  };
  for (auto* v : {&ps.slot, &ps.pslot, &ps.pcount, &ps.sum}) room(*v);
  room(ps.pindex);
  room(ps.rep);
  ps.chunk_counts.assign(chunks * partitions, 0);
  // Pass 1: slots and per-chunk partition sizes.
  for_each_index(chunks, [&](std::size_t c) {
    const std::size_t first = c * chunk, last = std::min(n, first + chunk);
    std::uint32_t* count = ps.chunk_counts.data() + c * partitions;
    for (std::size_t i = first; i < last; ++i) {
      const std::uint32_t* key = a.keys + i * w;
      std::uint64_t s = 0;
      for (std::uint32_t q = 0; q < w; ++q) s += a.tab[q][key[q]];
      ps.slot[i] = s;
      ++count[layout.partition_of(s)];
    }
  });
  // Write positions: partition-major, chunks in order within a partition
  // (a stable scatter: each partition keeps the source order).
  ps.start.assign(partitions + 1, 0);
  std::uint32_t pos = 0;
  for (std::size_t p = 0; p < partitions; ++p) {
    ps.start[p] = pos;
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::uint32_t k = ps.chunk_counts[c * partitions + p];
      ps.chunk_counts[c * partitions + p] = pos;
      pos += k;
    }
  }
  ps.start[partitions] = pos;
  // Pass 2: scatter.
  for_each_index(chunks, [&](std::size_t c) {
    const std::size_t first = c * chunk, last = std::min(n, first + chunk);
    std::uint32_t* next = ps.chunk_counts.data() + c * partitions;
    for (std::size_t i = first; i < last; ++i) {
      const std::uint64_t s = ps.slot[i];
      const std::uint32_t at = next[layout.partition_of(s)]++;
      ps.pslot[at] = s;
      ps.pcount[at] = a.counts[i];
      ps.pindex[at] = static_cast<std::uint32_t>(i);
    }
  });
  // Pass 3: group each partition; classes of partition p go to the class
  // range starting at start[p] (the worst case, every member its own class)
  // until their final offsets are known. pslot[at] is reused for the
  // member's class within its partition.
  ps.classes.assign(partitions + 1, 0);
  for_each_index(partitions, [&](std::size_t p) {
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
        SlotTable::Cell where = 0;
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
  for (std::size_t p = 0; p < partitions; ++p) {
    const std::uint32_t k = ps.classes[p];
    ps.classes[p] = total;
    total += k;
  }
  ps.classes[partitions] = total;
  for_each_index(partitions, [&](std::size_t p) {
    const std::uint32_t first = ps.start[p], offset = ps.classes[p];
    const std::uint32_t k = ps.classes[p + 1] - offset;
    for (std::uint32_t c = 0; c < k; ++c) a.out_counts[offset + c] = ps.sum[first + c];
    if (a.member)
      for (std::uint32_t at = first; at < ps.start[p + 1]; ++at)
        a.member[ps.pindex[at]] = offset + static_cast<std::uint32_t>(ps.pslot[at]);
  });
  // The keys are written later, and only when someone reads them.
  ps.keys_pending = true;
  ps.linear = false;
  ps.packed = nullptr;
  ps.source_keys = a.keys;
  ps.source_keys16 = nullptr;
  ps.width = w;
  ps.codes.assign(a.codes, a.codes + w);
  return total;
}

namespace {

// Class c's key after a linear grouping (ps.linear): its first member's,
// rep[c], generalized by `codes`; the member is a position of `ps.packed`
// or of `ps.source_keys16` when given, else an entry of `ps.source_keys`.
inline void linear_key(const PartitionScratch& ps, const std::uint32_t* const* codes, std::uint32_t rep,
                       std::uint32_t* out) {
  const std::uint32_t w = ps.width;
  if (ps.packed) {
    for (std::uint32_t q = 0; q < w; ++q) out[q] = codes[q][ps.packed->code(rep, q)];
  } else if (ps.source_keys16) {
    const std::uint16_t* key = ps.source_keys16 + std::size_t{rep} * w;
    for (std::uint32_t q = 0; q < w; ++q) out[q] = codes[q][key[q]];
  } else {
    const std::uint32_t* key = ps.source_keys + std::size_t{rep} * w;
    for (std::uint32_t q = 0; q < w; ++q) out[q] = codes[q][key[q]];
  }
}

// Writes the keys of the last partitioned grouping into `out` (room for
// its classes): each class's key is its first member's, generalized. The
// members are scattered over the source, so this reads one random key per
// class; checks that are no solution and whose classes are not cached never
// need it (on the 1.2 M-row survey table this loop was a quarter of the
// check's time when it ran for every check).
void partitioned_keys(PartitionScratch& ps, std::uint32_t* out, std::size_t classes) {
  const std::uint32_t w = ps.width;
  const std::uint32_t* const keys = ps.source_keys;
  const std::uint32_t* const* codes = ps.codes.data();
  constexpr std::uint32_t kAhead = 16;
  if (ps.linear) {
    for (std::size_t c = 0; c < classes; ++c) {
      if (keys && c + kAhead < classes) __builtin_prefetch(keys + std::size_t{ps.rep[c + kAhead]} * w);
      linear_key(ps, codes, ps.rep[c], out);
      out += w;
    }
    ps.keys_pending = false;
    return;
  }
  const std::size_t partitions = ps.partitions;
  for_each_index(partitions, [&](std::size_t p) {
    const std::uint32_t first = ps.start[p], offset = ps.classes[p];
    const std::uint32_t k = ps.classes[p + 1] - offset;
    std::uint32_t* out_key = out + std::size_t{offset} * w;
    // Prefetch ahead (without it this loop was 42 % of the survey's check
    // time).
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

void materialize_keys(PartitionScratch& ps, Classes& cls) {
  if (!ps.keys_pending) return;
  const std::size_t words = cls.size() * cls.width;
  cls.keys.clear();
  util::reserve_huge(cls.keys, words);
  cls.keys.resize(words);
  partitioned_keys(ps, cls.keys.data(), cls.size());
}

void PendingKeys::read(std::size_t c, std::uint32_t* out) const {
  linear_key(ps_, ps_.codes.data(), ps_.rep[c], out);
}

void keys_from_representatives(PartitionScratch& ps, const std::uint32_t* keys, std::uint32_t width,
                               const std::vector<const std::uint32_t*>& codes) {
  ps.keys_pending = true;
  ps.linear = true;
  ps.packed = nullptr;
  ps.source_keys = keys;
  ps.source_keys16 = nullptr;
  ps.width = width;
  ps.codes = codes;
}

void keys_from_representatives(PartitionScratch& ps, const std::uint16_t* keys16, std::uint32_t width,
                               const std::vector<const std::uint32_t*>& codes) {
  keys_from_representatives(ps, static_cast<const std::uint32_t*>(nullptr), width, codes);
  ps.source_keys16 = keys16;
}

void keys_from_representatives(PartitionScratch& ps, const PackedKeys& packed,
                               const std::vector<const std::uint32_t*>& codes) {
  keys_from_representatives(ps, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t>(codes.size()), codes);
  ps.packed = &packed;
}

std::size_t grouping_passes(std::size_t classes, std::uint64_t table_bytes) {
  // A pass's table holds at most 4 cells per class (it doubles at load
  // 1/2), 12 bytes each.
  constexpr std::uint64_t kBytesPerClass = 4 * (sizeof(std::uint64_t) + sizeof(std::uint32_t));
  const std::uint64_t need = std::uint64_t{classes} * kBytesPerClass;
  return static_cast<std::size_t>(std::clamp<std::uint64_t>((need + table_bytes - 1) / std::max<std::uint64_t>(table_bytes, 1), 1, 64));
}

std::uint32_t group_passes(const GroupArgs& a, PartitionScratch& ps, std::size_t passes,
                           CountVector& counts) {
  const std::uint32_t w = a.w;
  const std::size_t n = a.n;
  SlotTable& table = *a.table;
  // The cells of the pass's classes, grown with them (room for every
  // member was 8 bytes per histogram entry at the search's peak).
  std::vector<SlotTable::Cell>& used = ps.pass_cells;
  // Room for every member its own class, not written (CodeVector,
  // CountVector): pushing back without it doubled the arrays, the old
  // and the new one resident at once, at the bounded search's peak.
  ps.rep.clear();
  ps.rep.reserve(n);
  counts.clear();
  counts.reserve(n);
  std::uint32_t total = 0;
  // The pass of a slot: the top bits of another multiply than the table's
  // (whose top bits pick the cell), scaled to [0, passes).
  const auto pass_of = [passes](std::uint64_t slot) {
    return static_cast<std::size_t>((((slot * 0xD6E8FEB86659FD93ull) >> 32) * passes) >> 32);
  };
  for (std::size_t pass = 0; pass < passes; ++pass) {
    table.prepare(std::max<std::size_t>(1, n / (4 * passes)));
    std::uint32_t classes = 0;
    std::uint64_t slot[kBlock];
    std::size_t cell[kBlock], member[kBlock];
    for (std::size_t first = 0; first < n; first += kBlock) {
      const std::size_t end = std::min(n, first + kBlock);
      std::size_t m = 0;
      for (std::size_t i = first; i < end; ++i) {
        const std::uint32_t* key = a.keys + i * w;
        std::uint64_t s = 0;
        for (std::uint32_t q = 0; q < w; ++q) s += a.tab[q][key[q]];
        if (pass_of(s) != pass) continue;
        slot[m] = s;
        member[m] = i;
        cell[m] = table.cell_of(s);
        table.prefetch(cell[m]);
        ++m;
      }
      if (used.size() < std::size_t{classes} + m) used.resize(std::max(std::size_t{classes} + m, 2 * used.size()));
      if (2 * (std::size_t{classes} + m) > table.cells()) {
        table.grow(used.data(), classes);
        for (std::size_t j = 0; j < m; ++j) cell[j] = table.cell_of(slot[j]);
      }
      for (std::size_t j = 0; j < m; ++j) {
        bool inserted = false;
        SlotTable::Cell where = 0;
        const std::uint32_t c = table.find_or_insert(slot[j], cell[j], classes, inserted, where);
        if (inserted) {
          used[classes] = where;
          counts.push_back(0);
          ps.rep.push_back(static_cast<std::uint32_t>(member[j]));
          ++classes;
        }
        counts[total + c] += a.counts[member[j]];
        if (a.member) a.member[member[j]] = total + c;
      }
    }
    table.reset(used.data(), classes);
    total += classes;
  }
  keys_from_representatives(ps, a.keys, w, std::vector<const std::uint32_t*>(a.codes, a.codes + w));
  return total;
}

}  // namespace deid::check_internal
