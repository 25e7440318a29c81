// Conventions shared by the quality models that reproduce ARX's values
// (ARX 3.9.2, package org.deidentifier.arx.metric.v2). Internal to src/quality.
#pragma once

#include <string>

#include "util/java_double.h"

namespace deid::quality {

// ARX's split of the gs-factor into a weight for generalized values and a
// weight for suppressed ones (Metric, gsFactor in [0, 1]): 0.5 weighs both
// with 1; below 0.5 suppression costs less (suppression = 2 * gs), above it
// generalization costs less (generalization = 2 * (1 - gs)). So 0 favours
// suppression (it is free) and 1 favours generalization (it is free).
struct GsWeights {
  double generalization = 1;
  double suppression = 1;
};
GsWeights gs_weights(double gs_factor);

// ARX keeps the first 10 decimal places of Loss and entropy values
// (Metric.round: floor(v * 1e10) / 1e10), per attribute, before aggregating.
// Doing the same makes deid's figures and ties equal to ARX's. Truncation is
// non-decreasing, so it keeps a lower bound below the value and monotonic.
double truncate_10_digits(double value);

// log2 as ARX computes it (ln x / ln 2), so that sums of logarithms match
// ARX's bits.
double log2_arx(double x);

// java_double (util/java_double.h): ARX's model names print their
// parameters as Java does.
using ::deid::java_double;

}  // namespace deid::quality
