// The publisher's payout (Wan et al., "A game theoretic framework for
// analyzing re-identification risk", PLoS ONE 10(3), 2015) as ARX's quality
// model (Metric.createPublisherPayoutMetric(false, gsFactor), class
// MetricSDNMPublisherPayout, prosecutor attacker): what the publisher gives
// up against releasing every record whole.
//
// Per class of c records with entropy-based information loss IL and the
// prosecutor's success probability p = 1/c (quality/payout.h), the payout
// per record is payout = benefit * (1 - IL) - (attacked ? loss * p : 0).
// With ARX's gs weights g and s (arx_conventions.h):
//   kept class:       g * c * (benefit - payout)
//   suppressed class: s * c * benefit
// summed over classes; 0 for the original data when no record is attacked,
// at most n * benefit. One value for the table.
//
// ARX adds the classes in its hash table's order; here they are added as
// fixed-point numbers, so the value does not depend on how the classes were
// computed, and agrees with ARX's to about 1e-13 relative, not to the last
// bit.
//
// Not monotonic (ARX: MetricSDNMPublisherPayout is non-monotonic). Lower
// bound, when s >= g (gs-factor >= 0.5): g * benefit * sum over records of
// IL, every record counted as kept and not attacked (payout <= benefit *
// (1 - IL), and a suppressed record's s * benefit >= g * benefit * IL).
// log10 of a product is the sum of the logs, so the sum over records is
// n + sum over quasi-identifiers of S(q, level) / log10(prod H), S the
// records' log10 shares at that level, computed once per Problem (like
// Loss's table): the bound reads no class. IL grows with generalization,
// so the bound is monotonic; it is lowered by 1e-9 relative against
// rounding. With gs-factor < 0.5 (s < g) the bound is 0.
#pragma once

#include <vector>

#include "deid/job.h"
#include "deid/quality.h"
#include "quality/problem_cache.h"

namespace deid {

class PublisherPayoutModel final : public QualityModel {
 public:
  // `journalist`: ARX's journalist attacker (success probability 1 / the
  // class's population records; needs the research subset).
  PublisherPayoutModel(double gs_factor, const CostBenefitSpec& cost_benefit, bool journalist = false);
  bool needs_distributions() const override { return journalist_; }
  std::string name() const override { return "publisher-payout"; }
  // ARX's toString: "PublisherBenefit (Prosecutor, Benefit=1200.0)".
  std::string describe() const override;
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  bool bound_reads_classes() const override { return false; }
  // ARX's getInformationLossInternal(node, entry): the class's term.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  bool class_loss_depends_on_values() const override { return true; }
  // MetricSDNMPublisherPayout: monotonic under neither; a bound from every
  // check, none from the levels alone.
  std::optional<ArxFlashTraits> arx_flash_traits() const override {
    return ArxFlashTraits{.monotonic_generalization = false,
                          .monotonic_suppression = false,
                          .bound_from_solution = true,
                          .bound_from_other_check = true,
                          .bound_from_levels = false};
  }
  // The classes' terms added as doubles in their order, as ARX adds them.
  double arx_value(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  // ARX's bound: g * c * (benefit - payout without attack) summed over
  // every class, suppressed or not, in their order.
  double arx_bound(const Problem& problem, const Transformation& t, const Classes* classes) const override;

 private:
  bool journalist_ = false;
  double term(const Problem& problem, const Transformation& t, const Classes& classes, std::size_t c,
              double max_loss) const;

  // Per quasi-identifier and level: sum over records of log10(share).
  using LogShares = std::vector<std::vector<double>>;
  quality::ProblemCache<LogShares> log_shares_;

  double generalization_;  // g
  double suppression_;     // s
  CostBenefitSpec cost_benefit_;
};

}  // namespace deid
