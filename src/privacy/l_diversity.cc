// Placeholder until the model lands.
#include "deid/error.h"
#include "privacy/models.h"

namespace deid {

std::unique_ptr<PrivacyModel> make_l_diversity(const LDiversitySpec&, const Problem&) {
  throw JobError(Location{}, "privacy model 'l-diversity' is not available in this build yet");
}

}  // namespace deid
