// Constructors of the privacy model families, one file each under privacy/.
// make_privacy_model() (privacy/factory.cc) dispatches to them.
#pragma once

#include <memory>

#include "deid/job.h"
#include "deid/privacy.h"

namespace deid {

struct Problem;

std::unique_ptr<PrivacyModel> make_l_diversity(const LDiversitySpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_t_closeness(const TClosenessSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_population_uniqueness(const PopulationUniquenessSpec& spec, const Problem& problem);

}  // namespace deid
