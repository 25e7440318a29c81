// ARX 3.9.2's Flash traversal (search/arx_flash.h). Written from the
// semantics of ARX's FLASHAlgorithm, FLASHAlgorithmImpl, FLASHStrategy,
// AbstractAlgorithm, SolutionSpace and TransformationLong, and of the JHPL
// lattice they use; the comments name the Java methods each part follows.
#include "search/arx_flash.h"

#include <algorithm>
#include <array>
#include <list>
#include <string>

#include "deid/lattice.h"
#include "deid/quality.h"
#include "search/java_priority_queue.h"

namespace deid {
namespace {

// Predictive properties (SolutionSpace.getProperty*), one bit each.
enum Property : std::uint16_t {
  kAnonymous = 1,
  kNotAnonymous = 2,
  kChecked = 4,
  kInsufficientUtility = 8,
  kSuccessorsPruned = 16,
  kVisited = 32,
  kKAnonymous = 64,
  kNotKAnonymous = 128,
};
enum class Direction { none, up, down };

// FLASHAlgorithm.create's configurations, named after the monotonicity of
// privacy, then of utility.
enum class Kind { full_full, full_none, partial_full, partial_none, none_full, none_none };

// A Transformation object of ARX: the same node may be represented by
// several objects, and FLASHAlgorithmImpl.prune compares the optimum by
// identity, so each object gets a serial number.
struct Object {
  std::uint32_t id = 0;
  std::uint64_t serial = 0;
};

class Flash {
 public:
  // `minimal`: ARX's getMinimalGroupSize, 0 when no model declares one or
  // the configuration does not read the k-anonymity property.
  Flash(const Problem& problem, const std::vector<std::vector<std::uint32_t>>& distinct, Kind kind,
        std::uint64_t minimal, const ArxFlashTraits& traits)
      : problem_(problem), checker_(problem), kind_(kind), distinct_(&distinct), minimal_(minimal),
        max_suppressed_(problem.max_suppressed), traits_(traits) {
    const Lattice lattice = problem.lattice();
    n_ = lattice.dimensions();
    for (std::size_t i = 0; i < n_; ++i) {
      lo_.push_back(lattice.min_level(i));
      hi_.push_back(lattice.max_level(i));
    }
    // JHPL's identifiers: mixed radix over the levels above the minimum,
    // the first attribute least significant (SolutionSpace.toJHPL reverses
    // the attributes, JHPLSpace makes its last dimension least
    // significant). A level's transformations come in ascending identifier
    // order (JHPLUnsafe.listAllNodesAsIdentifiers), and so do a
    // transformation's successors (TransformationLong.getSuccessors
    // reverses JHPL's descending list): attribute order.
    std::uint64_t m = 1;
    for (std::size_t i = 0; i < n_; ++i) {
      mult_.push_back(m);
      m *= static_cast<std::uint64_t>(hi_[i] - lo_[i] + 1);
    }
    size_ = m;
    bits_.assign(size_, 0);
    loss_.assign(size_, 0.0);
    bound_.assign(size_, 0.0);
    has_bound_.assign(size_, 0);
    result_.assign(size_, -1);
    sorted_.resize(size_);
    sorted_done_.assign(size_, 0);
    criteria_.resize(size_);
    // FLASHStrategy: maxLevels are the top's levels, distinct values per
    // level of each hierarchy.
    top_level_ = 0;
    for (std::size_t i = 0; i < n_; ++i) top_level_ += hi_[i];
    for (std::uint64_t id = 0; id < size_; ++id) criteria_[id] = criteria(id);
    predictable_ = kind == Kind::full_full || kind == Kind::full_none;
    prune_ = kind != Kind::full_full;
    binary_ = kind == Kind::full_full || kind == Kind::full_none || kind == Kind::partial_full ||
              kind == Kind::partial_none;
    linear_ = kind != Kind::full_full;
  }

