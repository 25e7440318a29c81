#include <fmt/format.h>

#include <cmath>

#include "job/sections.h"

namespace deid::job_parse {

PrivacySpec parse_population_uniqueness(const Ctx& ctx, const YAML::Node& p) {
  PopulationUniquenessSpec s;
  if (!p["threshold"]) ctx.fail(p, "population-uniqueness needs 'threshold'");
  if (!p["population-size"]) ctx.fail(p, "population-uniqueness needs 'population-size'");
  s.threshold = ctx.fraction(p["threshold"], "threshold");
  s.population_size = ctx.num(p["population-size"], "population-size");
  if (!(s.population_size >= 1)) ctx.fail(p["population-size"], "population-size must be >= 1");
  if (s.population_size > kMaxPopulation)
    ctx.fail(p["population-size"], fmt::format("population-size must be at most {}, got {}", kMaxPopulation,
                                               p["population-size"].as<std::string>()));
  if (p["estimator"])
    s.estimator = ctx.choice<PopulationUniquenessSpec::Estimator>(
        p["estimator"], "estimator",
        {{"dankar", PopulationUniquenessSpec::Estimator::dankar},
         {"pitman", PopulationUniquenessSpec::Estimator::pitman},
         {"zayatz", PopulationUniquenessSpec::Estimator::zayatz},
         {"snb", PopulationUniquenessSpec::Estimator::snb}});
  return s;
}

PrivacySpec parse_average_risk(const Ctx& ctx, const YAML::Node& p) {
  AverageRiskSpec s;
  if (!p["threshold"]) ctx.fail(p, "average-risk needs 'threshold' (the highest average risk, e.g. 0.05)");
  s.threshold = ctx.fraction(p["threshold"], "threshold");
  if (p["highest-risk"]) {
    s.highest_risk = ctx.fraction(p["highest-risk"], "highest-risk");
    if (*s.highest_risk == 0) ctx.fail(p["highest-risk"], "highest-risk must be > 0 (a risk of 1/class size)");
  }
  if (p["records-at-risk"]) {
    if (!s.highest_risk)
      ctx.fail(p["records-at-risk"], "'records-at-risk' needs 'highest-risk' (the risk above which a record is "
                                     "at risk)");
    s.records_at_risk = ctx.fraction(p["records-at-risk"], "records-at-risk");
  }
  return s;
}

PrivacySpec parse_sample_uniqueness(const Ctx& ctx, const YAML::Node& p) {
  if (!p["threshold"]) ctx.fail(p, "sample-uniqueness needs 'threshold' (the highest share of sample uniques)");
  return SampleUniquenessSpec{ctx.fraction(p["threshold"], "threshold")};
}

PrivacySpec parse_k_map(const Ctx& ctx, const YAML::Node& p) {
  KMapSpec s;
  if (!p["k"]) ctx.fail(p, "k-map needs 'k'");
  s.k = ctx.integer(p["k"], "k", 1, 2147483647.0);
  if (!p["population-size"]) {
    // ARX's KMap(k, subset): the data are the population table.
    if (p["significance"] || p["estimator"])
      ctx.fail(p["significance"] ? p["significance"] : p["estimator"],
               "k-map's significance and estimator go with 'population-size'; without it the data are the "
               "population and the research subset the sample");
    return s;
  }
  s.population_size = ctx.num(p["population-size"], "population-size");
  if (!(s.population_size >= 1) || s.population_size != std::floor(s.population_size))
    ctx.fail(p["population-size"], "population-size must be a whole number >= 1");
  if (s.population_size > kMaxPopulation)
    ctx.fail(p["population-size"], fmt::format("population-size must be at most {}, got {}", kMaxPopulation,
                                               p["population-size"].as<std::string>()));
  if (p["significance"]) s.significance = ctx.fraction(p["significance"], "significance");
  if (p["estimator"])
    s.estimator = ctx.choice<KMapSpec::Estimator>(
        p["estimator"], "estimator",
        {{"poisson", KMapSpec::Estimator::poisson},
         {"zero-truncated-poisson", KMapSpec::Estimator::zero_truncated_poisson}});
  return s;
}

PrivacySpec parse_profitability(const Ctx& ctx, const YAML::Node& p) {
  ProfitabilitySpec s;
  if (p["attacker"]) {
    const std::string attacker = ctx.str(p["attacker"], "attacker");
    if (attacker != "prosecutor" && attacker != "journalist")
      ctx.fail(p["attacker"], fmt::format("attacker must be prosecutor or journalist, got '{}'", attacker));
    s.journalist = attacker == "journalist";
  }
  if (p["attack"]) s.attack = ctx.boolean(p["attack"], "attack");
  return s;
}

PrivacySpec parse_delta_presence(const Ctx& ctx, const YAML::Node& p) {
  DeltaPresenceSpec s;
  if (!p["min"] || !p["max"]) ctx.fail(p, "delta-presence needs 'min' and 'max' (the bounds of each class's share "
                                          "of its population records in the research subset)");
  s.min = ctx.fraction(p["min"], "min");
  s.max = ctx.fraction(p["max"], "max");
  if (s.min > s.max) ctx.fail(p["max"], fmt::format("delta-presence: max ({}) is below min ({})", s.max, s.min));
  return s;
}

}  // namespace deid::job_parse
