// Earth mover's distance (EMD) with equal ground distance (every two
// distinct values at distance 1), for t-closeness on categorical sensitive
// values (Li, Li and Venkatasubramanian, ICDE 2007, section 4.2): half the
// L1 distance of the class's distribution P and the input's Q,
//
//   D[P,Q] = 1/2 * sum_i |p_i - q_i|.
//
// Computed as ARX 3.9 (EqualDistanceTCloseness) does, touching only the
// values present in the class: the values absent from it contribute q_i, and
// their sum is 1 - sum_{i in P} q_i, so
//
//   D[P,Q] = 1/2 * (1 + sum_{i in P} (|p_i - q_i| - q_i)).
//
// Thread-safety: immutable after construction.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "deid/privacy.h"

namespace deid {

class EqualDistance {
 public:
  // `reference_counts[code]`: occurrences of each code in the whole input.
  explicit EqualDistance(const std::vector<std::uint64_t>& reference_counts) {
    std::uint64_t rows = 0;
    for (auto c : reference_counts) rows += c;
    q_.reserve(reference_counts.size());
    for (auto c : reference_counts) q_.push_back(static_cast<double>(c) / static_cast<double>(rows));
  }

  // D[P,Q] of the class with distribution `cls` and `count` records.
  double distance(const ClassView::Distribution& cls, std::uint64_t count) const {
    const double n = static_cast<double>(count);
    double d = 1.0;
    for (std::size_t i = 0; i < cls.codes.size(); ++i) {
      const double q = q_[cls.codes[i]];
      d += std::fabs(q - static_cast<double>(cls.counts[i]) / n) - q;
    }
    return d / 2;
  }
  bool within(const ClassView::Distribution& cls, std::uint64_t count, double t) const {
    return distance(cls, count) <= t;
  }

 private:
  std::vector<double> q_;  // code → q
};

}  // namespace deid
