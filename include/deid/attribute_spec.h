// The attributes of a job (deid/job.h, docs/job-file.md "attributes"): each
// column's role, its hierarchy (a file, an inline builder or a table in
// memory), its generalization constraints and weight, and
// microaggregation. Plain data; the job parser fills it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deid/hierarchy_spec.h"
#include "deid/identifier_spec.h"

namespace deid {

struct HierarchyTable;  // deid/hierarchy.h

enum class Role { identifying, quasi_identifying, sensitive, insensitive };
const char* to_string(Role role);

// Microaggregation of a quasi-identifier (ARX's MicroAggregationFunction,
// docs/job-file.md): the value of every record of an equivalence class is
// replaced by the class's aggregate of the attribute.
enum class AggregationFunction { mean, median, mode, geometric_mean, interval };
const char* to_string(AggregationFunction f);
struct MicroaggregationSpec {
  AggregationFunction function = AggregationFunction::mean;
  // true: the attribute is also generalized with its hierarchy (it joins the
  // lattice and forms the classes; ARX's "clustering"); false: it forms no
  // classes and needs no hierarchy.
  bool generalize_before = false;
  std::uint64_t line = 0;  // of the `transformation` key
};

struct AttributeSpec {
  std::string name;
  Role role = Role::insensitive;
  std::string hierarchy;           // path, for quasi-identifying (and optional for sensitive)
  std::vector<std::string> order;  // declared total order of values (t-closeness ordered distance)
  std::uint64_t line = 0;          // line in the job file
  // An inline `hierarchy: {type: ...}` instead of a path: built from the
  // column's distinct values when the job runs (hierarchy_builder.h).
  // (Last, with initializers, so that {name, role, hierarchy, order, line}
  // still initializes the fields above.)
  std::optional<HierarchyBuilderSpec> hierarchy_builder = std::nullopt;
  std::uint64_t hierarchy_line = 0, hierarchy_column = 0;  // of the inline definition
  // A hierarchy table a front end holds in memory (the Python package's
  // DataFrames), never read from a job file. When set, it is the hierarchy:
  // `hierarchy` and `hierarchy_builder` are ignored.
  std::shared_ptr<const HierarchyTable> hierarchy_data = nullptr;
  // The text the inline definition is in, for messages, when it is not the
  // job file (a HierarchyOverride's builder); empty: the job file.
  std::string hierarchy_source = {};
  // Generalization constraints (quasi-identifiers): the search considers
  // only levels in [min_level, max_level]; unset: 0 and the top level.
  std::optional<int> min_level = std::nullopt, max_level = std::nullopt;
  std::uint64_t min_level_line = 0, max_level_line = 0;
  // Weight in the multi-dimensional quality models (ARX's attribute
  // weights), in [0, 1]; unset: ARX's default, 0.5.
  std::optional<double> weight = std::nullopt;
  // `transformation: microaggregation` (quasi-identifiers only); unset:
  // generalization.
  std::optional<MicroaggregationSpec> microaggregation = std::nullopt;
  // What an identifying attribute's `action` makes of it (identifier_spec.h):
  // removed by default.
  IdentifierActionSpec identifier = {};

  // Whether the attribute is a quasi-identifier of the lattice: generalized
  // (microaggregated ones only with generalize-before).
  bool generalized() const {
    return role == Role::quasi_identifying && (!microaggregation || microaggregation->generalize_before);
  }
  // A hierarchy file, an inline definition or a table in memory.
  bool has_hierarchy() const { return !hierarchy.empty() || hierarchy_builder.has_value() || hierarchy_data != nullptr; }
};

}  // namespace deid
