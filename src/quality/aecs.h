// Average equivalence class size (LeFevre, DeWitt and Ramakrishnan 2006,
// "Mondrian multidimensional k-anonymity", ICDE, section 5: C_AVG without
// the division by k) as ARX computes it (Metric.createAECSMetric(), class
// MetricSDAECS, "Average equivalence class size").
//
// AECS = n / (kept classes * a + b if any record is suppressed, else + 0):
// the suppressed records together count as one class. a and b are the
// gs-factor's weights switched, as ARX switches them ("on purpose"): a is
// the suppression weight, b the generalization weight
// (quality/arx_conventions.h; both 1 at the default 0.5). At gs-factor 0
// (a = 0) a transformation that suppresses nothing has an infinite loss, as
// in ARX. One value for the table: no per-attribute values, no aggregate.
//
// Lower bound: n / (all classes * a + max(0, b - a)). With a suppressed
// class the kept classes are at most all but one, so the denominator is at
// most that; generalization only merges classes, so the bound is monotonic.
// At gs-factors of 0.5 and above (b <= a) it is ARX's n / (all classes * a),
// nothing suppressed; below 0.5 ARX still bounds with that, which a
// transformation that suppresses records can fall below (arx_bound()
// gives ARX's, for the replay of its search).
#pragma once

#include "deid/quality.h"

namespace deid {

class AecsModel final : public QualityModel {
 public:
  // REQUIRES: 0 <= gs_factor <= 1.
  explicit AecsModel(double gs_factor = 0.5);
  std::string name() const override { return "aecs"; }
  std::string describe() const override { return "Average equivalence class size"; }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  // ARX (MetricSDAECS): the class's size.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  // MetricSDAECS: monotonic under generalization only; a bound from a check.
  std::optional<ArxFlashTraits> arx_flash_traits() const override { return kArxMonotonicUnderGeneralization; }
  // ARX's n / (all classes * a).
  double arx_bound(const Problem& problem, const Transformation& t, const Classes* classes) const override;

 private:
  double a_ = 1.0, b_ = 1.0;  // ARX's switched weights: suppression, generalization
};

}  // namespace deid
