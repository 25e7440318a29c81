// Population uniqueness for the independent verifier (verify.h): the share
// of a population estimated to be unique in its quasi-identifiers, from the
// class sizes of an output (papers/002, VI-D; docs/risk-models.md). Like the
// rest of the verifier this shares no code with the engine (src/risk): std
// only, long double throughout, and computed another way wherever there is
// one:
//
//  - Zayatz: P(X = 1) of the hypergeometric distribution from log-gamma
//    (lgammal of binomial coefficients; the engine multiplies log1p terms);
//  - Pitman (Hoshino 2001): the maximum-likelihood equations (papers/002,
//    (2) and (3)) by term-by-term sums only (the engine solves with digamma
//    closed forms first), solved by damped Newton-Raphson with backtracking
//    on the residual from Hoshino's starting point and then from a fixed
//    grid of points, to |f| <= 1e-10 (the engine stops at 1e-6); estimate
//    (1) from lgammal;
//  - SNB (Chen and McNulty 1998): K as Shlosser's estimator, then the two
//    equations in alpha and beta by Newton-Raphson with a numerical
//    Jacobian (the engine uses ARX's analytic one);
//  - Dankar et al.'s rule without the Zayatz fallback, as the privacy model
//    applies it: no sample unique: 0; sampling fraction <= 10 %: Pitman;
//    above: the smaller of Zayatz and SNB when SNB has an estimate, else
//    Zayatz.
//
// An output satisfies "population uniqueness <= threshold" (ARX's rule) when
// every record is suppressed, or 0 < uniques / N <= threshold, or no
// estimate (or 0) and no sample unique. The verifier accepts uniques / N up
// to threshold * (1 + kUniquenessTolerance): the engine's root is accurate to
// its solver's 1e-6 on the equations, which moves the estimate by far less.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace verify {

inline constexpr long double kUniquenessTolerance = 1e-6L;

struct PopulationUniqueness {
  enum class Estimator { dankar, pitman, zayatz, snb };
  double threshold = 0.01;
  double population_size = 318.9e6;
  Estimator estimator = Estimator::dankar;
};

// Class size -> number of classes of that size (records not suppressed).
using ClassSizes = std::map<std::uint64_t, std::uint64_t>;

struct UniquesEstimate {
  std::optional<long double> uniques;  // none: the model has no estimate (why says so)
  std::string model;                   // the estimator that gave it ("pitman", ...)
  std::string why;
};

UniquesEstimate zayatz_uniques(const ClassSizes& sizes, long double population);
UniquesEstimate pitman_uniques(const ClassSizes& sizes, long double population);
UniquesEstimate snb_uniques(const ClassSizes& sizes, long double population);
// Dankar et al.'s rule without the Zayatz fallback (the privacy model's).
UniquesEstimate dankar_uniques(const ClassSizes& sizes, long double population);
UniquesEstimate estimate_uniques(PopulationUniqueness::Estimator estimator, const ClassSizes& sizes,
                                 long double population);

// Whether an output with these class sizes satisfies the requirement (see
// the header comment). `*fraction` receives uniques / N (0 without an
// estimate); on failure `*why` says why, as a sentence.
bool population_uniqueness_holds(const PopulationUniqueness& requirement, const ClassSizes& sizes,
                                 long double* fraction, std::string* why);

// Average re-identification risk (the prosecutor's risk 1 / class size,
// averaged over the records not suppressed, is classes / records): at most
// `threshold`; with `highest_risk` h, at most `records_at_risk` of the
// records are in classes whose risk 1/size is not below 1.01 h (ARX counts a
// risk within 1 % of h as h). Every record suppressed holds.
struct AverageRisk {
  double threshold = 0.05;
  std::optional<double> highest_risk;
  double records_at_risk = 0;
};

// Sample uniqueness: at most `threshold` of the records not suppressed are
// alone in their class.
struct SampleUniqueness {
  double threshold = 0.01;
};

// k-map with a Poisson (or zero-truncated Poisson) model of the population
// class sizes (ARX's KMap with a CellSizeEstimator): every class not
// suppressed has at least k' records, k' derived from k, the significance
// and the sampling fraction as ARX derives it (docs/privacy-models.md,
// "k-map"). The verifier derives k' itself: Poisson probabilities from
// lgammal and sums of terms, not from a library CDF.
struct KMap {
  std::uint64_t k = 5;
  double population_size = 0;
  double significance = 0.01;
  bool zero_truncated = false;
};

// k' for a sample of `records`.
std::uint64_t k_map_derived_k(const KMap& requirement, std::uint64_t records);

// Whether an output with these class sizes satisfies the requirement;
// `*value` receives the average risk or the share of uniques; on failure
// `*why` says why, as a sentence. Compared with a tolerance of kTolerance
// (verify_sensitive.h) in the model's favour.
bool average_risk_holds(const AverageRisk& requirement, const ClassSizes& sizes, long double* value,
                        std::string* why);
bool sample_uniqueness_holds(const SampleUniqueness& requirement, const ClassSizes& sizes, long double* value,
                             std::string* why);

}  // namespace verify
