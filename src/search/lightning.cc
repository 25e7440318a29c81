// Lightning, ARX's heuristic search for large lattices (LIGHTNINGAlgorithm,
// LIGHTNINGTopDownAlgorithm; ARX 3.9.2's BEST_EFFORT_BOTTOM_UP and
// BEST_EFFORT_TOP_DOWN), after the semantics of ARX's source.
//
// Bottom-up: a priority queue of checked transformations by their own
// information loss (java.util.PriorityQueue's order, ties included),
// starting with the bottom. Each transformation taken from the queue is
// pruned when it was expanded already, when it lies above one with
// insufficient utility, or when its lower bound is not below the loss of
// the optimum so far (it is not the optimum itself); it then gets
// insufficient utility, inherited by its generalizations. Otherwise it is
// expanded: its successors (attributes in order) that are neither expanded
// nor of insufficient utility are checked (once) and queued, and the one
// with the least loss (the first of equals) is remembered. Every
// `stepping`-th expansion (stepping: the rank of the top, at least 1) is a
// depth-first dive instead: expand, take the remembered successor out of
// the queue and expand it, and so on up to where nothing is left.
//
// Top-down: the same queue from the top, expanding predecessors (attributes
// in reverse order), pruning only what was expanded already, no dives.
//
// Both stop when the queue is empty or the evaluator is exhausted (checked
// after each check of an expansion, so the last expansion may exceed the
// budget by one check, as in ARX). They release ARX's optimum
// (search/heuristic.h); never `optimal`.
#include <absl/container/flat_hash_set.h>

#include "deid/property_store.h"
#include "search/heuristic.h"

namespace deid {
namespace {

using search_internal::HeuristicChecks;
using search_internal::Known;
using search_internal::LatticeIndexHash;

class LightningSearch final : public SearchAlgorithm {
 public:
  explicit LightningSearch(bool top_down) : top_down_(top_down) {}

  std::string name() const override { return top_down_ ? "top-down" : "bottom-up"; }

  SearchOutcome run(Evaluator& ev) override {
    HeuristicChecks hc(ev);
    const Lattice& lattice = hc.lattice();
    PropertyStore insufficient(lattice, Inheritance::generalizations);
    absl::flat_hash_set<LatticeIndex, LatticeIndexHash> expanded;
    const auto less = [&hc](LatticeIndex a, LatticeIndex b) { return hc.find(a)->loss < hc.find(b)->loss; };
    search_internal::JavaPriorityQueue<LatticeIndex, decltype(less)> queue(less);
    std::uint64_t expansions = 0, dives = 0, pruned = 0, largest_queue = 1;
    bool stopped = false;

    // ARX's expand(): checks and queues the unexpanded neighbours of `t`
    // in the search's direction and returns the one with the least loss
    // (none when there is none or the limit stopped it; `t` is then not
    // marked expanded).
    std::vector<Transformation> neighbours, ahead;
    const auto expand = [&](const Transformation& t, LatticeIndex ti) -> std::optional<LatticeIndex> {
      neighbours = top_down_ ? lattice.predecessors(t) : lattice.successors(t);
      // ARX lists successors by attribute, predecessors by attribute reversed.
      if (top_down_) std::reverse(neighbours.begin(), neighbours.end());
      // The neighbours this expansion will check, computed ahead of time
      // and concurrently (Evaluator::prefetch; the loop below takes them in
      // order, so counts and results are those of checks one by one).
      // Neither store changes during the loop, so the list is exact.
      // Top-down's predecessors are grouped from the classes of `t`
      // (Checker::prefetch's `around`).
      ahead.clear();
      for (const Transformation& n : neighbours) {
        const LatticeIndex ni = lattice.index(n);
        if (!expanded.contains(ni) && !hc.find(ni) && !insufficient.peek(n)) ahead.push_back(n);
      }
      if (ahead.size() > 1) hc.evaluator().prefetch(ahead, &t);
      std::optional<LatticeIndex> result;
      double result_loss = 0;
      for (const Transformation& n : neighbours) {
        const LatticeIndex ni = lattice.index(n);
        if (!expanded.contains(ni) && !insufficient.contains(n)) {
          const Known& k = hc.get(n, ni);
          queue.add(ni);
          largest_queue = std::max<std::uint64_t>(largest_queue, queue.size());
          if (!result || k.loss < result_loss) {
            result = ni;
            result_loss = k.loss;
          }
        }
        if (hc.must_stop()) return std::nullopt;
      }
      expanded.insert(ti);
      ++expansions;
      return result;
    };

    // ARX's prune().
    const auto prune = [&](const Transformation& t, LatticeIndex ti) {
      if (expanded.contains(ti)) return true;
      if (top_down_) return false;
      if (insufficient.contains(t)) return true;
      const auto& optimum = hc.optimum();
      if (optimum && optimum->transformation != t && hc.find(ti)->bound >= optimum->quality.value) {
        insufficient.insert(t);
        return true;
      }
      return false;
    };

    const Transformation start = top_down_ ? lattice.top() : lattice.bottom();
    const LatticeIndex start_index = lattice.index(start);
    hc.get(start, start_index);
    queue.add(start_index);
    const int stepping = std::max(1, rank(lattice.top()));
    std::uint64_t step = 0;
    while (!queue.empty()) {
      const LatticeIndex i = queue.poll();
      Transformation t = lattice.at(i);
      if (prune(t, i)) {
        ++pruned;
        continue;
      }
      ++step;
      if (!top_down_ && step % static_cast<std::uint64_t>(stepping) == 0) {
        // The dive (ARX's dfs()), iteratively.
        ++dives;
        LatticeIndex ti = i;
        while (!hc.must_stop()) {
          const std::optional<LatticeIndex> next = expand(t, ti);
          if (!next) break;
          queue.remove(*next);
          ti = *next;
          t = lattice.at(ti);
        }
      } else {
        expand(t, i);
      }
      if (hc.must_stop()) {
        stopped = true;
        break;
      }
    }
    SearchOutcome out = hc.outcome(name(), stopped);
    out.statistics["expansions"] = expansions;
    if (!top_down_) {
      out.statistics["stepping"] = stepping;
      out.statistics["dives"] = dives;
    }
    out.statistics["pruned"] = pruned;
    out.statistics["largest_queue"] = largest_queue;
    out.statistics["queue_emptied"] = !stopped;
    return out;
  }

 private:
  bool top_down_;
};

}  // namespace

std::unique_ptr<SearchAlgorithm> make_lightning_search(bool top_down) {
  return std::make_unique<LightningSearch>(top_down);
}

}  // namespace deid
