#include "privacy/hierarchical_distance.h"

#include <algorithm>

namespace deid {

HierarchicalDistance::HierarchicalDistance(const Generalization& hierarchy,
                                           std::vector<std::uint64_t> reference_counts)
    : q_counts_(std::move(reference_counts)) {
  for (auto c : q_counts_) rows_ += c;
  height_ = hierarchy.height() - 1;
  const std::size_t m = q_counts_.size();
  nodes_.push_back(static_cast<std::uint32_t>(m));
  for (int l = 1; l <= height_; ++l) nodes_.push_back(hierarchy.domain_size(l));
  for (int l = 1; l <= height_; ++l) {
    std::vector<std::uint32_t> parent(nodes_[l - 1], 0);
    const auto& up = hierarchy.map(l);
    const auto& here = hierarchy.map(l - 1);
    for (std::size_t code = 0; code < m; ++code) parent[here[code]] = up[code];
    parent_.push_back(std::move(parent));
  }
}

double HierarchicalDistance::distance(const ClassView::Distribution& cls, std::uint64_t count) const {
  if (height_ <= 0 || count == 0) return 0.0;
  const std::size_t m = q_counts_.size();
  const auto n = static_cast<std::int64_t>(count);
  const auto rows = static_cast<std::int64_t>(rows_);
  thread_local std::vector<std::int64_t> extra, next, pos, neg;

  // Leaves: q_v * n - p_v * rows, i.e. (q_v - p_v) scaled by rows * n.
  extra.resize(m);
  for (std::size_t v = 0; v < m; ++v) extra[v] = static_cast<std::int64_t>(q_counts_[v]) * n;
  for (std::size_t i = 0; i < cls.codes.size(); ++i)
    extra[cls.codes[i]] -= static_cast<std::int64_t>(cls.counts[i]) * rows;

  double cost = 0.0;
  const double height = height_;
  for (int l = 1; l <= height_; ++l) {
    const std::uint32_t size = nodes_[l];
    next.assign(size, 0);
    pos.assign(size, 0);
    neg.assign(size, 0);
    const auto& parent = parent_[l - 1];
    for (std::size_t c = 0; c < parent.size(); ++c) {
      const std::int64_t e = extra[c];
      const std::uint32_t p = parent[c];
      next[p] += e;
      if (e > 0)
        pos[p] += e;
      else
        neg[p] -= e;
    }
    for (std::uint32_t node = 0; node < size; ++node)
      cost += (l / height) * static_cast<double>(std::min(pos[node], neg[node]));
    extra.swap(next);
  }
  return cost / (static_cast<double>(rows_) * static_cast<double>(count));
}

}  // namespace deid
