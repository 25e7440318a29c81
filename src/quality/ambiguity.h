// Ambiguity (Nergiz and Clifton 2007, "Thoughts on k-anonymization", DKE
// 63(3)) as ARX computes it (Metric.createAmbiguityMetric(), class
// MetricSDNMAmbiguity): each record is charged the number of original
// tuples its released tuple could stand for, the product over
// quasi-identifiers of the hierarchy rows under its generalized value (all
// H_q rows for a suppressed record):
//   AM = sum over classes of c * prod_q (kept ? leaves_q(value) : H_q)
// ARX forms each factor as (leaves / H) * H in doubles, and so does this
// model, factor by factor in the same order; ARX sums the classes in the
// order of its hash table, this model in the order of the classes, so the
// totals can differ in the last bits when a term is not an integer.
// One value for the table.
//
// Lower bound: every class counted as kept. Generalization only grows the
// leaves under a value (and merges classes, which adds their terms), so the
// bound is monotonic; a suppressed record's H_q >= leaves, so it never
// exceeds evaluate().
#pragma once

#include "deid/quality.h"

namespace deid {

class AmbiguityModel final : public QualityModel {
 public:
  std::string name() const override { return "ambiguity"; }
  std::string describe() const override { return "Ambiguity"; }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  // ARX (MetricSDNMAmbiguity for one entry): c * prod_q leaves_q(value).
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  bool class_loss_depends_on_values() const override { return true; }
  // MetricSDNMAmbiguity: monotonic under generalization only; a bound from
  // a check.
  std::optional<ArxFlashTraits> arx_flash_traits() const override { return kArxMonotonicUnderGeneralization; }

 private:
  // The sum over classes, with suppressed classes charged H_q when `charge_suppressed`.
  double sum(const Problem& problem, const Transformation& t, const Classes& classes, bool charge_suppressed) const;
};

}  // namespace deid
