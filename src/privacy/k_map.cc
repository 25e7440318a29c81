#include "privacy/k_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/poisson.hpp>

#include "deid/problem.h"
#include "privacy/models.h"

namespace deid {

KMap::KMap(const KMapSpec& spec, std::uint64_t records) : spec_(spec) {
  if (population_table()) return;
  // ARX: the sampling fraction times k is the Poisson mean.
  const double lambda = static_cast<double>(records) / spec.population_size * static_cast<double>(spec.k);
  const boost::math::poisson_distribution<double> poisson(lambda);
  const double threshold = 1.0 - spec.significance;
  const std::uint64_t k = spec.k;
  std::uint64_t derived = 0;
  double reached = 0;
  if (spec.estimator == KMapSpec::Estimator::poisson) {
    std::uint64_t counter = 0;
    while (reached < threshold) {
      reached = boost::math::cdf(poisson, static_cast<double>(counter));
      ++counter;
      if (counter >= k) {  // k' would reach k: k-map holds for certain
        reached = 1;
        break;
      }
    }
    derived = counter + 1;
  } else {
    const double non_empty = 1.0 - boost::math::pdf(poisson, 0.0);
    std::uint64_t counter = 1;
    while (reached < threshold) {
      reached += boost::math::pdf(poisson, static_cast<double>(counter)) / non_empty;
      ++counter;
      if (counter >= k) {
        reached = 1;
        break;
      }
    }
    derived = counter;
  }
  type1_error_ = 1.0 - reached;
  derived_k_ = std::min({derived, records, k});
}

std::string KMap::describe() const {
  if (population_table()) return fmt::format("({})-map", spec_.k);
  return fmt::format("({})-map estimated as ({})-anonymity ({})", spec_.k, derived_k_,
                     spec_.estimator == KMapSpec::Estimator::poisson ? "Poisson" : "zero-truncated Poisson");
}

nlohmann::json KMap::to_json() const {
  if (population_table()) return {{"model", "k-map"}, {"k", spec_.k}, {"population", "table"}};
  return {{"model", "k-map"},
          {"k", spec_.k},
          {"population_size", spec_.population_size},
          {"significance", spec_.significance},
          {"estimator", spec_.estimator == KMapSpec::Estimator::poisson ? "poisson" : "zero-truncated-poisson"},
          {"derived_k", derived_k_},
          {"type1_error", type1_error_}};
}

std::unique_ptr<PrivacyModel> make_k_map(const KMapSpec& spec, const Problem& problem) {
  if (spec.population_size == 0) return std::make_unique<KMap>(spec, problem.rows);
  check_population_size(problem, spec.population_size, "k-map");
  // ARX derives k' from the sampling fraction of the whole input, also
  // with a research subset or differential privacy's sample (KMap.initialize
  // reads DataManager.getDataGeneralized().getDataLength(); "TODO: consider
  // subset/inclusion").
  return std::make_unique<KMap>(spec, problem.population_rows);
}

}  // namespace deid
