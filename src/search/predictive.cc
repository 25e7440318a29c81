#include "search/predictive.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace deid::search_internal {

void DownSet::Free::operator()(std::uint64_t* p) const { std::free(p); }

DownSet::DownSet(const Lattice& lattice, bool wanted) {
  if (!wanted || !fits(lattice)) return;
  const std::size_t m = lattice.dimensions();
  // Lattice::index's mixed radix, the first attribute most significant.
  std::uint64_t stride = 1;
  for (std::size_t q = m; q-- > 0;) {
    stride_.push_back(stride);
    lo_.push_back(static_cast<std::uint8_t>(lattice.min_level(q)));
    stride *= static_cast<std::uint64_t>(lattice.max_level(q) - lattice.min_level(q) + 1);
  }
  std::reverse(stride_.begin(), stride_.end());
  std::reverse(lo_.begin(), lo_.end());
  const std::size_t words = static_cast<std::size_t>((lattice.size() + 63) / 64);
  // calloc: zeroed pages come from the system as they are first touched.
  bits_.reset(static_cast<std::uint64_t*>(std::calloc(words, sizeof(std::uint64_t))));
  if (!bits_) throw std::bad_alloc();
}

void DownSet::insert(const Transformation& t) {
  const std::size_t m = stride_.size();
  const std::uint64_t i0 = index(t);
  if (test(i0)) return;
  set(i0);
  stack_.assign(t.begin(), t.end());
  stack_index_.assign(1, i0);
  Transformation y = t;
  while (!stack_index_.empty()) {
    const std::uint64_t i = stack_index_.back();
    stack_index_.pop_back();
    const auto top = stack_.end() - static_cast<std::ptrdiff_t>(m);
    std::copy(top, stack_.end(), y.begin());
    stack_.erase(top, stack_.end());
    for (std::size_t q = 0; q < m; ++q) {
      if (y[q] == lo_[q]) continue;
      const std::uint64_t j = i - stride_[q];
      if (test(j)) continue;  // marked, and so is everything below it
      set(j);
      --y[q];
      stack_.insert(stack_.end(), y.begin(), y.end());
      ++y[q];
      stack_index_.push_back(j);
    }
  }
}

PredictiveProperties::PredictiveProperties(Evaluator& evaluator, bool reexamine, bool level_bounds)
    : ev_(evaluator),
      lattice_(evaluator.problem().lattice()),
      monotonic_(evaluator.problem().monotonic()),
      reexamine_(reexamine),
      quality_(lattice_, Inheritance::generalizations),
      protection_(lattice_, Inheritance::specializations),
      solutions_(lattice_, Inheritance::generalizations),
      below_(lattice_, monotonic_) {
  if (level_bounds) bound_ = ev_.problem().quality->level_bound(ev_.problem());
}

bool PredictiveProperties::not_better_than_best(double bound, const Transformation& t) {
  const auto& best = ev_.best();
  if (!best) return false;
  probe_.transformation = t;
  probe_.quality.value = bound;
  return !better(probe_, *best);
}

bool PredictiveProperties::prune_by_bound(double bound, const Transformation& t) {
  if (!not_better_than_best(bound, t)) return false;
  if (!bound_) quality_.insert(t);
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
    else {
      protection_.insert(t);
      if (below_.enabled()) below_.insert(t);
    }
  }
  if (bound_) {
    // The bound answers for t and its generalizations from now on.
  } else if (not_better_than_best(r.lower_bound, t))
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
  if (checked(t) || (bound_ ? not_better_than_best((*bound_)(t), t) : quality_.peek(t))) return false;
  if (!monotonic_) return true;
  const bool below = below_.enabled() ? below_.contains(t) : protection_.peek(t);
  return !below && (!known_solution || solutions_.peek(t));
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
  if (bound_) {
    // Answered by the bound: queries and hits, no store.
    stores["insufficient_quality"] = {{"inserts", 0}, {"queries", bound_queries_}, {"hits", bound_hits_},
                                      {"largest_antichain", 0}, {"antichain", 0}, {"nodes", 0},
                                      {"by_bound", true}};
  } else {
    stores["insufficient_quality"] = store(quality_);
  }
  if (monotonic_) {
    stores["insufficient_protection"] = store(protection_);
    if (below_.enabled()) {
      // Queries answered by the down-set's bits.
      stores["insufficient_protection"]["queries"] = below_queries_;
      stores["insufficient_protection"]["hits"] = below_hits_;
      stores["insufficient_protection"]["by_bits"] = true;
    }
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
                std::vector<Transformation>& path, bool past_quality) {
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
    // Raise an attribute that leads to an unresolved transformation: the
    // first one (Flash's order), or past the low bounds the one whose
    // successor has the least bound (the first of equal ones). That path
    // stays in the region of low bounds as long as it can, and the
    // non-solution it finds covers more of the region: on the census-like
    // 15-attribute job the proof took 111,477 checks and 53 s of CPU
    // instead of 339,872 and 115 s with the first attribute, on the
    // synthetic one 17,784 checks and 12.5 s instead of 46,863 and 26 s.
    int next = -1;
    double next_bound = 0.0;
    for (std::size_t i = 0; i < m; ++i) {
      if (closed[i] || path.back()[i] >= lattice.max_level(i)) continue;
      s = path.back();
      ++s[i];
      if (props.checked(s)) continue;
      if (!past_quality && props.insufficient_quality(s)) {
        closed[i] = 1;
        continue;
      }
      const bool witnessed = !witness[i].empty() && leq(s, witness[i]);
      if (props.monotonic() && (witnessed || props.insufficient_protection(s, witness[i]))) continue;
      if (props.sufficient_protection(s)) {
        closed[i] = 1;
        continue;
      }
      if (!past_quality) {
        next = static_cast<int>(i);
        break;
      }
      const double b = props.bound(s);
      if (next < 0 || b < next_bound) {
        next = static_cast<int>(i);
        next_bound = b;
      }
    }
    if (next < 0) break;
    s = path.back();
    ++s[static_cast<std::size_t>(next)];
    path.push_back(s);
  }
  // Binary search of [lo, hi] for the first transformation on the path that
  // is not a non-solution; false when the evaluator is exhausted.
  const auto search = [&](int lo, int hi, int& first) {
    while (lo <= hi) {
      const int mid = lo + (hi - lo) / 2;
      const Transformation& n = path[static_cast<std::size_t>(mid)];
      if ((!past_quality && props.insufficient_quality(n)) || props.sufficient_protection(n)) {
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
    first = lo;
    return true;
  };
  const int top = static_cast<int>(path.size()) - 1;
  int first = 0;
  if (!past_quality || top == 0) return search(0, top, first);
  // Past the low bounds: the part from the last transformation still of
  // sufficient quality up first. Below the boundary of quality nearly
  // every transformation is a non-solution (on the census-like 15-attribute
  // table 133 paths of 110,907 had a solution there), and the highest
  // non-solution on the path, which the search finds, lies at any height
  // above it: a plain binary search of that part made 26 % fewer checks
  // than checking the last one inside first (416,456 → 306,898 by a
  // simulation of the paths of that run). The part below only when that
  // last transformation inside is a solution.
  int inside = 0;
  while (inside < top && !props.insufficient_quality(path[static_cast<std::size_t>(inside + 1)])) ++inside;
  if (!search(inside, top, first)) return false;
  if (first == inside && inside > 0 && !search(0, inside - 1, first)) return false;
  return true;
}

}  // namespace deid::search_internal