  ArxFlashOutcome run() {
    // FLASHAlgorithmImpl.traverse.
    const std::uint32_t bottom = 0;
    check(bottom);  // checked first, its result kept (setData)
    int bottom_level = 0;
    for (std::size_t i = 0; i < n_; ++i) bottom_level += lo_[i];
    std::vector<std::vector<std::uint32_t>> levels(static_cast<std::size_t>(top_level_ - bottom_level + 1));
    for (std::uint64_t id = 0; id < size_; ++id)
      levels[static_cast<std::size_t>(level(static_cast<std::uint32_t>(id)) - bottom_level)].push_back(
          static_cast<std::uint32_t>(id));
    for (const std::vector<std::uint32_t>& nodes : levels) {
      // getSortedUnprocessedNodes: the level's nodes the outer phase does
      // not skip, at the time the level starts, sorted by the strategy.
      std::vector<std::uint32_t> todo;
      for (const std::uint32_t id : nodes)
        if (!skip(binary_ ? Phase::binary : Phase::linear, id)) todo.push_back(id);
      sort(todo);
      for (const std::uint32_t id : todo) {
        const Object t = make(id);
        if (binary_)
          binary_search(t);
        else
          linear_search(t);
      }
    }
    ArxFlashOutcome out;
    out.simulated = true;
    out.checks = results_.size();
    if (optimum_) out.optimum = results_[static_cast<std::size_t>(result_[optimum_->id])];
    return out;
  }

 private:
  enum class Phase { binary, linear };

  Object make(std::uint32_t id) { return Object{id, ++serial_}; }

  // Attribute i's level in transformation `id`, and the sum of the levels
  // (Transformation.getLevel).
  int level_of(std::uint32_t id, std::size_t i) const {
    return lo_[i] + static_cast<int>(id / mult_[i] % static_cast<std::uint64_t>(hi_[i] - lo_[i] + 1));
  }
  int level(std::uint32_t id) const {
    int l = 0;
    for (std::size_t i = 0; i < n_; ++i) l += level_of(id, i);
    return l;
  }
  Transformation transformation(std::uint32_t id) const {
    Transformation t(n_);
    for (std::size_t i = 0; i < n_; ++i) t[i] = static_cast<std::uint8_t>(level_of(id, i));
    return t;
  }

  // FLASHStrategy.getCriteria: the level over the top's level, the mean
  // generalization degree, and one minus the mean share of distinct values
  // kept, in doubles as ARX computes them.
  std::array<double, 3> criteria(std::uint64_t id64) const {
    const auto id = static_cast<std::uint32_t>(id64);
    double prec = 0, ddistinct = 0;
    const double lvl = static_cast<double>(level(id)) / static_cast<double>(top_level_);
    for (std::size_t i = 0; i < n_; ++i) {
      const int g = level_of(id, i);
      const std::vector<std::uint32_t>& d = (*distinct_)[i];
      ddistinct += static_cast<double>(d[static_cast<std::size_t>(g)]) / static_cast<double>(d[0]);
      prec += static_cast<double>(g) / static_cast<double>(hi_[i]);
    }
    ddistinct /= static_cast<double>(n_);
    prec /= static_cast<double>(n_);
    ddistinct = 1.0 - ddistinct;
    return {lvl, prec, ddistinct};
  }
  // FLASHStrategy.compare.
  int compare(std::uint32_t a, std::uint32_t b) const {
    const std::array<double, 3>& x = criteria_[a];
    const std::array<double, 3>& y = criteria_[b];
    for (std::size_t k = 0; k < 3; ++k) {
      if (x[k] < y[k]) return -1;
      if (x[k] > y[k]) return 1;
    }
    return 0;
  }
  // FLASHAlgorithmImpl.sort: a stable merge sort (colt's GenericSorting).
  void sort(std::vector<std::uint32_t>& ids) const {
    std::stable_sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) { return compare(a, b) < 0; });
  }
  const std::vector<std::uint32_t>& successors(std::uint32_t id) {
    std::vector<std::uint32_t>& s = sorted_[id];
    if (!sorted_done_[id]) {
      for (std::size_t i = 0; i < n_; ++i)
        if (level_of(id, i) < hi_[i]) s.push_back(static_cast<std::uint32_t>(id + mult_[i]));
      sort(s);
      sorted_done_[id] = 1;
    }
    return s;
  }

