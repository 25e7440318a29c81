#include "search/heuristic.h"

namespace deid::search_internal {

HeuristicChecks::HeuristicChecks(Evaluator& ev) : ev_(ev), lattice_(ev.problem().lattice()) {
  ev_.set_measure_all(true);
}

const Known* HeuristicChecks::find(LatticeIndex i) const {
  const auto it = known_.find(i);
  return it == known_.end() ? nullptr : &it->second;
}

const Known& HeuristicChecks::get(const Transformation& t, LatticeIndex i) {
  if (const auto it = known_.find(i); it != known_.end()) return it->second;
  const CheckResult& r = ev_.check(t);
  const Known k{r.quality.value, r.lower_bound, r.solution};
  // ARX's trackOptimum: strictly less loss, or equal loss and a strictly
  // lower rank (ARX's level of a transformation: the sum of its levels).
  if (r.solution && (!optimum_ || r.quality.value < optimum_->quality.value ||
                     (r.quality.value == optimum_->quality.value && rank(t) < rank(optimum_->transformation)))) {
    optimum_ = r;
    checks_to_best_ = ev_.checked();
    time_to_best_ = ev_.elapsed_seconds();
  }
  return known_.emplace(i, k).first->second;
}

SearchOutcome HeuristicChecks::outcome(const std::string& algorithm, bool stopped) const {
  SearchOutcome out;
  out.algorithm = algorithm;
  out.best = optimum_;
  out.optimal = false;
  out.stopped_by_limit = stopped;
  out.checked = ev_.checked();
  out.time_to_best_seconds = time_to_best_;
  out.statistics["checked"] = ev_.checked();
  out.statistics["checks_to_best"] = checks_to_best_;
  out.statistics["time_to_best_ms"] = time_to_best_ * 1000.0;
  return out;
}

}  // namespace deid::search_internal
