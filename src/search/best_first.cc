// Best-first branch and bound, bottom-up (papers/000, "Effective pruning in
// large search spaces": the BFS method).
//
// A priority queue holds transformations keyed by a lower bound of their
// generalization-only loss: the bound of the checked transformation that
// enqueued them (the bound is monotonic, so it bounds its generalizations).
// The head is taken; if its key is already not better than the best
// solution, it has insufficient quality without a check and is pruned with
// all its generalizations. Otherwise it is pruned when the insufficient-
// quality store holds a specialization of it (complete information about
// the property, papers/000 "Efficient management of predictive
// properties"), or, for monotonic privacy models, skipped when the
// insufficient-protection store holds a generalization of it. Otherwise it
// is checked; unless it has insufficient quality, its successors are
// enqueued with its bound as their key. Ties in the queue break by rank and
// then by levels, so the order is deterministic.
//
// Each transformation is enqueued by one parent only, its canonical parent
// (the transformation with its last non-zero level lowered by one): the
// queue then never holds duplicates and no set of visited transformations
// is needed, so memory is proportional to the queue and the stores, not to
// the lattice. It stays complete: a transformation is never reached only
// when its canonical parent was pruned by insufficient quality, which it
// then inherits.
//
// The checks without a path probe are computed ahead of time, with those of
// the next queue heads that would be checked likewise, concurrently
// (speculate(), Evaluator::prefetch); results are taken in the order of the
// search, so its checks and statistics do not depend on the thread count.
//
// With level bounds (QualityModel::level_bound, e.g. Loss) each key is the
// transformation's own bound, computed without a check, so a child not
// better than the best is never queued and no insufficient-quality store
// is needed (PredictiveProperties answers from the bound). A head below a
// known non-solution starts a depth-first walk of its canonical subtree as
// far as it stays below known non-solutions (expand_below): none of those
// needs a check, so they bypass the queue, which then holds only what may
// need one. Flash paths then climb past the region of low bounds, raising
// the attribute of least bound, and their binary search starts from their
// last transformation inside it (probe_path's past_quality).
//
// Run to the end it is optimal. As a heuristic it stops when the evaluator
// is exhausted (search.time-limit, search.max-checks) and returns the best
// solution so far, not proven optimal; it finds good solutions early
// (papers/000, Fig. 7).
//
// The queue is bounded (search.max-queue): when it exceeds the limit, the
// entries of the worse half (by the queue's own order) are dropped with
// the subtrees they would have enqueued, and the smallest key dropped is
// kept. Every transformation in a dropped subtree has a loss of at least
// that key, so when the best solution at the end is strictly below it, the
// drop lost nothing: the optimum (and its tie-break) is still proven.
// Otherwise the outcome is not optimal, stopped by the limit, and the key
// is a proven lower bound of the optimum's loss (statistics).
//
// Warm start (WarmStart, on for a job's best-first): before the greedy
// ascent, bottom-up Lightning and then the genetic algorithm run through the
// same evaluator (warm_start()). The best solution they check is the
// evaluator's best, so the insufficient-quality property prunes with it
// from best-first's first check on, and it is the answer when a limit
// stops best-first before it finds a better one. It is a checked solution,
// so everything pruned is still not better than a solution: the proven
// optimum, and which of equal solutions is returned, do not change.
#include <algorithm>
#include <limits>
#include <vector>

#include "deid/search.h"
#include "search/predictive.h"

namespace deid {
namespace {

using search_internal::PredictiveProperties;

struct Entry {
  LatticeIndex index;  // lexicographic order of the levels
  double key;
  std::uint16_t rank;
  std::uint16_t first_free;  // successors raise attributes >= this one
};

// How the queue stores an entry. The queue is most of best-first's memory
// on wide lattices (hundreds of millions of entries: 4.2 GB after 60 s on
// the 20-attribute census table), so where the lattice allows, an entry
// takes 16 bytes instead of 32 (`Packed`: the key, and rank, index and
// first_free in one word compared as one number: rank first, then index).
// Both orders are the same (key, rank, index), so is the search.
struct Wide {
  using Stored = Entry;
  static Stored pack(const Entry& e) { return e; }
  static Entry unpack(const Stored& s) { return s; }
  // std::priority_queue is a max-heap: "a after b" means a has lower priority.
  struct After {
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.key != b.key) return a.key > b.key;
      if (a.rank != b.rank) return a.rank > b.rank;
      return a.index > b.index;
    }
  };
};