  // Predictive properties (JHPL): UP holds for every generalization of a
  // node it was put on, DOWN for every specialization.
  bool has(std::uint32_t id, std::uint16_t p) const { return (bits_[id] & p) != 0; }
  Direction direction(std::uint16_t p) const {
    switch (p) {
      case kAnonymous:
        return predictable_ ? Direction::up : Direction::none;
      case kNotAnonymous:
        return predictable_ ? Direction::down : Direction::none;
      case kInsufficientUtility:
      case kSuccessorsPruned:
      case kKAnonymous:
        return Direction::up;
      case kNotKAnonymous:
        return Direction::down;
      default:
        return Direction::none;
    }
  }
  void put(std::uint32_t id, std::uint16_t p) {
    const Direction d = direction(p);
    if (d == Direction::none) {
      bits_[id] |= p;
      return;
    }
    if (has(id, p)) return;
    std::vector<std::uint32_t> stack{id};
    bits_[id] |= p;
    while (!stack.empty()) {
      const std::uint32_t x = stack.back();
      stack.pop_back();
      for (std::size_t i = 0; i < n_; ++i) {
        const int l = level_of(x, i);
        if (d == Direction::up ? l >= hi_[i] : l <= lo_[i]) continue;
        const auto y = static_cast<std::uint32_t>(d == Direction::up ? x + mult_[i] : x - mult_[i]);
        if (has(y, p)) continue;
        bits_[y] |= p;
        stack.push_back(y);
      }
    }
  }

  // TransformationChecker.check, its results kept per node: the loss and
  // the bound as ARX computes them, and with a minimal class size whether
  // the records of smaller classes fit the limit (HashGroupify's
  // minimalClassSizeFulfilled).
  const CheckResult& check(std::uint32_t id) {
    if (result_[id] < 0) {
      result_[id] = static_cast<std::int64_t>(results_.size());
      Classes classes;
      const Transformation t = transformation(id);
      results_.push_back(checker_.check(t, &classes));
      const QualityModel& model = *problem_.quality;
      const bool solution = results_.back().solution;
      arx_loss_.push_back(solution ? model.arx_value(problem_, t, classes) : 0.0);
      arx_bound_.push_back(solution ? (traits_.bound_from_solution ? model.arx_solution_bound(problem_, t, classes) : 0.0)
                                    : (traits_.bound_from_other_check ? model.arx_bound(problem_, t, &classes) : 0.0));
      std::uint64_t small = 0;
      for (std::size_t c = 0; c < classes.size(); ++c)
        if (classes.counts[c] < minimal_) small += classes.counts[c];
      k_anonymous_.push_back(minimal_ != 0 && small <= max_suppressed_);
    }
    return results_[static_cast<std::size_t>(result_[id])];
  }
  // Transformation.setChecked: the check's loss, and its bound where it
  // gives one (TransformationChecker: for a solution the bound that comes
  // with the loss, replacing any; else Metric.getLowerBound(transformation,
  // groupify), which keeps a bound the transformation already has).
  void set_checked(std::uint32_t id) {
    const CheckResult r = check(id);
    const auto k = static_cast<std::size_t>(result_[id]);
    put(id, kChecked);
    put(id, r.solution ? kAnonymous : kNotAnonymous);
    if (minimal_ != 0) put(id, k_anonymous_[k] ? kKAnonymous : kNotKAnonymous);
    loss_[id] = r.solution ? arx_loss_[k] : 0.0;
    if (r.solution) {
      has_bound_[id] = traits_.bound_from_solution;  // replaced, by none too
      bound_[id] = arx_bound_[k];
    } else if (traits_.bound_from_other_check && !has_bound_[id]) {
      has_bound_[id] = 1;
      bound_[id] = arx_bound_[k];
    }
  }
  // Transformation.getLowerBound where FLASHAlgorithmImpl.skip asks for it:
  // the check's bound, else the one from the levels alone
  // (Metric.getLowerBound(transformation)), kept.
  bool lower_bound(std::uint32_t id) {
    if (!has_bound_[id] && traits_.bound_from_levels) {
      bound_[id] = problem_.quality->arx_bound(problem_, transformation(id), nullptr);
      has_bound_[id] = 1;
    }
    return has_bound_[id] != 0;
  }

