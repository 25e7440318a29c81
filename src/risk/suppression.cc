#include "risk/suppression.h"

#include <algorithm>
#include <tuple>

#include "check/entry_classes.h"

namespace deid::risk {
namespace {

// Whether classes of equal size are told apart by their information loss:
// only when the job has a quality model whose class loss depends on more
// than the size (ARX's per-class losses of the other models are functions
// of the size, so they tie and the first record decides).
bool orders_by_loss(const Problem& problem) {
  return problem.quality && problem.quality->class_loss_depends_on_values();
}

// The key that breaks the last ties, per class: ARX's representative.
// Without a research subset that is the class's first record, and classes
// are numbered in that order, so the index serves. With one, ARX resets the
// representative as the subset's records arrive (HashGroupify.addInternal:
// the first, then each later one), so it is the class's last record of the
// subset in input order; empty without a subset.
std::vector<std::uint64_t> subset_representatives(const Problem& problem, const Transformation& t,
                                                  const Classes& classes) {
  std::vector<std::uint64_t> last;
  if (!problem.has_subset() || problem.subset.size() != problem.histogram.row_entry.size()) return last;
  const std::vector<std::uint32_t> entry_class = entry_classes(problem, t, classes);
  last.assign(classes.size(), 0);
  for (std::size_t r = 0; r < problem.subset.size(); ++r)
    if (problem.subset[r]) last[entry_class[problem.histogram.row_entry[r]]] = r;
  return last;
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
  const std::vector<std::uint64_t> representative = subset_representatives(problem, t, classes);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (classes.counts[a] != classes.counts[b]) return classes.counts[a] < classes.counts[b];
    if (by_loss && loss[a] != loss[b]) return loss[a] < loss[b];
    if (!representative.empty() && representative[a] != representative[b])
      return representative[a] < representative[b];
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
    // Break the tie as suppression_order() does: by loss, then by ARX's
    // representative.
    std::vector<double> loss(ties.size(), 0.0);
    if (orders_by_loss(problem)) problem.quality->class_losses(problem, t, classes, ties, loss);
    const std::vector<std::uint64_t> representative = subset_representatives(problem, t, classes);
    std::vector<std::tuple<double, std::uint64_t, std::uint32_t>> keyed;
    keyed.reserve(ties.size());
    for (std::size_t i = 0; i < ties.size(); ++i)
      keyed.emplace_back(loss[i], representative.empty() ? 0 : representative[ties[i]], ties[i]);
    std::nth_element(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(wanted), keyed.end());
    for (std::size_t i = 0; i < wanted; ++i) out.push_back(std::get<2>(keyed[i]));
  } else {
    out.insert(out.end(), ties.begin(), ties.end());
  }
  return out;
}

}  // namespace deid::risk
