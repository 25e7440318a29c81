// Utility analysis: how much a released table still tells (docs/utility.md,
// papers/002 section VIII). For every released attribute it compares the
// input with the release: the frequency distribution at the released level
// and two distances between before and after, the summary statistics of
// numeric attributes (generalized labels read back by a documented rule),
// for every pair of quasi-identifiers and sensitive attributes, the
// association (Cramér's V) before and after, and for every sensitive
// attribute the accuracy of a logistic regression (liblinear) predicting it
// from the quasi-identifiers, trained on the input and on the release.
//
// The analysis works on codes: one pass over the rows per attribute and per
// pair counts codes split by whether the record was suppressed; everything
// else is computed from those counts. The numbers do not depend on the
// number of threads (pairs run in parallel, each into its own slot, and
// every sum runs in a fixed order).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/check.h"
#include "deid/dataset.h"
#include "deid/job.h"
#include "deid/pipeline.h"

namespace deid {

// One released column as the analysis sees it: the input's codes, and how
// each input code is released.
struct UtilityAttribute {
  std::string name;
  Role role = Role::insensitive;
  const Column* column = nullptr;    // the input column (codes and values); not owned
  // Quasi-identifiers: the released level, input code → released category
  // (a hierarchy's map at that level) and the labels of the categories.
  // Other attributes are copied: level -1, to_released and labels empty
  // (the categories are the input values).
  int level = -1;
  std::vector<std::uint32_t> to_released;
  std::vector<std::string> labels;
};

// What the analysis reads. `suppressed` has one entry per row, 1 when the
// record's quasi-identifiers were all replaced by '*' (transform/apply.cc);
// copied attributes keep their values in suppressed records.
struct UtilityInput {
  std::uint64_t rows = 0;
  std::vector<UtilityAttribute> attributes;  // in output column order
  std::vector<std::uint8_t> suppressed;
  // Classification (the job's utility section), as indices into
  // `attributes`: the targets (empty: every sensitive attribute) and the
  // features (empty: the quasi-identifiers); a target is never its own
  // feature.
  std::vector<std::size_t> targets, features;
};

// Summary statistics of a weighted sample of numbers (docs/utility.md):
// population moments (divisor n), skewness m3 / m2^1.5, excess kurtosis
// m4 / m2^2 - 3, quartiles by linear interpolation between order statistics
// (R's type 7). Empty optionals: undefined (no values; no spread for the
// shape measures).
struct NumericSummary {
  std::uint64_t count = 0;    // values read
  std::uint64_t missing = 0;  // cells that are not a number (empty, '*', a label not read back)
  std::optional<double> mean, sd, min, q1, median, q3, max, skewness, kurtosis;
};

struct AttributeUtility {
  std::string name;
  Role role = Role::insensitive;
  int level = -1;                    // released level of a quasi-identifier, else -1
  std::uint64_t distinct_before = 0; // distinct input values
  std::uint64_t suppressed = 0;      // cells '*' by record suppression that generalization alone does not make '*'
  std::uint64_t categories_kept = 0; // released categories of records that are not suppressed
  // Per category of the released level (input values mapped to it), in
  // category order, then '*' when it is not a label of the level: the
  // records before (input mapped to the level) and after (the release,
  // suppressed cells under '*'). Categories with no record either way are
  // left out.
  std::vector<std::string> categories;
  std::vector<std::uint64_t> before, after;
  double total_variation = 0;   // 1/2 sum |p - q|
  double jensen_shannon = 0;    // base 2, in [0, 1]
  // Numeric attributes (every non-empty input value a number, or every one
  // an ISO date YYYY-MM-DD, read as days since 1970-01-01).
  std::optional<std::string> numeric_kind;  // "number" or "date"
  NumericSummary numeric_before, numeric_after;
};

// How well a logistic regression predicts `target` from `features`,
// trained on the input and on the release (docs/utility.md,
// "Classification"): cross-validated accuracies and ARX's relative
// accuracy (after - baseline) / (before - baseline), nullopt when before
// equals the baseline.
struct ClassificationUtility {
  std::string target;
  std::vector<std::string> features;
  std::uint64_t records = 0;  // records sampled
  int folds = 0;
  double baseline = 0, accuracy_before = 0, accuracy_after = 0;
  std::optional<double> relative_accuracy;
  // Classes of the target in the sample (3: three or more). With two, the
  // cross-validated area under the ROC curve of the class that appears
  // second in the input, from the model's probabilities; else nullopt.
  std::size_t classes = 0;
  std::optional<double> auc_before, auc_after;
};

struct UtilityAnalysis {
  std::uint64_t records = 0;
  std::uint64_t suppressed_records = 0;
  std::vector<AttributeUtility> attributes;
  // Cramér's V (bias-uncorrected) between every pair of the quasi-
  // identifiers and sensitive attributes, before (input values) and after
  // (released categories of the records not suppressed; a suppressed
  // record's '*' is missing); nullopt when undefined (an attribute with
  // fewer than two categories).
  std::vector<std::string> dependency_attributes;
  std::vector<std::vector<std::optional<double>>> cramers_v_before, cramers_v_after;
  // Per sensitive attribute as the target, the quasi-identifiers as features.
  std::vector<ClassificationUtility> classification;
};

// Analyses `input`. REQUIRES: every attribute's column has `input.rows`
// codes, `suppressed` has `input.rows` entries, and a quasi-identifier's
// to_released covers its column's codes and points into its labels.
UtilityAnalysis analyze_utility(const UtilityInput& input);

// The analysis input of the table that write_output() writes for
// transformation `t` and `classes` (suppressed classes flagged, entry_class
// filled) of `prepared`. The returned input points into `prepared`.
UtilityInput utility_input(const PreparedJob& prepared, const Transformation& t, const Classes& classes);

// The analysis input of a released table read back (`released`, as
// `deid anonymize` wrote it for `prepared`'s job and input): every
// non-identifying input column must be there with the same number of rows;
// each quasi-identifier's level is the lowest at which every value that is
// not '*' is its input value's label (a record counts as suppressed when all
// its quasi-identifiers are '*' and one of them would not be '*' at its
// level); other columns must equal the input. With output.escape-formulas a
// value may carry the leading "'" the writer adds. Throws InputError naming
// the released file, line and column otherwise. The returned input points
// into `prepared`.
UtilityInput utility_input(const PreparedJob& prepared, const Dataset& released);

// The analysis as the result's "utility" section (docs/utility.md).
nlohmann::json to_json(const UtilityAnalysis& analysis);

}  // namespace deid