  // The phases' triggers (FLASHAlgorithm.create*).
  bool trigger_skip(Phase phase, std::uint32_t id) const {
    switch (kind_) {
      case Kind::full_full:
        return has(id, kAnonymous) || has(id, kNotAnonymous);
      case Kind::full_none:
        return phase == Phase::binary ? has(id, kAnonymous) || has(id, kNotAnonymous)
                                      : has(id, kNotAnonymous) || has(id, kVisited);
      case Kind::partial_full:
        return (phase == Phase::binary ? has(id, kKAnonymous) : has(id, kVisited)) || has(id, kNotKAnonymous) ||
               has(id, kInsufficientUtility);
      case Kind::partial_none:
        return (phase == Phase::binary ? has(id, kKAnonymous) : has(id, kVisited)) || has(id, kNotKAnonymous);
      case Kind::none_full:
        return has(id, kAnonymous) || has(id, kNotAnonymous) || has(id, kInsufficientUtility);
      case Kind::none_none:
        return has(id, kAnonymous) || has(id, kNotAnonymous);
    }
    return false;
  }
  bool trigger_check(Phase phase, std::uint32_t id) const {
    if (phase == Phase::linear) {
      if (kind_ == Kind::full_none) return !has(id, kChecked) && !has(id, kNotAnonymous);
      if (kind_ == Kind::partial_full)
        return !has(id, kVisited) && !has(id, kNotKAnonymous) && !has(id, kInsufficientUtility) && !has(id, kChecked);
      if (kind_ == Kind::partial_none) return !has(id, kChecked) && !has(id, kNotKAnonymous);
    }
    return !trigger_skip(phase, id);
  }
  // setPropertyToNeighbours(insufficient utility): the direct successors.
  void successors_insufficient(std::uint32_t id) {
    for (std::size_t i = 0; i < n_; ++i)
      if (level_of(id, i) < hi_[i]) put(static_cast<std::uint32_t>(id + mult_[i]), kInsufficientUtility);
  }
  void trigger_tag(Phase phase, std::uint32_t id) {
    switch (kind_) {
      case Kind::full_full:
        if (has(id, kAnonymous)) put(id, kSuccessorsPruned);
        break;
      case Kind::full_none:
        if (phase == Phase::linear) put(id, kVisited);
        break;
      case Kind::partial_full:
        if (phase == Phase::linear) put(id, kVisited);
        [[fallthrough]];
      case Kind::none_full:
        if (has(id, kAnonymous)) {
          successors_insufficient(id);
          put(id, kSuccessorsPruned);
        }
        break;
      case Kind::partial_none:
        if (phase == Phase::linear) put(id, kVisited);
        break;
      case Kind::none_none:
        break;
    }
  }

  // FLASHAlgorithmImpl.skip: the trigger, else insufficient utility known
  // or implied by a lower bound no better than the optimum's loss.
  bool skip(Phase phase, std::uint32_t id) {
    if (trigger_skip(phase, id)) return true;
    if (!prune_ || !optimum_) return false;
    if (has(id, kInsufficientUtility)) return true;
    // Loss has no lower bound without a check (MetricMDNMLoss
    // .getLowerBoundInternal(Transformation) is null); precision and height
    // have one from the levels.
    if (lower_bound(id) && optimal_loss_ <= bound_[id]) {
      put(id, kInsufficientUtility);
      put(id, kSuccessorsPruned);
      return true;
    }
    return false;
  }

