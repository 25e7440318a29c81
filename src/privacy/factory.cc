#include "deid/problem.h"
#include "privacy/k_anonymity.h"
#include "privacy/models.h"

namespace deid {

std::unique_ptr<PrivacyModel> make_privacy_model(const PrivacySpec& spec, const Problem& problem) {
  if (auto* k = std::get_if<KAnonymitySpec>(&spec)) return std::make_unique<KAnonymity>(k->k);
  if (auto* l = std::get_if<LDiversitySpec>(&spec)) return make_l_diversity(*l, problem);
  if (auto* t = std::get_if<TClosenessSpec>(&spec)) return make_t_closeness(*t, problem);
  return make_population_uniqueness(std::get<PopulationUniquenessSpec>(spec), problem);
}

}  // namespace deid
