// The parameters of (epsilon, delta)-differential privacy as ARX computes
// them (SafePub: Bild, Kuhn, Prasser, PoPETs 2018(1), Theorem 1; ARX's
// dp/ParameterCalculation with reliability/IntervalArithmeticDouble). The
// model itself is src/privacy/differential_privacy.h; docs/privacy-models.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "deid/job.h"

namespace deid {

// Thrown when the interval arithmetic cannot decide a comparison or a
// result is not finite (ARX's IntervalArithmeticException).
class IntervalArithmeticError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when computing k would take more work than allowed: the work
// grows without bound as epsilon approaches 0 or grows large, or delta
// shrinks (ARX takes as long; deid gives up with a clear error).
class DpComputationLimitError : public std::runtime_error {
 public:
  explicit DpComputationLimitError(std::uint64_t steps)
      : std::runtime_error("more than " + std::to_string(steps) + " steps"), steps_(steps) {}
  std::uint64_t steps() const { return steps_; }

 private:
  std::uint64_t steps_;
};

// The default bound of dp_parameters' work, in steps (a step of the walk
// over n, or 1/64 of a binomial term): one to two minutes on one core
// (2e8 to 3e8 steps a second on a 2020s x86 core). With delta 1e-6: epsilon
// 2 takes 3e6 steps, epsilon 5 (k 2045) 1.2e9, epsilon 6 (k 5568) 1.6e10.
inline constexpr std::uint64_t kDpMaxWork = 30'000'000'000;

// beta = 1 - e^-epsilon (the lower bound of its interval) and the k ARX's
// loop returns: one more than the first k whose bound delta(k) of SafePub's
// Theorem 1 is certainly below `delta`. `epsilon` is the anonymization's
// budget (dp_anonymization_epsilon). Throws IntervalArithmeticError, and
// DpComputationLimitError after max_work steps (0: no bound).
struct DpParameters {
  std::uint64_t k = 0;
  double beta = 0;
};
DpParameters dp_parameters(double epsilon, double delta, std::uint64_t max_work = kDpMaxWork);

// The anonymization's budget: epsilon - search_budget, the lower bound of
// ARX's interval (EDDifferentialPrivacy.initialize); epsilon itself when
// search_budget is 0 (the data-independent variant).
double dp_anonymization_epsilon(double epsilon, double search_budget);

// The budget of one search step: search_budget / steps, the lower bound of
// ARX's interval (DataDependentEDDPAlgorithm); 0 for no steps.
double dp_epsilon_per_step(double search_budget, std::uint64_t steps);

// k and beta of a job's model: dp_parameters of its anonymization budget.
DpParameters dp_parameters(const DifferentialPrivacySpec& spec);

// The same for the job file `job_path`: an undecidable comparison
// (IntervalArithmeticError) or the work limit (DpComputationLimitError) is
// a JobError at the model's line that names epsilon, delta and the way out.
DpParameters job_dp_parameters(const DifferentialPrivacySpec& spec, const std::string& job_path);

}  // namespace deid
