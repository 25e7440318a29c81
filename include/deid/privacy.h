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
#include "deid/lattice.h"

namespace deid {

struct Problem;
struct Classes;

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
  // With a research subset (Job::subset), `count` is the class's records in
  // the subset and `population` its records in the whole input (ARX's
  // count and pcount), filled when some model needs_distributions(); 0
  // otherwise.
  std::uint64_t population = 0;
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
  // Whether ARX's counterpart declares a minimal class size
  // (isMinimalClassSizeAvailable). With a research subset, ARX then judges
  // a class without records of the subset as too small before it asks
  // δ-presence (HashGroupify.isPrivacyModelFulfilled), so δ-presence
  // cannot fail on such a class.
  virtual bool declares_minimal_class_size() const { return false; }
  // δ-presence (privacy/delta_presence.h): the one model a class without
  // records of the research subset can fail, which then fails the
  // transformation (the class cannot be suppressed).
  virtual bool delta_presence() const { return false; }

  // Dataset-level models (population uniqueness) judge the output as a
  // whole, not class by class: their holds() accepts every class, and the
  // check calls enforce() once, after the class-level suppression, when the
  // records suppressed so far are within the limit (ARX's "sample-based
  // criteria"). enforce() receives the classes of `t` with the suppressed
  // ones flagged and classes.suppressed_records set, suppresses further
  // classes (flags and suppressed_records) until the model holds, and
  // returns false when it cannot hold without suppressing more than
  // `max_suppressed` records in total. Must be thread-safe: checks run
  // concurrently on one model.
  virtual bool dataset_level() const { return false; }
  virtual bool enforce(const Problem& problem, const Transformation& t, Classes& classes,
                       std::uint64_t max_suppressed) const {
    (void)problem;
    (void)t;
    (void)classes;
    (void)max_suppressed;
    return true;
  }
};

// Creates the model for `spec`. `problem` gives access to the sensitive
// attributes. Throws JobError for models this build cannot evaluate.
std::unique_ptr<PrivacyModel> make_privacy_model(const PrivacySpec& spec, const Problem& problem);

}  // namespace deid
