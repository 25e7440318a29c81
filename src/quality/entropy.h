// Non-uniform entropy (Gionis and Tassa 2009, "k-Anonymization with minimal
// loss of information", IEEE TKDE 21(2), section 3; de Waal and Willenborg
// 1999) in ARX's non-monotonic variant (Metric.createEntropyMetric(), class
// MetricMDNUNMEntropy, "Non-monotonic non-uniform entropy").
//
// Per quasi-identifier q, in bits, over all n records (suppressed ones
// included) of the input:
//   generalization(q) = sum over original values v of a_v * log2(b_g(v) / a_v)
// where a_v is the number of records with value v and b_g the number with
// the generalized value g(v) at q's level: each record costs
// -log2 Pr[original value | generalized value]. Suppressed records then pay
// for losing their generalized value too: with S suppressed records, of
// which s_g have generalized value g,
//   suppression(q) = sum over g of s_g * log2(S / s_g).
// Value per attribute: generalization(q) + suppression(q), truncated to 10
// decimal places like ARX; aggregated with the sum by default. With a
// gs-factor other than 0.5 the two terms are weighted with its g and s
// (quality/arx_conventions.h), as in ARX: g * generalization(q) +
// s * suppression(q).
//
// With a research subset (Problem::has_subset) the records are the
// subset's: a_v, b_g and the suppressed records count subset records only,
// as ARX's Cardinalities (built for the metric's subset) and its
// `m.count > 0` loop over suppressed classes do; only the normalized
// variant's divisor reads the population's size (below).
//
// Lower bound: g * generalization(q) alone. It depends only on q's level and
// grows with it (b_g can only grow when values merge), so it is monotonic;
// suppression(q) >= 0, so it never exceeds evaluate().
//
// generalization(q) for every level is computed once per Problem and cached
// (keyed by the Problem's address and its histogram's storage; a Problem is
// immutable while searched); evaluate() and lower_bound() may be called from
// several threads at once.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "deid/quality.h"
#include "quality/problem_cache.h"

namespace deid {

class EntropyModel final : public QualityModel {
 public:
  // ARX's three variants of non-uniform entropy:
  //   non_monotonic (MetricMDNUNMEntropy): the header comment;
  //   monotonic (MetricMDNUEntropy): g * generalization(q) alone, suppressed
  //     records charged like kept ones; the value equals the lower bound;
  //   normalized (MetricMDNUNMNormalizedEntropy): the non-monotonic value of
  //     each attribute (truncated) divided by the entropy of its original
  //     values, -sum over values of a * log2(a / n) (truncated); 0 for an
  //     attribute with one value (ARX divides by 0). With a research
  //     subset a is the subset's and n the input's (the population's)
  //     records, as ARX's getUpperBounds has them.
  enum class Variant { non_monotonic, monotonic, normalized };
  // `gs_factor`: the non-monotonic and monotonic variants' (the normalized
  // one has none: ARX fixes it at 0.5). REQUIRES: 0 <= gs_factor <= 1.
  explicit EntropyModel(Aggregate aggregate, Variant variant = Variant::non_monotonic, double gs_factor = 0.5);
  std::string name() const override { return variant_ == Variant::normalized ? "normalized-entropy" : "entropy"; }
  std::string describe() const override;
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  std::optional<LevelBound> level_bound(const Problem& problem) const override;
  bool bound_reads_classes() const override { return false; }
  // ARX (MetricMDNUEntropyPrecomputed): the class's size per attribute.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  // ARX (MetricMDNUNMEntropy and MetricMDNUNMNormalizedEntropy: monotonic
  // under generalization only; MetricMDNUEntropy: under both). None has a
  // bound from the levels alone (getLowerBoundInternal(transformation) is
  // null); a check that finds no solution gives lower_bound(), but not for
  // the monotonic variant.
  std::optional<ArxFlashTraits> arx_flash_traits() const override {
    return ArxFlashTraits{.monotonic_generalization = true,
                          .monotonic_suppression = variant_ == Variant::monotonic,
                          .bound_from_solution = true,
                          .bound_from_other_check = variant_ != Variant::monotonic,
                          .bound_from_levels = false};
  }
  // For a solution, ARX's bound of the non-monotonic variants is g *
  // generalization(q) before its sign is switched (MetricMDNUNMEntropy
  // Precomputed copies it first; the normalized variant divides it by its
  // divisor): never above 0, so it prunes nothing. The monotonic variant's
  // is its value.
  double arx_solution_bound(const Problem& problem, const Transformation& t, const Classes& classes) const override;

  // generalization(q) at `level` (before truncation), for tests.
  double generalization_entropy(const Problem& problem, std::size_t q, int level) const;

 private:
  // [quasi-identifier][level] -> generalization(q) in bits; and per
  // quasi-identifier the entropy of its original values (truncated), the
  // normalized variant's divisor.
  struct Table {
    std::vector<std::vector<double>> levels;
    std::vector<double> upper;
  };
  std::shared_ptr<const Table> table(const Problem& problem) const;
  // Divides the values of the normalized variant by their attribute's divisor.
  void normalize(const Table& tab, std::vector<double>& per) const;
  // normalize() of quasi-identifier q's value alone.
  double normalized(const Table& tab, std::size_t q, double value) const;

  Aggregate aggregate_;
  Variant variant_;
  double g_ = 1.0, s_ = 1.0;  // the gs-factor's weights
  quality::ProblemCache<Table> cache_;
};

}  // namespace deid
