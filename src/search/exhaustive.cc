#include <algorithm>

#include "deid/search.h"
#include "search/predictive.h"

namespace deid {
namespace {

constexpr LatticeIndex kBatch = search_internal::kSpeculation;

class ExhaustiveSearch final : public SearchAlgorithm {
 public:
  std::string name() const override { return "exhaustive"; }

  SearchOutcome run(Evaluator& ev) override {
    const Lattice lattice = ev.problem().lattice();
    SearchOutcome out;
    out.algorithm = name();
    const double total = static_cast<double>(lattice.size());
    std::vector<Transformation> ahead;
    for (LatticeIndex i = 0; i < lattice.size(); ++i) {
      if (ev.exhausted()) {
        out.stopped_by_limit = true;
        break;
      }
      ev.set_fraction_done(static_cast<double>(i) / total);
      // Checked ahead of time in batches, concurrently (Evaluator::prefetch).
      if (i % kBatch == 0) {
        ahead.clear();
        for (LatticeIndex j = i; j < std::min<LatticeIndex>(i + kBatch, lattice.size()); ++j)
          ahead.push_back(lattice.at(j));
        ev.prefetch(ahead);
      }
      ev.check(lattice.at(i));
    }
    out.best = ev.best();
    out.optimal = !out.stopped_by_limit;
    out.checked = ev.checked();
    out.time_to_best_seconds = ev.time_to_best_seconds();
    return out;
  }
};

}  // namespace

std::unique_ptr<SearchAlgorithm> make_exhaustive_search() { return std::make_unique<ExhaustiveSearch>(); }

}  // namespace deid
