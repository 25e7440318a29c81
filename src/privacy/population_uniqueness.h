// Population uniqueness (papers/002, VI-D to VI-G; ARX's
// PopulationUniqueness criterion): the output holds when the estimated
// share of the population that is unique in its quasi-identifiers,
// uniques / N, is at most the threshold.
//
// A dataset-level model judged by class sizes (risk_based.h: enforce()
// suppresses the smallest classes first, by binary search over the prefix).
//
// "Holds" is ARX's rule, including for estimates that are not available:
// the output holds when it is empty (all suppressed), when 0 < uniques/N <=
// threshold, or when it has no sample unique. An estimator that does not
// converge thus makes a table with sample uniques fail, and Dankar's rule
// does not fall back to Zayatz here (ARX's criterion calls it without the
// fallback; the risk report uses the fallback).
//
// Not monotonic. With record suppression ARX declares the model
// non-monotonic (RiskBasedCriterion with monotonicWithSuppression = false).
// Without suppression ARX declares Zayatz's estimator monotonic under
// generalization; deid does not, because it is not: merging two classes of
// size 2 into one of size 4 keeps s_1 and lowers the denominator of
// Zayatz's conditional probability, which raises the estimate (a unit test
// pins such a case). A false claim would let a pruning search skip
// solutions. Only the smallest classes are suppressed first, but the
// estimators are not monotone in general either, so "x is no solution"
// says nothing about x's specializations.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>

#include <mutex>
#include <utility>
#include <vector>

#include "deid/risk.h"
#include "privacy/risk_based.h"

namespace deid {

class PopulationUniqueness final : public RiskBasedModel {
 public:
  // REQUIRES: spec.population_size >= the records of the data (checked by
  // make_population_uniqueness).
  explicit PopulationUniqueness(const PopulationUniquenessSpec& spec, SolverOptions solver = {});

  // ARX's notation: "(0.01)-population-uniqueness (dankar)".
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return false; }

  // Whether a table with these class sizes satisfies the model (ARX's rule,
  // see the header comment).
  bool fulfilled(const ClassSizeFrequencies& freq) const override;
  // The estimate the model judges by: uniques / N, 0 when not available.
  // Remembered per frequency-of-frequencies (the estimate is a function of
  // them alone): the searches meet the same ones again and again (on cup's
  // 1 % job half of 3,884 estimates repeat one already made, among them the
  // costliest, the nearly unique tables). Thread-safe.
  double estimated_fraction(const ClassSizeFrequencies& freq) const;

  const PopulationUniquenessSpec& spec() const { return spec_; }

 private:
  PopulationUniquenessSpec spec_;
  SolverOptions solver_;
  using Sizes = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  mutable std::mutex cache_mutex_;
  mutable absl::flat_hash_map<Sizes, double, absl::Hash<Sizes>> cache_;
};

}  // namespace deid
