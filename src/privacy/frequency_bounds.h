// Models that bound how much more (or less) frequent a sensitive value is
// in a class than in the whole table. With p(v) the share of value v among
// all records of the input and q(v) its share in the class, for every value
// v that occurs in the class:
//
//   delta-disclosure  |log2(q(v) / p(v))| < delta (Brickell and Shmatikov,
//                     "The cost of privacy", KDD 2008; ARX's
//                     DDisclosurePrivacy).
//   beta-likeness     (q(v) - p(v)) / p(v) <= beta, basic; enhanced:
//                     <= min(beta, -ln p(v)) (Cao and Karras, "Publishing
//                     microdata with a robust privacy guarantee", PVLDB 5(11),
//                     2012; ARX's BasicBLikeness and EnhancedBLikeness).
//
// Values absent from a class are not judged (as in ARX): delta-disclosure
// bounds the values a class shows, not those it hides.
//
// Monotonicity (docs/privacy-models.md):
//   beta-likeness     monotonic without suppression (ARX: with
//                     generalization only): a merged class's q(v) is a
//                     weighted mean of its parts' (0 where absent), so it
//                     stays within the bound both parts keep. With
//                     suppression it is not, as for entropy l-diversity.
//   delta-disclosure  not monotonic (ARX: neither): the lower bound fails on
//                     merging. Table {s: 5, r: 5}; classes {s, r} and
//                     {r, r, r, r} hold at delta = 1.5, their union has
//                     q(s) = 1/6 = p(s) / 3 (a unit test pins it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "deid/job.h"
#include "deid/privacy.h"

namespace deid {

// The table's shares p(v) of one sensitive attribute, and which of the
// problem's sensitive distributions the model judges.
class FrequencyBound : public PrivacyModel {
 public:
  bool needs_distributions() const override { return true; }

 protected:
  // `reference_counts[code]`: the occurrences of each code in the input.
  FrequencyBound(std::string attribute, std::size_t index, const std::vector<std::uint64_t>& reference_counts);

  std::string attribute_;
  std::size_t index_;
  std::vector<double> table_share_;  // p(v) by code, as ARX computes it: count / records
};

class DeltaDisclosure final : public FrequencyBound {
 public:
  DeltaDisclosure(std::string attribute, std::size_t index, const std::vector<std::uint64_t>& reference_counts,
                  double delta)
      : FrequencyBound(std::move(attribute), index, reference_counts), delta_(delta) {}
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return false; }
  bool holds(const ClassView& cls) const override;

 private:
  double delta_;
};

class BetaLikeness final : public FrequencyBound {
 public:
  using Variant = BetaLikenessSpec::Variant;
  // `suppression`: whether the problem may suppress records.
  BetaLikeness(std::string attribute, std::size_t index, const std::vector<std::uint64_t>& reference_counts,
               double beta, Variant variant, bool suppression);
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return !suppression_; }
  bool holds(const ClassView& cls) const override;

 private:
  double beta_;
  Variant variant_;
  bool suppression_;
  std::vector<double> bound_;  // the bound on (q - p) / p by code
};

}  // namespace deid
