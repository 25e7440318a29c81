#include "risk/suppression.h"

#include <algorithm>
#include <cmath>

namespace deid::risk {

std::optional<double> class_information_loss(const Problem& problem, const Transformation& t,
                                             const Classes& classes, std::size_t c) {
  if (!problem.quality || problem.quality->name() != "loss") return std::nullopt;
  // ARX: per quasi-identifier count * share, not normalized and without the
  // gs weights, aggregated as the metric aggregates. The aggregate only
  // breaks ties between classes of equal size; deid's QualityModel does not
  // expose the job's aggregate, so ARX's default for Loss is used.
  const std::uint32_t w = classes.width;
  std::vector<double> values(w);
  const double count = static_cast<double>(classes.counts[c]);
  for (std::uint32_t q = 0; q < w; ++q) {
    const Generalization& h = problem.hierarchies[q];
    const double share = static_cast<double>(h.leaves(t[q], classes.keys[c * w + q])) /
                         static_cast<double>(h.hierarchy_rows());
    values[q] = count * share;
  }
  return aggregate(Aggregate::geometric_mean, values);
}

std::vector<std::uint32_t> suppression_order(const Problem& problem, const Transformation& t,
                                             const Classes& classes) {
  std::vector<std::uint32_t> order;
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (!classes.suppressed[c] && classes.counts[c] > 0) order.push_back(static_cast<std::uint32_t>(c));
  std::vector<double> loss;
  const bool by_loss = problem.quality && problem.quality->name() == "loss";
  if (by_loss) {
    loss.assign(classes.size(), 0.0);
    for (std::uint32_t c : order) loss[c] = *class_information_loss(problem, t, classes, c);
  }
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (classes.counts[a] != classes.counts[b]) return classes.counts[a] < classes.counts[b];
    if (by_loss && loss[a] != loss[b]) return loss[a] < loss[b];
    return a < b;
  });
  return order;
}

std::vector<std::uint32_t> first_for_suppression(const Problem& problem, const Transformation& t,
                                                 const Classes& classes, std::size_t prefix) {
  std::vector<std::uint32_t> out;
  if (prefix == 0) return out;
  std::vector<std::uint64_t> sizes;
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (!classes.suppressed[c] && classes.counts[c] > 0) sizes.push_back(classes.counts[c]);
  // The size of the last class selected.
  std::nth_element(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(prefix - 1), sizes.end());
  const std::uint64_t boundary = sizes[prefix - 1];
  std::vector<std::uint32_t> ties;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    if (classes.suppressed[c] || classes.counts[c] == 0) continue;
    if (classes.counts[c] < boundary) out.push_back(static_cast<std::uint32_t>(c));
    if (classes.counts[c] == boundary) ties.push_back(static_cast<std::uint32_t>(c));
  }
  const std::size_t wanted = prefix - out.size();
  if (wanted < ties.size()) {
    // Break the tie as suppression_order() does: by loss, then by index.
    const bool by_loss = problem.quality && problem.quality->name() == "loss";
    std::vector<std::pair<double, std::uint32_t>> keyed;
    keyed.reserve(ties.size());
    if (by_loss) {
      // class_information_loss() for classes of one size: its factors
      // pow(count * share + 1, 1/w) depend on (attribute, value) alone, so
      // each is computed once (the same operations in the same order, so
      // the same keys; measured: the block of uniques of adult has
      // thousands of classes and few distinct values).
      const std::uint32_t w = classes.width;
      const double count = static_cast<double>(boundary);
      std::vector<std::vector<double>> factor(w);
      for (std::uint32_t q = 0; q < w; ++q) factor[q].assign(problem.hierarchies[q].domain_size(t[q]), -1.0);
      for (std::uint32_t c : ties) {
        double product = 1.0;
        for (std::uint32_t q = 0; q < w; ++q) {
          const std::uint32_t code = classes.keys[static_cast<std::size_t>(c) * w + q];
          double& f = factor[q][code];
          if (f < 0) {
            const Generalization& h = problem.hierarchies[q];
            const double share =
                static_cast<double>(h.leaves(t[q], code)) / static_cast<double>(h.hierarchy_rows());
            f = std::pow(count * share + 1.0, 1.0 / static_cast<double>(w));
          }
          product *= f;
        }
        keyed.emplace_back(product - 1.0, c);
      }
    } else {
      for (std::uint32_t c : ties) keyed.emplace_back(0.0, c);
    }
    std::nth_element(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(wanted), keyed.end());
    for (std::size_t i = 0; i < wanted; ++i) out.push_back(keyed[i].second);
  } else {
    out.insert(out.end(), ties.begin(), ties.end());
  }
  return out;
}

}  // namespace deid::risk
