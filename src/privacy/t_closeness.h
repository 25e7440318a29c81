// t-closeness (Li, Li and Venkatasubramanian, "t-Closeness: Privacy beyond
// k-anonymity and l-diversity", ICDE 2007): a class holds when the earth
// mover's distance D[P,Q] between the distribution P of the sensitive
// attribute in the class and its distribution Q in the whole input is at
// most t. Three ground distances, as in ARX 3.9:
//   equal         every two values at distance 1 (equal_distance.h)
//   hierarchical  by the generalization hierarchy of the attribute
//                 (hierarchical_distance.h)
//   ordered       by rank in a total order (ordered_distance.h, with the
//                 optimizations of papers/004)
//
// Monotonicity (docs/privacy-models.md): the EMD is convex in P, and the
// distribution of a merged class is a mixture of the merged ones, so a
// merged class is never farther from Q than the farthest part: without
// suppression, generalizing keeps a solution a solution (ARX:
// monotonic with generalization). With suppression it does not: a class
// that was suppressed can merge with a t-close one into a class that is
// not t-close, and the records to suppress can grow beyond the limit (ARX:
// not monotonic with suppression). monotonic() therefore returns true only
// when the problem allows no suppressed record.
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "deid/job.h"
#include "deid/privacy.h"
#include "privacy/equal_distance.h"
#include "privacy/hierarchical_distance.h"
#include "privacy/ordered_distance.h"

namespace deid {

class TCloseness final : public PrivacyModel {
 public:
  using Distance = std::variant<EqualDistance, HierarchicalDistance, OrderedDistance>;

  // `attribute` names Problem::sensitive[index]; `suppression` whether the
  // problem may suppress records (max_suppressed > 0).
  TCloseness(std::string attribute, std::size_t index, double t, Distance distance, bool suppression);

  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return !suppression_; }
  bool needs_distributions() const override { return true; }
  bool holds(const ClassView& cls) const override;

  // D[P,Q] of a class (for tests and reports).
  double distance(const ClassView& cls) const;
  const Distance& ground_distance() const { return distance_; }

 private:
  std::string attribute_;
  std::size_t index_;
  double t_;
  Distance distance_;
  bool suppression_;
};

// Builds the model for `spec` on `problem`, with `options` for ordered
// distance. Throws JobError when the attribute is not sensitive, when
// hierarchical distance lacks a hierarchy, or when ordered distance finds no
// order (ordered_ranks()); InputError when the hierarchy does not cover the
// data.
std::unique_ptr<TCloseness> make_t_closeness(const TClosenessSpec& spec, const Problem& problem,
                                             const OrderedDistanceOptions& options);

// The occurrences of each code of sensitive attribute `index` in the whole
// input (Q of t-closeness, as counts).
std::vector<std::uint64_t> reference_counts(const Problem& problem, std::size_t index);

}  // namespace deid
