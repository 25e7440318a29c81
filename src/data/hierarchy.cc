#include "deid/hierarchy.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>

#include "deid/error.h"

namespace deid {
namespace {

// File line of row `r`, for messages; tables built in code may carry no lines.
std::uint64_t line_of(const HierarchyTable& table, std::size_t r) {
  return r < table.lines.size() ? table.lines[r] : static_cast<std::uint64_t>(r + 1);
}

// Every row must have as many values as the first: one per level.
void check_row_lengths(const HierarchyTable& table, const std::string& prefix) {
  const std::size_t height = table.rows.front().size();
  for (std::size_t r = 1; r < table.rows.size(); ++r) {
    const std::size_t n = table.rows[r].size();
    if (n == height) continue;
    throw InputError(Location{table.source, line_of(table, r), std::min(n, height) + 1, {}},
                     fmt::format("{}hierarchy row has {} value{}, expected {} as on line {}; every row needs "
                                 "the same levels (value;level1;...;top)",
                                 prefix, n, n == 1 ? "" : "s", height, line_of(table, 0)));
  }
}

HierarchyTable collect(const std::string& name, const CsvOptions& options, auto&& read) {
  HierarchyTable table;
  table.source = name;
  CsvOptions opts = options;
  opts.header = false;  // ARX hierarchies have no header row
  opts.ragged = true;   // checked below, in a hierarchy's terms
  read(opts, [&](const CsvRecord& rec) {
    table.rows.emplace_back(rec.fields.begin(), rec.fields.end());
    table.lines.push_back(rec.line);
  });
  if (table.rows.empty())
    throw InputError(Location{name, 0, 0, {}}, "the hierarchy file is empty: it needs one row per original value");
  check_row_lengths(table, "");
  return table;
}


std::string trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

HierarchyTable read_hierarchy(const std::string& path, const CsvOptions& options) {
  return collect(path, options, [&](const CsvOptions& o, auto&& cb) { read_csv(path, o, cb); });
}

HierarchyTable read_hierarchy_text(std::string_view text, const std::string& name, const CsvOptions& options) {
  return collect(name, options, [&](const CsvOptions& o, auto&& cb) { read_csv_text(text, name, o, cb); });
}

Generalization Generalization::identity(const Column& column) {
  Generalization g;
  g.attribute_ = column.name;
  const std::uint32_t n = column.dictionary.size();
  g.map_.emplace_back(n);
  g.labels_.emplace_back(n);
  g.leaves_.emplace_back(n, 1u);
  for (std::uint32_t c = 0; c < n; ++c) {
    g.map_[0][c] = c;
    g.labels_[0][c] = column.dictionary.value(c);
  }
  g.hierarchy_rows_ = n;
  return g;
}

Generalization Generalization::build(const HierarchyTable& table, const Column& column,
                                     const std::string& data_source) {
  if (table.rows.empty())
    throw InputError(Location{table.source, 0, 0, {}},
                     fmt::format("attribute '{}': the hierarchy is empty: it needs one row per original value",
                                 column.name));
  if (table.rows.front().empty())
    throw InputError(Location{table.source, line_of(table, 0), 0, {}},
                     fmt::format("attribute '{}': hierarchy row has no values", column.name));
  check_row_lengths(table, fmt::format("attribute '{}': ", column.name));
  const std::size_t height = table.rows.front().size();
  const std::size_t nrows = table.rows.size();
  // The lattice keeps a level in one byte (lattice.h).
  if (height > kMaxHierarchyLevels)
    throw InputError(Location{table.source, line_of(table, 0), 0, {}},
                     fmt::format("attribute '{}': the hierarchy has {} levels (columns); deid supports at most {}",
                                 column.name, height, kMaxHierarchyLevels));

  Generalization g;
  g.attribute_ = column.name;
  g.hierarchy_rows_ = static_cast<std::uint32_t>(nrows);
  g.map_.resize(height);
  g.labels_.resize(height);
  g.leaves_.resize(height);

  // Level 0: the row of each original value (listed once). Its codes are
  // the column's (bound below), so no level-0 codes or labels are made here.
  absl::flat_hash_map<absl::string_view, std::size_t> row_of;
  row_of.reserve(nrows);
  for (std::size_t r = 0; r < nrows; ++r) {
    const std::string& v = table.rows[r][0];
    const auto [it, inserted] = row_of.try_emplace(absl::string_view(v), r);
    if (!inserted)
      throw InputError(Location{table.source, line_of(table, r), 1, {}},
                       fmt::format("attribute '{}': original value '{}' is listed twice in the hierarchy "
                                   "(lines {} and {})",
                                   column.name, v, line_of(table, it->second), line_of(table, r)));
  }
  // Levels 1 and up: the code of each hierarchy row's value (codes dense
  // per level, in order of first appearance).
  std::vector<std::vector<std::uint32_t>> row_code(height);
  for (std::size_t level = 1; level < height; ++level) {
    row_code[level].resize(nrows);
    absl::flat_hash_map<absl::string_view, std::uint32_t> codes;
    for (std::size_t r = 0; r < nrows; ++r) {
      const std::string& v = table.rows[r][level];
      auto [it, inserted] = codes.try_emplace(absl::string_view(v), static_cast<std::uint32_t>(g.labels_[level].size()));
      if (inserted) {
        g.labels_[level].push_back(v);
        g.leaves_[level].push_back(0);
      }
      row_code[level][r] = it->second;
      ++g.leaves_[level][it->second];
    }
  }

  // Consistency: a value of level i (i >= 1) has exactly one parent at level i+1.
  for (std::size_t level = 1; level + 1 < height; ++level) {
    std::vector<std::int64_t> parent(g.labels_[level].size(), -1);
    std::vector<std::size_t> parent_row(g.labels_[level].size(), 0);
    for (std::size_t r = 0; r < nrows; ++r) {
      const std::uint32_t c = row_code[level][r];
      const std::uint32_t p = row_code[level + 1][r];
      if (parent[c] < 0) {
        parent[c] = p;
        parent_row[c] = r;
      } else if (parent[c] != static_cast<std::int64_t>(p)) {
        throw InputError(
            Location{table.source, line_of(table, r), level + 2, {}},
            fmt::format("attribute '{}': value '{}' of level {} generalizes inconsistently: to '{}' on line {} "
                        "but to '{}' here",
                        column.name, g.labels_[level][c], level, g.labels_[level + 1][static_cast<std::size_t>(parent[c])],
                        line_of(table, parent_row[c]), g.labels_[level + 1][p]));
      }
    }
  }

  // Bind to the column: level 0 keeps the column's own codes.
  const std::uint32_t n = column.dictionary.size();
  std::vector<std::size_t> row(n, nrows);  // nrows: not in the hierarchy
  std::size_t missing = 0;
  std::int64_t first_missing = -1;
  for (std::uint32_t c = 0; c < n; ++c) {
    const auto it = row_of.find(absl::string_view(column.dictionary.value(c)));
    if (it != row_of.end()) {
      row[c] = it->second;
    } else {
      ++missing;
      if (first_missing < 0 || first_line_of(column, c) < first_line_of(column, static_cast<std::uint32_t>(first_missing)))
        first_missing = c;
    }
  }
  if (missing > 0) {
    const auto c = static_cast<std::uint32_t>(first_missing);
    const std::string& value = column.dictionary.value(c);
    // A common cause is a stray space on one side; say so when it is the case.
    std::string hint;
    const std::string t = trimmed(value);
    for (std::size_t r = 0; r < nrows && hint.empty(); ++r)
      if (trimmed(table.rows[r][0]) == t)
        hint = fmt::format(" (line {} of the hierarchy has '{}', which differs only in spaces)", line_of(table, r),
                           table.rows[r][0]);
    throw InputError(Location{data_source, first_line_of(column, c), 0, column.name},
                     fmt::format("attribute '{}': value '{}'{} is not in hierarchy {}; {} value{} "
                                 "missing{}",
                                 column.name, value, data_line_note(first_line_of(column, c)), table.source, missing,
                                 missing == 1 ? "" : "s", hint));
  }
  for (std::size_t level = 0; level < height; ++level) g.map_[level].resize(n);
  std::vector<std::uint8_t> bound(nrows, 0);
  for (std::uint32_t c = 0; c < n; ++c) {
    const std::size_t r = row[c];
    bound[r] = 1;
    g.map_[0][c] = c;
    for (std::size_t level = 1; level < height; ++level) g.map_[level][c] = row_code[level][r];
  }
  // Level 0 is indexed by column codes; hierarchy rows absent from the data
  // keep codes after them, so that leaves and labels cover the whole file.
  std::vector<std::string> labels(n);
  for (std::uint32_t c = 0; c < n; ++c) labels[c] = column.dictionary.value(c);
  for (std::size_t r = 0; r < nrows; ++r)
    if (!bound[r]) labels.push_back(table.rows[r][0]);
  std::vector<std::uint32_t> leaves(labels.size(), 1u);
  g.labels_[0] = std::move(labels);
  g.leaves_[0] = std::move(leaves);
  return g;
}

}  // namespace deid
