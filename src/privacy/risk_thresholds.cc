#include "privacy/risk_thresholds.h"

#include <fmt/format.h>

#include <cmath>

#include "deid/problem.h"
#include "privacy/models.h"

namespace deid {

std::uint64_t AverageRisk::size_threshold(double risk) {
  // ParameterTranslation.getSizeThreshold (ARX 3.9.2): floor(1/h), raised by
  // one unless 1/floor(1/h) exceeds h by less than 1 % of h.
  const double size = 1.0 / risk;
  double floor = std::floor(size);
  if ((1.0 / floor) - (1.0 / size) >= 0.01 * risk) floor += 1.0;
  return static_cast<std::uint64_t>(floor);
}

AverageRisk::AverageRisk(const AverageRiskSpec& spec, bool suppression) : spec_(spec), suppression_(suppression) {
  if (spec_.highest_risk) smallest_size_ = size_threshold(*spec_.highest_risk);
}

std::string AverageRisk::describe() const {
  if (!spec_.highest_risk) return fmt::format("({})-average-risk", spec_.threshold);
  return fmt::format("({}, {} (size {}), {})-average-risk", spec_.threshold, *spec_.highest_risk, smallest_size_,
                     spec_.records_at_risk);
}

nlohmann::json AverageRisk::to_json() const {
  nlohmann::json j = {{"model", "average-risk"}, {"threshold", spec_.threshold}};
  if (spec_.highest_risk) {
    j["highest_risk"] = *spec_.highest_risk;
    j["effective_highest_risk"] = 1.0 / static_cast<double>(smallest_size_);
    j["records_at_risk"] = spec_.records_at_risk;
  }
  return j;
}

bool AverageRisk::fulfilled(const ClassSizeFrequencies& freq) const {
  if (freq.empty()) return true;
  // As ARX computes it (AverageReidentificationRisk.isFulfilled): 1 / the
  // average class size, and the shares of records in classes of each size
  // below the size threshold summed from the smallest size up.
  const double records = static_cast<double>(freq.records());
  const double average_size = records / static_cast<double>(freq.classes());
  if (!(1.0 / average_size <= spec_.threshold)) return false;
  if (!spec_.highest_risk) return true;
  double at_risk = 0.0;
  for (const auto& [size, count] : freq.sizes) {
    if (size >= smallest_size_) break;
    at_risk += static_cast<double>(count) * static_cast<double>(size) / records;
  }
  return at_risk <= spec_.records_at_risk;
}

std::string SampleUniqueness::describe() const { return fmt::format("({})-sample-uniqueness", threshold_); }

nlohmann::json SampleUniqueness::to_json() const {
  return {{"model", "sample-uniqueness"}, {"threshold", threshold_}};
}

bool SampleUniqueness::fulfilled(const ClassSizeFrequencies& freq) const {
  if (freq.empty()) return true;
  // ARX: getFractionOfRecordsInClassesOfSize(1) <= threshold.
  return static_cast<double>(freq.of_size(1)) / static_cast<double>(freq.records()) <= threshold_;
}

std::unique_ptr<PrivacyModel> make_average_risk(const AverageRiskSpec& spec, const Problem& problem) {
  return std::make_unique<AverageRisk>(spec, problem.max_suppressed > 0);
}

std::unique_ptr<PrivacyModel> make_sample_uniqueness(const SampleUniquenessSpec& spec, const Problem&) {
  return std::make_unique<SampleUniqueness>(spec.threshold);
}

}  // namespace deid
