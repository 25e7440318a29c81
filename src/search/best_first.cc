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
// Run to the end it is optimal. As a heuristic it stops when the evaluator
// is exhausted (search.time-limit, search.max-checks) and returns the best
// solution so far, not proven optimal; it finds good solutions early
// (papers/000, Fig. 7).
#include <queue>

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

// std::priority_queue is a max-heap: "a after b" means a has lower priority.
struct After {
  bool operator()(const Entry& a, const Entry& b) const {
    if (a.key != b.key) return a.key > b.key;
    if (a.rank != b.rank) return a.rank > b.rank;
    return a.index > b.index;
  }
};

using Queue = std::priority_queue<Entry, std::vector<Entry>, After>;

class BestFirstSearch final : public SearchAlgorithm {
 public:
  std::string name() const override { return "best-first"; }

  SearchOutcome run(Evaluator& ev) override {
    PredictiveProperties props(ev, /*reexamine=*/true);
    const Lattice& lattice = props.lattice();
    const std::size_t m = lattice.dimensions();
    SearchOutcome out;
    out.algorithm = name();

    Queue queue;
    std::uint64_t largest_queue = 1, popped = 0;
    std::vector<Transformation> path;
    bool stopped = !search_internal::greedy_ascent(props, ev);
    if (!stopped) queue.push({0, 0.0, 0, 0});
    Transformation t;
    while (!queue.empty()) {
      // The clock also between checks: entries pruned without a check can
      // follow each other by the million on wide lattices (a 60 s limit ran
      // 82 s on the 20-attribute census table). Only the time: a budget of
      // checks is spent by checks alone.
      if ((popped & 1023) == 1023 && ev.out_of_time()) {
        stopped = true;
        break;
      }
      const Entry e = queue.top();
      queue.pop();
      ++popped;
      t = lattice.at(e.index);
      if (props.prune_by_bound(e.key, t) || props.insufficient_quality(t)) {
        ++props.pruned_quality;
        continue;
      }
      double key = e.key;
      if (props.insufficient_protection(t)) {
        ++props.pruned_protection;  // its generalizations may still be solutions
      } else {
        const std::uint64_t checked_before = ev.checked();
        if (!props.checked(t) && props.monotonic() && !props.sufficient_protection(t)) {
          if (ev.exhausted() || !search_internal::probe_path(props, ev, t, path)) {
            stopped = true;
            break;
          }
        }
        // Without a check since the queries above, the stores still say no.
        const bool changed = ev.checked() != checked_before;
        if (changed && props.insufficient_quality(t)) {
          ++props.pruned_quality;
          continue;
        }
        if (changed && props.insufficient_protection(t)) {
          ++props.pruned_protection;
        } else {
          std::optional<double> bound = props.checked_bound(t);
          if (!bound) {
            if (ev.exhausted()) {
              stopped = true;
              break;
            }
            if (!ev.prefetched(t)) speculate(props, ev, queue, t);
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
        queue.push({lattice.index(t), key, static_cast<std::uint16_t>(e.rank + 1), static_cast<std::uint16_t>(i)});
        --t[i];
      }
      largest_queue = std::max<std::uint64_t>(largest_queue, queue.size());
    }
    out.best = ev.best();
    out.stopped_by_limit = stopped;
    out.optimal = !stopped;
    out.checked = ev.checked();
    out.time_to_best_seconds = ev.time_to_best_seconds();
    out.statistics = props.statistics();
    out.statistics["largest_queue"] = largest_queue;
    out.statistics["dequeued"] = popped;
    return out;
  }

 private:
  // Computes the check of `t` ahead of time together with those of the next
  // queue heads that would be checked without a path probe if they came up
  // now (kSpeculation in all, among the next 2 kSpeculation heads). The
  // children of t (and of the heads) may come first, and a check may prune a
  // head; its result is then kept only while it stays among the next heads.
  // The heads are taken from the queue and put back: entries are distinct
  // and the order total, so the order of the heads does not change.
  void speculate(PredictiveProperties& props, Evaluator& ev, Queue& queue, const Transformation& t) {
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

  std::vector<Transformation> ahead_;
  std::vector<Entry> heads_;
};

}  // namespace

std::unique_ptr<SearchAlgorithm> make_best_first_search() { return std::make_unique<BestFirstSearch>(); }

}  // namespace deid
