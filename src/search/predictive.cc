#include "search/predictive.h"

#include <algorithm>

namespace deid::search_internal {

PredictiveProperties::PredictiveProperties(Evaluator& evaluator, bool reexamine)
    : ev_(evaluator),
      lattice_(evaluator.problem().lattice()),
      monotonic_(evaluator.problem().monotonic()),
      reexamine_(reexamine),
      quality_(lattice_, Inheritance::generalizations),
      protection_(lattice_, Inheritance::specializations),
      solutions_(lattice_, Inheritance::generalizations) {}

bool PredictiveProperties::not_better_than_best(double bound, const Transformation& t) {
  const auto& best = ev_.best();
  if (!best) return false;
  probe_.transformation = t;
  probe_.quality.value = bound;
  return !better(probe_, *best);
}

bool PredictiveProperties::prune_by_bound(double bound, const Transformation& t) {
  if (!not_better_than_best(bound, t)) return false;
  quality_.insert(t);
  return true;
}

const CheckResult& PredictiveProperties::check(const Transformation& t) {
  const CheckResult& r = ev_.check(t);
  bounds_.emplace(lattice_.index(t), r.lower_bound);
  // Each transformation is checked once, so it is the best exactly when it
  // just became the best.
  const bool improved = r.solution && ev_.best()->transformation == t;
  if (improved) checks_to_best_ = ev_.checked();

  if (monotonic_) {
    if (r.solution)
      solutions_.insert(t);
    else
      protection_.insert(t);
  }
  if (not_better_than_best(r.lower_bound, t))
    quality_.insert(t);
  else if (reexamine_)
    pending_.push_back({r.lower_bound, lattice_.index(t)});
  if (improved && reexamine_) on_new_best();
  return r;
}

std::optional<double> PredictiveProperties::checked_bound(const Transformation& t) const {
  const auto it = bounds_.find(lattice_.index(t));
  if (it == bounds_.end()) return std::nullopt;
  return it->second;
}

bool PredictiveProperties::pruned(const Transformation& t, bool count) {
  if (insufficient_quality(t)) {
    if (count) ++pruned_quality;
    return true;
  }
  if (insufficient_protection(t)) {
    if (count) ++pruned_protection;
    return true;
  }
  return false;
}

bool PredictiveProperties::unresolved_ahead(const Transformation& t, bool known_solution) {
  if (checked(t) || quality_.peek(t)) return false;
  if (!monotonic_) return true;
  return !protection_.peek(t) && (!known_solution || solutions_.peek(t));
}

// The best improved: checked transformations whose bound was fine before may
// now have insufficient quality.
void PredictiveProperties::on_new_best() {
  std::size_t keep = 0;
  for (const Pending& p : pending_) {
    const Transformation t = lattice_.at(p.index);
    if (not_better_than_best(p.lower_bound, t))
      quality_.insert(t);
    else
      pending_[keep++] = p;
  }
  pending_.resize(keep);
}

nlohmann::json PredictiveProperties::statistics() const {
  auto store = [](const PropertyStore& s) {
    const auto& st = s.statistics();
    return nlohmann::json{{"inserts", st.inserts},
                          {"queries", st.queries},
                          {"hits", st.hits},
                          {"largest_antichain", st.largest_antichain},
                          {"antichain", s.size()},
                          {"nodes", s.nodes()}};
  };
  nlohmann::json stores = nlohmann::json::object();
  stores["insufficient_quality"] = store(quality_);
  if (monotonic_) {
    stores["insufficient_protection"] = store(protection_);
    stores["sufficient_protection"] = store(solutions_);
  }
  nlohmann::json out = nlohmann::json::object();
  out["checked"] = ev_.checked();
  out["checks_to_best"] = checks_to_best_;
  out["time_to_best_ms"] = ev_.time_to_best_seconds() * 1000.0;
  out["monotonic"] = monotonic_;
  out["pruned"] = {{"insufficient_quality", pruned_quality}, {"insufficient_protection", pruned_protection}};
  out["stores"] = stores;
  return out;
}

bool greedy_ascent(PredictiveProperties& props, Evaluator& ev) {
  const Lattice& lattice = props.lattice();
  Transformation x = lattice.bottom();
  if (props.checked(x) || props.pruned(x, false)) return true;
  if (ev.exhausted()) return false;
  bool solution = props.check(x).solution;
  while (!solution) {
    std::optional<Transformation> next;
    bool next_solution = false;
    double next_bound = 0;
    // The unresolved successors are checked ahead of time, concurrently; a
    // check below may still prune the later ones (a new best), which then
    // are not checked, as without speculation.
    const std::vector<Transformation> successors = lattice.successors(x);
    std::vector<Transformation> ahead;
    for (const Transformation& s : successors)
      if (props.unresolved_ahead(s, false)) ahead.push_back(s);
    ev.prefetch(ahead);
    for (const Transformation& s : successors) {
      if (props.checked(s) || props.pruned(s, false)) continue;
      if (ev.exhausted()) return false;
      const CheckResult& r = props.check(s);
      // Successors come in attribute order; on ties the first stays.
      if (!next || (r.solution && !next_solution) || (r.solution == next_solution && r.lower_bound < next_bound)) {
        next = s;
        next_solution = r.solution;
        next_bound = r.lower_bound;
      }
    }
    if (!next) break;
    x = *next;
    solution = next_solution;
  }
  return true;
}

bool probe_path(PredictiveProperties& props, Evaluator& ev, const Transformation& start,
                std::vector<Transformation>& path) {
  const Lattice& lattice = props.lattice();
  const std::size_t m = start.size();
  path.clear();
  path.push_back(start);
  // What the stores said of earlier successors that holds for later ones,
  // so that the walk asks them less (their queries were 60 % of the
  // synthetic 12-attribute search): a successor raising attribute i with
  // insufficient quality or known to be a solution has generalizations
  // that are too, among them every later node's successor raising i
  // (`closed`); one found insufficiently protected came with a known
  // non-solution above it (`witness[i]`), which answers for a later
  // successor raising i while that stays below it. The answers, and so the
  // path, are those of the stores.
  std::vector<std::uint8_t> closed(m, 0);
  std::vector<Transformation> witness(m);
  Transformation s;
  while (true) {
    bool extended = false;
    // Raise the first attribute that leads to an unresolved transformation.
    for (std::size_t i = 0; i < m && !extended; ++i) {
      if (closed[i] || path.back()[i] >= lattice.max_level(i)) continue;
      s = path.back();
      ++s[i];
      if (props.checked(s)) continue;
      if (props.insufficient_quality(s)) {
        closed[i] = 1;
        continue;
      }
      const bool witnessed = !witness[i].empty() && leq(s, witness[i]);
      if (props.monotonic() && (witnessed || props.insufficient_protection(s, witness[i]))) continue;
      if (props.sufficient_protection(s)) {
        closed[i] = 1;
        continue;
      }
      path.push_back(s);
      extended = true;
    }
    if (!extended) break;
  }
  int lo = 0, hi = static_cast<int>(path.size()) - 1;
  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2;
    const Transformation& n = path[static_cast<std::size_t>(mid)];
    if (props.insufficient_quality(n) || props.sufficient_protection(n)) {
      hi = mid - 1;  // so is everything above it on the path
      continue;
    }
    if (props.insufficient_protection(n)) {
      lo = mid + 1;  // so is everything below it
      continue;
    }
    if (ev.exhausted()) return false;
    if (props.check(n).solution)
      hi = mid - 1;
    else
      lo = mid + 1;
  }
  return true;
}

}  // namespace deid::search_internal