struct Packed {
  // Lattices of at most 2^kIndexBits transformations, ranks and attributes
  // below 256.
  static constexpr int kIndexBits = 48;
  static bool fits(const Lattice& lattice) {
    return lattice.size() <= (LatticeIndex{1} << kIndexBits) && lattice.max_rank() < 256 && lattice.dimensions() <= 256;
  }
  struct Stored {
    double key;
    std::uint64_t bits;  // rank << 56 | index << 8 | first_free
  };
  static Stored pack(const Entry& e) {
    return {e.key, std::uint64_t{e.rank} << 56 | static_cast<std::uint64_t>(e.index) << 8 | e.first_free};
  }
  static Entry unpack(const Stored& s) {
    return {static_cast<LatticeIndex>((s.bits >> 8) & ((std::uint64_t{1} << kIndexBits) - 1)), s.key,
            static_cast<std::uint16_t>(s.bits >> 56), static_cast<std::uint16_t>(s.bits & 0xFF)};
  }
  struct After {
    bool operator()(const Stored& a, const Stored& b) const {
      if (a.key != b.key) return a.key > b.key;
      return a.bits > b.bits;  // distinct entries: index decides among equal ranks
    }
  };
};

// The queue: a binary heap in a vector (std::push_heap and std::pop_heap
// with Codec::After, as std::priority_queue would keep it), so that its
// worse half can be dropped (trim). With bucket_keys(), entries are first
// spread over kBuckets buckets by their key (a bucket is a range of keys,
// and a larger key never goes to an earlier bucket), and only the lowest
// bucket in use is a heap: the order of the entries taken is the same
// (keys in later buckets are strictly larger), but each operation works on
// a heap of that bucket's entries instead of millions (on the synthetic
// 15-attribute job, 12 M entries and a fifth of the search's time in the
// heap's cache misses). Hand-written: a monotone bucket queue over the
// known range of keys, which no library queue offers with this order.
template <class Codec>
class Queue {
 public:
  using Stored = typename Codec::Stored;
  static constexpr std::size_t kBuckets = std::size_t{1} << 16;
  // Keys will lie in [lo, hi] (those outside go to the first or last bucket).
  void bucket_keys(double lo, double hi) {
    if (!(hi > lo) || size_ != 0) return;
    lo_ = lo;
    scale_ = static_cast<double>(kBuckets) / (hi - lo);
    buckets_.assign(kBuckets, {});
    current_ = 0;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // REQUIRES: !empty().
  Entry top() {
    settle();
    return Codec::unpack(heap_.front());
  }
  void pop() {
    settle();
    std::pop_heap(heap_.begin(), heap_.end(), typename Codec::After{});
    heap_.pop_back();
    --size_;
  }
  void push(const Entry& e) {
    const std::size_t b = bucket(e.key);
    if (b <= current_) {
      heap_.push_back(Codec::pack(e));
      std::push_heap(heap_.begin(), heap_.end(), typename Codec::After{});
    } else {
      buckets_[b].push_back(Codec::pack(e));
    }
    ++size_;
  }
  // Keeps the `keep` first entries in the queue's order and drops the
  // others; returns the smallest key dropped (entries are distinct and the
  // order total, so which are kept depends on the entries alone).
  double trim(std::size_t keep) {
    // Gathered bucket by bucket, each freed once copied: at most one bucket
    // beyond the entries at any time.
    std::vector<Stored> all;
    all.reserve(size_);
    all.insert(all.end(), heap_.begin(), heap_.end());
    heap_ = std::vector<Stored>();
    for (auto& bucket : buckets_) {
      all.insert(all.end(), bucket.begin(), bucket.end());
      bucket = std::vector<Stored>();
    }
    const auto before = [](const Stored& a, const Stored& b) { return typename Codec::After{}(b, a); };
    std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(), before);
    // The first dropped comes first among the dropped in the order, whose
    // first criterion is the key.
    const double smallest = Codec::unpack(all[keep]).key;
    all.resize(keep);
    heap_.clear();
    current_ = 0;
    size_ = 0;
    for (const Stored& x : all) push(Codec::unpack(x));
    return smallest;
  }

