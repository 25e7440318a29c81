// The radix-partitioned grouping of large sources (see partitioned.h): slots
// computed and scattered into partitions, each partition grouped with its
// own cache-sized table, in parallel; the classes' keys written only when
// read.
#include "check/partitioned.h"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "util/huge_pages.h"

namespace deid::check_internal {
namespace {

constexpr std::size_t kPartitionBits = 8;
constexpr std::size_t kPartitions = std::size_t{1} << kPartitionBits;
constexpr std::size_t kPartitionChunk = std::size_t{1} << 15;

inline std::size_t partition_of(std::uint64_t slot) {
  // Another multiplier than SlotTable's, whose top bits pick the cell.
  return static_cast<std::size_t>((slot * 0xD6E8FEB86659FD93ull) >> (64 - kPartitionBits));
}

}  // namespace

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

namespace {

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

void materialize_keys(PartitionScratch& ps, Classes& cls) {
  if (!ps.keys_pending) return;
  const std::size_t words = cls.size() * cls.width;
  cls.keys.clear();
  util::reserve_huge(cls.keys, words);
  cls.keys.resize(words);
  partitioned_keys(ps, cls.keys.data());
}

}  // namespace deid::check_internal
