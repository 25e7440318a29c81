// (epsilon, delta)-differential privacy as ARX implements it: SafePub
// (Bild, Kuhn, Prasser: "SafePub: A Truthful Data Anonymization Algorithm
// With Strong Privacy Guarantees", PoPETs 2018(1); ARX's
// EDDifferentialPrivacy, dp/ParameterCalculation, dp/ExponentialMechanism).
//
// The mechanism: draw a random sample of the records, each with probability
// beta; generalize (one fixed transformation, or one the search picks with
// the exponential mechanism); suppress every class with fewer than k
// sampled records, and every record outside the sample. For the k and beta
// computed from (epsilon, delta) below, the whole process is
// (epsilon, delta)-differentially private (Theorem 1 of the paper; the
// search adds its own budget, epsilon = epsilon_anon + epsilon_search).
// The guarantee is a property of the process, not of the released table:
// what can be checked of a table is only that every released class holds
// at least k sampled records (docs/privacy-models.md).
//
// The model holds for a class when its sampled records number at least k
// (ARX's isAnonymous: entry.count >= k, count being the records of the
// research subset). It declares itself non-monotonic: the SafePub search
// uses no predictive property, and suppression is unlimited.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/differential_privacy.h"
#include "deid/job.h"
#include "deid/privacy.h"
#include "privacy/java_random.h"

namespace deid {

// An interval of doubles [lo, hi] with ARX's outward rounding
// (reliability/IntervalArithmeticDouble): every operation is evaluated at
// the bounds in round-to-nearest, and the result widened by one ulp on each
// side (Math.nextAfter), so it contains the exact value.
struct Interval {
  double lo = 0;
  double hi = 0;
};

// The source of randomness of one run: java.util.Random with a seed (ARX's
// deterministic mode with the seed 0xDEADBEEF), or, without a seed,
// OpenSSL's CSPRNG (ARX's SecureRandom). Doubles in [0, 1) with 53 bits.
class DpRandom {
 public:
  explicit DpRandom(std::optional<std::int64_t> seed);
  double next_double();

 private:
  std::optional<JavaRandom> java_;
};

// The sample: row r is in it when the r-th draw is below beta
// (EDDifferentialPrivacy.initialize: one nextDouble per record, in order).
std::vector<std::uint8_t> dp_sample(std::uint64_t rows, double beta, DpRandom& random);

// The privacy model: a class holds when it has at least k sampled records.
class DifferentialPrivacyModel final : public PrivacyModel {
 public:
  DifferentialPrivacyModel(const DifferentialPrivacySpec& spec, DpParameters parameters);
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return false; }
  bool holds(const ClassView& cls) const override { return cls.count >= parameters_.k; }
  std::uint64_t minimal_class_size() const override { return parameters_.k; }
  const DpParameters& parameters() const { return parameters_; }
  const DifferentialPrivacySpec& spec() const { return spec_; }

 private:
  DifferentialPrivacySpec spec_;
  DpParameters parameters_;
};

}  // namespace deid
