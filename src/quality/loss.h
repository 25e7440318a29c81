// Loss (Iyengar 2002) as ARX computes it (Metric.createLossMetric).
//
// Per quasi-identifier, each record contributes the share of the
// attribute's hierarchy covered by its generalized value: (hierarchy rows
// under the value) / (hierarchy rows). A suppressed record contributes 1.
// The sum over records is normalized as (sum - n/H) / (n - n/H), clipped at
// 0, where n is the number of records and H the number of hierarchy rows, so
// the original data has loss 0 and fully generalized data 1. The gs-factor
// weights generalization against suppression (0.5: equally). Per-attribute
// values are aggregated (default: ARX's geometric mean).
//
// Lower bound: the same with nothing suppressed; it depends on each
// attribute's level alone and grows with every level, so it is monotonic.
#pragma once

#include "deid/quality.h"

namespace deid {

class LossModel final : public QualityModel {
 public:
  LossModel(Aggregate aggregate, double gs_factor);
  std::string name() const override { return "loss"; }
  std::string describe() const override;
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;

 private:
  QualityValue compute(const Problem& problem, const Transformation& t, const Classes& classes,
                       bool with_suppression) const;
  Aggregate aggregate_;
  double gs_factor_;
  double g_factor_;
  double s_factor_;
};

}  // namespace deid
