// The parameters of the hierarchy builders (hierarchy_builder.h): what an
// inline `hierarchy: {type: ...}` of a job file, or `deid hierarchy TYPE`,
// asks for. The parameters are checked without any data
// (check_parameters), so a job parser rejects a bad definition at its line
// before anything is read; the builders check them again and then the
// values (HierarchyValueError, hierarchy_builder.h).
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "deid/error.h"

namespace deid {

// A builder's parameter is invalid. `parameter()` is its name as written in
// a job file ("widths", "max", "sizes", ...), so a parser can point at it.
class HierarchyParameterError : public JobError {
 public:
  HierarchyParameterError(std::string parameter, const std::string& problem)
      : JobError(Location{}, problem), parameter_(std::move(parameter)) {}
  const std::string& parameter() const { return parameter_; }

 private:
  std::string parameter_;
};

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

// Masking for codes (ZIP 81675 → 8167* → 816** → ... → *****) then "*".
// Level i replaces the last i characters (the first i with from_left) by
// mask_char, for i = 1 .. length of the longest value; values shorter than i
// are masked entirely. `levels` limits the masked levels (0: all). Lengths
// and masks count UTF-8 characters, not bytes; mask_char must be ASCII.
struct MaskingSpec {
  char mask_char = '*';
  bool from_left = false;
  int levels = 0;
};

// Dates in ISO format YYYY-MM-DD: day → month (YYYY-MM) → year (YYYY) →
// decade (YYY0-YYY9) → "*". `levels` chooses which of month, year, decade to
// keep (all by default).
struct DateSpec {
  bool month = true;
  bool year = true;
  bool decade = true;
};

// Grouping of an ordered list of categories: level i puts sizes[i-1]
// consecutive categories of `order` together (sizes must grow and each must
// divide the next). Labels join the first and last category of a group with
// "..". Every value must appear in `order`.
struct GroupingSpec {
  std::vector<std::string> order;
  std::vector<std::size_t> sizes;
};

// Any of the builders, with its parameters: what an inline
// `hierarchy: {type: ...}` of a job file holds.
using HierarchyBuilderSpec = std::variant<IntervalSpec, MaskingSpec, DateSpec, GroupingSpec>;

// The builder's name as a job file spells its `type`: "intervals",
// "masking", "dates" or "grouping".
const char* builder_type(const HierarchyBuilderSpec& spec);

// Throws HierarchyParameterError when the parameters are invalid (the same
// checks every builder makes before it looks at values). Lets a job parser
// reject a definition before any data is read.
void check_parameters(const HierarchyBuilderSpec& spec);
void check_parameters(const IntervalSpec& spec);
void check_parameters(const MaskingSpec& spec);
void check_parameters(const GroupingSpec& spec);

}  // namespace deid
