// l-diversity (Machanavajjhala, Kifer, Gehrke, Venkitasubramaniam,
// "l-Diversity: Privacy beyond k-anonymity", TKDD 1(1), 2007), the three
// variants of ARX 3.9 with ARX's definitions. Each judges the distribution
// of one sensitive attribute within a class (ClassView::sensitive[index]);
// with s the number of distinct values in the class, n_1 >= n_2 >= ... >= n_s
// their counts and N = n_1 + ... + n_s:
//
//   distinct   s >= l.
//   entropy    s >= ceil(l) and H = psi(N) - (1/N) sum_i n_i psi(n_i) >=
//              ln l, evaluated as ARX does: sum_i n_i psi(n_i) <= N (psi(N)
//              - ln l). With the Shannon estimator (ARX's default) psi = ln
//              and H is the plug-in entropy; with Grassberger's estimator
//              (P. Grassberger, "Entropy estimates from insufficient
//              samplings", arXiv:physics/0307138, 2003; ARX's
//              EntropyEstimator.GRASSBERGER) psi = G, with ARX's values of
//              G: tabulated for n <= 100 (odd n take G(n-1), except G(1)),
//              else ln n + m (1/24 - m (7/960 - m 31/8064)), m = 1/(n/2)^2
//              for n made even.
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
//   entropy,   not monotonic at all (ARX declares it as the Shannon variant):
//   Grassberger  the estimate is not concave. Counts (3,1) and (3,3) both
//              hold at l = 2, their union (6,4) does not (a unit test pins
//              it), so even without suppression a generalization of a
//              solution can fail.
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
  bool declares_minimal_class_size() const override { return true; }
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
  using Estimator = LDiversitySpec::Estimator;
  // `suppression`: whether the problem may suppress records.
  EntropyLDiversity(std::string attribute, std::size_t index, double l, bool suppression,
                    Estimator estimator = Estimator::shannon)
      : LDiversity(std::move(attribute), index, l), suppression_(suppression), estimator_(estimator) {}
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return !suppression_ && estimator_ == Estimator::shannon; }
  bool holds(const ClassView& cls) const override;
  // The estimate H of the class (natural logarithm), for tests and reports.
  double entropy(const ClassView& cls) const;
  // Grassberger's G(n) as ARX computes it (see the header comment).
  // REQUIRES: n >= 1.
  static double grassberger(std::uint64_t n);

 private:
  double psi(std::uint64_t n) const;

  bool suppression_;
  Estimator estimator_;
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
