// Height: the generalization level of each quasi-identifier (ARX's
// Metric.createHeightMetric(), class MetricMDHeight, "Height"); the lattice
// height measure of Samarati 2001 ("Protecting respondents' identities in
// microdata release", IEEE TKDE 13(6)) and LeFevre et al. 2005 (Incognito).
//
// Per quasi-identifier: its level. Suppression does not count. Aggregated
// with the sum by default, which is the transformation's rank.
//
// Lower bound: the value itself; it depends on the levels alone and grows
// with each of them, so it is monotonic and equal to evaluate().
#pragma once

#include <optional>

#include "deid/quality.h"

namespace deid {

class HeightModel final : public QualityModel {
 public:
  explicit HeightModel(Aggregate aggregate);
  std::string name() const override { return "height"; }
  std::string describe() const override { return "Height"; }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  std::optional<LevelBound> level_bound(const Problem& problem) const override;
  bool bound_reads_classes() const override { return false; }
  // ARX (MetricMDHeight): the class's size per attribute, aggregated.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  // MetricMDHeight: monotonic under both; the bound is the value, from the
  // levels alone.
  std::optional<ArxFlashTraits> arx_flash_traits() const override {
    return ArxFlashTraits{.monotonic_generalization = true,
                          .monotonic_suppression = true,
                          .bound_from_solution = true,
                          .bound_from_other_check = true,
                          .bound_from_levels = true};
  }
  double arx_bound(const Problem& problem, const Transformation& t, const Classes* classes) const override;

 private:
  Aggregate aggregate_;
};

}  // namespace deid
