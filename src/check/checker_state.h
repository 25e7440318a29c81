// Internal to src/check: what a Checker keeps across checks, shared by the
// files of src/check: per lane (one check at a time) its grouping tables and
// buffers; for all lanes the level-to-level maps and the snapshot cache; and
// the checks computed ahead of time (Checker::prefetch) until they are
// counted.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "check/distributions.h"
#include "check/grouping.h"
#include "check/partitioned.h"
#include "check/ranges.h"
#include "check/snapshot_cache.h"
#include "deid/check.h"

namespace deid {

namespace check_internal {

// up[q][a][b]: code at level a → code at level b (a < b) of attribute q.
using LevelMaps = std::vector<std::vector<std::vector<std::vector<std::uint32_t>>>>;

}  // namespace check_internal

// The grouping state of one lane, kept across its checks to avoid
// reallocating the hash tables: a lane runs one check at a time. Lane 0 runs
// every check that is not computed ahead of time; further lanes exist only
// while prefetched checks run concurrently (Checker::prefetch).
struct Checker::HashState {
  const check_internal::LevelMaps* up = nullptr;  // the Checker's, read-only
  check_internal::SlotTable slot_table;  // grouping by slot
  check_internal::PartitionScratch partitions;  // partitioned grouping of large sources
  // Grouping of keys whose mixed-radix slot does not fit 63 bits: in parts
  // (WideTable); beyond kMaxParts parts, cell → class (kMissing: empty) and
  // each class's hash.
  check_internal::WideTable wide_table;
  std::vector<std::uint32_t> wide_cells;
  std::vector<std::uint64_t> wide_hashes;
  std::vector<std::uint32_t> member;  // source class → class of the check
  // Direct-addressed grouping (see group_source): slot → class, all unused
  // slots kMissing; `used` lists the slots to reset after a check.
  std::vector<std::uint32_t> dense;
  std::unique_ptr<check_internal::SlotTable::Cell[]> used;  // room for used_size, uninitialized
  std::size_t used_size = 0;
  std::vector<std::vector<std::uint64_t>> scaled;  // per attribute: code → slot contribution
  std::vector<std::uint64_t> delta;                // group_ranges_from_base: code → change of the slot
  std::vector<std::vector<std::uint32_t>> codes;   // per attribute: the identity on codes
  std::size_t last_classes = 0;  // classes of the last hashed grouping
  Classes classes;  // the classes of the lane's current check
  std::vector<ClassView::Distribution> dist_scratch;
  std::vector<std::uint8_t> flags;  // a check's suppression flags, set aside for the bound

  // Room in `used` for `cells` classes, uninitialized (a zero-filled
  // vector of that size cost a memset per check). The counts are grouped
  // straight into Classes::counts, sized likewise without being written
  // (CountVector): a buffer of their own, copied out after grouping, held
  // a second 8 bytes per class at the bounded search's peak.
  void reserve(std::size_t cells) {
    if (used_size < cells) {
      used.reset(new check_internal::SlotTable::Cell[cells]);
      used_size = cells;
    }
  }
};

// One check computed but not yet counted: its result, where its classes came
// from (for the statistics) and, when they are to be cached, their snapshot.
struct Checker::Pending {
  CheckResult result;
  std::uint64_t grouped = 0;  // source members grouped
  bool rolled_up = false;     // from a snapshot, else from the histogram
  bool ranged = false;        // from the histogram, range by range (ranges.h)
  bool refined = false;       // from the classes of prefetch's `around`
  bool keep = false;          // `snapshot` goes into the cache
  check_internal::Snapshot snapshot;
};

// What the lanes share: the level maps (read-only), the snapshot cache (read
// during concurrent checks, changed only between them) and the lanes not in
// use.
struct Checker::Shared {
  check_internal::LevelMaps up;
  // Whether the privacy models judge classes by size alone (no
  // distributions, no dataset-level model): checks from the histogram may
  // then group by ranges of the leads, the histogram sorted by lead
  // attributes (ranges.h).
  bool ranged_models = false;
  bool leads_built = false;  // built at the first check that may use them
  std::vector<check_internal::LeadOrder> leads;
  std::vector<check_internal::Snapshot> cache;
  std::vector<check_internal::Snapshot> spare;  // evicted snapshots, their buffers reused
  std::uint64_t cache_words = 0, budget_words = 0, tick = 0;
  std::vector<Pending> pending;  // prefetched, in prefetch order
  // The classes of prefetch's `around` (refinement): each histogram
  // entry's class, and the histogram's codes attribute by attribute (built
  // for an attribute when first refined).
  std::vector<std::uint32_t> around_member;
  std::uint32_t around_classes = 0;
  std::vector<std::vector<std::uint32_t>> columns;
  // And its slots by position of a lead's copy, for its generalizations in
  // one attribute (bottom-up's successors).
  check_internal::RangeBase range_base;
  // The lanes (lanes[0] runs every check computed on the spot) and those
  // not running a check; a concurrent check takes an idle one or a new one.
  std::mutex lanes_mutex;
  std::vector<std::unique_ptr<HashState>> lanes;
  std::vector<HashState*> idle;

  HashState& lane0();
  // Builds the leads (once; not from concurrent checks). With leads, no
  // snapshots are cached.
  void build_leads(const Problem& problem);
  HashState* acquire_lane();
  void release_lane(HashState* lane);
};

}  // namespace deid
