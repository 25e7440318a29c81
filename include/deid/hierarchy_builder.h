// Builders of generalization hierarchies, for attributes that have none.
//
// Each builder takes the distinct values to cover and returns a
// HierarchyTable in ARX's format (one row per value: value, level 1, ...,
// top "*"), ready to bind to a column or to write as CSV. Every builder
// validates its parameters (HierarchyParameterError, naming the parameter)
// and then its values (HierarchyValueError, naming the value); a value that
// falls outside every interval is an error unless bottom or top coding
// covers it. The builders are used by `deid hierarchy ...` and for the
// inline `hierarchy: {type: ...}` definitions of a job file, which prepare()
// builds from the distinct values of the column (docs/job-file.md).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "deid/error.h"
#include "deid/hierarchy.h"
#include "deid/hierarchy_spec.h"

namespace deid {

// A value cannot be placed in the hierarchy (not a number, outside every
// interval, not a date, not in the order of categories). `value()` is the
// value, so a caller can say where it occurs in the data.
class HierarchyValueError : public JobError {
 public:
  HierarchyValueError(std::string value, const std::string& problem)
      : JobError(Location{}, problem), value_(std::move(value)) {}
  const std::string& value() const { return value_; }

 private:
  std::string value_;
};

// The hierarchy that IntervalSpec describes (hierarchy_spec.h).
HierarchyTable build_interval_hierarchy(const std::vector<std::string>& values, const IntervalSpec& spec);

// The hierarchy that MaskingSpec describes (hierarchy_spec.h).
HierarchyTable build_masking_hierarchy(const std::vector<std::string>& values, const MaskingSpec& spec);

// The hierarchy that DateSpec describes (hierarchy_spec.h).
HierarchyTable build_date_hierarchy(const std::vector<std::string>& values, const DateSpec& spec);

// The hierarchy that GroupingSpec describes (hierarchy_spec.h).
HierarchyTable build_grouping_hierarchy(const std::vector<std::string>& values, const GroupingSpec& spec);

// Runs the builder of `spec` on `values`.
HierarchyTable build_hierarchy(const std::vector<std::string>& values, const HierarchyBuilderSpec& spec);

// Writes `table` as an ARX hierarchy CSV (';'-separated, LF).
std::string hierarchy_to_csv(const HierarchyTable& table, char delimiter = ';');

}  // namespace deid
