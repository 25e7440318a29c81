#include "quality/loss.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "deid/check.h"
#include "deid/problem.h"
#include "transform/microaggregation.h"

namespace deid {

LossModel::LossModel(Aggregate aggregate, double gs_factor)
    : aggregate_(aggregate), gs_factor_(gs_factor), weights_(quality::gs_weights(gs_factor)) {}

std::string LossModel::describe() const {
  return fmt::format("Loss ({}/{}/{})", quality::java_double(gs_factor_), quality::java_double(weights_.generalization),
                     quality::java_double(weights_.suppression));
}

std::shared_ptr<const LossModel::Table> LossModel::table(const Problem& problem) const {
  return cache_.get(problem, [](const Problem& p) {
    const std::size_t w = p.histogram.width;
    Table result(w);
    for (std::size_t q = 0; q < w; ++q) {
      const Generalization& h = p.hierarchies[q];
      const std::vector<std::uint64_t> a = quality::value_frequencies(p, q);
      result[q].resize(static_cast<std::size_t>(h.height()));
      for (int level = 0; level < h.height(); ++level) {
        const std::vector<std::uint32_t>& up = h.map(level);
        std::uint64_t leaves = 0;
        for (std::size_t v = 0; v < a.size(); ++v)
          if (a[v] != 0) leaves += a[v] * h.leaves(level, up[v]);
        result[q][static_cast<std::size_t>(level)] = leaves;
      }
    }
    return result;
  });
}

std::uint64_t LossModel::all_records(const Problem& problem) const {
  return *records_.get(problem, [](const Problem& p) {
    std::uint64_t n = 0;
    if (p.histogram.width > 0)
      for (std::uint64_t a : quality::value_frequencies(p, 0)) n += a;
    return n;
  });
}

std::uint64_t LossModel::generalized_leaves(const Problem& problem, std::size_t q, int level) const {
  return (*table(problem))[q][static_cast<std::size_t>(level)];
}

double LossModel::attribute_loss(const Problem& problem, std::size_t q, std::uint64_t all_leaves,
                                 std::uint64_t suppressed_leaves, std::uint64_t suppressed_records) const {
  const double n = static_cast<double>(problem.rows);
  const double g = weights_.generalization;
  const double s = weights_.suppression;
  const double rows_h = static_cast<double>(problem.hierarchies[q].hierarchy_rows());
  // Shares are sums of integers (records x hierarchy rows) over H, so the
  // sums are kept as integers: the value then does not depend on the order
  // of the classes, and the bound of a fixed level is the same number in
  // every transformation (ARX sums doubles in its hash order, which can
  // move a value across the 10-digit truncation).
  //
  // sum = g * (share of every record) + surcharge of the suppressed ones.
  // Writing it this way computes the first term exactly as the bound does,
  // so the value can never drop below the bound by rounding.
  const double all_share = static_cast<double>(all_leaves) / rows_h;
  double sum = all_share * g;
  if (suppressed_records > 0) {
    // ARX: a suppressed record keeps the loss of its generalized value and
    // pays s for the rest; with s = 1 that is the whole record:
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
  return quality::truncate_10_digits(std::max(0.0, v));
}

QualityValue LossModel::evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const {
  const auto tab = table(problem);
  const std::uint32_t w = classes.width;
  // Only the suppressed classes' leaves are needed: the leaves of all
  // records are L(q, t[q]). Near the bottom of a lattice nearly every class
  // is suppressed (a heuristic measures such non-solutions too: Loss's
  // evaluate() was a fifth of bottom-up's first 700 checks on the census-like
  // 20-attribute table), so where most classes are suppressed the kept ones
  // are summed and taken from L(q, t[q]) instead, exactly (integers). Only
  // when the classes hold every record L counts: a local-recoding pass
  // evaluates some records alone.
  std::uint64_t suppressed_records = 0, records = 0;
  std::size_t suppressed_classes = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    records += classes.counts[c];
    if (!classes.suppressed[c]) continue;
    suppressed_records += classes.counts[c];
    ++suppressed_classes;
  }
  const bool from_kept = 2 * suppressed_classes > classes.size() && records == all_records(problem);
  std::vector<std::uint64_t> leaves(w, 0);  // of the classes visited
  std::vector<std::uint32_t> scratch(w);
  for (std::size_t c = 0; c < classes.size(); ++c) {
    if ((classes.suppressed[c] != 0) == from_kept) continue;
    const std::uint64_t count = classes.counts[c];
    const std::uint32_t* key = classes.key(c, scratch.data());
    for (std::uint32_t q = 0; q < w; ++q) leaves[q] += count * problem.hierarchies[q].leaves(t[q], key[q]);
  }
  std::vector<std::uint64_t>& suppressed_leaves = leaves;
  if (from_kept)
    for (std::uint32_t q = 0; q < w; ++q) suppressed_leaves[q] = (*tab)[q][static_cast<std::size_t>(t[q])] - leaves[q];
  QualityValue out;
  out.per_attribute.resize(w);
  for (std::uint32_t q = 0; q < w; ++q)
    out.per_attribute[q] = attribute_loss(problem, q, (*tab)[q][static_cast<std::size_t>(t[q])], suppressed_leaves[q],
                                          suppressed_records);
  // Microaggregated attributes (not generalized): ARX's normalizeAggregated,
  // the sum divided by the records.
  for (double sum : microaggregation::dimension_sums(problem, t, classes, weights_.generalization,
                                                     weights_.suppression))
    out.per_attribute.push_back(quality::truncate_10_digits(std::max(0.0, sum / static_cast<double>(problem.rows))));
  out.value = deid::aggregate(aggregate_, out.per_attribute, problem.weights);
  return out;
}

double LossModel::lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  const auto tab = table(problem);
  std::vector<double> per(classes.width);
  for (std::uint32_t q = 0; q < classes.width; ++q)
    per[q] = attribute_loss(problem, q, (*tab)[q][static_cast<std::size_t>(t[q])], 0, 0);
  per.resize(per.size() + problem.aggregated_dimensions(), 0.0);  // no bound for microaggregation (ARX)
  return deid::aggregate(aggregate_, per, problem.weights);
}

