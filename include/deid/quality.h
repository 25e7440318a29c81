// Quality models: how much information an output loses (lower is better).
//
// Every model is computed from the equivalence classes of a transformation
// with their counts (and the histogram they come from), never from rows.
// Each also gives a lower bound from generalization alone: the loss of the
// transformation with no record suppressed. For every model here that bound
// is monotonic under generalization (papers/000, "Insufficient data
// quality"), so when it already exceeds the best solution found, all
// generalizations can be pruned. docs/methods.md defines each model as ARX
// does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "deid/job.h"
#include "deid/lattice.h"

namespace deid {

struct Problem;
struct Classes;

// A lower bound that depends on the levels alone: one value per
// (quasi-identifier, level), aggregated (QualityModel::level_bound). It
// gives a model's lower_bound() of any transformation without a check, bit
// for bit: each value enters as the aggregate's own term, and the terms are
// combined in aggregate()'s order.
class LevelBound {
 public:
  // values[q][level]: the model's per-attribute bound of quasi-identifier q
  // at that level; `constants`: values of further dimensions that do not
  // depend on the levels (aggregated after the quasi-identifiers, as
  // microaggregated ones are); weights as aggregate() takes them.
  LevelBound(Aggregate how, const std::vector<std::vector<double>>& values, const std::vector<double>& constants,
             std::span<const double> weights);
  // REQUIRES: t has one level per quasi-identifier, within `values`.
  double operator()(const Transformation& t) const;

 private:
  Aggregate how_;
  std::vector<std::vector<double>> terms_;  // [q][level]
  std::vector<double> constant_terms_;
};

struct QualityValue {
  double value = 0;                  // aggregated information loss
  std::vector<double> per_attribute; // per quasi-identifier, where the model has it (else empty)
};

// How ARX 3.9.2's Flash sees a quality model (search/arx_flash.h replays it
// to break a local-recoding pass's ties as ARX does): Metric's flags, and
// where its lower bounds come from.
struct ArxFlashTraits {
  bool monotonic_generalization = false;  // Metric's monotonicWithGeneralization
  bool monotonic_suppression = false;     // Metric's monotonicWithSuppression
  bool bound_from_solution = false;       // a check that finds a solution gives a lower bound
  bool bound_from_other_check = false;    // so does one that does not
  bool bound_from_levels = false;         // getLowerBound(transformation), without a check
};
// What most of ARX's metrics are: monotonic under generalization only, a
// bound from every check, none from the levels alone.
inline constexpr ArxFlashTraits kArxMonotonicUnderGeneralization{.monotonic_generalization = true,
                                                                 .monotonic_suppression = false,
                                                                 .bound_from_solution = true,
                                                                 .bound_from_other_check = true,
                                                                 .bound_from_levels = false};

class QualityModel {
 public:
  virtual ~QualityModel() = default;
  // The job-file name: "loss", "entropy", ...
  virtual std::string name() const = 0;
  // ARX's name for the model, e.g. "Loss (0.5/1.0/1.0)".
  virtual std::string describe() const = 0;
  // Information loss of the output: `classes` of `t`, suppressed classes flagged.
  virtual QualityValue evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const = 0;
  // Lower bound of evaluate() for `t` and every generalization of `t`:
  // the loss from generalization alone. `classes` are those of `t`.
  virtual double lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const = 0;
  // Whether evaluate() reads the classes' distributions: a Checker then
  // rolls them up and sets Classes::distributions for it.
  virtual bool needs_distributions() const { return false; }
  // Whether evaluate() of `problem` reads keys only through Classes::key():
  // a Checker may then leave the keys of a bounded grouping unwritten (with
  // bounded memory, writing a solution's keys, 4 bytes per code and class,
  // was the largest single item of the search's peak above the histogram).
  virtual bool reads_keys_lazily(const Problem&) const { return false; }
  // Whether lower_bound() reads `classes` beyond their width (a check that
  // stops early, Checker::set_stop_early, has only some of its classes).
  virtual bool bound_reads_classes() const { return true; }
  // lower_bound() as a function of the levels alone, where the model's bound
  // is one (empty otherwise): a search may then bound any transformation
  // without checking it. The same numbers as lower_bound(), bit for bit.
  virtual std::optional<LevelBound> level_bound(const Problem&) const { return std::nullopt; }
  // Information loss of class `c` of `classes` (classes of `t`) alone, as
  // ARX's model measures one equivalence class
  // (Metric.getInformationLoss(transformation, entry)). Used only to order
  // classes of equal size for risk-based suppression (risk/suppression.h):
  // smaller first. Loss: per quasi-identifier count * share (not
  // normalized, no gs weights), aggregated with the model's aggregate; every
  // other model: the class's size per attribute (aggregated) or once, so
  // classes of equal size tie. REQUIRES: c < classes.size().
  virtual double class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                            std::size_t c) const = 0;
  // Whether class_loss() can differ between two classes of the same size.
  // When false the suppression order may skip computing it (ARX then
  // orders such classes by their first record).
  virtual bool class_loss_depends_on_values() const { return false; }
  // class_loss() of every class in `which`, into `out` (same size): the same
  // numbers, bit for bit; a model may share work between the classes (Loss
  // does, for many classes of one size).
  virtual void class_losses(const Problem& problem, const Transformation& t, const Classes& classes,
                            std::span<const std::uint32_t> which, std::span<double> out) const {
    for (std::size_t i = 0; i < which.size(); ++i) out[i] = class_loss(problem, t, classes, which[i]);
  }

  // ARX 3.9.2's view of the model for the Flash replay; nullopt: the
  // replay does not know it, and deid's order breaks the ties.
  virtual std::optional<ArxFlashTraits> arx_flash_traits() const { return std::nullopt; }
  // The loss as ARX computes it, to the last bit (ARX compares losses
  // exactly): evaluate()'s value where deid computes it as ARX does.
  // `classes`: a check's classes of `t`, in order of first appearance.
  virtual double arx_value(const Problem& problem, const Transformation& t, const Classes& classes) const {
    return evaluate(problem, t, classes).value;
  }
  // ARX's lower bound of `t`: from a check of `t` that found no solution
  // (Metric.getLowerBound(transformation, groupify)), or from the levels
  // alone when `classes` is null (only with bound_from_levels).
  virtual double arx_bound(const Problem& problem, const Transformation& t, const Classes* classes) const {
    return classes ? lower_bound(problem, t, *classes) : 0.0;
  }
  // ARX's lower bound from a check of `t` that found a solution: the bound
  // its getInformationLoss gives with the loss.
  virtual double arx_solution_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
    return arx_bound(problem, t, &classes);
  }
};

// Creates the model of `spec`. Throws JobError for an unknown model or an
// aggregate the model does not support.
std::unique_ptr<QualityModel> make_quality_model(const QualitySpec& spec);

// Aggregates per-attribute values: geometric mean as ARX computes it,
// prod(1 + v_i)^(1/n) - 1; arithmetic mean; sum; max. `weights` (one per
// value, or empty for all 1) are ARX's attribute weights (Problem::weights).
double aggregate(Aggregate how, const std::vector<double>& values, std::span<const double> weights = {});

}  // namespace deid
