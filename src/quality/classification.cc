#include "quality/classification.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "deid/check.h"
#include "check/distributions.h"
#include "deid/problem.h"
#include "quality/arx_conventions.h"
#include "check/entry_classes.h"

namespace deid {
namespace {

// A distribution's size and its two largest frequencies (equal when no
// value is the majority), as ARX's getStatistics finds them (-1: none).
struct Statistics {
  std::uint64_t count = 0;
  std::int64_t top1 = -1;
  std::int64_t top2 = -1;
  void add(std::uint64_t frequency) {
    count += frequency;
    const auto f = static_cast<std::int64_t>(frequency);
    if (f > top1) {
      top2 = top1;
      top1 = f;
    } else if (f > top2) {
      top2 = f;
    }
  }
};

// The indices in Histogram::sensitive of the response variables that are
// not quasi-identifiers, in Problem::responses' order.
std::vector<std::size_t> other_distributions(const Problem& problem) {
  std::vector<std::size_t> out;
  for (const ResponseVariable& r : problem.responses)
    if (r.qi < 0) out.push_back(static_cast<std::size_t>(r.distribution));
  return out;
}

// Per class, the statistics of the classes' own distributions (rolled up by
// the checker, Classes::distributions).
std::vector<Statistics> rolled_up_statistics(const Histogram::Sensitive& d, std::size_t classes) {
  std::vector<Statistics> out(classes);
  for (std::size_t c = 0; c < classes; ++c)
    for (std::uint64_t j = d.offsets[c]; j < d.offsets[c + 1]; ++j) out[c].add(d.counts[j]);
  return out;
}

// Every histogram distribution rolled up to `classes` (of `t`), as the
// checker rolls them (check/distributions.h), for calls without
// Classes::distributions.
std::vector<Histogram::Sensitive> rolled_up(const Problem& problem, const Transformation& t, const Classes& classes) {
  return check_internal::roll_up_distributions(problem, problem.histogram.sensitive,
                                               entry_classes(problem, t, classes), classes.size());
}

}  // namespace

ClassificationModel::ClassificationModel(double gs_factor) {
  // ARX: "Set penalties using the gs-factor. This is sort of a hack but
  // should be OK for now."
  const quality::GsWeights w = quality::gs_weights(gs_factor);
  suppressed_ = gs_factor;
  infrequent_ = w.generalization;
  no_majority_ = w.suppression;
  max_ = std::max(suppressed_, std::max(infrequent_, no_majority_));
}

std::shared_ptr<const ClassificationModel::ScaleFactors> ClassificationModel::scale_factors(
    const Problem& problem) const {
  return scale_cache_.get(problem, [](const Problem& p) {
    ScaleFactors out(p.responses.size());
    for (std::size_t r = 0; r < p.responses.size(); ++r) {
      if (p.responses[r].qi < 0) continue;
      const auto q = static_cast<std::size_t>(p.responses[r].qi);
      const Generalization& h = p.hierarchies[q];
      // ARX counts the distinct generalized values of the data's values
      // (GeneralizationHierarchy.getDistinctValues over the input's
      // dictionary): with a research subset the population's values, so
      // every histogram entry counts, also one without subset records.
      std::vector<std::uint8_t> present(h.map(0).size(), 0);
      const Histogram& hist = p.histogram;
      for (std::size_t e = 0; e < hist.size(); ++e) present[hist.keys[e * hist.width + q]] = 1;
      std::vector<std::uint32_t> data_codes;
      for (std::uint32_t code = 0; code < present.size(); ++code)
        if (present[code]) data_codes.push_back(code);
      const double distinct0 = static_cast<double>(data_codes.size());
      for (int level = 0; level < h.height(); ++level) {
        std::vector<std::uint32_t> values;
        values.reserve(data_codes.size());
        for (std::uint32_t code : data_codes) values.push_back(h.map(level)[code]);
        std::sort(values.begin(), values.end());
        const auto distinct = static_cast<double>(std::unique(values.begin(), values.end()) - values.begin());
        out[r].push_back(data_codes.size() == 1 ? 0.0 : 1.0 - ((distinct - 1.0) / (distinct0 - 1.0)));
      }
    }
    return out;
  });
}

QualityValue ClassificationModel::evaluate(const Problem& problem, const Transformation& t,
                                           const Classes& classes) const {
  if (problem.responses.empty()) throw std::logic_error("classification: the problem has no response variables");
  // Each penalty is a whole number of records times one of a few weights:
  // the records are counted exactly, per weight, and multiplied once, so
  // the value does not depend on the order of the classes (which differs
  // between a rolled-up and a grouped check).
  const double penalty_max = max_ * static_cast<double>(problem.rows);
  std::uint64_t suppressed = 0;    // x p_s
  std::uint64_t infrequent = 0;    // x p_i
  std::uint64_t no_majority = 0;   // x p_n
  double penalty = 0;
  const std::size_t n = classes.size();

  // The response variables that are not quasi-identifiers: per class.
  const std::vector<std::size_t> others = other_distributions(problem);
  if (!others.empty()) {
    // The checker's rolled-up distributions when it gives them, else rolled
    // up here the same way from the histogram's entries.
    std::vector<Histogram::Sensitive> own;
    if (!classes.distributions) own = rolled_up(problem, t, classes);
    const std::vector<Histogram::Sensitive>& dists = classes.distributions ? *classes.distributions : own;
    for (std::size_t d : others) {
      const std::vector<Statistics> stats = rolled_up_statistics(dists[d], n);
      for (std::size_t c = 0; c < n; ++c) {
        if (classes.suppressed[c])
          suppressed += classes.counts[c];
        else if (stats[c].top1 != stats[c].top2)
          infrequent += stats[c].count - static_cast<std::uint64_t>(stats[c].top1);
        else
          no_majority += stats[c].count;
      }
    }
  }

  // The quasi-identifying ones: the kept classes grouped by their other
  // quasi-identifiers (ARX's MetaHashGroupify).
  const std::uint32_t w = classes.width;
  std::shared_ptr<const ScaleFactors> scales;
  for (std::size_t r = 0; r < problem.responses.size(); ++r) {
    const int qi = problem.responses[r].qi;
    if (qi < 0) continue;
    if (!scales) scales = scale_factors(problem);
    const auto q = static_cast<std::uint32_t>(qi);
    const double scale = (*scales)[r][static_cast<std::size_t>(t[q])];
    std::vector<std::uint32_t> kept;
    for (std::size_t c = 0; c < n; ++c) {
      if (classes.suppressed[c])
        suppressed += classes.counts[c];
      else
        kept.push_back(static_cast<std::uint32_t>(c));
    }
    const auto key = [&](std::uint32_t c) { return classes.keys.data() + static_cast<std::size_t>(c) * w; };
    const auto less_others = [&](std::uint32_t a, std::uint32_t b) {
      const std::uint32_t* ka = key(a);
      const std::uint32_t* kb = key(b);
      for (std::uint32_t i = 0; i < w; ++i)
        if (i != q && ka[i] != kb[i]) return ka[i] < kb[i];
      return false;
    };
    // By the other quasi-identifiers, then by r's value.
    std::sort(kept.begin(), kept.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (less_others(a, b)) return true;
      if (less_others(b, a)) return false;
      return key(a)[q] < key(b)[q];
    });
    std::uint64_t group_infrequent = 0, group_no_majority = 0, group_all = 0;
    for (std::size_t i = 0; i < kept.size();) {
      Statistics stats;
      std::size_t j = i;
      while (j < kept.size() && !less_others(kept[i], kept[j])) {
        // One value of r: its classes' records.
        std::uint64_t frequency = 0;
        const std::uint32_t value = key(kept[j])[q];
        for (; j < kept.size() && !less_others(kept[i], kept[j]) && key(kept[j])[q] == value; ++j)
          frequency += classes.counts[kept[j]];
        stats.add(frequency);
      }
      if (scale == 1.0)
        group_all += stats.count;
      else if (stats.top1 != stats.top2)
        group_infrequent += stats.count - static_cast<std::uint64_t>(stats.top1);
      else
        group_no_majority += stats.count;
      i = j;
    }
    // ARX's weights of a group at scale s.
    penalty += static_cast<double>(group_all) * (max_ / penalty_max);
    penalty += static_cast<double>(group_infrequent) * ((infrequent_ * (1.0 - scale) + max_ * scale) / penalty_max);
    penalty += static_cast<double>(group_no_majority) * ((no_majority_ * (1.0 - scale) + max_ * scale) / penalty_max);
  }
  penalty += static_cast<double>(suppressed) * (suppressed_ / penalty_max);
  penalty += static_cast<double>(infrequent) * (infrequent_ / penalty_max);
  penalty += static_cast<double>(no_majority) * (no_majority_ / penalty_max);

