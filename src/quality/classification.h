// The classification metric (Iyengar 2002, "Transforming data to satisfy
// privacy constraints", KDD, section 3.2: CM) as ARX implements it
// (Metric.createClassificationMetric(gsFactor), class
// MetricSDClassification, "Classification accuracy").
//
// Some attributes are response variables: the released data should still
// predict them from the other attributes. Per response variable r:
//   - a record in a kept class is penalized when its value of r is not the
//     class's majority value (the most frequent one, when no other value is
//     as frequent); when the class has no majority value, every record of
//     it is penalized;
//   - a suppressed record is penalized.
// For a response variable that is not a quasi-identifier the class is the
// equivalence class. For a quasi-identifier r the "class" is the group of
// kept records that agree on every other quasi-identifier, and the values
// are r's generalized values; the penalty then grows with r's
// generalization: with s = 1 - (d_l - 1) / (d_0 - 1), where d_l is the
// number of distinct generalized values of the data's values at r's level
// l, a group's penalty per record is p * (1 - s) + p_max * s, and every
// record is penalized p_max when s = 1 (s = 0 when d_0 = 1).
//
// The penalties come from the gs-factor as ARX takes them: a suppressed
// record p_s = gs-factor, a non-majority record p_i = ARX's generalization
// weight, a class without majority p_n = ARX's suppression weight
// (arx_conventions.h); p_max is the largest. The loss is the sum of the
// penalties divided by p_max * n. ARX adds the terms class by class in its
// hash table's order; here the records of each weight are counted exactly
// and multiplied once, so the value does not depend on the order of the
// classes (rolled-up and grouped checks order them differently) and agrees
// with ARX's to about 1e-14 relative, not to the last bit.
//
// With a research subset (Problem::has_subset) the records, the classes'
// distributions and n are the subset's, and a class without subset records
// counts nothing (ARX's m.count > 0); d_l still counts the population's
// values (ARX's hierarchy is built from the whole input).
//
// ARX declares the model not monotonic and gives it no lower bound: the
// bound here is 0, so no transformation is pruned by its loss.
#pragma once

#include <vector>

#include "deid/quality.h"
#include "quality/problem_cache.h"

namespace deid {

class ClassificationModel final : public QualityModel {
 public:
  explicit ClassificationModel(double gs_factor = 0.5);
  std::string name() const override { return "classification"; }
  std::string describe() const override { return "Classification accuracy"; }
  QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  double lower_bound(const Problem&, const Transformation&, const Classes&) const override { return 0.0; }
  bool bound_reads_classes() const override { return false; }
  // The class distributions of the response variables that are not
  // quasi-identifiers, rolled up by the checker (without them, evaluate()
  // finds each histogram entry's class instead: measured on adult, 3/4 of
  // the search).
  bool needs_distributions() const override { return true; }
  // ARX (MetricSDClassification.getInformationLossInternal(node, entry)):
  // a suppressed class p_s * count; a kept one the penalty of its
  // distribution of the last response variable that is not a
  // quasi-identifier (0 when there is none), without generalization.
  double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::size_t c) const override;
  bool class_loss_depends_on_values() const override { return true; }
  // The same numbers, from one pass over the histogram.
  void class_losses(const Problem& problem, const Transformation& t, const Classes& classes,
                    std::span<const std::uint32_t> which, std::span<double> out) const override;

  // evaluate()'s loss summed term by term as ARX sums it
  // (getInformationLossInternal(node, groupify)): per class, then per
  // quasi-identifying response variable its suppressed classes and its
  // groups, in order of first appearance. `classes` must come in order of
  // first appearance of their records, as ARX's HashGroupify lists them
  // (Checker::check with classes: grouped from the histogram, whose entries
  // come in that order). It differs from evaluate() in the last bits, as
  // ARX's does; replaying ARX's comparisons of equal losses needs it
  // (search/arx_flash.h).
  double arx_value(const Problem& problem, const Transformation& t, const Classes& classes) const override;
  // MetricSDClassification: monotonic under neither, no bound, so Flash
  // prunes nothing by loss.
  std::optional<ArxFlashTraits> arx_flash_traits() const override { return ArxFlashTraits{}; }

 private:
  // Per response variable (Problem::responses), per level of its hierarchy:
  // s, for the quasi-identifiers (empty for the others).
  using ScaleFactors = std::vector<std::vector<double>>;
  std::shared_ptr<const ScaleFactors> scale_factors(const Problem& problem) const;

  double suppressed_;   // p_s
  double infrequent_;   // p_i
  double no_majority_;  // p_n
  double max_;          // p_max
  quality::ProblemCache<ScaleFactors> scale_cache_;
};

}  // namespace deid
