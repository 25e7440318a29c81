// The check of one transformation (see check.h): choose the source (a cached
// snapshot or the histogram), group it into classes, ask the privacy models
// which classes hold, suppress the others within the limit, and measure the
// quality; then cache the classes for later roll-ups. How the classes are
// grouped is in grouping.h and partitioned.h, the cache in
// snapshot_cache.h, the roll-up of sensitive distributions in
// distributions.h.
#include "deid/check.h"

#include <algorithm>
#include <vector>

#include "check/checker_state.h"
#include "check/distributions.h"
#include "check/grouping.h"
#include "check/partitioned.h"
#include "check/snapshot_cache.h"

namespace deid {

Lattice Problem::lattice() const {
  std::vector<int> heights;
  for (const auto& h : hierarchies) heights.push_back(h.height());
  return Lattice(heights);
}

bool Problem::monotonic() const {
  return std::all_of(privacy.begin(), privacy.end(), [](const auto& m) { return m->monotonic(); });
}

using check_internal::cached_source;
using check_internal::ClassDistributions;
using check_internal::group_source;
using check_internal::materialize_keys;
using check_internal::roll_up_distributions;
using check_internal::Snapshot;
using check_internal::Source;

Checker::Checker(const Problem& problem) : problem_(problem), hash_(new HashState) {
  // Level-to-level maps, from the data codes' maps (hierarchy validation
  // guarantees that a level-a value has one ancestor at every level b > a).
  hash_->up.resize(problem.hierarchies.size());
  for (std::size_t q = 0; q < problem.hierarchies.size(); ++q) {
    const Generalization& g = problem.hierarchies[q];
    const int H = g.height();
    const std::size_t n = g.map(0).size();
    auto& up = hash_->up[q];
    up.resize(static_cast<std::size_t>(H));
    for (int a = 0; a < H; ++a) {
      up[a].resize(static_cast<std::size_t>(H));
      for (int b = a + 1; b < H; ++b) {
        auto& m = up[a][b];
        m.assign(g.domain_size(a), 0);
        for (std::size_t d = 0; d < n; ++d) m[g.map(a)[d]] = g.map(b)[d];
      }
    }
  }
  // The cache may hold about 8 times the histogram's keys, at least 4 Mi and
  // at most 16 Mi words (64 MiB): on the 1.2 M-row survey table, 8 times the
  // keys (266 MB) put the whole job at 1.2 GB peak.
  hash_->budget_words = std::clamp<std::uint64_t>(8 * problem.histogram.keys.size(), 1u << 22, 1u << 24);
}

Checker::~Checker() { delete hash_; }

CheckResult Checker::check(const Transformation& t, Classes* classes_out) {
  Classes& cls = classes_out ? *classes_out : scratch_;
  HashState& hs = *hash_;
  const Histogram& hist = problem_.histogram;

  // The source: the smallest cached specialization of t, else the histogram.
  // A caller that wants the classes gets them from the histogram, with
  // entry_class filled.
  Snapshot* from = classes_out ? nullptr : cached_source(hs, t, hist.size());
  std::uint64_t min_size = 1;
  bool need_dist = false;
  for (const auto& m : problem_.privacy) {
    min_size = std::max(min_size, m->minimal_class_size());
    need_dist = need_dist || m->needs_distributions();
  }
  ++stats_.checks;
  stats_.grouped += from ? from->counts.size() : hist.size();
  if (from) {
    ++stats_.rolled_up;
    group_source(problem_, hs, Source{from->keys.data(), from->counts.data(), from->counts.size(), &from->levels}, t,
                 cls, need_dist, false);
  } else if (classes_out) {
    ++stats_.from_histogram;
    group(t, cls);
  } else {
    ++stats_.from_histogram;
    group_source(problem_, hs, Source{hist.keys.data(), hist.counts.data(), hist.size(), nullptr}, t, cls, need_dist,
                 false);
  }

  CheckResult r;
  r.transformation = t;
  r.classes = cls.size();

  std::vector<ClassDistributions> dists;
  if (need_dist)
    dists = roll_up_distributions(problem_, from ? from->dists : problem_.histogram.sensitive, hs.member, cls.size());
  dist_scratch_.resize(dists.size());

  std::uint64_t suppressed = 0;
  for (std::size_t c = 0; c < cls.size(); ++c) {
    bool holds = cls.counts[c] >= min_size;
    if (holds) {
      ClassView view;
      view.count = cls.counts[c];
      if (need_dist) {
        for (std::size_t s = 0; s < dists.size(); ++s) {
          const auto& d = dists[s];
          const auto b = d.offsets[c], e = d.offsets[c + 1];
          dist_scratch_[s] = {std::span<const std::uint32_t>(d.codes.data() + b, e - b),
                              std::span<const std::uint64_t>(d.counts.data() + b, e - b)};
        }
        view.sensitive = dist_scratch_;
      }
      for (const auto& m : problem_.privacy)
        if (!m->holds(view)) {
          holds = false;
          break;
        }
    }
    if (!holds) {
      cls.suppressed[c] = 1;
      suppressed += cls.counts[c];
    }
  }
  // Dataset-level models (population uniqueness) see the output after the
  // class-level suppression and may suppress further classes (privacy.h);
  // like ARX, only when the class-level suppression is within the limit.
  bool dataset_models_hold = true;
  if (suppressed <= problem_.max_suppressed) {
    // Dataset-level models and the quality of a solution may read keys;
    // otherwise only remember() does (lower bounds never read them).
    materialize_keys(hs.partitions, cls);
    cls.suppressed_records = suppressed;
    for (const auto& m : problem_.privacy)
      if (m->dataset_level() && !m->enforce(problem_, t, cls, problem_.max_suppressed)) {
        dataset_models_hold = false;
        break;
      }
    suppressed = cls.suppressed_records;
  }
  r.suppressed_records = suppressed;
  r.solution = dataset_models_hold && suppressed <= problem_.max_suppressed;

  // The bound is the loss with nothing suppressed.
  std::vector<std::uint8_t> flags;
  flags.swap(cls.suppressed);
  cls.suppressed.assign(cls.size(), 0);
  cls.suppressed_records = 0;
  r.lower_bound = problem_.quality->lower_bound(problem_, t, cls);
  cls.suppressed.swap(flags);
  cls.suppressed_records = suppressed;
  if (r.solution) r.quality = problem_.quality->evaluate(problem_, t, cls);
  if (!classes_out) remember(t, cls, dists);
  return r;
}

}  // namespace deid
