// Internal to src/check: what a Checker keeps across checks (its grouping
// tables and buffers, the level-to-level maps, the snapshot cache), shared
// by the files of src/check.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "check/grouping.h"
#include "check/partitioned.h"
#include "check/snapshot_cache.h"
#include "deid/check.h"

namespace deid {

// Grouping state kept across checks to avoid reallocating the hash tables.
struct Checker::HashState {
  check_internal::SlotTable slot_table;  // grouping by slot
  check_internal::PartitionScratch partitions;  // partitioned grouping of large sources
  // Grouping of keys whose mixed-radix slot does not fit 63 bits.
  absl::flat_hash_map<std::string, std::uint32_t> wide_index;
  // up[q][a][b]: code at level a → code at level b (a < b) of attribute q.
  std::vector<std::vector<std::vector<std::vector<std::uint32_t>>>> up;
  std::vector<std::uint32_t> member;  // source class → class of the check
  // Direct-addressed grouping (see group_source): slot → class, all unused
  // slots kMissing; `used` lists the slots to reset after a check.
  std::vector<std::uint32_t> dense;
  std::vector<std::uint64_t> used;
  std::vector<std::vector<std::uint64_t>> scaled;  // per attribute: code → slot contribution
  std::vector<std::vector<std::uint32_t>> codes;   // per attribute: the identity on codes
  std::unique_ptr<std::uint64_t[]> count_buffer;   // grouping output, room for buffer_classes
  std::size_t buffer_classes = 0;
  std::size_t last_classes = 0;  // classes of the last hashed grouping
  std::vector<check_internal::Snapshot> cache;
  std::vector<check_internal::Snapshot> spare;        // evicted snapshots, their buffers reused
  std::uint64_t cache_words = 0, budget_words = 0, tick = 0;
};

}  // namespace deid