std::optional<LevelBound> LossModel::level_bound(const Problem& problem) const {
  const auto tab = table(problem);
  std::vector<std::vector<double>> values(tab->size());
  for (std::size_t q = 0; q < tab->size(); ++q)
    for (std::uint64_t leaves : (*tab)[q]) values[q].push_back(attribute_loss(problem, q, leaves, 0, 0));
  // lower_bound()'s zeros for microaggregated dimensions.
  return LevelBound(aggregate_, values, std::vector<double>(problem.aggregated_dimensions(), 0.0), problem.weights);
}

double LossModel::class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                             std::size_t c) const {
  const std::uint32_t w = classes.width;
  std::vector<double> values(w);
  const double count = static_cast<double>(classes.counts[c]);
  std::vector<std::uint32_t> scratch(w);
  const std::uint32_t* key = classes.key(c, scratch.data());
  for (std::uint32_t q = 0; q < w; ++q) {
    const Generalization& h = problem.hierarchies[q];
    const double share = static_cast<double>(h.leaves(t[q], key[q])) /
                         static_cast<double>(h.hierarchy_rows());
    values[q] = count * share;
  }
  return deid::aggregate(aggregate_, values, problem.weights);
}

void LossModel::class_losses(const Problem& problem, const Transformation& t, const Classes& classes,
                             std::span<const std::uint32_t> which, std::span<double> out) const {
  bool one_size = true;
  for (std::uint32_t c : which) one_size = one_size && classes.counts[c] == classes.counts[which[0]];
  if (aggregate_ != Aggregate::geometric_mean || !one_size || which.empty()) {
    QualityModel::class_losses(problem, t, classes, which, out);
    return;
  }
  // The operations of class_loss() and aggregate() in the same order, so
  // the same bits: product over q of pow(count * share * weight + 1, 1 / w),
  // minus 1.
  const std::uint32_t w = classes.width;
  const double count = static_cast<double>(classes.counts[which[0]]);
  std::vector<std::vector<double>> factor(w);
  for (std::uint32_t q = 0; q < w; ++q) factor[q].assign(problem.hierarchies[q].domain_size(t[q]), -1.0);
  std::vector<std::uint32_t> scratch(w);
  for (std::size_t i = 0; i < which.size(); ++i) {
    double product = 1.0;
    const std::uint32_t* key = classes.key(which[i], scratch.data());
    for (std::uint32_t q = 0; q < w; ++q) {
      const std::uint32_t code = key[q];
      double& f = factor[q][code];
      if (f < 0) {
        const Generalization& h = problem.hierarchies[q];
        const double share = static_cast<double>(h.leaves(t[q], code)) / static_cast<double>(h.hierarchy_rows());
        const double weight = problem.weights.empty() ? 1.0 : problem.weights[q];
        f = std::pow(count * share * weight + 1.0, 1.0 / static_cast<double>(w));
      }
      product *= f;
    }
    out[i] = product - 1.0;
  }
}

}  // namespace deid
