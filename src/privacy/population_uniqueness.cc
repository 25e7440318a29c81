#include "privacy/population_uniqueness.h"

#include <fmt/format.h>

#include <algorithm>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/problem.h"
#include "privacy/models.h"

namespace deid {
namespace {

// At most this many frequencies-of-frequencies are remembered (each a few
// hundred bytes at most: one pair per distinct class size).
constexpr std::size_t kCacheEntries = 1 << 16;

}  // namespace

PopulationUniqueness::PopulationUniqueness(const PopulationUniquenessSpec& spec, SolverOptions solver)
    : spec_(spec), solver_(solver) {}

std::string PopulationUniqueness::describe() const {
  return fmt::format("({})-population-uniqueness ({})", spec_.threshold, to_string(spec_.estimator));
}

nlohmann::json PopulationUniqueness::to_json() const {
  return {{"model", "population-uniqueness"},
          {"threshold", spec_.threshold},
          {"population_size", spec_.population_size},
          {"estimator", to_string(spec_.estimator)}};
}

double PopulationUniqueness::estimated_fraction(const ClassSizeFrequencies& freq) const {
  {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (const auto it = cache_.find(freq.sizes); it != cache_.end()) return it->second;
  }
  // Dankar's rule without the Zayatz fallback, as ARX's criterion uses it.
  const UniquenessEstimate e = estimate_uniques(spec_.estimator, freq, spec_.population_size, solver_, false);
  const double fraction = e.uniques ? *e.uniques / spec_.population_size : 0.0;
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() >= kCacheEntries) cache_.clear();  // bounded; results do not depend on it
  cache_.emplace(freq.sizes, fraction);
  return fraction;
}

bool PopulationUniqueness::fulfilled(const ClassSizeFrequencies& freq) const {
  if (freq.empty()) return true;  // all suppressed
  const double fraction = estimated_fraction(freq);
  if (fraction > 0 && fraction <= spec_.threshold) return true;
  // No estimate is accepted only when there is no sample unique (ARX).
  return fraction == 0 && freq.of_size(1) == 0;
}

std::unique_ptr<PrivacyModel> make_population_uniqueness(const PopulationUniquenessSpec& spec, const Problem& problem) {
  if (!(spec.threshold >= 0 && spec.threshold <= 1))
    throw JobError(Location{}, fmt::format("population-uniqueness: threshold {} is outside [0, 1]", spec.threshold));
  check_population_size(problem, spec.population_size, "population-uniqueness");
  return std::make_unique<PopulationUniqueness>(spec);
}

}  // namespace deid
