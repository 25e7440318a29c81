// Classification utility (docs/utility.md, "Classification"), internal to
// the utility analysis.
#pragma once

#include <vector>

#include "deid/utility.h"

namespace deid::utility {

// For every sensitive attribute as the target and the quasi-identifiers as
// features (one-hot): the 5-fold cross-validated accuracy of a logistic
// regression (liblinear) on the input and on the release, and of the
// majority class, on a systematic sample of at most 20,000 records (every
// ceil(rows / 20,000)-th). Empty without quasi-identifiers, sensitive
// attributes, or with fewer than 10 records. Deterministic.
std::vector<ClassificationUtility> classify(const UtilityInput& input);

}  // namespace deid::utility
