// Placeholder until the model lands.
#include "deid/error.h"
#include "privacy/models.h"

namespace deid {

std::unique_ptr<PrivacyModel> make_population_uniqueness(const PopulationUniquenessSpec&, const Problem&) {
  throw JobError(Location{}, "privacy model 'population-uniqueness' is not available in this build yet");
}

}  // namespace deid
