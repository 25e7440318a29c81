// The snapshot cache (see snapshot_cache.h): which checks are kept, what is
// evicted, and which snapshot a check rolls up from.
#include "check/snapshot_cache.h"

#include <algorithm>
#include <utility>

#include "check/checker_state.h"

namespace deid::check_internal {

namespace {

// A check's classes are cached for roll-ups only when the histogram has at
// least this many times as many entries (worth_keeping).
constexpr std::size_t kSnapshotShare = 10;

}  // namespace

Snapshot* cached_source(Checker::Shared& sh, const Transformation& t, std::size_t histogram_entries) {
  Snapshot* from = nullptr;
  for (Snapshot& sn : sh.cache)
    if (sn.counts.size() < (from ? from->counts.size() : histogram_entries) && leq(sn.levels, t)) from = &sn;
  if (from) from->last_used = ++sh.tick;
  return from;
}

// Only snapshots of at most a tenth of the histogram's entries are kept
// (one no smaller than the histogram is never a better source): larger ones
// were rarely the source of a later check, and keeping them (writing their
// keys, evicting smaller ones) cost more than they saved. On the survey
// table, keeping every snapshot smaller than the histogram gave 279 roll-ups
// and 40.7 s of CPU, a tenth 92 roll-ups and 32.2 s (peak RSS 404 → 333
// MB); cup 1.69 → 1.51 s; adult and the synthetic 10-attribute best-first
// search unchanged.
bool worth_keeping(const Checker::Shared& sh, std::size_t classes, std::uint32_t width,
                   std::size_t histogram_entries) {
  return classes * kSnapshotShare <= histogram_entries && std::uint64_t{classes} * width <= sh.budget_words / 2;
}

// The snapshot gets a copy of the classes, into the buffers of an evicted
// snapshot when there is one; the check's own buffers, with room for a whole
// source, stay with its lane. (Handing them to the snapshot and taking
// smaller ones back made most checks allocate fresh buffers: the kernel's
// zeroing of their pages was a fifth of an adult run.)
void fill_snapshot(Snapshot& sn, const Transformation& t, const Classes& cls, std::vector<ClassDistributions>& dists) {
  sn.levels = t;
  sn.keys.assign(cls.keys.begin(), cls.keys.end());
  sn.counts.assign(cls.counts.begin(), cls.counts.end());
  sn.dists.swap(dists);
}

void insert_snapshot(Checker::Shared& sh, Snapshot& sn, CheckStatistics& stats) {
  const std::uint64_t words = sn.keys.size();
  while (!sh.cache.empty() && (sh.cache_words + words > sh.budget_words || sh.cache.size() >= 256)) {
    auto lru = std::min_element(sh.cache.begin(), sh.cache.end(),
                                [](const Snapshot& a, const Snapshot& b) { return a.last_used < b.last_used; });
    sh.cache_words -= lru->keys.size();
    // Keep a few evicted buffers for reuse and free the rest: one large
    // insert can evict many snapshots, and keeping all their buffers made
    // memory grow without bound (349 MB peak on the synthetic 10-QI search).
    if (sh.spare.size() < 2) sh.spare.push_back(std::move(*lru));
    *lru = std::move(sh.cache.back());
    sh.cache.pop_back();
  }
  sn.last_used = ++sh.tick;
  sh.cache_words += words;
  sh.cache.push_back(std::move(sn));
  sn = Snapshot{};
  if (!sh.spare.empty()) {
    sn = std::move(sh.spare.back());
    sh.spare.pop_back();
  }
  stats.cached_snapshots = sh.cache.size();
  stats.largest_cache_words = std::max(stats.largest_cache_words, sh.cache_words);
}

}  // namespace deid::check_internal
