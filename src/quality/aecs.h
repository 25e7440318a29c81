// Average equivalence class size (LeFevre, DeWitt and Ramakrishnan 2006,
// "Mondrian multidimensional k-anonymity", ICDE, section 5: C_AVG without
// the division by k) as ARX computes it (Metric.createAECSMetric(), class
// MetricSDAECS, "Average equivalence class size").
//
// AECS = n / (kept classes + 1 if any record is suppressed, else + 0):
// the suppressed records together count as one class. One value for the
// table: no per-attribute values, no aggregate.
//
// Lower bound: n / (all classes), nothing suppressed. Generalization only
// merges classes, so the bound is monotonic; the kept classes plus one for
// the suppressed ones are never more than all classes, so it never exceeds
// evaluate().
#pragma once

#include "deid/quality.h"

namespace deid {

class AecsModel final : public QualityModel {
 public:
  std::string name() const override { return "aecs"; }
  std::string describe() const override { return "Average equivalence class size"; }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  // ARX (MetricSDAECS): the class's size.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
};

}  // namespace deid
