// The game-theoretic privacy model of Wan et al. ("A game theoretic
// framework for analyzing re-identification risk", PLoS ONE 10(3), 2015)
// with a prosecutor, as ARX implements it (ProfitabilityProsecutor and
// ProfitabilityProsecutorNoAttack). docs/privacy-models.md, "Profitability".
//
// A prosecutor knows the target is in the data; re-identifying a record of
// a class of c records succeeds with probability p = 1/c, gains the
// adversary `adversary-gain` and costs `adversary-cost`: the adversary
// attacks when gain * p - cost > 0.
//
// - With `attack` (ProfitabilityProsecutor): a class is kept when the
//   publisher's expected payout per record, benefit * (1 - IL) - (attacked ?
//   loss * p : 0), is positive, IL the class's entropy-based information
//   loss (quality/payout.h). The payout needs the class's generalized
//   values, so the model judges the output as a whole (dataset_level) and
//   suppresses the classes with a payout <= 0. Not monotonic (ARX: "often,
//   generalization only marginally reduces the adversary's success
//   probability but at the same time it significantly reduces the
//   publisher's payout").
// - Without (ProfitabilityProsecutorNoAttack): every class must deter the
//   attack, c >= k with k derived from gain / cost as ARX derives it: 1 when
//   gain is 0, gain / cost + 1 when that is a whole number, its ceiling
//   otherwise (2^31 - 1 when cost is 0). k-anonymity: monotonic.
#pragma once

#include <cstdint>

#include "deid/job.h"
#include "deid/privacy.h"

namespace deid {

class Profitability final : public PrivacyModel {
 public:
  explicit Profitability(const ProfitabilitySpec& spec);
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return !spec_.attack; }
  bool needs_distributions() const override { return spec_.journalist; }
  bool holds(const ClassView& cls) const override {
    // ARX's ProfitabilityJournalistNoAttack: the population class deters.
    return (spec_.journalist ? cls.population : cls.count) >= derived_k_;
  }
  std::uint64_t minimal_class_size() const override { return spec_.journalist ? 1 : derived_k_; }
  bool declares_minimal_class_size() const override { return !spec_.attack && !spec_.journalist; }
  bool dataset_level() const override { return spec_.attack; }
  bool enforce(const Problem& problem, const Transformation& t, Classes& classes,
               std::uint64_t max_suppressed) const override;

  // Without attack: the k of the equivalent k-anonymity (1 with attack).
  std::uint64_t derived_k() const { return derived_k_; }

 private:
  ProfitabilitySpec spec_;
  std::uint64_t derived_k_ = 1;
};

}  // namespace deid
