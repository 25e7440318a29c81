// What ARX's heuristic searches share (bottom-up and top-down Lightning,
// the genetic algorithm; docs/search.md, "The heuristic searches"):
//
// - each transformation is checked once; later visits read the stored
//   result (ARX keeps every result: StorageStrategy.ALL);
// - every check measures the information loss, solution or not (ARX checks
//   with forceMeasureInfoLoss and suppression always enabled: a
//   non-solution's loss is that of its output with every violating class
//   suppressed; Evaluator::set_measure_all);
// - the released transformation is ARX's global optimum
//   (AbstractAlgorithm.trackOptimum): a solution replaces it when its loss
//   is strictly lower, or equal with a strictly lower rank; the first of
//   equals stays;
// - the searches stop when the evaluator is exhausted (ARX's mustStop:
//   the time limit or the budget of checks, ARX's step limit in checks).
//
// And java.util.PriorityQueue's binary heap, operation for operation, so
// that Lightning takes equal-loss entries in ARX's order.
//
// Internal to src/search.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/search.h"
#include "search/predictive.h"

namespace deid::search_internal {

// What a heuristic search remembers of a check.
struct Known {
  double loss = 0;   // CheckResult::quality.value, measured for every check
  double bound = 0;  // CheckResult::lower_bound
  bool solution = false;
};

class HeuristicChecks {
 public:
  // Turns on Evaluator::set_measure_all.
  explicit HeuristicChecks(Evaluator& ev);

  const Lattice& lattice() const { return lattice_; }
  // The stored result of `t` (index `i`), checking it first when unknown.
  const Known& get(const Transformation& t, LatticeIndex i);
  const Known& get(const Transformation& t) { return get(t, lattice_.index(t)); }
  // The stored result, or null when `i` was never checked.
  const Known* find(LatticeIndex i) const;
  // ARX's mustStop().
  bool must_stop() const { return ev_.exhausted(); }
  // ARX's global optimum so far.
  const std::optional<CheckResult>& optimum() const { return optimum_; }
  Evaluator& evaluator() { return ev_; }

  // The outcome: the optimum, never `optimal`; the checks, and when the
  // optimum was found (checks_to_best, time_to_best_ms).
  SearchOutcome outcome(const std::string& algorithm, bool stopped) const;

 private:
  Evaluator& ev_;
  Lattice lattice_;
  absl::flat_hash_map<LatticeIndex, Known, LatticeIndexHash> known_;
  std::optional<CheckResult> optimum_;
  std::uint64_t checks_to_best_ = 0;
  double time_to_best_ = 0;
};

// java.util.PriorityQueue<E> with a comparator (OpenJDK's binary heap:
// offer/siftUp, poll/siftDown, remove(Object)/removeAt), for entries
// compared by `less` (a strict weak order; equal entries keep the heap's
// own order, which is what makes two implementations agree on ties).
template <class T, class Less>
class JavaPriorityQueue {
 public:
  explicit JavaPriorityQueue(Less less) : less_(std::move(less)) {}

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  void add(T x) {
    heap_.push_back(x);
    sift_up(heap_.size() - 1, std::move(x));
  }

  T poll() {
    T result = heap_.front();
    T last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, std::move(last));
    return result;
  }

  // Removes the first entry equal to `x` in the heap's array, if any.
  bool remove(const T& x) {
    for (std::size_t i = 0; i < heap_.size(); ++i)
      if (heap_[i] == x) {
        remove_at(i);
        return true;
      }
    return false;
  }

 private:
  int compare(const T& a, const T& b) const { return less_(a, b) ? -1 : (less_(b, a) ? 1 : 0); }

  void sift_up(std::size_t k, T x) {
    while (k > 0) {
      const std::size_t parent = (k - 1) / 2;
      if (compare(x, heap_[parent]) >= 0) break;
      heap_[k] = heap_[parent];
      k = parent;
    }
    heap_[k] = std::move(x);
  }

  void sift_down(std::size_t k, T x) {
    const std::size_t n = heap_.size();
    const std::size_t half = n / 2;
    while (k < half) {
      std::size_t child = 2 * k + 1;
      const std::size_t right = child + 1;
      if (right < n && compare(heap_[child], heap_[right]) > 0) child = right;
      if (compare(x, heap_[child]) <= 0) break;
      heap_[k] = heap_[child];
      k = child;
    }
    heap_[k] = std::move(x);
  }

  void remove_at(std::size_t i) {
    const std::size_t s = heap_.size() - 1;
    if (s == i) {
      heap_.pop_back();
      return;
    }
    T moved = heap_.back();
    heap_.pop_back();
    sift_down(i, moved);
    if (heap_[i] == moved) sift_up(i, moved);
  }

  Less less_;
  std::vector<T> heap_;
};

}  // namespace deid::search_internal
