// Classification utility (docs/utility.md, "Classification"): how well a
// logistic regression predicts a target from the quasi-identifiers, trained
// on the input and on the release. The model is liblinear's (L2-regularized
// logistic regression, primal trust-region Newton solver, which draws no
// random numbers); the folds are our own, so no global random state is read.
#include "utility/classification.h"

#include <linear.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

namespace deid::utility {
namespace {

constexpr std::uint64_t kMaxSample = 20000;
constexpr int kFolds = 5;

void silent(const char*) {}

// One-hot rows of the sampled records: per quasi-identifier one feature per
// category (input code, or released category with '*' for suppressed).
struct Design {
  std::vector<std::vector<feature_node>> rows;
  int features = 0;
};

Design design(const UtilityInput& in, const std::vector<std::size_t>& features, const std::vector<std::uint64_t>& sample,
              bool released) {
  Design d;
  d.rows.resize(sample.size());
  int offset = 0;
  for (std::size_t f : features) {
    const UtilityAttribute& a = in.attributes[f];
    // A copied attribute (not a quasi-identifier) is released as it is,
    // also in suppressed records.
    const bool generalized = released && a.level >= 0;
    const std::uint32_t star = static_cast<std::uint32_t>(a.labels.size());  // its own feature, past the labels
    const int width = generalized ? static_cast<int>(a.labels.size()) + 1 : static_cast<int>(a.column->dictionary.size());
    for (std::size_t i = 0; i < sample.size(); ++i) {
      const std::uint64_t r = sample[i];
      const std::uint32_t code = a.column->codes[r];
      const std::uint32_t value = !generalized ? code : in.suppressed[r] ? star : a.to_released[code];
      d.rows[i].push_back({offset + static_cast<int>(value) + 1, 1.0});  // liblinear counts features from 1
    }
    offset += width;
  }
  for (auto& row : d.rows) row.push_back({-1, 0.0});
  d.features = offset;
  return d;
}

// The area under the ROC curve of `score` for telling class `positive`
// from the others: the Mann-Whitney statistic, ties counted half (average
// ranks). nullopt when one of the two classes is absent.
std::optional<double> area_under_curve(const std::vector<double>& score, const std::vector<double>& y,
                                       double positive) {
  std::vector<std::size_t> order(score.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return score[a] != score[b] ? score[a] < score[b] : a < b;
  });
  double rank_sum = 0;
  std::uint64_t pos = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && score[order[j]] == score[order[i]]) ++j;
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k)
      if (y[order[k]] == positive) {
        rank_sum += average_rank;
        ++pos;
      }
    i = j;
  }
  const std::uint64_t neg = y.size() - pos;
  if (pos == 0 || neg == 0) return std::nullopt;
  const double p = static_cast<double>(pos), n = static_cast<double>(neg);
  return (rank_sum - p * (p + 1) / 2) / (p * n);
}

// Cross-validated predictions: record i of the sample is in fold i % kFolds
// and is predicted by the model trained on the other folds. Returns the
// accuracy; with two classes also sets `auc` from the predicted probability
// of class `positive`.
double accuracy(const Design& d, const std::vector<double>& y, std::optional<double> positive,
                std::optional<double>& auc) {
  parameter param{};
  param.solver_type = L2R_LR;
  param.eps = 0.01;
  param.C = 1;
  param.p = 0.1;
  std::uint64_t correct = 0;
  std::vector<double> score(d.rows.size(), 0.0);
  for (int fold = 0; fold < kFolds; ++fold) {
    std::vector<feature_node*> x;
    std::vector<double> yy;
    for (std::size_t i = 0; i < d.rows.size(); ++i)
      if (static_cast<int>(i % kFolds) != fold) {
        x.push_back(const_cast<feature_node*>(d.rows[i].data()));
        yy.push_back(y[i]);
      }
    problem prob{};
    prob.l = static_cast<int>(x.size());
    prob.n = d.features;
    prob.y = yy.data();
    prob.x = x.data();
    prob.bias = -1;
    model* m = train(&prob, &param);
    const int classes = get_nr_class(m);
    std::vector<int> labels(static_cast<std::size_t>(classes));
    get_labels(m, labels.data());
    std::vector<double> p(static_cast<std::size_t>(classes));
    for (std::size_t i = static_cast<std::size_t>(fold); i < d.rows.size(); i += kFolds) {
      const double predicted = positive && classes == 2 ? predict_probability(m, d.rows[i].data(), p.data())
                                                        : predict(m, d.rows[i].data());
      correct += predicted == y[i];
      if (!positive) continue;
      // The probability of the positive class; a training fold of one
      // class predicts it with certainty.
      score[i] = predicted == *positive ? 1.0 : 0.0;
      if (classes == 2) score[i] = labels[0] == static_cast<int>(*positive) ? p[0] : p[1];
    }
    free_and_destroy_model(&m);
  }
  if (positive) auc = area_under_curve(score, y, *positive);
  return static_cast<double>(correct) / static_cast<double>(d.rows.size());
}

