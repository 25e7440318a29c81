// k-map with ARX's estimators (ARX's KMap with a CellSizeEstimator; El Emam
// and Dankar, JAMIA 15(5), 2008): a class of c records in a sample of n from
// a population of N holds when the population class behind it is, with
// probability at least 1 - alpha, of at least k individuals. ARX models the
// number of population members matching a sample class as Poisson with mean
// lambda = k n / N (or zero-truncated Poisson: the class is known to be
// non-empty) and derives once, before the search, the smallest class size
// k' it accepts (KMap.calculateKPoisson / calculateKZeroPoisson):
//
//   Poisson:        the least j with P(X <= j) >= 1 - alpha, plus 2 (ARX's
//                   loop counts past the quantile), at most k;
//   zero-truncated: the least j with sum_{i=1..j} P(X = i) / (1 - P(X = 0))
//                   >= 1 - alpha, plus 1, at most k;
//
// then k' = min(k, n, that). A class holds when it has at least k' records,
// so the model is k'-anonymity: monotonic, with and without suppression.
// The result reports k' and ARX's type-1 error (1 - the probability reached).
#pragma once

#include <cstdint>

#include "deid/job.h"
#include "deid/privacy.h"

namespace deid {

//
// With the population table (spec.population_size 0, ARX's KMap(k,
// subset)): the data are the population and the research subset the
// sample; a class holds when its population class has at least k records
// (ClassView::population). Monotonic (ARX: monotonic with generalization and
// with suppression): merging classes only adds population records.
class KMap final : public PrivacyModel {
 public:
  // REQUIRES: 0 < records <= spec.population_size, or population_size 0.
  KMap(const KMapSpec& spec, std::uint64_t records);
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return true; }
  bool needs_distributions() const override { return population_table(); }
  bool holds(const ClassView& cls) const override {
    return population_table() ? cls.population >= spec_.k : cls.count >= derived_k_;
  }
  std::uint64_t minimal_class_size() const override { return population_table() ? 1 : derived_k_; }
  bool declares_minimal_class_size() const override { return !population_table(); }
  bool population_table() const { return spec_.population_size == 0; }

  std::uint64_t derived_k() const { return derived_k_; }
  double type1_error() const { return type1_error_; }

 private:
  KMapSpec spec_;
  std::uint64_t derived_k_ = 1;
  double type1_error_ = 0;
};

}  // namespace deid