  QualityValue out;
  out.value = penalty;
  return out;
}

double ClassificationModel::arx_value(const Problem& problem, const Transformation& t,
                                            const Classes& classes) const {
  if (problem.responses.empty()) throw std::logic_error("classification: the problem has no response variables");
  const double penalty_max = max_ * static_cast<double>(problem.rows);
  const std::size_t n = classes.size();
  // getPenaltyDistribution: the penalty of a distribution at scale s.
  const auto distribution_penalty = [&](const Statistics& st, double scale) {
    if (scale == 1.0) return static_cast<double>(st.count) * (max_ / penalty_max);
    if (st.top1 != st.top2) {
      const double penalty = infrequent_ * (1.0 - scale) + max_ * scale;
      return static_cast<double>(static_cast<std::int64_t>(st.count) - st.top1) * (penalty / penalty_max);
    }
    const double penalty = no_majority_ * (1.0 - scale) + max_ * scale;
    return static_cast<double>(st.count) * (penalty / penalty_max);
  };
  double penalty = 0;
  const std::vector<std::size_t> others = other_distributions(problem);
  std::vector<std::vector<Statistics>> stats;
  if (!others.empty()) {
    std::vector<Histogram::Sensitive> own;
    if (!classes.distributions) own = rolled_up(problem, t, classes);
    const std::vector<Histogram::Sensitive>& dists = classes.distributions ? *classes.distributions : own;
    for (const std::size_t d : others) stats.push_back(rolled_up_statistics(dists[d], n));
  }
  for (std::size_t c = 0; c < n; ++c) {
    if (classes.counts[c] == 0) continue;
    if (classes.suppressed[c]) {
      penalty += static_cast<double>(classes.counts[c] * others.size()) * (suppressed_ / penalty_max);
    } else {
      for (const std::vector<Statistics>& st : stats) penalty += distribution_penalty(st[c], 0.0);
    }
  }
  const std::uint32_t w = classes.width;
  std::shared_ptr<const ScaleFactors> scales;
  for (std::size_t r = 0; r < problem.responses.size(); ++r) {
    const int qi = problem.responses[r].qi;
    if (qi < 0) continue;
    if (!scales) scales = scale_factors(problem);
    const auto q = static_cast<std::uint32_t>(qi);
    const double scale = (*scales)[r][static_cast<std::size_t>(t[q])];
    // MetaHashGroupify: the kept classes by their other quasi-identifiers,
    // groups in order of first appearance, each with r's values' records.
    std::map<std::vector<std::uint32_t>, std::size_t> group_of;
    std::vector<std::map<std::uint32_t, std::uint64_t>> groups;
    std::vector<std::uint32_t> others_key(w);
    for (std::size_t c = 0; c < n; ++c) {
      if (classes.counts[c] == 0) continue;
      if (classes.suppressed[c]) {
        penalty += static_cast<double>(classes.counts[c]) * (suppressed_ / penalty_max);
        continue;
      }
      const std::uint32_t* key = classes.keys.data() + c * w;
      std::copy_n(key, w, others_key.begin());
      others_key[q] = 0;
      const auto [at, fresh] = group_of.emplace(others_key, groups.size());
      if (fresh) groups.emplace_back();
      groups[at->second][key[q]] += classes.counts[c];
    }
    for (const auto& g : groups) {
      Statistics st;
      for (const auto& [value, frequency] : g) st.add(frequency);
      penalty += distribution_penalty(st, scale);
    }
  }
  return penalty;
}

