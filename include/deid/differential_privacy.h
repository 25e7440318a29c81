// The parameters of (epsilon, delta)-differential privacy as ARX computes
// them (SafePub: Bild, Kuhn, Prasser, PoPETs 2018(1), Theorem 1; ARX's
// dp/ParameterCalculation with reliability/IntervalArithmeticDouble). The
// model itself is src/privacy/differential_privacy.h; docs/privacy-models.md.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "deid/job.h"

namespace deid {

// Thrown when the interval arithmetic cannot decide a comparison or a
// result is not finite (ARX's IntervalArithmeticException).
class IntervalArithmeticError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// beta = 1 - e^-epsilon (the lower bound of its interval) and the k ARX's
// loop returns: one more than the first k whose bound delta(k) of SafePub's
// Theorem 1 is certainly below `delta`. `epsilon` is the anonymization's
// budget (dp_anonymization_epsilon). Throws IntervalArithmeticError.
struct DpParameters {
  std::uint64_t k = 0;
  double beta = 0;
};
DpParameters dp_parameters(double epsilon, double delta);

// The anonymization's budget: epsilon - search_budget, the lower bound of
// ARX's interval (EDDifferentialPrivacy.initialize); epsilon itself when
// search_budget is 0 (the data-independent variant).
double dp_anonymization_epsilon(double epsilon, double search_budget);

// The budget of one search step: search_budget / steps, the lower bound of
// ARX's interval (DataDependentEDDPAlgorithm); 0 for no steps.
double dp_epsilon_per_step(double search_budget, std::uint64_t steps);

// k and beta of a job's model: dp_parameters of its anonymization budget.
DpParameters dp_parameters(const DifferentialPrivacySpec& spec);

}  // namespace deid
