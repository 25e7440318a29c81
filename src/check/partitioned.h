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

// Bounded memory: the tables of a grouping in passes may take at least this
// many bytes (else a quarter of the histogram's size).
constexpr std::uint64_t kBoundedTableBytes = std::uint64_t{1} << 20;

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
  // Per class of the partition layout: its first member. Uninitialized
  // when grown (CodeVector): the bounded paths size it to the source once
  // and touch only the classes they write.
  CodeVector rep;
  // Room in `rep` for n classes, uninitialized; an earlier check's are not
  // kept, so growing copies nothing.
  void rep_room(std::size_t n) {
    if (rep.size() >= n) return;
    rep.clear();
    rep.resize(n);
  }
  std::vector<std::uint64_t> sum;               // per class of the partition layout: count
  std::vector<SlotTable::Cell> pass_cells;       // group_passes: the cells of a pass's classes
  tbb::enumerable_thread_specific<SlotTable> tables;
  // Keys not yet written (see materialize_keys): the source's keys and the
  // per-attribute code maps of the last partitioned grouping. `linear`:
  // class c's first member is rep[c] (group_passes, ranged grouping of a
  // permutation), else rep is in the partition layout above.
  bool keys_pending = false;
  bool linear = false;
  const PackedKeys* packed = nullptr;  // linear: rep[c] is a position of this copy, not a source member
  const std::uint32_t* source_keys = nullptr;
  const std::uint16_t* source_keys16 = nullptr;  // linear: the source's keys in two bytes per code instead
  std::uint32_t width = 0;
  std::vector<const std::uint32_t*> codes;
};

// Groups a.n members into classes (see above). Returns the classes; fills
// a.out_counts and (when not null) a.member, and leaves the keys to
// materialize_keys().
std::uint32_t group_partitioned(const GroupArgs& a, PartitionScratch& ps);

// Bounded memory (Problem::bounded_memory): groups a.n members (the whole
// histogram) in `passes` passes, each over the classes whose slot hashes to
// it, with a table sized to that pass's classes instead of the whole
// grouping's, and without the partitioned path's per-member arrays. Classes
// are numbered pass by pass in first appearance (the same for any number
// of threads: one thread runs it). Fills `counts` (instead of
// a.out_counts, whose room for every member would be touched) and (when
// not null) a.member; the keys are left to materialize_keys (ps.rep[c] is class c's
// first member). a.table and a.used (room for a.n) are its scratch.
std::uint32_t group_passes(const GroupArgs& a, PartitionScratch& ps, std::size_t passes,
                           CountVector& counts);

// The passes for a grouping of `members` expected to make about `classes`
// classes when the tables may take `table_bytes`.
std::size_t grouping_passes(std::size_t classes, std::uint64_t table_bytes);

// Leaves the keys of the last grouping for materialize_keys: class c's key
// is its first member's (ps.rep[c], an entry of `keys`, `width` codes)
// generalized by `codes`.
void keys_from_representatives(PartitionScratch& ps, const std::uint32_t* keys, std::uint32_t width,
                               const std::vector<const std::uint32_t*>& codes);
// The same for a grouping of a packed copy: ps.rep[c] is a position in `packed`.
void keys_from_representatives(PartitionScratch& ps, const PackedKeys& packed,
                               const std::vector<const std::uint32_t*>& codes);
// The same for keys in two bytes per code (a lead's sorted copy, ranges.h).
void keys_from_representatives(PartitionScratch& ps, const std::uint16_t* keys16, std::uint32_t width,
                               const std::vector<const std::uint32_t*>& codes);

// Writes the keys of `cls` when its grouping (the last one that used `ps`)
// left them for later; otherwise does nothing.
void materialize_keys(PartitionScratch& ps, Classes& cls);

// Reads, class by class, the keys materialize_keys would write, without
// writing them (Classes::pending_keys). REQUIRES: readable_keys(ps).
class PendingKeys final : public KeyReader {
 public:
  explicit PendingKeys(const PartitionScratch& ps) : ps_(ps) {}
  void read(std::size_t c, std::uint32_t* out) const override;

 private:
  const PartitionScratch& ps_;
};

// Whether the keys of the last grouping that used `ps` are pending and can
// be read class by class: each class's first member is ps.rep[c] (a linear
// grouping), not in the partition layout.
inline bool readable_keys(const PartitionScratch& ps) { return ps.keys_pending && ps.linear; }

}  // namespace deid::check_internal