double ClassificationModel::class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                                       std::size_t c) const {
  const std::uint32_t which = static_cast<std::uint32_t>(c);
  double out = 0;
  class_losses(problem, t, classes, {&which, 1}, {&out, 1});
  return out;
}

void ClassificationModel::class_losses(const Problem& problem, const Transformation& t, const Classes& classes,
                                       std::span<const std::uint32_t> which, std::span<double> out) const {
  const double penalty_max = max_ * static_cast<double>(problem.rows);
  const std::vector<std::size_t> others = other_distributions(problem);
  std::vector<Statistics> stats;
  bool kept = false;
  for (std::uint32_t c : which) kept = kept || !classes.suppressed[c];
  if (kept && !others.empty())
    stats = rolled_up_statistics(rolled_up(problem, t, classes)[others.back()], classes.size());
  for (std::size_t i = 0; i < which.size(); ++i) {
    const std::uint32_t c = which[i];
    if (classes.suppressed[c]) {
      out[i] = static_cast<double>(classes.counts[c]) * (suppressed_ / penalty_max);
    } else if (stats.empty()) {
      out[i] = 0.0;
    } else if (stats[c].top1 != stats[c].top2) {
      out[i] = static_cast<double>(static_cast<std::int64_t>(stats[c].count) - stats[c].top1) *
               (infrequent_ / penalty_max);
    } else {
      out[i] = static_cast<double>(stats[c].count) * (no_majority_ / penalty_max);
    }
  }
}

}  // namespace deid
