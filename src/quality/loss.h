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
//
// Cost: the classes do not matter for sum over all classes of c * p. Times
// H it is the integer L(q, l) = sum over original values v of (records with
// v) * (hierarchy rows under v's generalized value at level l), the same
// for every transformation with q at level l. L is computed once per
// Problem for every (attribute, level) from the histogram and cached
// (quality::ProblemCache, thread-safe), so lower_bound() does not look at
// the classes and evaluate() looks only at the suppressed ones.
// REQUIRES of `classes`: they partition the records of problem.histogram
// (as every Checker result does).
#pragma once

#include <cstdint>
#include <vector>

#include "deid/quality.h"
#include "quality/arx_conventions.h"
#include "quality/problem_cache.h"

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
  bool bound_reads_classes() const override { return false; }
  std::optional<LevelBound> level_bound(const Problem& problem) const override;
  // Microaggregated dimensions find their classes by the keys
  // (microaggregation::dimension_sums), so only without them.
  bool reads_keys_lazily(const Problem& problem) const override { return problem.aggregated_dimensions() == 0; }
  // ARX (MetricMDNMLoss for one entry): per quasi-identifier count * share,
  // not normalized, without the gs weights, aggregated.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  bool class_loss_depends_on_values() const override { return true; }
  // MetricMDNMLoss: monotonic under generalization only; a bound from a
  // check (none from the levels alone: getLowerBoundInternal(transformation)
  // is null).
  std::optional<ArxFlashTraits> arx_flash_traits() const override { return kArxMonotonicUnderGeneralization; }
  // With the geometric mean and classes of one size, each factor
  // (count * share + 1)^(1/w) depends on (attribute, value) alone and is
  // computed once (measured: the block of uniques of adult has thousands of
  // classes and few distinct values).
  void class_losses(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::span<const std::uint32_t> which, std::span<double> out) const override;

  // L(q, level) of the header comment, for tests.
  std::uint64_t generalized_leaves(const Problem& problem, std::size_t q, int level) const;

 private:
  // [quasi-identifier][level] -> L(q, level).
  using Table = std::vector<std::vector<std::uint64_t>>;
  std::shared_ptr<const Table> table(const Problem& problem) const;
  // The records L counts (those of value_frequencies()).
  std::uint64_t all_records(const Problem& problem) const;
  // v_q from the integer sums: every record's leaves (L), and those of the
  // suppressed records with their number.
  double attribute_loss(const Problem& problem, std::size_t q, std::uint64_t all_leaves,
                        std::uint64_t suppressed_leaves, std::uint64_t suppressed_records) const;

  Aggregate aggregate_;
  double gs_factor_;
  quality::GsWeights weights_;
  quality::ProblemCache<Table> cache_;
  quality::ProblemCache<std::uint64_t> records_;
};

}  // namespace deid
