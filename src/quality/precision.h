// Precision (Sweeney 2002, "Achieving k-anonymity privacy protection using
// generalization and suppression", IJUFKS 10(5), section 4) in ARX's
// non-monotonic variant (Metric.createPrecisionMetric(), class
// MetricMDNMPrecision, "Non-monotonic precision").
//
// Per quasi-identifier q at level l of a hierarchy whose top level is L
// (levels 0..L): kept records lose l / L of the attribute, suppressed
// records all of it, weighted with the gs-factor's g and s
// (quality/arx_conventions.h; both 1 at the default 0.5):
//   precision(q) = ((n - S) * g * l / L + S * s) / n
// with n records and S suppressed (0 when L = 0). Aggregated with the
// arithmetic mean by default.
//
// Lower bound: min(g * l / L, s) per attribute: the value lies between its
// two terms' weights. It grows with the level, so it is monotonic. For
// gs-factors of 0.5 and above (s = 1 >= g * l / L) it is g * l / L, the
// value with nothing suppressed and ARX's bound; below 0.5 ARX still bounds
// with g * l / L, which a transformation that suppresses records can fall
// below (arx_bound() gives ARX's, for the replay of its search).
#pragma once

#include <optional>

#include "deid/quality.h"

namespace deid {

class PrecisionModel final : public QualityModel {
 public:
  // REQUIRES: 0 <= gs_factor <= 1.
  explicit PrecisionModel(Aggregate aggregate, double gs_factor = 0.5);
  std::string name() const override { return "precision"; }
  std::string describe() const override { return "Non-monotonic precision"; }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  std::optional<LevelBound> level_bound(const Problem& problem) const override;
  bool bound_reads_classes() const override { return false; }
  // ARX (MetricMDNMPrecision): the class's size per attribute, aggregated.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  // MetricMDNMPrecision: monotonic under generalization only; a bound from
  // the levels alone.
  std::optional<ArxFlashTraits> arx_flash_traits() const override {
    return ArxFlashTraits{.monotonic_generalization = true,
                          .monotonic_suppression = false,
                          .bound_from_solution = true,
                          .bound_from_other_check = true,
                          .bound_from_levels = true};
  }
  // ARX's ((n - S) * v) * g + S * s, divided by n, per attribute.
  double arx_value(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  // ARX's g * l / L per attribute.
  double arx_bound(const Problem& problem, const Transformation& t, const Classes* classes) const override;

 private:
  Aggregate aggregate_;
  double g_ = 1.0, s_ = 1.0;  // the gs-factor's weights
};

}  // namespace deid