  // AbstractAlgorithm.trackOptimum: a lower loss, or an equal loss at a
  // lower level; loss compared exactly (AbstractILMultiDimensionalReduced
  // .compareTo).
  void track_optimum(const Object& t) {
    if (!has(t.id, kAnonymous)) return;
    const double loss = loss_[t.id];
    if (!optimum_ || loss < optimal_loss_ || (loss == optimal_loss_ && level(t.id) < level(optimum_->id))) {
      optimum_ = t;
      optimal_loss_ = loss;
    }
  }

  // FLASHAlgorithmImpl.prune.
  void prune(const Object& t) {
    if (!prune_ || !has_bound_[t.id]) return;
    const bool is_optimum = optimum_ && optimum_->serial == t.serial;
    if (!is_optimum && has(t.id, kSuccessorsPruned)) return;
    if (!optimum_) {
      candidates_.push_back(t.id);
      return;
    }
    if (!is_optimum) {
      if (optimal_loss_ <= bound_[t.id]) {
        put(t.id, kInsufficientUtility);
        put(t.id, kSuccessorsPruned);
      } else {
        candidates_.push_back(t.id);
      }
      return;
    }
    for (auto it = candidates_.begin(); it != candidates_.end();) {
      if (has(*it, kSuccessorsPruned)) {
        it = candidates_.erase(it);
      } else if (optimal_loss_ <= bound_[*it]) {
        put(*it, kInsufficientUtility);
        put(*it, kSuccessorsPruned);
        it = candidates_.erase(it);
      } else {
        ++it;
      }
    }
    if (!has(t.id, kSuccessorsPruned)) candidates_.push_back(t.id);
  }

  // FLASHAlgorithmImpl.checkAndTag (Loss is not independent: nothing is
  // only evaluated).
  void check_and_tag(const Object& t, Phase phase) {
    if (trigger_check(phase, t.id)) set_checked(t.id);
    track_optimum(t);
    trigger_tag(phase, t.id);
    prune(t);
  }

  // FLASHAlgorithmImpl.binarySearch.
  void binary_search(const Object& start) {
    queue_.add(start.id);
    while (!queue_.empty()) {
      const Object t = make(queue_.poll());
      if (skip(Phase::binary, t.id)) continue;
      std::vector<Object> path = find_path(t);
      const std::optional<Object> head = check_path(path);
      if (linear_ && head) linear_search(*head);
    }
  }
  // FLASHAlgorithmImpl.findPath: greedily up through the first successor
  // not skipped.
  std::vector<Object> find_path(Object current) {
    std::vector<Object> path{current};
    for (bool found = true; found;) {
      found = false;
      for (const std::uint32_t next : successors(current.id)) {
        if (!skip(Phase::binary, next)) {
          current = make(next);
          path.push_back(current);
          found = true;
          break;
        }
      }
    }
    return path;
  }
  // FLASHAlgorithmImpl.checkPath: the binary phases of partially monotonic
  // privacy search for K_ANONYMITY, the others for ANONYMITY.
  std::optional<Object> check_path(const std::vector<Object>& path) {
    const std::uint16_t property =
        kind_ == Kind::partial_full || kind_ == Kind::partial_none ? kKAnonymous : kAnonymous;
    std::int64_t low = 0, high = static_cast<std::int64_t>(path.size()) - 1;
    std::optional<Object> last;
    while (low <= high) {
      const std::int64_t mid = (low + high) / 2;
      const Object& t = path[static_cast<std::size_t>(mid)];
      if (skip(Phase::binary, t.id)) {
        high = mid - 1;
        continue;
      }
      check_and_tag(t, Phase::binary);
      if (!has(t.id, property)) {
        for (const std::uint32_t up : successors(t.id))
          if (!skip(Phase::binary, up)) queue_.add(up);
        low = mid + 1;
      } else {
        last = t;
        high = mid - 1;
      }
    }
    return last;
  }
  // FLASHAlgorithmImpl.linearSearch: depth first with predictive tagging.
  void linear_search(const Object& t) {
    if (!skip(Phase::linear, t.id)) {
      check_and_tag(t, Phase::linear);
      for (const std::uint32_t child : successors(t.id))
        if (!skip(Phase::linear, child)) linear_search(make(child));
    }
    put(t.id, kSuccessorsPruned);
  }

