// The globally-optimal search: complete information about both predictive
// properties (papers/000, "Effective pruning in large search spaces": the
// role Flash plays in ARX), with the lattice kept implicit.
//
// Phase 1 (a good solution early): a greedy ascent from the bottom. At a
// transformation that is no solution, check its unpruned successors and
// move to the one with the smallest generalization-only loss (a solution
// among them first). It ends at a solution with a low bound, so the
// insufficient-quality property prunes strongly from the start. On adult
// (k=5, 5 %, Loss) this ascent reaches the optimum itself after 82 checks;
// with the best known early, the sweep below needs about a third fewer checks.
//
// Phase 2 (the proof): a sweep over the lattice by rank, bottom-up, in
// lexicographic order within a rank. A transformation that a store prunes
// is skipped. A known solution (above a checked solution) is checked for its
// loss. Otherwise, when the privacy models are monotonic, the sweep builds a
// path greedily upward from it through unresolved transformations and
// binary-searches the path for the boundary between solutions and
// non-solutions, as Flash does (Kohlmayer et al. 2012): each check on the
// path tags the specializations of a non-solution, or the generalizations of
// a solution, at once. The transformation itself is then checked if it is
// still unresolved. Without monotonicity the sweep checks every
// transformation that insufficient quality does not prune.
//
// Checks the sweep makes without a path probe are computed ahead of time in
// batches of kSpeculation, concurrently (speculate(), Evaluator::prefetch):
// a result is taken, and counted, only when the sweep reaches that
// transformation and it is still unresolved, so the checks, their order and
// the search's statistics are those of a sweep without speculation.
//
// The sweep enumerates the lattice, so its time (not its memory) grows with
// the lattice: make_search() uses it up to kOptimalMaxLattice.
#include "deid/search.h"
#include "search/predictive.h"

namespace deid {
namespace {

using search_internal::PredictiveProperties;

class OptimalSearch final : public SearchAlgorithm {
 public:
  std::string name() const override { return "optimal"; }

  SearchOutcome run(Evaluator& ev) override {
    PredictiveProperties props(ev, /*reexamine=*/true);
    const Lattice& lattice = props.lattice();
    SearchOutcome out;
    out.algorithm = name();
    bool stopped = !search_internal::greedy_ascent(props, ev);
    if (!stopped) stopped = !sweep(props, ev);
    out.best = ev.best();
    out.stopped_by_limit = stopped;
    out.optimal = !stopped;
    out.checked = ev.checked();
    out.time_to_best_seconds = ev.time_to_best_seconds();
    out.statistics = props.statistics();
    out.statistics["lattice_swept"] = static_cast<double>(swept_) / static_cast<double>(lattice.size());
    return out;
  }

 private:
  // Phase 2. Returns false when a limit stopped it.
  bool sweep(PredictiveProperties& props, Evaluator& ev) {
    const Lattice& lattice = props.lattice();
    const double total = static_cast<double>(lattice.size());
    Transformation t;
    for (int r = lattice.min_rank(); r <= lattice.max_rank(); ++r) {
      for (bool more = lattice.first_of_rank(r, t); more; more = lattice.next_of_rank(t)) {
        ++swept_;
        if (props.checked(t) || props.pruned(t, true)) continue;
        if (ev.exhausted()) return false;
        ev.set_fraction_done(static_cast<double>(swept_) / total);
        if (props.monotonic() && !props.sufficient_protection(t) &&
            !search_internal::probe_path(props, ev, t, path_))
          return false;
        if (props.checked(t) || props.pruned(t, true)) continue;
        if (ev.exhausted()) return false;
        if (!ev.prefetched(t)) speculate(props, ev, t);
        props.check(t);
      }
    }
    return true;
  }

  // Computes the checks of `t` and of the next transformations of its rank
  // that the sweep will check without a path probe unless a check before
  // them prunes them (unpruned now, and with monotonic models known
  // solutions), kSpeculation in all, ahead of time. Transformations of one
  // rank are incomparable, so none of them could roll up from another.
  void speculate(PredictiveProperties& props, Evaluator& ev, const Transformation& t) {
    const Lattice& lattice = props.lattice();
    ahead_.assign(1, t);
    Transformation u = t;
    while (ahead_.size() < search_internal::kSpeculation && lattice.next_of_rank(u))
      if (props.unresolved_ahead(u, true)) ahead_.push_back(u);
    ev.prefetch(ahead_);
  }

  std::vector<Transformation> path_;
  std::vector<Transformation> ahead_;
  std::uint64_t swept_ = 0;
};

}  // namespace

std::unique_ptr<SearchAlgorithm> make_optimal_search() { return std::make_unique<OptimalSearch>(); }

}  // namespace deid
