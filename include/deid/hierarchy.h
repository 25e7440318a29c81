// Generalization hierarchies in ARX's CSV format, and their binding to a
// column of the data.
//
// A hierarchy file has one row per original value: `value;level1;...;top`.
// Bound to a column, it becomes per level an array `column code → code of the
// generalized value at that level` (level 0 is the identity), plus per
// generalized value the number of hierarchy rows beneath it (what the Loss
// model needs, measured against the hierarchy, not the data).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deid/csv.h"
#include "deid/dataset.h"

namespace deid {

// A hierarchy file as read, before it is bound to data.
struct HierarchyTable {
  std::string source;                       // file name, for messages
  std::vector<std::vector<std::string>> rows;
  std::vector<std::uint64_t> lines;         // file line of each row
};

// Reads an ARX hierarchy file (CSV without a header row, csv.h). The
// delimiter is detected unless given; options.header and options.ragged are
// ignored. Throws IoError when the file cannot be read and InputError for an
// empty file, malformed CSV or rows of unequal length (naming the line of
// the odd row and of the first row).
HierarchyTable read_hierarchy(const std::string& path, const CsvOptions& options = {});
HierarchyTable read_hierarchy_text(std::string_view text, const std::string& name,
                                   const CsvOptions& options = {});

// The most levels (columns of a hierarchy table, the original values'
// included) a hierarchy may have: the lattice keeps a level in one byte.
inline constexpr std::size_t kMaxHierarchyLevels = 255;

// A hierarchy bound to one column's dictionary. Immutable after build().
class Generalization {
 public:
  // Validates `table` and binds it to `column`. Throws InputError when the
  // table is empty, has rows of unequal length, lists an original value
  // twice, generalizes a value inconsistently (one level-i value under two
  // different level-(i+1) values), or lacks a value that occurs in the
  // column (the message names the attribute, the value, the first data line
  // where it occurs and how many values are missing; the Location is that
  // line of `data_source`). Hierarchy rows whose value does not occur in the
  // data are kept: they count in leaves() and domain_size(), and at level 0
  // they take the codes after the column's own. `table.lines` may be empty
  // (rows are then numbered from 1 in messages).
  static Generalization build(const HierarchyTable& table, const Column& column,
                              const std::string& data_source);

  // A hierarchy with only level 0, for attributes generalized by nothing.
  static Generalization identity(const Column& column);

  const std::string& attribute() const { return attribute_; }
  // Number of levels, including level 0 (the original values).
  int height() const { return static_cast<int>(map_.size()); }
  // Column code → code of the generalized value at `level`.
  const std::vector<std::uint32_t>& map(int level) const { return map_[level]; }
  // Distinct values at `level` (over the whole hierarchy, not only the data).
  std::uint32_t domain_size(int level) const { return static_cast<std::uint32_t>(labels_[level].size()); }
  const std::string& label(int level, std::uint32_t code) const { return labels_[level][code]; }
  // Number of hierarchy rows under the value `code` of `level`.
  std::uint32_t leaves(int level, std::uint32_t code) const { return leaves_[level][code]; }
  // Number of rows of the hierarchy file (for level 0 of an identity
  // hierarchy: the number of distinct values in the column).
  std::uint32_t hierarchy_rows() const { return hierarchy_rows_; }

 private:
  std::string attribute_;
  std::vector<std::vector<std::uint32_t>> map_;
  std::vector<std::vector<std::string>> labels_;
  std::vector<std::vector<std::uint32_t>> leaves_;
  std::uint32_t hierarchy_rows_ = 0;
};

}  // namespace deid
