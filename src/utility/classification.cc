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
    const std::uint32_t star = static_cast<std::uint32_t>(a.labels.size());  // its own feature, past the labels
    const int width = released ? static_cast<int>(a.labels.size()) + 1 : static_cast<int>(a.column->dictionary.size());
    for (std::size_t i = 0; i < sample.size(); ++i) {
      const std::uint64_t r = sample[i];
      const std::uint32_t code = a.column->codes[r];
      const std::uint32_t value = !released ? code : in.suppressed[r] ? star : a.to_released[code];
      d.rows[i].push_back({offset + static_cast<int>(value) + 1, 1.0});  // liblinear counts features from 1
    }
    offset += width;
  }
  for (auto& row : d.rows) row.push_back({-1, 0.0});
  d.features = offset;
  return d;
}

// Cross-validated accuracy: record i of the sample is in fold i % kFolds.
double accuracy(const Design& d, const std::vector<double>& y) {
  parameter param{};
  param.solver_type = L2R_LR;
  param.eps = 0.01;
  param.C = 1;
  param.p = 0.1;
  std::uint64_t correct = 0;
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
    for (std::size_t i = static_cast<std::size_t>(fold); i < d.rows.size(); i += kFolds)
      correct += predict(m, d.rows[i].data()) == y[i];
    free_and_destroy_model(&m);
  }
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
  std::vector<std::size_t> features;
  for (std::size_t i = 0; i < in.attributes.size(); ++i)
    if (in.attributes[i].role == Role::quasi_identifying) features.push_back(i);
  std::vector<ClassificationUtility> out;
  if (features.empty() || in.rows < 2 * kFolds) return out;
  // A systematic sample: every step-th record.
  const std::uint64_t step = (in.rows + kMaxSample - 1) / kMaxSample;
  std::vector<std::uint64_t> sample;
  for (std::uint64_t r = 0; r < in.rows; r += step) sample.push_back(r);
  const Design before = design(in, features, sample, false), after = design(in, features, sample, true);
  for (const UtilityAttribute& target : in.attributes) {
    if (target.role != Role::sensitive) continue;
    ClassificationUtility c;
    c.target = target.name;
    for (std::size_t f : features) c.features.push_back(in.attributes[f].name);
    c.records = sample.size();
    c.folds = kFolds;
    std::vector<double> y;
    for (std::uint64_t r : sample) y.push_back(target.column->codes[r]);
    c.baseline = baseline(y, target.column->dictionary.size());
    c.accuracy_before = accuracy(before, y);
    c.accuracy_after = accuracy(after, y);
    if (c.accuracy_before != c.baseline)
      c.relative_accuracy = (c.accuracy_after - c.baseline) / (c.accuracy_before - c.baseline);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace deid::utility