// Cross-validated accuracy of predicting the training folds' most frequent
// class (the smallest code on a tie).
double baseline(const std::vector<double>& y, std::uint32_t classes) {
  std::uint64_t correct = 0;
  for (int fold = 0; fold < kFolds; ++fold) {
    std::vector<std::uint64_t> n(classes, 0);
    for (std::size_t i = 0; i < y.size(); ++i)
      if (static_cast<int>(i % kFolds) != fold) ++n[static_cast<std::size_t>(y[i])];
    const auto majority = static_cast<double>(std::max_element(n.begin(), n.end()) - n.begin());
    for (std::size_t i = static_cast<std::size_t>(fold); i < y.size(); i += kFolds) correct += y[i] == majority;
  }
  return static_cast<double>(correct) / static_cast<double>(y.size());
}

}  // namespace

std::vector<ClassificationUtility> classify(const UtilityInput& in) {
  static std::once_flag quiet;
  std::call_once(quiet, [] { set_print_string_function(silent); });  // the library never prints
  std::vector<std::size_t> qis, targets = in.targets;
  for (std::size_t i = 0; i < in.attributes.size(); ++i) {
    if (in.attributes[i].role == Role::quasi_identifying) qis.push_back(i);
    if (in.targets.empty() && in.attributes[i].role == Role::sensitive) targets.push_back(i);
  }
  std::vector<ClassificationUtility> out;
  if (in.rows < 2 * kFolds) return out;
  // A systematic sample: every step-th record.
  const std::uint64_t step = (in.rows + kMaxSample - 1) / kMaxSample;
  std::vector<std::uint64_t> sample;
  for (std::uint64_t r = 0; r < in.rows; r += step) sample.push_back(r);
  for (std::size_t t : targets) {
    const UtilityAttribute& target = in.attributes[t];
    std::vector<std::size_t> features;
    for (std::size_t f : in.features.empty() ? qis : in.features)
      if (f != t) features.push_back(f);
    if (features.empty()) continue;
    ClassificationUtility c;
    c.target = target.name;
    for (std::size_t f : features) c.features.push_back(in.attributes[f].name);
    c.records = sample.size();
    c.folds = kFolds;
    std::vector<double> y;
    for (std::uint64_t r : sample) y.push_back(target.column->codes[r]);
    c.baseline = baseline(y, target.column->dictionary.size());
    // Two classes: the AUC of the class that appears second in the input.
    std::vector<double> seen;
    for (double v : y)
      if (std::find(seen.begin(), seen.end(), v) == seen.end() && seen.size() < 3) seen.push_back(v);
    std::optional<double> positive;
    if (seen.size() == 2) positive = std::max(seen[0], seen[1]);
    c.classes = seen.size() < 3 ? seen.size() : 3;
    const Design before = design(in, features, sample, false), after = design(in, features, sample, true);
    c.accuracy_before = accuracy(before, y, positive, c.auc_before);
    c.accuracy_after = accuracy(after, y, positive, c.auc_after);
    if (c.accuracy_before != c.baseline)
      c.relative_accuracy = (c.accuracy_after - c.baseline) / (c.accuracy_before - c.baseline);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace deid::utility
