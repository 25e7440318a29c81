// Dataset-level models judged by the class sizes of the output (ARX's
// RiskBasedCriterion): population uniqueness, average re-identification
// risk and sample uniqueness. Each says whether a table with given class
// sizes satisfies it (fulfilled); enforce() is shared: when the output does
// not hold, it orders the remaining classes as ARX does (smallest first;
// risk/suppression.h) and suppresses the shortest prefix after which the
// model holds, found by binary search over the prefix length with the model
// judged only at the probed cut-offs (papers/002, VI-G;
// find_suppression_prefix in deid/risk.h). Suppressed records leave the
// table: the sizes judged are those of the classes kept.
#pragma once

#include <cstdint>

#include "deid/privacy.h"
#include "deid/risk.h"

namespace deid {

class RiskBasedModel : public PrivacyModel {
 public:
  bool holds(const ClassView&) const override { return true; }
  bool dataset_level() const override { return true; }
  bool enforce(const Problem& problem, const Transformation& t, Classes& classes,
               std::uint64_t max_suppressed) const override;

  // Whether a table whose records not suppressed form classes of these
  // sizes satisfies the model. `freq` may be empty (all suppressed).
  virtual bool fulfilled(const ClassSizeFrequencies& freq) const = 0;
};

}  // namespace deid
