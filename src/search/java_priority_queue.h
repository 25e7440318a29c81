// A priority queue that polls equal elements in the order
// java.util.PriorityQueue does: the same binary heap, sifted the same way
// (ARX's Flash keeps its binary phase's transformations in one, ordered by
// FLASHStrategy, which ranks many transformations equal; search/arx_flash.h).
// The heap is not stable, so a std::priority_queue would poll ties in
// another order.
#pragma once

#include <cstddef>
#include <vector>

namespace deid {

// `Compare(a, b)` returns <0, 0 or >0 like java.util.Comparator.compare.
template <class T, class Compare>
class JavaPriorityQueue {
 public:
  explicit JavaPriorityQueue(Compare compare) : compare_(compare) {}

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  // PriorityQueue.offer: appended, then sifted up while smaller than its
  // parent.
  void add(const T& x) {
    std::size_t k = heap_.size();
    heap_.push_back(x);
    while (k > 0) {
      const std::size_t parent = (k - 1) >> 1;
      if (compare_(x, heap_[parent]) >= 0) break;
      heap_[k] = heap_[parent];
      k = parent;
    }
    heap_[k] = x;
  }

  // PriorityQueue.poll: the head; the last element sifts down from the
  // root, towards the smaller child (the left one on a tie). REQUIRES: not
  // empty.
  T poll() {
    const T result = heap_[0];
    const T x = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n > 0) {
      std::size_t k = 0;
      const std::size_t half = n >> 1;
      while (k < half) {
        std::size_t child = 2 * k + 1;
        T c = heap_[child];
        const std::size_t right = child + 1;
        if (right < n && compare_(c, heap_[right]) > 0) c = heap_[child = right];
        if (compare_(x, c) <= 0) break;
        heap_[k] = c;
        k = child;
      }
      heap_[k] = x;
    }
    return result;
  }

 private:
  Compare compare_;
  std::vector<T> heap_;
};

}  // namespace deid
