// The predictive properties of papers/000 ("Predictive properties") as the
// pruning algorithms use them: every check goes through here, and what the
// result predicts about other transformations is recorded in property
// stores (deid/property_store.h).
//
// - Insufficient protection (P↓): x is no solution. When every privacy
//   model is monotonic (Problem::monotonic()), no specialization of x is a
//   solution either ("Insufficient protection against re-identification").
//   Not used otherwise.
// - Sufficient protection (P↑, monotonic only): x is a solution, so every
//   generalization is one. It prunes nothing (quality is not monotonic under
//   suppression, papers/000), but it answers "is this a solution?" without a
//   check during the binary search on paths of the optimal algorithm.
// - Insufficient quality (P↑): the generalization-only loss of x
//   (CheckResult::lower_bound) is already not better than the best solution
//   found, in deid::better()'s order (loss, then rank, then levels). The
//   bound is monotonic for every quality model (quality.h), so every
//   generalization y of x has loss(y) >= lb(y) >= lb(x), and rank(y) >
//   rank(x) unless y == x: no generalization can be better than the best
//   solution ("Insufficient data quality", after Bayardo et al.). The best
//   only improves, so the property never becomes false. Because the tie
//   breaks use rank and levels, algorithms that prune with it still return
//   exactly exhaustive search's transformation.
//
// Internal to src/search.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/property_store.h"
#include "deid/quality.h"
#include "deid/search.h"

namespace deid::search_internal {

struct LatticeIndexHash {
  std::size_t operator()(LatticeIndex v) const {
    return absl::HashOf(static_cast<std::uint64_t>(v), static_cast<std::uint64_t>(v >> 64));
  }
};

// The transformations known to lie below a non-solution (the down-set of
// the insufficient-protection store's elements), one bit per transformation
// of the lattice, so that a query is a bit test instead of a walk of the
// store's prefix tree. Hand-written: on the synthetic 15-attribute job the
// store's queries (tens of millions, each visiting hundreds of tree nodes)
// were half of best-first's time once checks were few. Only for lattices
// of at most kDownSetMaxBits transformations (32 MiB of bits, allocated
// zeroed by the system, so pages never marked take no memory); larger
// lattices go to the store alone. Marking is a walk down from the
// inserted element that stops at marked transformations (the marked set is
// always a down-set), so every transformation is marked once and the whole
// search marks at most what it proves.
class DownSet {
 public:
  static constexpr std::uint64_t kDownSetMaxBits = std::uint64_t{1} << 28;
  // Whether `lattice` is small enough for the bits.
  static bool fits(const Lattice& lattice) { return lattice.size() <= kDownSetMaxBits; }
  // Disabled unless `wanted` and the lattice fits.
  DownSet(const Lattice& lattice, bool wanted);
  bool enabled() const { return bits_ != nullptr; }
  // REQUIRES: enabled().
  bool contains(const Transformation& t) const { return test(index(t)); }
  // Marks t and every transformation below it. REQUIRES: enabled().
  void insert(const Transformation& t);

 private:
  struct Free {
    void operator()(std::uint64_t* p) const;
  };
  std::uint64_t index(const Transformation& t) const {
    std::uint64_t i = 0;
    for (std::size_t q = 0; q < stride_.size(); ++q) i += stride_[q] * static_cast<std::uint64_t>(t[q] - lo_[q]);
    return i;
  }
  bool test(std::uint64_t i) const { return (bits_[i >> 6] >> (i & 63)) & 1; }
  void set(std::uint64_t i) { bits_[i >> 6] |= std::uint64_t{1} << (i & 63); }

  std::unique_ptr<std::uint64_t[], Free> bits_;
  std::vector<std::uint64_t> stride_;  // the lattice's mixed radix
  std::vector<std::uint8_t> lo_;
  std::vector<std::uint8_t> stack_;          // levels of the walk's frames, m per frame
  std::vector<std::uint64_t> stack_index_;  // and their indices
};

class PredictiveProperties {
 public:
  // `reexamine`: keep the checked transformations whose bound was still
  // better than the best, and insert them into the insufficient-quality
  // store when a better solution turns up (what ARX's Flash does with its
  // "potentially insufficient utility" list). Memory: one entry per check.
  //
  // `level_bounds`: where the quality model bounds a transformation from its
  // levels alone (QualityModel::level_bound), insufficient quality is
  // decided by that bound instead of the store: lb(t) is not better than the
  // best exactly when some specialization the store would hold says so
  // (lb is monotonic), so the answers are the store's or stronger, and cost
  // a few multiplications instead of a query. Nothing is then inserted into
  // the insufficient-quality store.
  PredictiveProperties(Evaluator& evaluator, bool reexamine, bool level_bounds = false);

  const Lattice& lattice() const { return lattice_; }
  bool monotonic() const { return monotonic_; }

  // Checks `t` through the evaluator and records what it predicts.
  // REQUIRES: !checked(t) (each transformation is checked once).
  const CheckResult& check(const Transformation& t);
  bool checked(const Transformation& t) const { return bounds_.contains(lattice_.index(t)); }
  // CheckResult::lower_bound of a checked transformation.
  std::optional<double> checked_bound(const Transformation& t) const;

