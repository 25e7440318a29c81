#include "deid/search.h"

namespace deid {
namespace {

class ExhaustiveSearch final : public SearchAlgorithm {
 public:
  std::string name() const override { return "exhaustive"; }

  SearchOutcome run(Evaluator& ev) override {
    const Lattice lattice = ev.problem().lattice();
    SearchOutcome out;
    out.algorithm = name();
    const double total = static_cast<double>(lattice.size());
    for (LatticeIndex i = 0; i < lattice.size(); ++i) {
      if (ev.exhausted()) {
        out.stopped_by_limit = true;
        break;
      }
      ev.set_fraction_done(static_cast<double>(i) / total);
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
