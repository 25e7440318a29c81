// Internal to src/check: radix-partitioned grouping of a large source,
// used by checks whose classes nobody reads in first-appearance order
// (Checker::check without `classes`). Hand-written because it measurably
// wins on large sources: the slots of all members are computed in one
// sequential pass and scattered (stably) into 256 partitions (kPartitions,
// partitioned.cc) by a hash of the slot; each partition is then grouped on
// its own with a table small enough for the L2 cache, and the partitions
// are grouped in parallel. Classes are numbered partition by partition, in
// first appearance within each, so the result is the same for any number
// of threads (the chunks and partitions are fixed by the source size
// alone). On the 1.2 M-row survey table one slot table for the whole
// source (up to 500 k classes, 12 MB) missed the cache on almost every
// member.
#pragma once

#include <tbb/enumerable_thread_specific.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "check/grouping.h"
#include "deid/check.h"

namespace deid::check_internal {

// Sources of at least this many members are grouped partitioned (when the
// slots do not fit a direct table and the classes need not come in order
// of first appearance; see group_source).
constexpr std::size_t kPartitionMinSource = std::size_t{1} << 15;

// What a partitioned grouping keeps between checks (its arrays, the
// per-thread tables) and until its keys are written.
struct PartitionScratch {
  std::vector<std::uint64_t> slot;     // per source member
  std::vector<std::uint64_t> pslot;    // partitioned: slot, count, source index, class
  std::vector<std::uint64_t> pcount;
  std::vector<std::uint32_t> pindex;
  std::vector<std::uint32_t> chunk_counts;      // [chunk][partition], then write positions
  std::size_t partitions = 0;                   // of the last grouping
  std::vector<std::uint32_t> start;             // partition p: [start[p], start[p + 1])
  std::vector<std::uint32_t> classes;           // classes of partition p, then their offsets
  std::vector<std::uint32_t> rep;               // per class of the partition layout: first member
  std::vector<std::uint64_t> sum;               // per class of the partition layout: count
  tbb::enumerable_thread_specific<SlotTable> tables;
  // Keys not yet written (see materialize_keys): the source's keys and the
  // per-attribute code maps of the last partitioned grouping.
  bool keys_pending = false;
  const std::uint32_t* source_keys = nullptr;
  std::uint32_t width = 0;
  std::vector<const std::uint32_t*> codes;
};

// Groups a.n members into classes (see above). Returns the classes; fills
// a.out_counts and (when not null) a.member, and leaves the keys to
// materialize_keys().
std::uint32_t group_partitioned(const GroupArgs& a, PartitionScratch& ps);

// Writes the keys of `cls` when its grouping (the last one that used `ps`)
// was partitioned and left them for later; otherwise does nothing.
void materialize_keys(PartitionScratch& ps, Classes& cls);

}  // namespace deid::check_internal
