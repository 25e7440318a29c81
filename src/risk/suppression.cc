#include "risk/suppression.h"

#include <algorithm>

namespace deid::risk {
namespace {

// Whether classes of equal size are told apart by their information loss:
// only when the job has a quality model whose class loss depends on more
// than the size (ARX's per-class losses of the other models are functions
// of the size, so they tie and the first record decides).
bool orders_by_loss(const Problem& problem) {
  return problem.quality && problem.quality->class_loss_depends_on_values();
}

}  // namespace

std::optional<double> class_information_loss(const Problem& problem, const Transformation& t,
                                             const Classes& classes, std::size_t c) {
  if (!problem.quality) return std::nullopt;
  return problem.quality->class_loss(problem, t, classes, c);
}

std::vector<std::uint32_t> suppression_order(const Problem& problem, const Transformation& t,
                                             const Classes& classes) {
  std::vector<std::uint32_t> order;
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (!classes.suppressed[c] && classes.counts[c] > 0) order.push_back(static_cast<std::uint32_t>(c));
  std::vector<double> loss;
  const bool by_loss = orders_by_loss(problem);
  if (by_loss) {
    loss.assign(classes.size(), 0.0);
    for (std::uint32_t c : order) loss[c] = problem.quality->class_loss(problem, t, classes, c);
  }
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (classes.counts[a] != classes.counts[b]) return classes.counts[a] < classes.counts[b];
    if (by_loss && loss[a] != loss[b]) return loss[a] < loss[b];
    return a < b;
  });
  return order;
}

std::vector<std::uint32_t> first_for_suppression(const Problem& problem, const Transformation& t,
                                                 const Classes& classes, std::size_t prefix,
                                                 std::optional<std::uint64_t> known_boundary) {
  std::vector<std::uint32_t> out;
  if (prefix == 0) return out;
  std::uint64_t boundary = 0;  // the size of the last class selected
  if (known_boundary) {
    boundary = *known_boundary;
  } else {
    std::vector<std::uint64_t> sizes;
    for (std::size_t c = 0; c < classes.size(); ++c)
      if (!classes.suppressed[c] && classes.counts[c] > 0) sizes.push_back(classes.counts[c]);
    std::nth_element(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(prefix - 1), sizes.end());
    boundary = sizes[prefix - 1];
  }
  out.reserve(prefix);
  std::vector<std::uint32_t> ties;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    if (classes.suppressed[c] || classes.counts[c] == 0) continue;
    if (classes.counts[c] < boundary) out.push_back(static_cast<std::uint32_t>(c));
    if (classes.counts[c] == boundary) ties.push_back(static_cast<std::uint32_t>(c));
  }
  const std::size_t wanted = prefix - out.size();
  if (wanted < ties.size()) {
    // Break the tie as suppression_order() does: by loss, then by index.
    std::vector<double> loss(ties.size(), 0.0);
    if (orders_by_loss(problem)) problem.quality->class_losses(problem, t, classes, ties, loss);
    std::vector<std::pair<double, std::uint32_t>> keyed;
    keyed.reserve(ties.size());
    for (std::size_t i = 0; i < ties.size(); ++i) keyed.emplace_back(loss[i], ties[i]);
    std::nth_element(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(wanted), keyed.end());
    for (std::size_t i = 0; i < wanted; ++i) out.push_back(keyed[i].second);
  } else {
    out.insert(out.end(), ties.begin(), ties.end());
  }
  return out;
}

}  // namespace deid::risk
