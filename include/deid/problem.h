// A de-identification problem as the engine sees it: the histogram, the
// bound hierarchies, the models and the limit. Built once from a job and
// its data (pipeline.h), then read by the check and the search; immutable
// while they run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "deid/hierarchy.h"
#include "deid/histogram.h"
#include "deid/lattice.h"
#include "deid/privacy.h"
#include "deid/quality.h"

namespace deid {

struct SensitiveAttribute {
  std::string name;
  int column = -1;                 // in the dataset
  const Column* data = nullptr;    // the encoded column (values by code)
  const HierarchyTable* hierarchy = nullptr;  // when the job gives one
  std::vector<std::string> order;  // declared order of values, when given
};

struct Problem {
  std::vector<std::string> qi_names;
  std::vector<int> qi_columns;                 // in the dataset
  std::vector<Generalization> hierarchies;     // per quasi-identifier
  std::vector<SensitiveAttribute> sensitive;   // histogram.sensitive[i] belongs to sensitive[i]
  Histogram histogram;
  std::uint64_t rows = 0;
  std::uint64_t max_suppressed = 0;            // floor(limit * rows), ARX's rule
  std::vector<std::unique_ptr<PrivacyModel>> privacy;
  std::unique_ptr<QualityModel> quality;
  // Generalization constraints per quasi-identifier (the job's min-level and
  // max-level; empty: every level of every hierarchy).
  std::vector<int> min_levels, max_levels;
  // Attribute weights of the multi-dimensional quality models, per
  // quasi-identifier, normalized as ARX does: each weight divided by the
  // largest (ARX's default weight 0.5 for an attribute without one); all 1
  // when none is given. Empty: all 1.
  std::vector<double> weights;

  // The lattice within the generalization constraints.
  Lattice lattice() const;
  bool monotonic() const;  // all privacy models monotonic
};

}  // namespace deid
