// A transformation chosen by the user, checked and released without a search
// (search.transformation; docs/job-file.md).
#include "deid/search.h"

namespace deid {
namespace {

class GivenSearch final : public SearchAlgorithm {
 public:
  explicit GivenSearch(Transformation t) : t_(std::move(t)) {}
  std::string name() const override { return "given"; }

  SearchOutcome run(Evaluator& ev) override {
    SearchOutcome out;
    out.algorithm = name();
    // The whole check, so that a failing one counts every violating record.
    ev.set_stop_early(false);
    const CheckResult& r = ev.check(t_);
    out.best = ev.best();
    out.checked = ev.checked();
    out.optimal = false;
    out.time_to_best_seconds = ev.time_to_best_seconds();
    out.statistics["given_is_solution"] = r.solution;
    // Records in classes that violate a model: above the limit, or within
    // it when a dataset-level model (population uniqueness) fails.
    if (!r.solution) out.statistics["given_violating_records"] = r.suppressed_records;
    return out;
  }

 private:
  Transformation t_;
};

}  // namespace

std::unique_ptr<SearchAlgorithm> make_given_search(Transformation t) { return std::make_unique<GivenSearch>(std::move(t)); }

}  // namespace deid
