// Builders of generalization hierarchies, for attributes that have none.
//
// Each builder takes the distinct values to cover and returns a
// HierarchyTable in ARX's format (one row per value: value, level 1, ...,
// top "*"), ready to bind to a column or to write as CSV. Every builder
// validates its parameters and its values and throws JobError naming the
// parameter or the value at fault; a value that falls outside every interval
// is an error unless bottom or top coding covers it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deid/hierarchy.h"

namespace deid {

// Intervals for numbers. Level i groups values into bins of widths[i-1]
// starting at `min` (widths must grow and each must divide the next, so the
// levels nest). Values below `min` are bottom-coded ("<min"), values at or
// above `max` top-coded (">=max"), when allowed; otherwise they are errors.
// Labels are half-open intervals "[lo, hi)".
struct IntervalSpec {
  double min = 0;
  double max = 0;              // exclusive
  std::vector<double> widths;  // one per level above 0
  bool bottom_coding = false;
  bool top_coding = false;
};
HierarchyTable build_interval_hierarchy(const std::vector<std::string>& values, const IntervalSpec& spec);

// Masking for codes (ZIP 81675 → 8167* → 816** → ... → *****) then "*".
// Level i replaces the last i characters (the first i with from_left) by
// mask_char, for i = 1 .. length of the longest value; values shorter than i
// are masked entirely. `levels` limits the masked levels (0: all).
struct MaskingSpec {
  char mask_char = '*';
  bool from_left = false;
  int levels = 0;
};
HierarchyTable build_masking_hierarchy(const std::vector<std::string>& values, const MaskingSpec& spec);

// Dates in ISO format YYYY-MM-DD: day → month (YYYY-MM) → year (YYYY) →
// decade (YYY0-YYY9) → "*". `levels` chooses which of month, year, decade to
// keep (all by default).
struct DateSpec {
  bool month = true;
  bool year = true;
  bool decade = true;
};
HierarchyTable build_date_hierarchy(const std::vector<std::string>& values, const DateSpec& spec);

// Grouping of an ordered list of categories: level i puts sizes[i-1]
// consecutive categories of `order` together (sizes must grow and each must
// divide the next). Labels join the first and last category of a group with
// "..". Every value must appear in `order`.
struct GroupingSpec {
  std::vector<std::string> order;
  std::vector<std::size_t> sizes;
};
HierarchyTable build_grouping_hierarchy(const std::vector<std::string>& values, const GroupingSpec& spec);

// Writes `table` as an ARX hierarchy CSV (';'-separated, LF).
std::string hierarchy_to_csv(const HierarchyTable& table, char delimiter = ';');

}  // namespace deid