  const Problem& problem_;
  Checker checker_;
  Kind kind_;
  const std::vector<std::vector<std::uint32_t>>* distinct_;
  std::uint64_t minimal_;
  std::uint64_t max_suppressed_;
  ArxFlashTraits traits_;
  std::vector<double> arx_loss_, arx_bound_;  // per result: ARX's loss and bound
  std::size_t n_ = 0;
  std::vector<int> lo_, hi_;
  std::vector<std::uint64_t> mult_;
  std::uint64_t size_ = 0;
  int top_level_ = 0;
  bool predictable_ = false, prune_ = false, binary_ = false, linear_ = false;

  std::vector<std::uint16_t> bits_;
  std::vector<double> loss_, bound_;
  std::vector<std::uint8_t> has_bound_, sorted_done_;
  std::vector<std::int64_t> result_;
  std::vector<CheckResult> results_;
  std::vector<std::uint8_t> k_anonymous_;  // per result
  std::vector<std::vector<std::uint32_t>> sorted_;
  std::vector<std::array<double, 3>> criteria_;
  // The binary phase's queue (java.util.PriorityQueue with FLASHStrategy).
  struct ByStrategy {
    const Flash* flash;
    int operator()(std::uint32_t a, std::uint32_t b) const { return flash->compare(a, b); }
  };
  JavaPriorityQueue<std::uint32_t, ByStrategy> queue_{ByStrategy{this}};
  std::list<std::uint32_t> candidates_;  // potentiallyInsufficientUtility
  std::optional<Object> optimum_;
  double optimal_loss_ = 0;
  std::uint64_t serial_ = 0;
};

}  // namespace

ArxFlashOutcome arx_flash_optimum(const Problem& problem, const std::vector<std::vector<std::uint32_t>>& distinct,
                                  double suppression_limit) {
  ArxFlashOutcome out;
  // The quality models simulated are those that describe themselves as ARX
  // sees them (QualityModel::arx_flash_traits: Metric's flags, where the
  // bounds come from; arx_value and arx_bound: the loss and bound as ARX
  // computes them).
  if (!problem.quality) return out;
  const std::optional<ArxFlashTraits> traits = problem.quality->arx_flash_traits();
  if (!traits) return out;
  if (problem.lattice().size() > kArxFlashMaxNodes) return out;
  // ARXConfiguration.getMonotonicityOfPrivacy: FULL when every model is
  // monotonic (deid's monotonic() already weighs suppression), PARTIAL when
  // not but some model declares a minimal class size, NONE otherwise.
  bool full = true;
  std::uint64_t minimal = 0;
  for (const auto& m : problem.privacy) {
    full = full && m->monotonic();
    if (m->declares_minimal_class_size()) minimal = std::max(minimal, m->minimal_class_size());
  }
  // getMonotonicityOfUtility: Metric.isMonotonic(suppression limit), the
  // flag under generalization without suppression, else the one under
  // suppression.
  const bool utility_full = suppression_limit == 0.0 ? traits->monotonic_generalization : traits->monotonic_suppression;
  const Kind kind = full           ? (utility_full ? Kind::full_full : Kind::full_none)
                   : minimal != 0 ? (utility_full ? Kind::partial_full : Kind::partial_none)
                                  : (utility_full ? Kind::none_full : Kind::none_none);
  // Only the partially monotonic configurations read the k-anonymity
  // property (TransformationChecker records it whenever a minimal class
  // size is declared).
  const bool partial = kind == Kind::partial_full || kind == Kind::partial_none;
  Flash flash(problem, distinct, kind, partial ? minimal : 0, *traits);
  return flash.run();
}

}  // namespace deid
