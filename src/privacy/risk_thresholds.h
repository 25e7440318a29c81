// The two risk thresholds that ARX judges from the output's class sizes
// alone (dataset-level models, risk_based.h). A record's re-identification
// risk is 1 / the size of its class (the prosecutor model); the records and
// classes are those not suppressed.
//
//   average-risk       classes / records <= threshold (ARX's
//                      AverageReidentificationRisk: 1 / average class size);
//                      with highest-risk h, also: the share of records in
//                      classes smaller than s(h) is <= records-at-risk, where
//                      s(h) is ARX's size threshold for h
//                      (ParameterTranslation.getSizeThreshold: ceil(1/h),
//                      except that 1/floor(1/h) within 1 % of h counts as h).
//   sample-uniqueness  the share of records alone in their class is <=
//                      threshold (ARX's SampleUniqueness).
//
// An output whose records are all suppressed holds.
//
// Monotonicity (the search prunes with it; docs/privacy-models.md), with s
// suppressed smallest-first as enforce() does:
//   average risk without highest-risk: monotonic. Let x be a solution that
//     suppresses the set S, and y a generalization. The classes of y made of
//     records of S alone hold at most |S| records; dropping them leaves at
//     most as many classes as x keeps, over at least as many records, so
//     the ratio holds. Among the ways to drop that many classes, the
//     smallest first drop the fewest records (and leave the lowest ratio),
//     so enforce() stops no later, within the limit.
//   sample uniqueness: monotonic, by the same argument: a class of y that
//     is unique after dropping those classes is a unique class x kept.
//   average risk with highest-risk: not monotonic with suppression (merging
//     a class x suppressed with a small class x kept makes a small class
//     that must go whole: a unit test pins a case); monotonic without
//     suppression (merging only grows classes). ARX declares every variant
//     monotonic; deid does not claim what does not hold.
#pragma once

#include <cstdint>
#include <optional>

#include "deid/job.h"
#include "privacy/risk_based.h"

namespace deid {

class AverageRisk final : public RiskBasedModel {
 public:
  // `suppression`: whether the problem may suppress records.
  AverageRisk(const AverageRiskSpec& spec, bool suppression);
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return !spec_.highest_risk || !suppression_; }
  bool fulfilled(const ClassSizeFrequencies& freq) const override;

  // ARX's smallest class size whose risk is within highest-risk
  // (ParameterTranslation.getSizeThreshold). REQUIRES: 0 < risk <= 1.
  static std::uint64_t size_threshold(double risk);

 private:
  AverageRiskSpec spec_;
  bool suppression_;
  std::uint64_t smallest_size_ = 1;  // size_threshold(highest_risk), 1 without it
};

class SampleUniqueness final : public RiskBasedModel {
 public:
  explicit SampleUniqueness(double threshold) : threshold_(threshold) {}
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return true; }
  bool fulfilled(const ClassSizeFrequencies& freq) const override;

 private:
  double threshold_;
};

}  // namespace deid
