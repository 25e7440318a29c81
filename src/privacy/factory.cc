#include <fmt/format.h>

#include "deid/error.h"
#include "deid/problem.h"
#include "privacy/k_anonymity.h"

namespace deid {

std::unique_ptr<PrivacyModel> make_privacy_model(const PrivacySpec& spec, const Problem& problem) {
  (void)problem;
  if (auto* k = std::get_if<KAnonymitySpec>(&spec)) return std::make_unique<KAnonymity>(k->k);
  const char* name = std::holds_alternative<LDiversitySpec>(spec)   ? "l-diversity"
                     : std::holds_alternative<TClosenessSpec>(spec) ? "t-closeness"
                                                                    : "population-uniqueness";
  throw JobError(Location{}, fmt::format("privacy model '{}' is not available in this build yet", name));
}

}  // namespace deid
