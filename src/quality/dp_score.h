// The score functions of the quality models for the SafePub search
// (Bild, Kuhn, Prasser, PoPETs 2018, section 5 and appendix; ARX's
// Metric.getScore of MetricMDNMLoss, MetricMDNMPrecision,
// MetricMDNUEntropyPrecomputed, MetricSDNMDiscernability, MetricSDAECS and
// MetricSDClassification):
// a utility (higher is better) of a transformation's output, divided by its
// sensitivity so that the exponential mechanism may use it with sensitivity
// one. Computed exactly, as ARX does with BigFraction, and converted to a
// double the way BigFraction.doubleValue() converts (numerator and
// denominator of the reduced fraction each rounded to a double, then
// divided), so that the exponential mechanism sees ARX's numbers.
//
// A class here is an equivalence class of the whole table: `population`
// records, of which `count` are in the sample; `released` says whether its
// sampled records are released (count >= k). Records outside the sample are
// suppressed, as are the sampled records of classes not released.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "deid/lattice.h"

namespace deid {

struct Problem;

// A fraction num/den in lowest terms, den > 0, in 128-bit integers; every
// operation checks for overflow (throws deid::Error: the score would need
// more bits than deid's exact arithmetic has, a limit no job has reached).
class ExactFraction {
 public:
  ExactFraction() = default;
  ExactFraction(__int128 num, __int128 den = 1);
  ExactFraction operator+(const ExactFraction& o) const;
  ExactFraction operator*(const ExactFraction& o) const;
  ExactFraction operator/(const ExactFraction& o) const;
  bool operator==(const ExactFraction& o) const { return num_ == o.num_ && den_ == o.den_; }
  // Exact comparison (ILScore compares BigFractions).
  int compare(const ExactFraction& o) const;
  // BigFraction.doubleValue(): (double) numerator / (double) denominator.
  double to_double() const;
  __int128 num() const { return num_; }
  __int128 den() const { return den_; }

 private:
  __int128 num_ = 0;
  __int128 den_ = 1;
};

struct ScoreClass {
  std::span<const std::uint32_t> key;  // generalized codes per quasi-identifier
  std::uint64_t count = 0;             // sampled records
  std::uint64_t population = 0;        // all records
  bool released = false;               // count >= k
};

// The score of the quality model `model` (the job-file name) for the
// classes of transformation `t`; `rows` are the records of the whole
// table, `k` the model's k; `entry_class` the class of each histogram
// entry (read by classification only, for the distributions of its
// response variables that are not quasi-identifiers). REQUIRES:
// has_dp_score(model).
ExactFraction dp_score(const std::string& model, const Problem& problem, const Transformation& t,
                       std::span<const ScoreClass> classes, std::uint64_t rows, std::uint64_t k,
                       std::span<const std::uint32_t> entry_class = {});

// Whether deid has a score function for the quality model (ARX's
// Metric.isScoreFunctionSupported()).
bool has_dp_score(const std::string& model, bool monotonic);

}  // namespace deid
