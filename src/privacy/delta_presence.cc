#include "privacy/delta_presence.h"

#include <fmt/format.h>

#include "deid/problem.h"
#include "privacy/models.h"
#include "quality/arx_conventions.h"

namespace deid {

bool DeltaPresence::holds(const ClassView& cls) const {
  // ARX's DPresence.isAnonymous, in double as there.
  const double delta =
      cls.count == 0 ? 0.0 : static_cast<double>(cls.count) / static_cast<double>(cls.population);
  return delta >= spec_.min && delta <= spec_.max;
}

std::string DeltaPresence::describe() const {
  return fmt::format("({},{})-presence", quality::java_double(spec_.min), quality::java_double(spec_.max));
}

nlohmann::json DeltaPresence::to_json() const {
  return {{"model", "delta-presence"}, {"min", spec_.min}, {"max", spec_.max}};
}

std::unique_ptr<PrivacyModel> make_delta_presence(const DeltaPresenceSpec& spec, const Problem& problem) {
  return std::make_unique<DeltaPresence>(spec, problem.max_suppressed > 0);
}

}  // namespace deid
