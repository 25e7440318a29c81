#include <fmt/format.h>

#include "deid/error.h"
#include "deid/problem.h"
#include "privacy/differential_privacy.h"
#include "privacy/k_anonymity.h"
#include "privacy/models.h"

namespace deid {

std::unique_ptr<PrivacyModel> make_privacy_model(const PrivacySpec& spec, const Problem& problem) {
  return std::visit(
      [&](const auto& s) -> std::unique_ptr<PrivacyModel> {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, KAnonymitySpec>) return std::make_unique<KAnonymity>(s.k);
        if constexpr (std::is_same_v<S, LDiversitySpec>) return make_l_diversity(s, problem);
        if constexpr (std::is_same_v<S, TClosenessSpec>) return make_t_closeness(s, problem);
        if constexpr (std::is_same_v<S, PopulationUniquenessSpec>) return make_population_uniqueness(s, problem);
        if constexpr (std::is_same_v<S, AverageRiskSpec>) return make_average_risk(s, problem);
        if constexpr (std::is_same_v<S, SampleUniquenessSpec>) return make_sample_uniqueness(s, problem);
        if constexpr (std::is_same_v<S, DeltaDisclosureSpec>) return make_delta_disclosure(s, problem);
        if constexpr (std::is_same_v<S, BetaLikenessSpec>) return make_beta_likeness(s, problem);
        if constexpr (std::is_same_v<S, KMapSpec>) return make_k_map(s, problem);
        if constexpr (std::is_same_v<S, ProfitabilitySpec>) return make_profitability(s, problem);
        if constexpr (std::is_same_v<S, DeltaPresenceSpec>) return make_delta_presence(s, problem);
        if constexpr (std::is_same_v<S, DifferentialPrivacySpec>) return make_differential_privacy(s, problem);
      },
      spec);
}

void check_population_size(const Problem& problem, double population_size, const char* model) {
  if (population_size < static_cast<double>(problem.rows))
    throw JobError(Location{}, fmt::format("{}: population-size {} is smaller than the {} records of the data; it "
                                           "must be the size of the population the data were drawn from",
                                           model, population_size, problem.rows));
}

std::size_t sensitive_index(const Problem& problem, const std::string& attribute, const char* model) {
  for (std::size_t i = 0; i < problem.sensitive.size(); ++i)
    if (problem.sensitive[i].name == attribute) return i;
  throw JobError(Location{}, fmt::format("{}: attribute '{}' is not a sensitive attribute of the data (give it "
                                         "role: sensitive)",
                                         model, attribute));
}

}  // namespace deid