 private:
  std::size_t bucket(double key) const {
    if (buckets_.empty()) return 0;
    const double x = (key - lo_) * scale_;  // monotone in the key
    if (!(x > 0)) return 0;
    return x >= static_cast<double>(kBuckets - 1) ? kBuckets - 1 : static_cast<std::size_t>(x);
  }
  // Makes the heap hold the lowest bucket in use. REQUIRES: !empty().
  void settle() {
    while (heap_.empty()) {
      ++current_;
      heap_ = std::move(buckets_[current_]);
      buckets_[current_] = std::vector<Stored>();
      std::make_heap(heap_.begin(), heap_.end(), typename Codec::After{});
    }
  }

  std::vector<Stored> heap_;  // the entries of buckets up to current_
  std::vector<std::vector<Stored>> buckets_;  // later buckets, unordered
  std::size_t current_ = 0;
  std::size_t size_ = 0;
  double lo_ = 0, scale_ = 0;
};

// Restores the evaluator after a phase of the warm start, also when a
// progress callback throws out of it.
class PhaseGuard {
 public:
  PhaseGuard(Evaluator& ev, SearchLimits phase) : ev_(ev) { ev_.set_phase_limits(phase); }
  ~PhaseGuard() {
    ev_.clear_phase_limits();
    ev_.set_measure_all(false);  // the heuristics measure every check
  }
  PhaseGuard(const PhaseGuard&) = delete;
  PhaseGuard& operator=(const PhaseGuard&) = delete;

 private:
  Evaluator& ev_;
};

// Runs the warm start's heuristics; returns their figures for the result.
nlohmann::json warm_start(Evaluator& ev, const WarmStart& warm, std::uint64_t& checks_to_best) {
  nlohmann::json stats = nlohmann::json::object();
  const auto phase = [&](const char* key, SearchAlgorithm& algorithm, SearchLimits limits) {
    if (ev.exhausted()) return;
    const std::uint64_t before = ev.checked();
    SearchOutcome o;
    {
      PhaseGuard guard(ev, limits);
      o = algorithm.run(ev);
    }
    // The heuristic's own optimum (ARX's order) may differ from the
    // evaluator's best (better()) only among solutions of equal loss.
    if (o.best && ev.best() && o.best->transformation == ev.best()->transformation)
      checks_to_best = o.statistics.value("checks_to_best", checks_to_best);
    stats[key] = {{"checked", ev.checked() - before},
                  {"information_loss", o.best ? nlohmann::json(o.best->quality.value) : nlohmann::json()},
                  {"stopped_by_limit", o.stopped_by_limit}};
  };
  // Bottom-up: at most warm.bottom_up_checks checks, half of the budget of
  // checks left and half of the time left, so that the genetic algorithm
  // keeps the other half.
  SearchLimits bottom_up;
  std::uint64_t checks = warm.bottom_up_checks;
  if (const auto& max = ev.limits().max_checks) checks = std::min(checks, (*max - std::min(*max, ev.checked())) / 2);
  bottom_up.max_checks = ev.checked() + checks;
  if (const auto& t = ev.limits().time_limit_seconds) {
    const double now = ev.elapsed_seconds();
    bottom_up.time_limit_seconds = now + std::max(0.0, *t - now) / 2;
  }
  if (checks > 0) {
    const auto lightning = make_lightning_search(false);
    phase("bottom_up", *lightning, bottom_up);
  }
  const auto genetic = make_genetic_search(warm.genetic);
  phase("genetic", *genetic, SearchLimits{});
  stats["checked"] = ev.checked();
  stats["information_loss"] = ev.best() ? nlohmann::json(ev.best()->quality.value) : nlohmann::json();
  return stats;
}

