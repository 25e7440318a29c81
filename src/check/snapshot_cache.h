// Internal to src/check: the cache of snapshots, the classes of earlier
// checks that later checks roll up from (see check.h: a check's classes
// follow from those of any specialization). Bounded in words of keys and in
// snapshots, least recently used evicted first; Checker::remember fills it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "check/distributions.h"
#include "deid/check.h"
#include "deid/lattice.h"

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
Snapshot* cached_source(Checker::HashState& hs, const Transformation& t, std::size_t histogram_entries);

}  // namespace deid::check_internal
