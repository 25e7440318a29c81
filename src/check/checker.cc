// The check of one transformation (see check.h): choose the source (a cached
// snapshot or the histogram), group it into classes, ask the privacy models
// which classes hold, suppress the others within the limit, and measure the
// quality; then cache the classes for later roll-ups; and the checks
// computed ahead of time, concurrently (Checker::prefetch). How the classes are
// grouped is in grouping.h and partitioned.h, the cache in
// snapshot_cache.h, the roll-up of sensitive distributions in
// distributions.h.
#include "deid/check.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <vector>

#include "check/checker_state.h"
#include "check/distributions.h"
#include "check/grouping.h"
#include "check/partitioned.h"
#include "check/ranges.h"
#include "check/snapshot_cache.h"

namespace deid {

Lattice Problem::lattice() const {
  std::vector<int> heights;
  for (const auto& h : hierarchies) heights.push_back(h.height());
  return Lattice(heights, min_levels, max_levels);
}

bool Problem::monotonic() const {
  return std::all_of(privacy.begin(), privacy.end(), [](const auto& m) { return m->monotonic(); });
}

using check_internal::cached_source;
using check_internal::ClassDistributions;
using check_internal::fill_snapshot;
using check_internal::group_source;
using check_internal::insert_snapshot;
using check_internal::materialize_keys;
using check_internal::roll_up_distributions;
using check_internal::best_lead;
using check_internal::Snapshot;
using check_internal::Source;
using check_internal::worth_keeping;

namespace {

// Keeps the buffers of a snapshot that is no longer needed for reuse (at
// most two, as the cache keeps of evicted ones).
void recycle(Checker::Shared& sh, Snapshot& sn) {
  if (sh.spare.size() < 2 && sn.keys.capacity() > 0) sh.spare.push_back(std::move(sn));
  sn = Snapshot{};
}

}  // namespace

Checker::Checker(const Problem& problem) : problem_(problem), shared_(new Shared), current_(new Pending) {
  Shared& sh = *shared_;
  // Level-to-level maps, from the data codes' maps (hierarchy validation
  // guarantees that a level-a value has one ancestor at every level b > a).
  sh.up.resize(problem.hierarchies.size());
  for (std::size_t q = 0; q < problem.hierarchies.size(); ++q) {
    const Generalization& g = problem.hierarchies[q];
    const int H = g.height();
    const std::size_t n = g.map(0).size();
    auto& up = sh.up[q];
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
  sh.ranged_models = std::none_of(problem.privacy.begin(), problem.privacy.end(), [](const auto& m) {
    return m->needs_distributions() || m->dataset_level();
  }) && !(problem.quality && problem.quality->needs_distributions());
  // The cache may hold about 8 times the histogram's keys, at least 4 Mi and
  // at most 16 Mi words (64 MiB): on the 1.2 M-row survey table, 8 times the
  // keys (266 MB) put the whole job at 1.2 GB peak.
  sh.budget_words = std::clamp<std::uint64_t>(8 * problem.histogram.keys.size(), 1u << 22, 1u << 24);
  sh.lanes.push_back(std::make_unique<HashState>());
  sh.lanes[0]->up = &sh.up;
  sh.idle.push_back(sh.lanes[0].get());
}

Checker::~Checker() = default;

void Checker::Shared::build_leads(const Problem& problem) {
  if (leads_built) return;
  leads_built = true;
  if (!ranged_models) return;
  leads = check_internal::build_leads(problem);
  // With leads no snapshot is cached (compute): checks from the histogram
  // by ranges stop early or group cache-sized ranges, and rolled up only 4
  // of adult's 1,086 checks, 12 of cup's 1,434 and 26 of the survey table's
  // 2,482, while filling the cache cost more CPU than that saved and 90 MB
  // of the survey table's peak (334 -> 244 MB without it).
}

Checker::HashState& Checker::Shared::lane0() { return *lanes[0]; }

Checker::HashState* Checker::Shared::acquire_lane() {
  const std::lock_guard<std::mutex> lock(lanes_mutex);
  if (idle.empty()) {
    lanes.push_back(std::make_unique<HashState>());
    lanes.back()->up = &up;
    return lanes.back().get();
  }
  HashState* lane = idle.back();
  idle.pop_back();
  return lane;
}

void Checker::Shared::release_lane(HashState* lane) {
  const std::lock_guard<std::mutex> lock(lanes_mutex);
  idle.push_back(lane);
}

void Checker::group(const Transformation& t, Classes& out) {
  const Histogram& hist = problem_.histogram;
  HashState& hs = shared_->lane0();
  group_source(problem_, hs, Source{hist.keys.data(), hist.counts.data(), hist.size(), nullptr}, t, out, true, true);
  materialize_keys(hs.partitions, out);
  // The members move out (the lane's next grouping allocates anew): a copy
  // was a second array of the histogram's entries at the search's peak.
  out.entry_class.swap(hs.member);
}

void Checker::compute(HashState& hs, const Transformation& t, const Snapshot* from, Classes* classes_out,
                      Pending& p, int refine_q, bool raise) const {
  Classes& cls = classes_out ? *classes_out : hs.classes;
  const Histogram& hist = problem_.histogram;
  std::uint64_t min_size = 1;
  bool need_dist = false;
  for (const auto& m : problem_.privacy) {
    min_size = std::max(min_size, m->minimal_class_size());
    need_dist = need_dist || m->needs_distributions();
  }
  need_dist = need_dist || problem_.quality->needs_distributions();
  p.rolled_up = from != nullptr;
  p.grouped = from ? from->counts.size() : hist.size();
  p.keep = false;
  p.ranged = false;
  p.refined = refine_q >= 0;
  bool complete = true;
  const check_internal::LeadOrder* lead =
      from || classes_out || p.refined || !shared_->ranged_models ? nullptr : best_lead(shared_->leads, t);
  if (lead) {
    // Range by range; classes that violate the models are those a class of
    // their size violates (no model here reads distributions).
    check_internal::EarlyStop rule;
    rule.max_suppressed = problem_.max_suppressed;
    rule.holds = [&](std::uint64_t count) {
      if (count < min_size) return false;
      ClassView view;
      view.count = count;
      return std::all_of(problem_.privacy.begin(), problem_.privacy.end(),
                         [&](const auto& m) { return m->holds(view); });
    };
    const bool may_stop = stop_early_ && !problem_.quality->bound_reads_classes();
    const auto done = check_internal::group_ranges(problem_, hs, *lead, t, cls, may_stop ? &rule : nullptr, p.grouped);
    p.ranged = done.has_value();
    complete = done.value_or(true);
  }
  if (p.ranged) {
    // Grouped above.
  } else if (p.refined && raise) {
    check_internal::group_ranges_from_base(problem_, hs, shared_->range_base, t, static_cast<std::uint32_t>(refine_q),
                                           cls, p.grouped);
    p.ranged = true;
  } else if (p.refined) {
    const auto q = static_cast<std::uint32_t>(refine_q);
    check_internal::group_refined(problem_, hs, shared_->around_member.data(), shared_->around_classes,
                                  shared_->columns[q].data(), q, t, cls);
  } else if (from) {
    group_source(problem_, hs, Source{from->keys.data(), from->counts.data(), from->counts.size(), &from->levels}, t,
                 cls, need_dist, false);
  } else if (classes_out) {
    group_source(problem_, hs, Source{hist.keys.data(), hist.counts.data(), hist.size(), nullptr}, t, cls, true, true);
    materialize_keys(hs.partitions, cls);
    cls.entry_class.swap(hs.member);
  } else {
    group_source(problem_, hs, Source{hist.keys.data(), hist.counts.data(), hist.size(), nullptr}, t, cls, need_dist,
                 false);
  }

  CheckResult& r = p.result;  // `t` may be r.transformation (prefetch)
  if (&r.transformation != &t) r.transformation = t;
  r.quality = QualityValue{};
  r.classes = cls.size();

  std::vector<ClassDistributions> dists;
  if (need_dist)
    dists = roll_up_distributions(problem_, from ? from->dists : hist.sensitive,
                                  classes_out ? cls.entry_class : hs.member, cls.size());
  auto& dist_scratch = hs.dist_scratch;
  dist_scratch.resize(dists.size());

  // With a research subset, a class without subset records is never
  // suppressed (it has none to suppress); δ-presence failing on it fails
  // the transformation, unless a model with a minimal class size judges it
  // first (ARX's HashGroupify.analyze; privacy/delta_presence.h).
  const bool subset = problem_.has_subset();
  const PrivacyModel* presence = nullptr;
  if (subset) {
    bool sized = false;
    for (const auto& m : problem_.privacy) {
      if (m->delta_presence()) presence = m.get();
      sized = sized || m->declares_minimal_class_size();
    }
    if (sized) presence = nullptr;
  }
  bool presence_holds = true;
  const auto fill_view = [&](ClassView& view, std::size_t c) {
    view.count = cls.counts[c];
    if (!need_dist) return;
    for (std::size_t s = 0; s < dists.size(); ++s) {
      const auto& d = dists[s];
      const auto b = d.offsets[c], e = d.offsets[c + 1];
      dist_scratch[s] = {std::span<const std::uint32_t>(d.codes.data() + b, e - b),
                         std::span<const std::uint64_t>(d.counts.data() + b, e - b)};
    }
    view.sensitive = dist_scratch;
    if (subset) view.population = class_population(problem_, dists, c);
  };
  std::uint64_t suppressed = 0;
  for (std::size_t c = 0; c < cls.size(); ++c) {
    if (subset && cls.counts[c] == 0) {
      if (presence && presence_holds) {
        ClassView view;
        fill_view(view, c);
        presence_holds = presence->holds(view);
      }
      continue;
    }
    bool holds = cls.counts[c] >= min_size;
    if (holds) {
      ClassView view;
      fill_view(view, c);
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
  bool dataset_models_hold = presence_holds;
  if (presence_holds && suppressed <= problem_.max_suppressed) {
    // Dataset-level models may read keys (written before the first of
    // them), and the quality of a solution (below); otherwise only a
    // snapshot does (lower bounds never read them).
    cls.suppressed_records = suppressed;
    if (need_dist) cls.distributions = &dists;
    for (const auto& m : problem_.privacy) {
      if (!m->dataset_level()) continue;
      materialize_keys(hs.partitions, cls);
      if (!m->enforce(problem_, t, cls, problem_.max_suppressed)) {
        dataset_models_hold = false;
        break;
      }
    }
    cls.distributions = nullptr;
    suppressed = cls.suppressed_records;
  }
  r.suppressed_records = suppressed;
  r.solution = complete && dataset_models_hold && suppressed <= problem_.max_suppressed;
  r.complete = complete;
  r.kept_classes = r.smallest_class = 0;
  if (r.solution)
    for (std::size_t c = 0; c < cls.size(); ++c)
      if (!cls.suppressed[c] && cls.counts[c] != 0) {
        ++r.kept_classes;
        if (r.smallest_class == 0 || cls.counts[c] < r.smallest_class) r.smallest_class = cls.counts[c];
      }

  // The bound is the loss with nothing suppressed. The flags are set aside
  // in the lane's buffer (a fresh vector per check was 9 % of an adult run
  // in memset and page faults), and not at all for a bound that does not
  // read the classes.
  if (problem_.quality->bound_reads_classes()) {
    materialize_keys(hs.partitions, cls);  // some bounds read keys (ambiguity)
    std::vector<std::uint8_t>& flags = hs.flags;
    flags.swap(cls.suppressed);
    cls.suppressed.assign(cls.size(), 0);
    cls.suppressed_records = 0;
    r.lower_bound = problem_.quality->lower_bound(problem_, t, cls);
    cls.suppressed.swap(flags);
    cls.suppressed_records = suppressed;
  } else {
    r.lower_bound = problem_.quality->lower_bound(problem_, t, cls);
  }
  if (r.solution || (measure_all_ && complete)) {
    // A non-solution (measure_all_): the loss of the output with every
    // violating class suppressed, beyond the limit.
    if (!r.solution) cls.suppressed_records = suppressed;
    // A model that reads keys through Classes::key reads those it needs
    // from the classes' first members instead of all classes' keys being
    // written (with bounded memory the largest single item of the search's
    // peak above the histogram: 36 bytes per class of the survey table).
    const check_internal::PendingKeys pending(hs.partitions);
    if (check_internal::readable_keys(hs.partitions) && problem_.quality->reads_keys_lazily(problem_))
      cls.pending_keys = &pending;
    else
      materialize_keys(hs.partitions, cls);
    if (need_dist) cls.distributions = &dists;
    r.quality = problem_.quality->evaluate(problem_, t, cls);
    cls.distributions = nullptr;
    cls.pending_keys = nullptr;
  }
  if (!classes_out && complete && shared_->leads.empty() && worth_keeping(*shared_, cls.size(), cls.width, hist.size())) {
    materialize_keys(hs.partitions, cls);
    fill_snapshot(p.snapshot, t, cls, dists);
    p.keep = true;
  }
}

void Checker::commit(Pending& p) {
  ++stats_.checks;
  ++(p.rolled_up ? stats_.rolled_up : stats_.from_histogram);
  stats_.ranged += p.ranged;
  stats_.refined += p.refined;
  stats_.stopped_early += p.ranged && !p.result.complete;
  stats_.grouped += p.grouped;
  if (p.keep) insert_snapshot(*shared_, p.snapshot, stats_);
  p.keep = false;
}

CheckResult Checker::check(const Transformation& t, Classes* classes_out) {
  Shared& sh = *shared_;
  if (!classes_out) {
    const auto it = std::find_if(sh.pending.begin(), sh.pending.end(),
                                 [&](const Pending& p) { return p.result.transformation == t; });
    if (it != sh.pending.end()) {
      Pending p = std::move(*it);
      sh.pending.erase(it);
      ++stats_.speculative_used;
      commit(p);
      recycle(sh, p.snapshot);
      return std::move(p.result);
    }
  }
  if (!classes_out) sh.build_leads(problem_);
  // The source: the smallest cached specialization of t, else the histogram.
  // A caller that wants the classes gets them from the histogram, with
  // entry_class filled.
  const Snapshot* from = classes_out ? nullptr : cached_source(sh, t, problem_.histogram.size());
  compute(sh.lane0(), t, from, classes_out, *current_);
  commit(*current_);
  return current_->result;
}

bool Checker::prefetched(const Transformation& t) const {
  return std::any_of(shared_->pending.begin(), shared_->pending.end(),
                     [&](const Pending& p) { return p.result.transformation == t; });
}

namespace {

// The one attribute in which `t` differs from `around`, or -1; `up`: t's
// level is the higher one there.
int changed_attribute(const Transformation& t, const Transformation& around, bool& up) {
  int q = -1;
  for (std::size_t a = 0; a < t.size(); ++a) {
    if (t[a] == around[a]) continue;
    if (q >= 0) return -1;
    q = static_cast<int>(a);
    up = t[a] > around[a];
  }
  return q;
}

}  // namespace

void Checker::prefetch(std::span<const Transformation> ts, const Transformation* around) {
  Shared& sh = *shared_;
  sh.build_leads(problem_);
  const std::size_t entries = problem_.histogram.size();
  std::vector<Pending> next;
  next.reserve(ts.size());
  struct Todo {
    std::size_t pending;
    const Snapshot* from;
    int refine_q;
    bool raise;
  };
  // Checks around a transformation (see check.h): with models that judge
  // classes by size alone (no distributions, no dataset-level model, no
  // research subset), checks that run to the end, and the histogram in
  // memory. Specializations in one attribute are grouped from the classes
  // of `around`; generalizations in one attribute, whose checks would
  // group by the ranges of the lead `around` groups by, from around's slots
  // by position of that lead's copy.
  std::vector<int> refine_q(ts.size(), -1);
  std::vector<std::uint8_t> raise(ts.size(), 0);
  if (around && sh.ranged_models && !stop_early_ && !problem_.bounded_memory && !problem_.has_subset()) {
    std::size_t refinable = 0, raisable = 0;
    const check_internal::LeadOrder* lead = best_lead(sh.leads, *around);
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const auto same = [&](const Pending& p) { return p.result.transformation == ts[i]; };
      if (std::any_of(sh.pending.begin(), sh.pending.end(), same)) continue;
      bool up = false;
      const int q = changed_attribute(ts[i], *around, up);
      if (q < 0 || (up && (!lead || best_lead(sh.leads, ts[i]) != lead))) continue;
      refine_q[i] = q;
      raise[i] = up;
      ++(up ? raisable : refinable);
    }
    const bool down_ok = refinable >= kMinRefined;
    const bool up_ok = raisable >= kMinRefined &&
                       check_internal::build_range_base(problem_, sh.lane0(), *lead, *around, sh.range_base);
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (refine_q[i] < 0) continue;
      if (!(raise[i] ? up_ok : down_ok))
        refine_q[i] = -1;
      else if (raise[i])
        check_internal::build_range_column(problem_, sh.range_base, static_cast<std::uint32_t>(refine_q[i]));
    }
    if (down_ok) {
      // The classes of `around`, each entry's class kept.
      HashState& hs = sh.lane0();
      Classes base;
      check_internal::group_source(problem_, hs, Source{problem_.histogram.keys.data(), problem_.histogram.counts.data(),
                                                        entries, nullptr},
                                   *around, base, true, true);
      sh.around_member.swap(hs.member);
      sh.around_classes = static_cast<std::uint32_t>(base.size());
      const std::uint32_t w = problem_.histogram.width;
      sh.columns.resize(w);
      for (std::size_t i = 0; i < ts.size(); ++i) {
        const int q = refine_q[i];
        if (q < 0 || raise[i] || !sh.columns[static_cast<std::size_t>(q)].empty() || entries == 0) continue;
        auto& column = sh.columns[static_cast<std::size_t>(q)];
        column.resize(entries);
        for (std::size_t e = 0; e < entries; ++e) column[e] = problem_.histogram.keys[e * w + static_cast<std::size_t>(q)];
      }
    }
  }
  std::vector<Todo> small, large;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const Transformation& t = ts[i];
    const auto same = [&](const Pending& p) { return p.result.transformation == t; };
    if (std::any_of(next.begin(), next.end(), same)) continue;
    const auto it = std::find_if(sh.pending.begin(), sh.pending.end(), same);
    if (it != sh.pending.end()) {
      next.push_back(std::move(*it));
      sh.pending.erase(it);
      continue;
    }
    next.emplace_back();
    next.back().result.transformation = t;
    if (!sh.spare.empty()) {
      next.back().snapshot = std::move(sh.spare.back());
      sh.spare.pop_back();
    }
    // Sources are chosen here, in the order of `ts`, while the cache holds
    // still. (With ranged models nothing is cached.)
    if (refine_q[i] >= 0) {
      small.push_back({next.size() - 1, nullptr, refine_q[i], raise[i] != 0});
      continue;
    }
    const Snapshot* from = cached_source(sh, t, entries);
    const std::size_t size = from ? from->counts.size() : entries;
    // Ranged checks group sequentially.
    const bool ranged = !from && sh.ranged_models && best_lead(sh.leads, t);
    // With bounded memory all in lane 0: a second lane's tables and classes
    // cost a third of the survey table's peak, and bought it little time.
    const bool concurrent = (size < check_internal::kPartitionMinSource || ranged) && !problem_.bounded_memory;
    (concurrent ? small : large).push_back({next.size() - 1, from, -1, false});
  }
  for (Pending& p : sh.pending) recycle(sh, p.snapshot);
  sh.pending = std::move(next);
  stats_.speculative += small.size() + large.size();
  // Small sources concurrently, a lane per running check; large ones (and
  // all with bounded memory) one after the other in lane 0, their grouping
  // being parallel itself (and a second lane sized for them would cost
  // their buffers twice).
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, small.size(), 1), [&](const tbb::blocked_range<std::size_t>& r) {
    HashState* lane = sh.acquire_lane();
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      Pending& p = sh.pending[small[i].pending];
      compute(*lane, p.result.transformation, small[i].from, nullptr, p, small[i].refine_q, small[i].raise);
    }
    sh.release_lane(lane);
  });
  for (const Todo& todo : large) {
    Pending& p = sh.pending[todo.pending];
    compute(sh.lane0(), p.result.transformation, todo.from, nullptr, p);
  }
}

}  // namespace deid
