// Internal to src/check: the cache of snapshots, the classes of earlier
// checks that later checks roll up from (see check.h: a check's classes
// follow from those of any specialization). Bounded in words of keys and in
// snapshots, least recently used evicted first. A check copies its classes
// into a snapshot when they are worth keeping (keep_snapshot, in the lane
// that ran it); the snapshot enters the cache when the check is counted
// (insert_snapshot), so the cache changes only between concurrent checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "check/distributions.h"
#include "deid/check.h"

namespace deid::check_internal {

// The classes of a checked transformation, kept to roll later checks up from.
struct Snapshot {
  Transformation levels;
  CodeVector keys;
  std::vector<std::uint64_t> counts;
  std::vector<ClassDistributions> dists;  // when some model needs them
  std::uint64_t last_used = 0;
};

// The smallest cached snapshot whose levels are a specialization of `t`
// (componentwise ≤), marked as used, or nullptr when none has fewer classes
// than the histogram's `histogram_entries` (the histogram is then the
// better source).
Snapshot* cached_source(Checker::Shared& sh, const Transformation& t, std::size_t histogram_entries);

// Whether the classes of a check (`classes` of `width` words) are worth a
// snapshot: at most a tenth of the histogram's entries and half the budget.
bool worth_keeping(const Checker::Shared& sh, std::size_t classes, std::uint32_t width, std::size_t histogram_entries);

// Copies the classes `cls` of `t` (keys written) and their distributions
// (taken) into `sn`, reusing its buffers.
void fill_snapshot(Snapshot& sn, const Transformation& t, const Classes& cls, std::vector<ClassDistributions>& dists);

// Puts `sn` into the cache (taking its buffers, leaving it with spare ones
// when there are), evicting the least recently used snapshots beyond the
// budget. Updates the cache figures of `stats`.
void insert_snapshot(Checker::Shared& sh, Snapshot& sn, CheckStatistics& stats);

}  // namespace deid::check_internal