class BestFirstSearch final : public SearchAlgorithm {
 public:
  explicit BestFirstSearch(BestFirstOptions options) : warm_(std::move(options.warm)), max_queue_(options.max_queue) {}
  std::string name() const override { return "best-first"; }

  SearchOutcome run(Evaluator& ev) override {
    dropped_ = 0;  // a second run starts afresh
    dropped_key_ = std::numeric_limits<double>::infinity();
    std::uint64_t warm_checks_to_best = 0;
    nlohmann::json warm_stats;
    const bool warm = warm_.enabled && ev.problem().lattice().size() > warm_.min_lattice;
    if (warm) warm_stats = warm_start(ev, warm_, warm_checks_to_best);
    const std::optional<CheckResult> warm_best = ev.best();
    // Keys from the levels only where the down-set's bits answer the walks'
    // queries: on larger lattices (20 attributes and more) a walk below one
    // non-solution found by the greedy ascent ran for the whole of a 60 s
    // limit (362 M transformations, 67 M queued, 2.6 GB) without a check.
    const bool level_bounds = search_internal::DownSet::fits(ev.problem().lattice());
    PredictiveProperties props(ev, /*reexamine=*/true, level_bounds);
    const Lattice& lattice = props.lattice();
    SearchOutcome out;
    out.algorithm = name();

    std::uint64_t largest_queue = 1, popped = 0;
    bool stopped = !search_internal::greedy_ascent(props, ev);
    if (!stopped) {
      stopped = Packed::fits(lattice) ? !search<Packed>(props, ev, largest_queue, popped)
                                      : !search<Wide>(props, ev, largest_queue, popped);
    }
    out.best = ev.best();
    // A drop lost nothing when the best is strictly below every key dropped
    // (and not within same_loss() of it, where a solution of lower rank
    // would tie on loss and win).
    const bool lost = dropped_ > 0 && !(out.best && out.best->quality.value < dropped_key_ &&
                                        !same_loss(out.best->quality.value, dropped_key_));
    if (!stopped && lost) out.stopped_by = "max-queue";
    out.stopped_by_limit = stopped || lost;
    out.optimal = !out.stopped_by_limit;
    out.checked = ev.checked();
    out.time_to_best_seconds = ev.time_to_best_seconds();
    out.statistics = props.statistics();
    if (warm) {
      out.statistics["warm_start"] = warm_stats;
      if (warm_best && out.best && out.best->transformation == warm_best->transformation)
        out.statistics["checks_to_best"] = warm_checks_to_best;
    }
    out.statistics["largest_queue"] = largest_queue;
    out.statistics["dequeued"] = popped;
    out.statistics["max_queue"] = max_queue_;
    out.statistics["queue_dropped"] = dropped_;
    out.statistics["queue_dropped_key"] = dropped_ > 0 ? nlohmann::json(dropped_key_) : nlohmann::json();
    return out;
  }

