#include <fmt/format.h>

#include <cmath>

#include "deid/error.h"
#include "quality/aecs.h"
#include "quality/ambiguity.h"
#include "quality/classification.h"
#include "quality/discernability.h"
#include "quality/entropy.h"
#include "quality/height.h"
#include "quality/kl_divergence.h"
#include "quality/loss.h"
#include "quality/precision.h"
#include "quality/publisher_payout.h"

namespace deid {
namespace {

// ARX's factory defaults (Metric.create*Metric()): per-attribute models
// aggregate with these; discernability and AECS give one value for the table.
struct ModelInfo {
  const char* name;
  bool per_attribute;
  Aggregate default_aggregate;
};
constexpr ModelInfo kModels[] = {
    {"loss", true, Aggregate::geometric_mean},      {"entropy", true, Aggregate::sum},
    {"precision", true, Aggregate::arithmetic_mean}, {"height", true, Aggregate::sum},
    {"discernability", false, Aggregate::sum},       {"aecs", false, Aggregate::sum},
    {"normalized-entropy", true, Aggregate::sum},    {"ambiguity", false, Aggregate::sum},
    {"kl-divergence", false, Aggregate::sum},      {"classification", false, Aggregate::sum},
    {"publisher-payout", false, Aggregate::sum},
};

}  // namespace

std::unique_ptr<QualityModel> make_quality_model(const QualitySpec& spec) {
  const ModelInfo* info = nullptr;
  for (const auto& m : kModels)
    if (spec.model == m.name) info = &m;
  if (!info) {
    std::string names;
    for (const auto& m : kModels) names += (names.empty() ? "" : ", ") + std::string(m.name);
    throw JobError(Location{}, fmt::format("quality.model '{}' is unknown: use one of {}", spec.model, names));
  }
  if (spec.monotonic && spec.model != "entropy" && spec.model != "discernability")
    throw JobError(Location{}, fmt::format("quality.monotonic applies to model: entropy and model: discernability, "
                                           "not to '{}'",
                                           spec.model));
  if (spec.aggregate && !info->per_attribute)
    throw JobError(Location{},
                   fmt::format("quality.aggregate '{}' does not apply to model '{}': it gives one value for the whole "
                               "table, not one per attribute; remove quality.aggregate",
                               to_string(*spec.aggregate), spec.model));
  if (!(spec.gs_factor >= 0.0 && spec.gs_factor <= 1.0))
    throw JobError(Location{}, fmt::format("quality.gs-factor {} is outside [0, 1]", spec.gs_factor));
  if (!has_gs_factor(spec.model) && spec.gs_factor != 0.5)
    throw JobError(Location{}, fmt::format("quality.gs-factor {} applies only to model: loss, entropy, precision, aecs, "
                                           "classification and publisher-payout (model is '{}')",
                                           spec.gs_factor, spec.model));
  if ((spec.model == "classification") == spec.responses.empty())
    throw JobError(Location{}, spec.responses.empty()
                                   ? std::string("quality.model: classification needs quality.response-variables")
                                   : fmt::format("quality.response-variables applies only to model: classification "
                                                 "(model is '{}')",
                                                 spec.model));

  const Aggregate aggregate = spec.aggregate.value_or(info->default_aggregate);
  if (spec.model == "loss") return std::make_unique<LossModel>(aggregate, spec.gs_factor);
  if (spec.model == "entropy")
    return std::make_unique<EntropyModel>(
        aggregate, spec.monotonic ? EntropyModel::Variant::monotonic : EntropyModel::Variant::non_monotonic,
        spec.gs_factor);
  if (spec.model == "normalized-entropy")
    return std::make_unique<EntropyModel>(aggregate, EntropyModel::Variant::normalized);
  if (spec.model == "ambiguity") return std::make_unique<AmbiguityModel>();
  if (spec.model == "kl-divergence") return std::make_unique<KlDivergenceModel>();
  if (spec.model == "classification") return std::make_unique<ClassificationModel>(spec.gs_factor);
  if (spec.model == "publisher-payout")
    return std::make_unique<PublisherPayoutModel>(spec.gs_factor, spec.cost_benefit, spec.journalist);
  if (spec.model == "precision") return std::make_unique<PrecisionModel>(aggregate, spec.gs_factor);
  if (spec.model == "height") return std::make_unique<HeightModel>(aggregate);
  if (spec.model == "discernability") return std::make_unique<DiscernabilityModel>(spec.monotonic);
  return std::make_unique<AecsModel>(spec.gs_factor);
}

}  // namespace deid
