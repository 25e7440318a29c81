#include "deid/hierarchy_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace deid {
namespace {

[[noreturn]] void bad_parameter(const char* parameter, const std::string& msg) {
  throw HierarchyParameterError(parameter, msg);
}

// Whether b is an integer multiple of a (within rounding).
bool divides(double a, double b) {
  const double q = b / a;
  return std::abs(q - std::round(q)) < 1e-9 * std::max(1.0, q);
}

}  // namespace

void check_parameters(const IntervalSpec& spec) {
  if (!std::isfinite(spec.min) || !std::isfinite(spec.max) || !(spec.max > spec.min))
    bad_parameter("max", fmt::format("interval hierarchy: max ({}) must be greater than min ({})", spec.max, spec.min));
  if (spec.widths.empty()) bad_parameter("widths", "interval hierarchy: give at least one bin width");
  // Bin bounds are computed in doubles (min + i * width): a width below a
  // billionth of the bounds' magnitude would give labels whose ends round
  // together ("[31.000000000000004, 31.000000000000004)").
  const double smallest = std::max(std::abs(spec.min), std::abs(spec.max)) * 1e-9;
  for (std::size_t i = 0; i < spec.widths.size(); ++i) {
    if (!(spec.widths[i] > 0) || !std::isfinite(spec.widths[i]))
      bad_parameter("widths", fmt::format("interval hierarchy: bin width {} must be positive", spec.widths[i]));
    if (spec.widths[i] < smallest)
      bad_parameter("widths", fmt::format("interval hierarchy: bin width {} is too small for the range [{}, {}): "
                                          "it must be at least {} (a billionth of the bounds)",
                                          spec.widths[i], spec.min, spec.max, smallest));
    if (i > 0 && (spec.widths[i] <= spec.widths[i - 1] || !divides(spec.widths[i - 1], spec.widths[i])))
      bad_parameter("widths",
                    fmt::format("interval hierarchy: bin width {} must be a multiple of the previous width {} and "
                                "larger, so that the levels nest",
                                spec.widths[i], spec.widths[i - 1]));
  }
}

void check_parameters(const MaskingSpec& spec) {
  if (spec.levels < 0) bad_parameter("levels", "masking hierarchy: levels must be >= 0");
  // A byte of 0x80 or above is part of a multi-byte UTF-8 character, not a
  // character of its own: masks made of it would not be UTF-8.
  if (spec.mask_char == '\0' || spec.mask_char == '\n' || spec.mask_char == '\r' ||
      static_cast<unsigned char>(spec.mask_char) >= 0x80)
    bad_parameter("mask-char", "masking hierarchy: the mask character must be a printable character");
}

void check_parameters(const GroupingSpec& spec) {
  if (spec.order.empty()) bad_parameter("order", "grouping hierarchy: the order of the categories is empty");
  std::set<std::string> in_order;
  for (const auto& o : spec.order)
    if (!in_order.insert(o).second)
      bad_parameter("order", fmt::format("grouping hierarchy: category '{}' appears twice in the order", o));
  for (std::size_t i = 0; i < spec.sizes.size(); ++i) {
    if (spec.sizes[i] < 2) bad_parameter("sizes", "grouping hierarchy: group sizes must be at least 2");
    if (i > 0 && (spec.sizes[i] <= spec.sizes[i - 1] || spec.sizes[i] % spec.sizes[i - 1] != 0))
      bad_parameter("sizes", fmt::format("grouping hierarchy: group size {} must be a multiple of the previous "
                                         "size {} and larger",
                                         spec.sizes[i], spec.sizes[i - 1]));
  }
}

const char* builder_type(const HierarchyBuilderSpec& spec) {
  static constexpr const char* kNames[] = {"intervals", "masking", "dates", "grouping"};
  return kNames[spec.index()];
}

void check_parameters(const HierarchyBuilderSpec& spec) {
  if (const auto* s = std::get_if<IntervalSpec>(&spec)) check_parameters(*s);
  if (const auto* s = std::get_if<MaskingSpec>(&spec)) check_parameters(*s);
  if (const auto* s = std::get_if<GroupingSpec>(&spec)) check_parameters(*s);
}

}  // namespace deid