 private:
  // The queue's part of the search, from the bottom. Returns false when a
  // limit stopped it.
  template <class Codec>
  bool search(PredictiveProperties& props, Evaluator& ev, std::uint64_t& largest_queue, std::uint64_t& popped) {
    const Lattice& lattice = props.lattice();
    const std::size_t m = lattice.dimensions();
    const bool own = props.level_bounds();
    Queue<Codec> queue;
    // Keys are bounds from the bottom's to the top's (monotonic).
    if (own) queue.bucket_keys(props.bound(lattice.bottom()), props.bound(lattice.top()));
    std::vector<Transformation> path;
    queue.push({0, own ? props.bound(lattice.bottom()) : 0.0, 0, 0});
    Transformation t;
    while (!queue.empty()) {
      // The clock also between checks: entries pruned without a check can
      // follow each other by the million on wide lattices (a 60 s limit ran
      // 82 s on the 20-attribute census table). Only the time: a budget of
      // checks is spent by checks alone.
      if ((popped & 1023) == 1023 && ev.out_of_time()) return false;
      const Entry e = queue.top();
      queue.pop();
      ++popped;
      t = lattice.at(e.index);
      // With level bounds the key is t's own bound, which answers for the
      // insufficient-quality store.
      if (props.prune_by_bound(e.key, t) || (!own && props.insufficient_quality(t))) {
        ++props.pruned_quality;
        continue;
      }
      double key = e.key;
      const bool below = props.insufficient_protection(t);
      if (below && own) {
        ++props.pruned_protection;
        if (!expand_below(props, ev, queue, t, e, largest_queue)) return false;
        continue;
      }
      if (below) {
        ++props.pruned_protection;  // its generalizations may still be solutions
      } else {
        const std::uint64_t checked_before = ev.checked();
        if (!props.checked(t) && props.monotonic() && !props.sufficient_protection(t)) {
          if (ev.exhausted() || !search_internal::probe_path(props, ev, t, path, own)) return false;
        }
        // Without a check since the queries above, the stores still say no.
        const bool changed = ev.checked() != checked_before;
        if (changed && props.insufficient_quality(t)) {
          ++props.pruned_quality;
          continue;
        }
        if (changed && props.insufficient_protection(t)) {
          ++props.pruned_protection;
          if (own) {
            if (!expand_below(props, ev, queue, t, e, largest_queue)) return false;
            continue;
          }
        } else {
          std::optional<double> bound = props.checked_bound(t);
          if (!bound) {
            if (ev.exhausted()) return false;
            if (!ev.prefetched(t)) speculate<Codec>(props, ev, queue, t);
            bound = props.check(t).lower_bound;
          }
          if (props.not_better_than_best(*bound, t)) continue;
          key = std::max(key, *bound);
        }
      }
      // Canonical children: raise an attribute at or after the last raised one.
      for (std::size_t i = e.first_free; i < m; ++i) {
        if (t[i] >= lattice.max_level(i)) continue;
        ++t[i];
        if (own) {
          // The child's own bound: pruned here when not better than the best.
          const double b = props.bound(t);
          if (props.not_better_than_best(b, t))
            ++props.pruned_quality;
          else
            queue.push({lattice.index(t), b, static_cast<std::uint16_t>(e.rank + 1), static_cast<std::uint16_t>(i)});
        } else {
          queue.push({lattice.index(t), key, static_cast<std::uint16_t>(e.rank + 1), static_cast<std::uint16_t>(i)});
        }
        --t[i];
      }
      note_size(queue, largest_queue);
    }
    return true;
  }

  // Keeps the queue within max_queue_ (trim); records its largest size.
  template <class Codec>
  void note_size(Queue<Codec>& queue, std::uint64_t& largest_queue) {
    largest_queue = std::max<std::uint64_t>(largest_queue, queue.size());
    if (queue.size() <= max_queue_) return;
    const std::size_t keep = static_cast<std::size_t>(max_queue_ / 2);
    dropped_ += queue.size() - keep;
    dropped_key_ = std::min(dropped_key_, queue.trim(keep));
  }

