// Loss (Iyengar 2002, "Transforming data to satisfy privacy constraints",
// KDD, section 4.1) as ARX computes it (Metric.createLossMetric, class
// MetricMDNMLoss). docs/quality-models.md gives the worked formulas.
//
// Per quasi-identifier, each record contributes the share of the
// attribute's hierarchy covered by its generalized value: share = (hierarchy
// rows under the value) / H, H the hierarchy's rows (measured against the
// hierarchy file, not the data). With the gs-factor's weights g and s
// (quality::gs_weights; both 1 at the default 0.5), a class of c records
// with share p contributes
//   kept:       c * p * g
//   suppressed: c                        when s = 1
//               c * p + s * (c - c * p)  otherwise
// The sum over classes is normalized as (sum - g*n/H) / (n - g*n/H),
// clipped at 0 and truncated to 10 decimal places, n the records. So the
// original data has loss 0 and, at gs 0.5, fully generalized or suppressed
// data 1. At gs 0 suppression is free, at gs 1 generalization is.
// Per-attribute values are aggregated (default: ARX's geometric mean).
//
// Lower bound: every class counted as kept (c * p * g), normalized the same
// way. p grows with every level of the attribute, so the bound is monotonic
// under generalization; a suppressed class contributes at least c * p >=
// c * p * g (g <= 1), so the bound never exceeds evaluate().
#pragma once

#include "deid/quality.h"
#include "quality/arx_conventions.h"

namespace deid {

class LossModel final : public QualityModel {
 public:
  // REQUIRES: 0 <= gs_factor <= 1.
  LossModel(Aggregate aggregate, double gs_factor);
  std::string name() const override { return "loss"; }
  // "Loss (gs/g/s)", e.g. "Loss (0.5/1.0/1.0)" as ARX names it.
  std::string describe() const override;
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;

 private:
  QualityValue compute(const Problem& problem, const Transformation& t, const Classes& classes,
                       bool with_suppression) const;
  Aggregate aggregate_;
  double gs_factor_;
  quality::GsWeights weights_;
};

}  // namespace deid
