// The game-theoretic model's quantities (Wan et al., "A game theoretic
// framework for analyzing re-identification risk", PLoS ONE 10(3), 2015)
// as ARX computes them, shared by the profitability privacy model
// (privacy/profitability.h) and the publisher-payout quality model
// (quality/publisher_payout.h). Internal to src.
#pragma once

#include <cstdint>
#include <span>

#include "deid/job.h"
#include "deid/lattice.h"

namespace deid {
struct Problem;
}

namespace deid::quality {

// ARX's MetricSDNMEntropyBasedInformationLoss.getMaximalEntropyBasedInformationLoss:
// log10 of the product over quasi-identifiers of their hierarchy's rows.
double max_entropy_based_loss(const Problem& problem);

// ARX's getEntropyBasedInformationLoss of a class with generalized `key`
// at `t`: log10(product over quasi-identifiers of the share of the
// hierarchy under the key's value) / max_loss + 1, in [0, 1] (0 when
// max_loss is 0). Throws std::logic_error when the value is out of range
// by more than ARX's 0.001 (ARX throws there too).
double entropy_based_loss(const Problem& problem, const Transformation& t, std::span<const std::uint32_t> key,
                          double max_loss);

// ARX's RiskModelCostBenefit.getExpectedPublisherPayout: benefit * (1 -
// loss), minus loss * p when the adversary's payout gain * p - cost is
// positive (p: the adversary's success probability).
inline double publisher_payout(const CostBenefitSpec& cb, double loss, double success) {
  const double adversary = cb.adversary_gain * success - cb.adversary_cost;
  return cb.publisher_benefit * (1.0 - loss) - (adversary > 0 ? cb.publisher_loss * success : 0.0);
}

}  // namespace deid::quality
