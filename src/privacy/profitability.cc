#include "privacy/profitability.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/problem.h"
#include "privacy/models.h"
#include "quality/arx_conventions.h"
#include "quality/payout.h"

namespace deid {

Profitability::Profitability(const ProfitabilitySpec& spec) : spec_(spec) {
  if (spec_.attack) return;
  // ARX's ProfitabilityProsecutorNoAttack.initialize.
  const double threshold = spec_.cost_benefit.adversary_gain / spec_.cost_benefit.adversary_cost;
  if (spec_.cost_benefit.adversary_gain == 0)
    derived_k_ = 1;
  else if (std::isinf(threshold))
    derived_k_ = 2147483647;
  else if (threshold == std::floor(threshold))
    derived_k_ = static_cast<std::uint64_t>(threshold) + 1;
  else
    derived_k_ = static_cast<std::uint64_t>(std::ceil(threshold));
}

std::string Profitability::describe() const {
  const CostBenefitSpec& cb = spec_.cost_benefit;
  return fmt::format("{}profitability ({})[benefit={}, loss={}, gain={}, cost={}]",
                     spec_.attack ? "" : "no-attack-", spec_.journalist ? "journalist" : "prosecutor", quality::java_double(cb.publisher_benefit),
                     quality::java_double(cb.publisher_loss), quality::java_double(cb.adversary_gain),
                     quality::java_double(cb.adversary_cost));
}

nlohmann::json Profitability::to_json() const {
  const CostBenefitSpec& cb = spec_.cost_benefit;
  nlohmann::json j = {{"model", "profitability"},
                      {"attacker", spec_.journalist ? "journalist" : "prosecutor"},
                      {"attack", spec_.attack},
                      {"publisher_benefit", cb.publisher_benefit},
                      {"publisher_loss", cb.publisher_loss},
                      {"adversary_gain", cb.adversary_gain},
                      {"adversary_cost", cb.adversary_cost}};
  if (!spec_.attack) j["derived_k"] = derived_k_;
  return j;
}

bool Profitability::enforce(const Problem& problem, const Transformation& t, Classes& classes,
                            std::uint64_t max_suppressed) const {
  if (!spec_.attack) return classes.suppressed_records <= max_suppressed;
  const double max_loss = quality::max_entropy_based_loss(problem);
  const std::uint32_t w = classes.width;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    if (classes.suppressed[c] || classes.counts[c] == 0) continue;  // nothing to suppress without subset records
    const double loss = quality::entropy_based_loss(
        problem, t, {classes.keys.data() + c * w, w}, max_loss);
    // ARX's getSuccessProbability: the journalist's is 1 / the population
    // class's records.
    double success = 1.0 / static_cast<double>(classes.counts[c]);
    if (spec_.journalist) {
      if (!classes.distributions) throw std::logic_error("profitability (journalist) needs the classes' population");
      const std::uint64_t population = class_population(problem, *classes.distributions, c);
      if (population != 0) success = 1.0 / static_cast<double>(population);
    }
    if (quality::publisher_payout(spec_.cost_benefit, loss, success) > 0) continue;
    classes.suppressed[c] = 1;
    classes.suppressed_records += classes.counts[c];
  }
  return classes.suppressed_records <= max_suppressed;
}

std::unique_ptr<PrivacyModel> make_profitability(const ProfitabilitySpec& spec, const Problem& problem) {
  if (spec.attack && problem.aggregated_dimensions() > 0)
    throw JobError(Location{}, "profitability with attack cannot be combined yet with an attribute microaggregated "
                               "without generalization; set generalize-before: true on it");
  return std::make_unique<Profitability>(spec);
}

}  // namespace deid
