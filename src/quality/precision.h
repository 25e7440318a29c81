// Precision (Sweeney 2002, "Achieving k-anonymity privacy protection using
// generalization and suppression", IJUFKS 10(5), section 4) in ARX's
// non-monotonic variant (Metric.createPrecisionMetric(), class
// MetricMDNMPrecision, "Non-monotonic precision").
//
// Per quasi-identifier q at level l of a hierarchy whose top level is L
// (levels 0..L): kept records lose l / L of the attribute, suppressed
// records all of it:
//   precision(q) = ((n - S) * l / L + S) / n
// with n records and S suppressed (0 when L = 0). Aggregated with the
// arithmetic mean by default.
//
// Lower bound: l / L, the value with nothing suppressed. It grows with the
// level, so it is monotonic; since l / L <= 1, moving records to the
// suppressed term can only raise the value, so it never exceeds evaluate().
#pragma once

#include <optional>

#include "deid/quality.h"

namespace deid {

class PrecisionModel final : public QualityModel {
 public:
  explicit PrecisionModel(Aggregate aggregate);
  std::string name() const override { return "precision"; }
  std::string describe() const override { return "Non-monotonic precision"; }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  std::optional<LevelBound> level_bound(const Problem& problem) const override;
  bool bound_reads_classes() const override { return false; }
  // ARX (MetricMDNMPrecision): the class's size per attribute, aggregated.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;

 private:
  Aggregate aggregate_;
};

}  // namespace deid