  // Whether lb(t) is known without a check (`level_bounds` above).
  bool level_bounds() const { return bound_.has_value(); }
  // lb(t), the generalization-only loss. REQUIRES: level_bounds().
  double bound(const Transformation& t) const { return (*bound_)(t); }

  // Store queries. Each counts as one query of its store (with level
  // bounds, insufficient_quality() asks the bound, counted likewise).
  bool insufficient_quality(const Transformation& t) {
    if (!bound_) return quality_.contains(t);
    ++bound_queries_;
    const bool hit = not_better_than_best((*bound_)(t), t);
    bound_hits_ += hit;
    return hit;
  }
  bool insufficient_protection(const Transformation& t) {
    if (!monotonic_) return false;
    if (!below_.enabled()) return protection_.contains(t);
    ++below_queries_;
    const bool hit = below_.contains(t);
    below_hits_ += hit;
    return hit;
  }
  // insufficient_protection(), and on a hit `witness`: a known
  // non-solution y with t ≤ y (every specialization of y is insufficiently
  // protected too; with the down-set's bits, t itself).
  bool insufficient_protection(const Transformation& t, Transformation& witness) {
    if (!monotonic_) return false;
    if (!below_.enabled()) return protection_.contains(t, witness);
    if (!insufficient_protection(t)) return false;
    witness = t;
    return true;
  }
  bool sufficient_protection(const Transformation& t) { return monotonic_ && solutions_.contains(t); }

  // Whether a solution with loss `bound` at `t` would not be better than
  // the best found (false while there is none).
  bool not_better_than_best(double bound, const Transformation& t);
  // Records that `t` has insufficient quality because `bound`, a lower bound
  // of lb(t), is not better than the best (no check needed). Returns whether
  // that is so.
  bool prune_by_bound(double bound, const Transformation& t);

  // Whether a store prunes `t`: insufficient quality, or insufficient
  // protection. With `count`, a hit is counted against its property.
  bool pruned(const Transformation& t, bool count);

  // Look-ahead for speculative checks (Evaluator::prefetch): whether `t` is
  // unchecked and no store prunes it, and with `known_solution` (monotonic
  // models) also whether it is a known solution, checked for its loss
  // without a path probe. Counts no store query, so statistics stay those
  // of the search without speculation.
  bool unresolved_ahead(const Transformation& t, bool known_solution);

  // Counters of transformations an algorithm skipped because a store query
  // hit (the algorithm counts; each skipped transformation once).
  std::uint64_t pruned_quality = 0;
  std::uint64_t pruned_protection = 0;

  // "checked", "checks_to_best", "time_to_best_ms", "pruned" and "stores"
  // (per property: inserts, queries, hits, largest_antichain, antichain,
  // nodes), see docs/search.md.
  nlohmann::json statistics() const;

 private:
  void on_new_best();

  Evaluator& ev_;
  Lattice lattice_;
  bool monotonic_;
  bool reexamine_;
  PropertyStore quality_;
  std::optional<LevelBound> bound_;
  std::uint64_t bound_queries_ = 0, bound_hits_ = 0;
  PropertyStore protection_;
  PropertyStore solutions_;
  DownSet below_;  // answers protection_'s queries where the lattice allows
  std::uint64_t below_queries_ = 0, below_hits_ = 0;
  // Bound of every checked transformation (memory grows with the checks).
  absl::flat_hash_map<LatticeIndex, double, LatticeIndexHash> bounds_;
  CheckResult probe_;  // scratch for better()
  std::uint64_t checks_to_best_ = 0;
  struct Pending {
    double lower_bound;
    LatticeIndex index;
  };
  std::vector<Pending> pending_;
};

// How many checks the searches compute ahead of time at once
// (Evaluator::prefetch): the next transformations they will check unless a
// check before them prunes them. Fixed, never the number of threads, so the
// checks computed and the sources they roll up from are the same for any
// thread count; 8 keeps two cores busy when check times vary and wastes
// little when a new best prunes some of them.
inline constexpr std::size_t kSpeculation = 8;

// Phase 1 of the pruning searches, for a good solution early: a greedy
// ascent from the bottom. At a transformation that is no solution, check
// (all ahead of time, Evaluator::prefetch) its unpruned, unchecked successors and move to a solution among them with
// the smallest bound, else to the non-solution with the smallest bound. Ends
// at a solution, or where no successor is left. Returns false when a limit
// stopped it.
bool greedy_ascent(PredictiveProperties& props, Evaluator& ev);

// Flash's binary search (Kohlmayer et al. 2012) on a greedy path upward
// from `start` through unresolved transformations (monotonic privacy models
// only): a check of a non-solution on the path resolves its specializations,
// a check of a solution its generalizations, so the boundary between them
// is found with a logarithmic number of checks and inserted into the
// stores. The path ends where every successor is checked, known, or has
// insufficient quality. With `past_quality` (best-first with level bounds)
// insufficient quality does not end it: a non-solution above the region of
// low bounds covers more of that region than one inside it. The binary
// search then covers the part from the path's last transformation of
// sufficient quality up first: below it nearly every transformation is a
// non-solution, so the part below is searched only when that one is a
// solution. `path` is scratch. Returns false when a limit stopped it.
bool probe_path(PredictiveProperties& props, Evaluator& ev, const Transformation& start,
                std::vector<Transformation>& path, bool past_quality = false);

}  // namespace deid::search_internal
