// The snapshot cache (see snapshot_cache.h): which checks are kept, what is
// evicted, and which snapshot a check rolls up from.
#include "check/snapshot_cache.h"

#include <algorithm>
#include <utility>

#include "check/checker_state.h"
#include "check/partitioned.h"

namespace deid {
namespace check_internal {

Snapshot* cached_source(Checker::HashState& hs, const Transformation& t, std::size_t histogram_entries) {
  Snapshot* from = nullptr;
  for (Snapshot& sn : hs.cache)
    if (sn.counts.size() < (from ? from->counts.size() : histogram_entries) && leq(sn.levels, t)) from = &sn;
  if (from) from->last_used = ++hs.tick;
  return from;
}

}  // namespace check_internal

using check_internal::Snapshot;

namespace {

// A check's classes are cached for roll-ups only when the histogram has at
// least this many times as many entries (Checker::remember).
constexpr std::size_t kSnapshotShare = 10;

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
  materialize_keys(hs.partitions, cls);
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

}  // namespace deid
