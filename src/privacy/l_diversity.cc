#include "privacy/l_diversity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "deid/error.h"
#include "deid/problem.h"
#include "privacy/models.h"

namespace deid {

LDiversity::LDiversity(std::string attribute, std::size_t index, double l)
    : attribute_(std::move(attribute)), index_(index), l_(l), min_values_(static_cast<std::uint64_t>(std::ceil(l))) {}

// --- distinct ---------------------------------------------------------------

std::string DistinctLDiversity::describe() const {
  return fmt::format("distinct-{}-diversity for '{}'", l_, attribute_);
}

nlohmann::json DistinctLDiversity::to_json() const {
  return {{"model", "l-diversity"}, {"attribute", attribute_}, {"variant", "distinct"}, {"l", l_}};
}

bool DistinctLDiversity::holds(const ClassView& cls) const { return distribution(cls).codes.size() >= min_values_; }

// --- entropy ----------------------------------------------------------------

namespace {

// G(1), G(2), G(4), ..., G(100): ARX 3.9.2's table
// (EntropyLDiversity.EntropyEstimator.G_PRECOMPUTED), so that the estimates
// carry ARX's bits.
constexpr double kGrassberger[] = {
    -1.2703628454614782, 0.7296371545385218, 1.3963038212051886, 1.7963038212051885, 2.0820181069194743,
    2.3042403291416966,  2.4860585109598783, 2.639904664806032,  2.7732379981393653, 2.8908850569628948,
    2.9961482148576315,  3.091386310095727,  3.178342831834857,  3.2583428318348573, 3.3324169059089312,
    3.4013824231503107,  3.4658985521825687, 3.5265046127886293, 3.5836474699314866, 3.6377015239855406,
    3.6889835752675917,  3.7377640630724698, 3.7842756909794466, 3.8287201354238913, 3.871273326913253,
    3.912089653443865,   3.951305339718375,  3.9890411887749786, 4.025404825138615,  4.060492544436861,
    4.094390849521607,   4.127177734767508,  4.1589237665135395, 4.18969299728277,   4.219543743551427,
    4.248529250797804,   4.276698264882311,  4.304095525156284,  4.33076219182295,   4.356736217796977,
    4.382052673493179,   4.40674403151787,   4.430840417060039,  4.454369828824745,  4.477358334571871,
    4.49983024468423,    4.521808266662253,  4.543313643006339,  4.564366274585286,  4.5849848312863175,
    4.605186851488337,
};

const char* estimator_name(LDiversitySpec::Estimator e) {
  return e == LDiversitySpec::Estimator::shannon ? "shannon" : "grassberger";
}

}  // namespace

double EntropyLDiversity::grassberger(std::uint64_t n) {
  if (n <= 100) return kGrassberger[(n - n % 2) / 2];
  n -= n % 2;
  // ARX multiplies (n/2)(n/2) in 32-bit ints, which wraps for classes of
  // more than 92,681 records; deid multiplies in doubles (the asymptotic
  // series of G, equal to ARX's wherever ARX's does not overflow).
  const double half = static_cast<double>(n / 2);
  const double m = 1.0 / (half * half);
  return std::log(static_cast<double>(n)) + m * (1.0 / 24 - m * (7.0 / 960 - m * (31.0 / 8064)));
}

double EntropyLDiversity::psi(std::uint64_t n) const {
  return estimator_ == Estimator::shannon ? std::log(static_cast<double>(n)) : grassberger(n);
}

std::string EntropyLDiversity::describe() const {
  if (estimator_ == Estimator::shannon) return fmt::format("entropy-{}-diversity for '{}'", l_, attribute_);
  return fmt::format("{}-entropy-{}-diversity for '{}'", estimator_name(estimator_), l_, attribute_);
}

nlohmann::json EntropyLDiversity::to_json() const {
  nlohmann::json j = {{"model", "l-diversity"}, {"attribute", attribute_}, {"variant", "entropy"}, {"l", l_}};
  if (estimator_ != Estimator::shannon) j["estimator"] = estimator_name(estimator_);
  return j;
}

bool EntropyLDiversity::holds(const ClassView& cls) const {
  const auto& d = distribution(cls);
  if (d.codes.size() < min_values_) return false;
  // ARX 3.9 (EntropyLDiversity): with N the class size,
  // H >= ln l  <=>  sum n psi(n) <= N (psi(N) - ln l). Same expression, so
  // that a class exactly at the bound (two equal counts and l = 2) is judged
  // as ARX judges it.
  const double total = static_cast<double>(cls.count);
  const double bound = total * (psi(cls.count) - std::log(l_));
  // Grassberger's G(1) is the one negative term (ln 1 = 0 for Shannon).
  // ARX adds the terms in its hash table's order and gives up once the sum
  // exceeds the bound, which with G(1) can reject a class whose full sum is
  // within it; deid adds the values seen once first, so that every later
  // term is >= 0 and stopping early is exact.
  std::uint64_t ones = 0;
  for (std::uint64_t n : d.counts) ones += n == 1;
  double sum = static_cast<double>(ones) * psi(1);
  for (std::uint64_t n : d.counts) {
    if (n == 1) continue;
    sum += static_cast<double>(n) * psi(n);
    if (bound < sum) return false;
  }
  return !(bound < sum);
}

double EntropyLDiversity::entropy(const ClassView& cls) const {
  const auto& d = distribution(cls);
  const double total = static_cast<double>(cls.count);
  double sum = 0.0;
  for (std::uint64_t n : d.counts) sum += static_cast<double>(n) * psi(n);
  return psi(cls.count) - sum / total;
}

// --- recursive (c,l) --------------------------------------------------------

std::string RecursiveCLDiversity::describe() const {
  return fmt::format("recursive-({},{})-diversity for '{}'", c_, l_, attribute_);
}

nlohmann::json RecursiveCLDiversity::to_json() const {
  return {{"model", "l-diversity"}, {"attribute", attribute_}, {"variant", "recursive"}, {"c", c_}, {"l", l_}};
}

bool RecursiveCLDiversity::holds(const ClassView& cls) const {
  const auto& d = distribution(cls);
  const std::size_t s = d.codes.size();
  if (s < min_values_) return false;
  // Counts in descending order: n_1 is the largest; the tail n_l..n_s are
  // the s - l + 1 smallest (ARX 3.9, RecursiveCLDiversity).
  thread_local std::vector<std::uint64_t> sorted;
  sorted.assign(d.counts.begin(), d.counts.end());
  std::sort(sorted.begin(), sorted.end());  // ascending
  std::uint64_t tail = 0;
  for (std::size_t i = 0; i + min_values_ <= s; ++i) tail += sorted[i];
  return static_cast<double>(sorted.back()) < c_ * static_cast<double>(tail);
}

// --- factory ----------------------------------------------------------------

std::unique_ptr<PrivacyModel> make_l_diversity(const LDiversitySpec& spec, const Problem& problem) {
  const std::size_t index = sensitive_index(problem, spec.attribute, "l-diversity");
  const bool suppression = problem.max_suppressed > 0;
  switch (spec.variant) {
    case LDiversitySpec::Variant::distinct:
      return std::make_unique<DistinctLDiversity>(spec.attribute, index, spec.l);
    case LDiversitySpec::Variant::entropy:
      return std::make_unique<EntropyLDiversity>(spec.attribute, index, spec.l, suppression, spec.estimator);
    case LDiversitySpec::Variant::recursive:
      return std::make_unique<RecursiveCLDiversity>(spec.attribute, index, spec.c, spec.l, suppression);
  }
  throw JobError(Location{}, "l-diversity: unknown variant");
}

}  // namespace deid
