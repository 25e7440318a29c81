#include <fmt/format.h>

#include "deid/error.h"
#include "quality/loss.h"

namespace deid {

std::unique_ptr<QualityModel> make_quality_model(const QualitySpec& spec) {
  if (spec.model == "loss")
    return std::make_unique<LossModel>(spec.aggregate.value_or(Aggregate::geometric_mean), spec.gs_factor);
  throw JobError(Location{}, fmt::format("quality model '{}' is not available in this build yet", spec.model));
}

}  // namespace deid
