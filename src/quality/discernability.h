// Discernability (Bayardo and Agrawal 2005, "Data privacy through optimal
// k-anonymization", ICDE, section 2: the discernability metric C_DM) in
// ARX's non-monotonic variant (Metric.createDiscernabilityMetric(), class
// MetricSDNMDiscernability, "Non-monotonic discernability").
//
// Each record is charged the size of its equivalence class; a suppressed
// record is charged the size of the whole table n:
//   DM = sum over kept classes of c^2 + sum over suppressed classes of n * c
// One value for the table: no per-attribute values, no aggregate.
//
// The monotonic variant, DM* (Metric.createDiscernabilityMetric(true), class
// MetricSDDiscernability, "Monotonic discernability (DM*)"), charges a suppressed
// record the size of its class too: DM* = sum over all classes of c^2.
//
// Lower bound: sum over all classes of c^2 (DM*, nothing suppressed).
// Generalization merges classes and (a + b)^2 >= a^2 + b^2, so it is
// monotonic; c <= n, so it never exceeds evaluate().
#pragma once

#include "deid/quality.h"

namespace deid {

class DiscernabilityModel final : public QualityModel {
 public:
  explicit DiscernabilityModel(bool monotonic = false) : monotonic_(monotonic) {}
  std::string name() const override { return "discernability"; }
  std::string describe() const override {
    return monotonic_ ? "Monotonic discernability (DM*)" : "Non-monotonic discernability";
  }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  // ARX (MetricSDNMDiscernability): the class's size.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  // MetricSDNMDiscernability: monotonic under generalization only;
  // MetricSDDiscernability (DM*): under both. A bound (DM*) from a check.
  std::optional<ArxFlashTraits> arx_flash_traits() const override {
    return ArxFlashTraits{.monotonic_generalization = true,
                          .monotonic_suppression = monotonic_,
                          .bound_from_solution = true,
                          .bound_from_other_check = true,
                          .bound_from_levels = false};
  }

 private:
  bool monotonic_;
};

}  // namespace deid
