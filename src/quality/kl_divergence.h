// KL divergence (Kifer and Gehrke 2006, "Injecting utility into anonymized
// datasets", SIGMOD) as ARX computes it (Metric.createKLDivergenceMetric(),
// class MetricSDNMKLDivergence): the divergence of the released data's
// distribution Q from the input's P, over the records:
//   KL = sum over records r of p(r) * log2(p(r) / q(r))
// with p(r) the share of the records that have r's quasi-identifier tuple,
// and q(r) = (c / n) / area for a record of a kept class of c records, area
// the product over quasi-identifiers of the hierarchy rows under the
// generalized value ((leaves / H) * H in doubles, as ARX forms it); and
// q(r) = (s / n) / (H_1 * ... * H_w) for a suppressed record, s the
// suppressed records. Summed record by record in input order, with ARX's
// log2 (ln x / ln 2), so the value is ARX's bit for bit. One value for the
// table. With a research subset (Problem::has_subset) the records, n, c
// and s are the subset's: ARX's MetricSDNMKLDivergence builds its input
// distribution from the subset's rows and divides by their number.
//
// Lower bound: 0 (ARX computes none), which is below every value (KL >= 0)
// and lets the search prune only by the privacy models.
#pragma once

#include "deid/quality.h"

namespace deid {

class KlDivergenceModel final : public QualityModel {
 public:
  std::string name() const override { return "kl-divergence"; }
  std::string describe() const override { return "KL-Divergence"; }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem&, const Transformation&, const Classes&) const override { return 0.0; }
  bool bound_reads_classes() const override { return false; }
  // ARX (MetricSDNMKLDivergence for one entry): the class's size.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  // MetricSDNMKLDivergence: monotonic under generalization only; no bound,
  // so Flash prunes nothing by loss.
  std::optional<ArxFlashTraits> arx_flash_traits() const override {
    return ArxFlashTraits{.monotonic_generalization = true,
                          .monotonic_suppression = false,
                          .bound_from_solution = false,
                          .bound_from_other_check = false,
                          .bound_from_levels = false};
  }
};

}  // namespace deid
