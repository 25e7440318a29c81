#include "privacy/population_uniqueness.h"

#include <fmt/format.h>

#include <algorithm>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/problem.h"
#include "privacy/models.h"
#include "risk/suppression.h"

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

bool PopulationUniqueness::enforce(const Problem& problem, const Transformation& t, Classes& classes,
                                   std::uint64_t max_suppressed) const {
  // The class sizes of the records not yet suppressed.
  const ClassSizeFrequencies all = ClassSizeFrequencies::from_class_sizes(classes.counts, classes.suppressed);
  if (fulfilled(all)) return true;

  // The candidates are the classes not yet suppressed, smallest first
  // (risk/suppression.h). Suppressing a prefix of p of them removes the p
  // smallest classes, so the class sizes after it follow from `all` alone,
  // and so do the suppressed records: the order within a size only decides
  // which classes of the last size go, once the search is done. Per
  // distinct size j: the candidates and records of the smaller sizes.
  const std::size_t distinct = all.sizes.size();
  std::vector<std::uint64_t> classes_below(distinct + 1, 0), records_below(distinct + 1, 0);
  for (std::size_t j = 0; j < distinct; ++j) {
    classes_below[j + 1] = classes_below[j] + all.sizes[j].second;
    records_below[j + 1] = records_below[j] + all.sizes[j].first * all.sizes[j].second;
  }
  const std::size_t candidates = classes_below[distinct];
  // The distinct size of the prefix-th candidate (prefix >= 1).
  auto size_index = [&](std::size_t prefix) {
    return static_cast<std::size_t>(std::lower_bound(classes_below.begin() + 1, classes_below.end(), prefix) -
                                    (classes_below.begin() + 1));
  };
  auto removed = [&](std::size_t prefix) -> std::uint64_t {  // records in the first `prefix` candidates
    if (prefix == 0) return 0;
    const std::size_t j = size_index(prefix);
    return records_below[j] + (prefix - classes_below[j]) * all.sizes[j].first;
  };
  auto after = [&](std::size_t prefix) {
    ClassSizeFrequencies rest;
    std::size_t skip = prefix;
    for (const auto& [size, count] : all.sizes) {
      const std::uint64_t drop = std::min<std::uint64_t>(skip, count);
      skip -= drop;
      if (count > drop) rest.sizes.emplace_back(size, count - drop);
    }
    return rest;
  };
  const std::uint64_t base = classes.suppressed_records;
  const PrefixSearch found = find_suppression_prefix(candidates, [&](std::size_t prefix) {
    if (fulfilled(after(prefix))) return ProbeState::fulfilled;
    // ARX stops as soon as an unfulfilled cut-off already exceeds the limit.
    return base + removed(prefix) > max_suppressed ? ProbeState::abort : ProbeState::not_fulfilled;
  });
  if (found.aborted) return false;
  if (found.prefix > 0) {
    const std::uint64_t boundary = all.sizes[size_index(found.prefix)].first;
    for (std::uint32_t c : risk::first_for_suppression(problem, t, classes, found.prefix, boundary))
      classes.suppressed[c] = 1;
  }
  classes.suppressed_records = base + removed(found.prefix);
  return true;
}

std::unique_ptr<PrivacyModel> make_population_uniqueness(const PopulationUniquenessSpec& spec, const Problem& problem) {
  if (!(spec.threshold >= 0 && spec.threshold <= 1))
    throw JobError(Location{}, fmt::format("population-uniqueness: threshold {} is outside [0, 1]", spec.threshold));
  if (spec.population_size < static_cast<double>(problem.rows))
    throw JobError(Location{}, fmt::format("population-uniqueness: population-size {} is smaller than the {} records "
                                           "of the data; it must be the size of the population the data were "
                                           "drawn from",
                                           spec.population_size, problem.rows));
  return std::make_unique<PopulationUniqueness>(spec);
}

}  // namespace deid
