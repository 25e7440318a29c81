// Privacy models.
//
// A privacy model judges the equivalence classes of a transformation. The
// check (check.h) suppresses every record of every class for which some
// model does not hold; the transformation is a solution when the suppressed
// records are within the suppression limit.
//
// Monotonicity: a model is monotonic when, if the output of transformation x
// (after suppression within the limit) satisfies it, so does the output of
// every generalization of x. For monotonic models "x is no solution" is
// inherited by all specializations of x (the predictive property
// "insufficient protection", papers/000), and the search may prune with it.
// docs/methods.md says which models are monotonic and why.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "deid/job.h"

namespace deid {

struct Problem;

// What a model sees of one equivalence class.
struct ClassView {
  std::uint64_t count = 0;  // records in the class
  // Distribution of each sensitive attribute of the problem within the
  // class: codes (ascending) and counts, index by Problem::sensitive. Empty
  // spans unless some model needs_distributions().
  struct Distribution {
    std::span<const std::uint32_t> codes;
    std::span<const std::uint64_t> counts;
  };
  std::span<const Distribution> sensitive;
};

class PrivacyModel {
 public:
  virtual ~PrivacyModel() = default;
  // Short description, e.g. "5-anonymity".
  virtual std::string describe() const = 0;
  // Parameters as JSON, for the result.
  virtual nlohmann::json to_json() const = 0;
  // See the header comment.
  virtual bool monotonic() const = 0;
  // Whether ClassView::sensitive must be filled.
  virtual bool needs_distributions() const { return false; }
  // Whether a class of the output is acceptable under this model.
  virtual bool holds(const ClassView& cls) const = 0;
  // A class smaller than this never holds (k for k-anonymity); lets the check
  // skip work. 1 when the model has no such bound.
  virtual std::uint64_t minimal_class_size() const { return 1; }
};

// Creates the model for `spec`. `problem` gives access to the sensitive
// attributes. Throws JobError for models this build cannot evaluate.
std::unique_ptr<PrivacyModel> make_privacy_model(const PrivacySpec& spec, const Problem& problem);

}  // namespace deid
