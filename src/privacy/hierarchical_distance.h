// Earth mover's distance (EMD) with hierarchical ground distance, for
// t-closeness on categorical sensitive values with a generalization
// hierarchy (Li, Li and Venkatasubramanian, ICDE 2007, section 4.2).
//
// The ground distance of two values is (level of their lowest common
// ancestor) / H, H the height of the hierarchy. The EMD is then computed
// bottom-up: with extra(v) = q_v - p_v at the leaves and, for a node N,
// extra(N) the sum over its children, pos(N) and neg(N) the sums of the
// positive and of the negated negative extras of N's children,
//
//   D[P,Q] = sum over inner nodes N of level(N)/H * min(pos(N), neg(N)).
//
// Computed as ARX 3.9 (HierarchicalDistanceTCloseness) does: extras in exact
// integer arithmetic scaled by rows * class size, the cost summed level by
// level with nodes in order of first appearance in the hierarchy file, then
// divided by rows * class size. A node is a (level, value) pair of the
// hierarchy file; leaves of the file absent from the data have extra 0.
//
// Thread-safety: const methods may be called from several threads at once.
#pragma once

#include <cstdint>
#include <vector>

#include "deid/hierarchy.h"
#include "deid/privacy.h"

namespace deid {

class HierarchicalDistance {
 public:
  // `hierarchy` bound to the attribute's column (Generalization::build
  // validates it); `reference_counts[code]` the occurrences of each code in
  // the whole input.
  HierarchicalDistance(const Generalization& hierarchy, std::vector<std::uint64_t> reference_counts);

  // D[P,Q] of the class with distribution `cls` and `count` records.
  double distance(const ClassView::Distribution& cls, std::uint64_t count) const;
  // Whether D[P,Q] <= t.
  bool within(const ClassView::Distribution& cls, std::uint64_t count, double t) const {
    return distance(cls, count) <= t;
  }

 private:
  std::vector<std::uint64_t> q_counts_;       // code → count in the input
  std::uint64_t rows_ = 0;
  int height_ = 0;                            // H: number of levels above the leaves
  // parent_[l-1][node of level l-1] = node of level l, for l = 1..H (level 0
  // nodes are column codes). Nodes without a value of the data under them
  // keep parent 0: their extra is always 0.
  std::vector<std::vector<std::uint32_t>> parent_;
  std::vector<std::uint32_t> nodes_;          // nodes_[l] = number of nodes of level l
};

}  // namespace deid
