// Releasing every level of a hierarchy for local cell suppression
// (papers/003, "Disclosing All Levels of the Hierarchy", Tables 5, 7 and 8):
// which columns a quasi-identifier is released as, and the table and spec
// the combinations algorithm (deid/cell_suppression.h) runs on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deid/cell_suppression.h"
#include "deid/dataset.h"
#include "deid/hierarchy.h"

namespace deid {

// How one quasi-identifier is released.
struct ReleaseAttribute {
  std::string name;                         // the input column
  const Column* column = nullptr;           // its encoded values
  const Generalization* hierarchy = nullptr;  // null: only level 0 can be released
  // Levels released, each as its own output column, ascending; default {0}.
  std::vector<int> levels;
  // Output column name per released level; default: the attribute's name
  // for the finest released level, "<name>_L<level>" for the others.
  std::vector<std::string> names;
  // The finest level at which the adversary knows the attribute (he then
  // also knows every coarser level). Default: the finest released level.
  // Released levels finer than it are in no combination: they only receive
  // the suppression of the coarser levels they would reveal.
  std::optional<int> known_level;
  // Levels at which combinations are evaluated. Default: the known level
  // only when `totally_ordered`, else every released level >= the known
  // level. A released level coarser than the known level that is not
  // evaluated is suppressed exactly where the nearest finer evaluated level
  // is (the paper: "the suppressions in DIAG_BLOCK performed on combination
  // 1c can just be propagated to DIAG_CHAPTER without having to evaluate
  // combination 1d"); this is sound because a deid hierarchy maps each
  // value to one value per level, so the coarser column's classes are
  // unions of the finer column's classes.
  std::vector<int> evaluate;
  bool totally_ordered = true;
  double weight = 1.0;  // for every released column of the attribute
};

// A release: the table of released columns and the spec to run.
struct ReleasePlan {
  CellTable table;
  CellSuppressionSpec spec;
  // Per table column: the attribute (index into the attributes given) and
  // its level.
  std::vector<std::size_t> column_attribute;
  std::vector<int> column_level;
  // Per table column: whether it is in some combination.
  std::vector<bool> evaluated;
};

// A combination of attributes (what an adversary may know): each attribute
// is expanded into its evaluated levels, giving one combination of columns
// per element of the cartesian product (papers/003 Table 7: two
// hierarchical attributes with 4 and 2 levels give 8 combinations). An
// entry may also name a released column directly (that level only).
// `combinations` empty: one combination of every attribute.
// Throws JobError (naming `job_file` and the attribute) for unknown
// attributes or columns, levels outside the hierarchy, a known level or an
// evaluated level that is not released, weights outside [0, 1], duplicate
// output names, and a hierarchy label equal to `marker` at a released level.
ReleasePlan plan_release(const std::vector<ReleaseAttribute>& attributes,
                         const std::vector<std::vector<std::string>>& combinations, std::uint64_t k,
                         const std::string& marker, const std::string& job_file);

}  // namespace deid