  // With level bounds (so on lattices the down-set's bits cover): `t`
  // (entry `e`) lies below a known non-solution. Its canonical subtree is
  // walked depth first as far as it stays below known non-solutions, with
  // no check: the bound of each transformation prunes it, the bits tell a
  // non-solution, and the transformations not known to be one are queued
  // with their bounds. The walk checks nothing, so its order does not
  // matter: the queue orders what needs checks. Memory: the stack holds at
  // most the lattice's height times its dimensions. Returns false when time
  // ran out.
  template <class Codec>
  bool expand_below(PredictiveProperties& props, Evaluator& ev, Queue<Codec>& queue, const Transformation& t,
                    const Entry& e, std::uint64_t& largest_queue) {
    const Lattice& lattice = props.lattice();
    const std::size_t m = lattice.dimensions();
    // The levels of the frames, m per frame.
    stack_levels_.assign(t.begin(), t.end());
    stack_.assign(1, Frame{e.rank, e.first_free});
    Transformation x(m);
    std::uint64_t walked = 0;
    while (!stack_.empty()) {
      if ((++walked & 4095) == 0 && ev.out_of_time()) return false;
      const Frame f = stack_.back();
      stack_.pop_back();
      std::copy(stack_levels_.end() - static_cast<std::ptrdiff_t>(m), stack_levels_.end(), x.begin());
      stack_levels_.resize(stack_levels_.size() - m);
      for (std::size_t i = f.first_free; i < m; ++i) {
        if (x[i] >= lattice.max_level(i)) continue;
        ++x[i];
        const double b = props.bound(x);
        if (props.not_better_than_best(b, x)) {
          ++props.pruned_quality;
        } else if (props.insufficient_protection(x)) {
          ++props.pruned_protection;  // below a known non-solution
          stack_levels_.insert(stack_levels_.end(), x.begin(), x.end());
          stack_.push_back(Frame{static_cast<std::uint16_t>(f.rank + 1), static_cast<std::uint16_t>(i)});
        } else {
          queue.push({lattice.index(x), b, static_cast<std::uint16_t>(f.rank + 1), static_cast<std::uint16_t>(i)});
        }
        --x[i];
      }
      note_size(queue, largest_queue);
    }
    return true;
  }

  // Computes the check of `t` ahead of time together with those of the next
  // queue heads that would be checked without a path probe if they came up
  // now (kSpeculation in all, among the next 2 kSpeculation heads). The
  // children of t (and of the heads) may come first, and a check may prune a
  // head; its result is then kept only while it stays among the next heads.
  // The heads are taken from the queue and put back: entries are distinct
  // and the order total, so the order of the heads does not change.
  template <class Codec>
  void speculate(PredictiveProperties& props, Evaluator& ev, Queue<Codec>& queue, const Transformation& t) {
    const Lattice& lattice = props.lattice();
    ahead_.assign(1, t);
    heads_.clear();
    while (!queue.empty() && heads_.size() < 2 * search_internal::kSpeculation &&
           ahead_.size() < search_internal::kSpeculation) {
      const Entry h = queue.top();
      queue.pop();
      heads_.push_back(h);
      Transformation u = lattice.at(h.index);
      if (!props.not_better_than_best(h.key, u) && props.unresolved_ahead(u, true)) ahead_.push_back(std::move(u));
    }
    for (const Entry& h : heads_) queue.push(h);
    ev.prefetch(ahead_);
  }

  WarmStart warm_;
  std::uint64_t max_queue_;
  std::uint64_t dropped_ = 0;  // entries dropped from the queue (trim)
  double dropped_key_ = std::numeric_limits<double>::infinity();  // the smallest key dropped
  std::vector<Transformation> ahead_;
  std::vector<Entry> heads_;
  // expand_below()'s stack.
  struct Frame {
    std::uint16_t rank, first_free;
  };
  std::vector<std::uint8_t> stack_levels_;
  std::vector<Frame> stack_;
};

}  // namespace

std::unique_ptr<SearchAlgorithm> make_best_first_search() { return std::make_unique<BestFirstSearch>(BestFirstOptions{}); }

std::unique_ptr<SearchAlgorithm> make_best_first_search(const WarmStart& warm) {
  return std::make_unique<BestFirstSearch>(BestFirstOptions{warm});
}

std::unique_ptr<SearchAlgorithm> make_best_first_search(const BestFirstOptions& options) {
  return std::make_unique<BestFirstSearch>(options);
}

}  // namespace deid
