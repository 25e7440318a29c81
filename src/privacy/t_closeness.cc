// Placeholder until the model lands.
#include "deid/error.h"
#include "privacy/models.h"

namespace deid {

std::unique_ptr<PrivacyModel> make_t_closeness(const TClosenessSpec&, const Problem&) {
  throw JobError(Location{}, "privacy model 't-closeness' is not available in this build yet");
}

}  // namespace deid
