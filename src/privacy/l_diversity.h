// l-diversity (Machanavajjhala, Kifer, Gehrke, Venkitasubramaniam,
// "l-Diversity: Privacy beyond k-anonymity", TKDD 1(1), 2007), the three
// variants of ARX 3.9 with ARX's definitions. Each judges the distribution
// of one sensitive attribute within a class (ClassView::sensitive[index]);
// with s the number of distinct values in the class, n_1 >= n_2 >= ... >= n_s
// their counts and N = n_1 + ... + n_s:
//
//   distinct   s >= l.
//   entropy    s >= ceil(l) and H = ln N - (1/N) sum_i n_i ln n_i >= ln l,
//              evaluated as ARX does: sum_i n_i ln n_i <= N (ln N - ln l)
//              (Shannon estimator, ARX's default).
//   recursive  (c,l): s >= ceil(l) and n_1 < c (n_l + n_{l+1} + ... + n_s).
//
// For every variant ceil(l) is the least number of distinct values, so a
// class of fewer than ceil(l) records never holds (minimal_class_size).
//
// Monotonicity under generalization with record suppression (the property
// the search prunes with; docs/privacy-models.md):
//   distinct   monotonic: a merged class has at least the distinct values of
//              each part, so a class that holds keeps holding, and classes
//              that merge into a violating one were all violating.
//   entropy,   not monotonic with suppression (ARX: monotonic with
//   recursive  generalization only): merging a violating class with one that
//              holds can give a violating class, so the records to suppress
//              can grow. Without suppression they are monotonic (entropy is
//              concave; Machanavajjhala et al., section 4.3 for recursive
//              (c,l)), so monotonic() is true when the problem can suppress
//              no record.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "deid/job.h"
#include "deid/privacy.h"

namespace deid {

// What the three variants share: the attribute, l and the index of the
// distribution they judge.
class LDiversity : public PrivacyModel {
 public:
  bool needs_distributions() const override { return true; }
  std::uint64_t minimal_class_size() const override { return min_values_; }
  double l() const { return l_; }

 protected:
  LDiversity(std::string attribute, std::size_t index, double l);
  const ClassView::Distribution& distribution(const ClassView& cls) const { return cls.sensitive[index_]; }

  std::string attribute_;
  std::size_t index_;
  double l_;
  std::uint64_t min_values_;  // ceil(l)
};

class DistinctLDiversity final : public LDiversity {
 public:
  DistinctLDiversity(std::string attribute, std::size_t index, double l) : LDiversity(std::move(attribute), index, l) {}
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return true; }
  bool holds(const ClassView& cls) const override;
};

class EntropyLDiversity final : public LDiversity {
 public:
  // `suppression`: whether the problem may suppress records.
  EntropyLDiversity(std::string attribute, std::size_t index, double l, bool suppression)
      : LDiversity(std::move(attribute), index, l), suppression_(suppression) {}
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return !suppression_; }
  bool holds(const ClassView& cls) const override;
  // H of the class (natural logarithm), for tests and reports.
  double entropy(const ClassView& cls) const;

 private:
  bool suppression_;
};

class RecursiveCLDiversity final : public LDiversity {
 public:
  RecursiveCLDiversity(std::string attribute, std::size_t index, double c, double l, bool suppression)
      : LDiversity(std::move(attribute), index, l), c_(c), suppression_(suppression) {}
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return !suppression_; }
  bool holds(const ClassView& cls) const override;
  double c() const { return c_; }

 private:
  double c_;
  bool suppression_;
};

}  // namespace deid
