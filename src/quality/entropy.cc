#include "quality/entropy.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "deid/check.h"
#include "deid/problem.h"
#include "quality/arx_conventions.h"

namespace deid {

EntropyModel::EntropyModel(Aggregate aggregate, Variant variant, double gs_factor)
    : aggregate_(aggregate), variant_(variant) {
  if (variant == Variant::normalized) return;  // ARX: always 0.5
  const quality::GsWeights w = quality::gs_weights(gs_factor);
  g_ = w.generalization;
  s_ = w.suppression;
}

std::string EntropyModel::describe() const {
  switch (variant_) {
    case Variant::monotonic: return "Non-uniform entropy";  // ARX's name of its monotonic variant
    case Variant::normalized: return "Normalized non-uniform entropy";
    case Variant::non_monotonic: break;
  }
  return "Non-monotonic non-uniform entropy";
}

double EntropyModel::normalized(const Table& tab, std::size_t q, double value) const {
  if (variant_ != Variant::normalized) return value;
  return tab.upper[q] > 0 ? value / tab.upper[q] : 0.0;
}

void EntropyModel::normalize(const Table& tab, std::vector<double>& per) const {
  for (std::size_t q = 0; q < per.size(); ++q) per[q] = normalized(tab, q, per[q]);
}

std::shared_ptr<const EntropyModel::Table> EntropyModel::table(const Problem& problem) const {
  return cache_.get(problem, [](const Problem& p) {
    const std::size_t w = p.histogram.width;
    Table result;
    result.levels.resize(w);
    result.upper.resize(w);
    for (std::size_t q = 0; q < w; ++q) {
      const Generalization& h = p.hierarchies[q];
      // Records per original value: with a research subset the subset's
      // (ARX's Cardinalities counts the rows of the metric's subset only).
      const std::vector<std::uint64_t> a = quality::value_frequencies(p, q);
      // ARX's upper bound (MetricMDNUEntropyPrecomputed.getUpperBounds):
      // the subset's frequencies, but divided by the input's rows (its
      // `rows` is input.getDataLength(), the population with a subset).
      const double rows = static_cast<double>(p.has_subset() ? p.population_rows : p.rows);
      double upper = 0;
      for (std::uint64_t av : a)
        if (av != 0) upper += static_cast<double>(av) * quality::log2_arx(static_cast<double>(av) / rows);
      result.upper[q] = quality::truncate_10_digits(upper == 0.0 ? 0.0 : -upper);
      auto& levels = result.levels[q];
      levels.resize(static_cast<std::size_t>(h.height()));
      for (int level = 0; level < h.height(); ++level) {
        const std::vector<std::uint32_t>& up = h.map(level);
        std::vector<std::uint64_t> b(h.domain_size(level), 0);
        for (std::size_t v = 0; v < a.size(); ++v) b[up[v]] += a[v];
        // ARX sums a * log2(a / b) (<= 0) and flips the sign at the end.
        double sum = 0;
        for (std::size_t v = 0; v < a.size(); ++v) {
          if (a[v] == 0) continue;
          const double av = static_cast<double>(a[v]);
          sum += av * quality::log2_arx(av / static_cast<double>(b[up[v]]));
        }
        levels[static_cast<std::size_t>(level)] = sum == 0.0 ? 0.0 : -sum;
      }
    }
    return result;
  });
}

double EntropyModel::generalization_entropy(const Problem& problem, std::size_t q, int level) const {
  return table(problem)->levels[q][static_cast<std::size_t>(level)];
}

QualityValue EntropyModel::evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const {
  const auto tab = table(problem);
  const std::uint32_t w = classes.width;
  QualityValue out;
  if (variant_ == Variant::monotonic) {
    // Suppressed records are charged like kept ones: the bound is the value.
    for (std::uint32_t q = 0; q < w; ++q)
      out.per_attribute.push_back(quality::truncate_10_digits(tab->levels[q][t[q]] * g_));
    out.value = deid::aggregate(aggregate_, out.per_attribute, problem.weights);
    return out;
  }
  out.per_attribute.resize(w);

  std::uint64_t suppressed = 0;
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (classes.suppressed[c]) suppressed += classes.counts[c];

  std::vector<std::pair<std::uint32_t, std::uint64_t>> values;  // (generalized code, records), suppressed only
  for (std::uint32_t q = 0; q < w; ++q) {
    double loss = -tab->levels[q][t[q]] * g_;  // in ARX's sign convention until the end
    if (suppressed > 0) {
      values.clear();
      for (std::size_t c = 0; c < classes.size(); ++c)
        if (classes.suppressed[c]) values.emplace_back(classes.keys[c * w + q], classes.counts[c]);
      std::sort(values.begin(), values.end());
      const double total = static_cast<double>(suppressed);
      for (std::size_t i = 0; i < values.size();) {
        std::uint64_t count = 0;
        const std::uint32_t code = values[i].first;
        for (; i < values.size() && values[i].first == code; ++i) count += values[i].second;
        const double sg = static_cast<double>(count);
        loss += sg * quality::log2_arx(sg / total) * s_;
      }
    }
    out.per_attribute[q] = quality::truncate_10_digits(loss == 0.0 ? 0.0 : -loss);
  }
  normalize(*tab, out.per_attribute);
  out.value = deid::aggregate(aggregate_, out.per_attribute, problem.weights);
  return out;
}

double EntropyModel::lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  const auto tab = table(problem);
  std::vector<double> per(classes.width);
  for (std::uint32_t q = 0; q < classes.width; ++q) per[q] = quality::truncate_10_digits(tab->levels[q][t[q]] * g_);
  normalize(*tab, per);
  return deid::aggregate(aggregate_, per, problem.weights);
}

std::optional<LevelBound> EntropyModel::level_bound(const Problem& problem) const {
  // lower_bound()'s per-attribute terms: each level's entropy, truncated and
  // normalized as there.
  const auto tab = table(problem);
  std::vector<std::vector<double>> values(tab->levels.size());
  for (std::size_t q = 0; q < values.size(); ++q)
    for (double entropy : tab->levels[q])
      values[q].push_back(normalized(*tab, q, quality::truncate_10_digits(entropy * g_)));
  return LevelBound(aggregate_, values, {}, problem.weights);
}

}  // namespace deid

namespace deid {

double EntropyModel::class_loss(const Problem& problem, const Transformation&, const Classes& classes,
                               std::size_t c) const {
  return deid::aggregate(aggregate_, std::vector<double>(classes.width, static_cast<double>(classes.counts[c])), problem.weights);
}

double EntropyModel::arx_solution_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  if (variant_ == Variant::monotonic) return evaluate(problem, t, classes).value;
  const auto tab = table(problem);
  std::vector<double> per(classes.width);
  for (std::uint32_t q = 0; q < classes.width; ++q) {
    const double entropy = tab->levels[q][t[q]];
    per[q] = (entropy == 0.0 ? 0.0 : -entropy) * g_;
    // Java's double division: 0 / 0 is NaN, x / 0 infinite.
    if (variant_ == Variant::normalized) per[q] /= tab->upper[q];
  }
  return deid::aggregate(aggregate_, per, problem.weights);
}

}  // namespace deid
