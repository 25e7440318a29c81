// Constructors of the privacy model families, one file each under privacy/.
// make_privacy_model() (privacy/factory.cc) dispatches to them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "deid/job.h"
#include "deid/privacy.h"

namespace deid {

struct Problem;

std::unique_ptr<PrivacyModel> make_l_diversity(const LDiversitySpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_t_closeness(const TClosenessSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_population_uniqueness(const PopulationUniquenessSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_average_risk(const AverageRiskSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_sample_uniqueness(const SampleUniquenessSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_delta_disclosure(const DeltaDisclosureSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_beta_likeness(const BetaLikenessSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_k_map(const KMapSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_profitability(const ProfitabilitySpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_delta_presence(const DeltaPresenceSpec& spec, const Problem& problem);
std::unique_ptr<PrivacyModel> make_differential_privacy(const DifferentialPrivacySpec& spec, const Problem& problem);

// Throws JobError naming `model` when `population_size` is smaller than the
// records of the data (a population contains the sample drawn from it).
void check_population_size(const Problem& problem, double population_size, const char* model);

// The index in Problem::sensitive of `attribute`, which `model` protects.
// Throws JobError when it is not a sensitive attribute of the data.
std::size_t sensitive_index(const Problem& problem, const std::string& attribute, const char* model);

}  // namespace deid
