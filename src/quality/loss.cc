#include "quality/loss.h"

#include <fmt/format.h>

#include <algorithm>

#include "deid/check.h"
#include "deid/problem.h"

namespace deid {

LossModel::LossModel(Aggregate aggregate, double gs_factor)
    : aggregate_(aggregate), gs_factor_(gs_factor), weights_(quality::gs_weights(gs_factor)) {}

std::string LossModel::describe() const {
  return fmt::format("Loss ({}/{}/{})", quality::java_double(gs_factor_), quality::java_double(weights_.generalization),
                     quality::java_double(weights_.suppression));
}

QualityValue LossModel::compute(const Problem& problem, const Transformation& t, const Classes& classes,
                                bool with_suppression) const {
  const std::uint32_t w = classes.width;
  const double n = static_cast<double>(problem.rows);
  const double g = weights_.generalization;
  const double s = weights_.suppression;
  QualityValue out;
  out.per_attribute.resize(w);
  for (std::uint32_t q = 0; q < w; ++q) {
    const Generalization& h = problem.hierarchies[q];
    const double rows_h = static_cast<double>(h.hierarchy_rows());
    // Shares are sums of integers (records x hierarchy rows) over H, so the
    // sums are kept as integers: the value then does not depend on the
    // order of the classes, and the bound of a fixed level is the same
    // number in every transformation (ARX sums doubles in its hash order,
    // which can move a value across the 10-digit truncation).
    std::uint64_t kept_leaves = 0, suppressed_leaves = 0, suppressed_records = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const std::uint64_t leaves = classes.counts[c] * h.leaves(t[q], classes.keys[c * w + q]);
      if (with_suppression && classes.suppressed[c]) {
        suppressed_leaves += leaves;
        suppressed_records += classes.counts[c];
      } else {
        kept_leaves += leaves;
      }
    }
    // sum = g * (share of every record) + surcharge of the suppressed ones.
    // Writing it this way computes the first term exactly as the bound
    // does, so the value can never drop below the bound by rounding.
    const double all_share = static_cast<double>(kept_leaves + suppressed_leaves) / rows_h;
    double sum = all_share * g;
    if (suppressed_records > 0) {
      // ARX: a suppressed record keeps the loss of its generalized value
      // and pays s for the rest; with s = 1 that is the whole record:
      //   s = 1: count - g * share;  s < 1 (then g = 1): s * (count - share).
      const double share = static_cast<double>(suppressed_leaves) / rows_h;
      const double records = static_cast<double>(suppressed_records);
      const double surcharge = s == 1.0 ? records - g * share : share * (1.0 - g) + s * (records - share);
      sum += std::max(0.0, surcharge);
    }
    // The minimum is the original data, where every record has share 1/H,
    // weighted like any generalized value (ARX normalizes with g * n / H).
    const double min = g * n / rows_h;
    const double v = n - min > 0 ? (sum - min) / (n - min) : 0.0;
    out.per_attribute[q] = quality::truncate_10_digits(std::max(0.0, v));
  }
  out.value = deid::aggregate(aggregate_, out.per_attribute);
  return out;
}

QualityValue LossModel::evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const {
  return compute(problem, t, classes, true);
}

double LossModel::lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  return compute(problem, t, classes, false).value;
}

}  // namespace deid
