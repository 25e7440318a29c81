// Independent checker for cell suppression; see cell_suppression_check.h.
// Written from the documentation, not from the engine's code.
#include "cell_suppression_check.h"

#include <map>
#include <set>

#include "release_check.h"

namespace verify {
namespace {

void add(CellReport& r, CellViolation::Kind kind, const std::string& where, std::uint64_t row, const std::string& msg) {
  r.violations.push_back({kind, where, row, msg});
}

// The line of the output file of every row named.
void locate(CellReport& r, const Table& output) {
  for (auto& v : r.violations)
    if (v.row > 0 && v.row <= output.rows.size())
      v.line = v.row - 1 < output.lines.size() ? output.lines[v.row - 1] : v.row + 1;
}

}  // namespace

std::string CellReport::to_string() const {
  std::string s;
  for (const auto& v : violations)
    s += v.where + (v.row ? " row " + std::to_string(v.row) : std::string()) + ": " + v.message + "\n";
  return s;
}

CellReport check_combinations(const Table& output, const CellOptions& options) {
  CellReport report;
  for (const auto& combo : options.combinations) {
    std::string name;
    std::vector<int> idx;
    for (const auto& c : combo) {
      name += (name.empty() ? "[" : ", ") + c;
      idx.push_back(index_of(output.header, c));
      if (idx.back() < 0) add(report, CellViolation::Kind::column_missing, c, 0, "combination column not in the output");
    }
    name += "]";
    if (combo.empty()) add(report, CellViolation::Kind::bad_options, name, 0, "empty combination");
    bool ok = !combo.empty();
    for (int i : idx) ok = ok && i >= 0;
    if (!ok) {
      report.smallest_class.push_back(0);
      continue;
    }
    std::map<std::vector<std::string>, std::pair<std::uint64_t, std::uint64_t>> classes;  // size, first row
    for (std::size_t r = 0; r < output.rows.size(); ++r) {
      std::vector<std::string> key;
      bool all_marker = true;
      for (int i : idx) {
        key.push_back(output.rows[r][static_cast<std::size_t>(i)]);
        all_marker = all_marker && key.back() == options.marker;
      }
      if (all_marker) continue;  // exempt
      auto& e = classes[key];
      if (e.first++ == 0) e.second = r + 1;
    }
    std::uint64_t smallest = 0;
    for (const auto& [key, e] : classes) {
      if (smallest == 0 || e.first < smallest) smallest = e.first;
      if (e.first < options.k) {
        std::string tuple;
        for (const auto& v : key) tuple += (tuple.empty() ? "(" : ", ") + v;
        add(report, CellViolation::Kind::class_too_small, name, e.second,
            "class " + tuple + ") has " + std::to_string(e.first) + " records, fewer than k = " +
                std::to_string(options.k));
      }
    }
    report.smallest_class.push_back(smallest);
  }
  locate(report, output);
  return report;
}

CellReport check_cell_tables(const Table& input, const Table& output, const std::vector<Table>& hierarchies,
                             const CellOptions& options) {
  CellReport report;
  using K = CellViolation::Kind;
  report.input_rows = input.rows.size();
  report.output_rows = output.rows.size();
  if (hierarchies.size() != options.released.size()) {
    add(report, K::bad_options, "", 0, "one hierarchy table per released column is needed (empty for level 0)");
    return report;
  }
  if (input.rows.size() != output.rows.size()) {
    add(report, K::row_count, "", 0,
        std::to_string(output.rows.size()) + " output rows for " + std::to_string(input.rows.size()) + " input rows");
    return report;
  }
  std::set<std::string> released_names;
  for (const auto& rc : options.released) released_names.insert(rc.output_column);

  // Copied columns.
  for (std::size_t oc = 0; oc < output.header.size(); ++oc) {
    const std::string& name = output.header[oc];
    if (released_names.count(name)) continue;
    bool removed = false;
    for (const auto& x : options.removed) removed = removed || x == name;
    if (removed) {
      add(report, K::removed_column_present, name, 0, "identifying column '" + name + "' is in the output");
      continue;
    }
    const int ic = index_of(input.header, name);
    if (ic < 0) {
      add(report, K::column_missing, name, 0, "output column is neither released nor an input column");
      continue;
    }
    for (std::size_t r = 0; r < output.rows.size(); ++r)
      if (output.rows[r][oc] != input.rows[r][static_cast<std::size_t>(ic)]) {
        add(report, K::value_changed, name, r + 1, "copied value changed");
        break;
      }
  }
  for (const auto& name : input.header) {
    if (index_of(output.header, name) >= 0) continue;
    bool source = false, removed = false;
    for (const auto& rc : options.released) source = source || rc.input_column == name;
    for (const auto& x : options.removed) removed = removed || x == name;
    if (!source && !removed) add(report, K::column_missing, name, 0, "input column missing from the output");
  }

  // Released columns: marker or the generalized input value.
  std::vector<int> out_idx(options.released.size(), -1);
  for (std::size_t i = 0; i < options.released.size(); ++i) {
    const ReleasedColumn& rc = options.released[i];
    out_idx[i] = index_of(output.header, rc.output_column);
    const int in_idx = index_of(input.header, rc.input_column);
    if (out_idx[i] < 0 || in_idx < 0) {
      add(report, K::column_missing, rc.output_column, 0, "released column or its source is missing");
      continue;
    }
    std::map<std::string, std::string> gen;
    if (rc.level > 0) {
      for (const auto& row : hierarchies[i].rows)
        if (static_cast<std::size_t>(rc.level) < row.size()) gen[row[0]] = row[static_cast<std::size_t>(rc.level)];
    }
    for (std::size_t r = 0; r < output.rows.size(); ++r) {
      const std::string& v = output.rows[r][static_cast<std::size_t>(out_idx[i])];
      if (v == options.marker) {
        ++report.suppressed_cells;
        continue;
      }
      const std::string& in = input.rows[r][static_cast<std::size_t>(in_idx)];
      std::string expected = in;
      if (rc.level > 0) {
        auto it = gen.find(in);
        if (it == gen.end()) {
          add(report, K::wrong_value, rc.output_column, r + 1, "input value '" + in + "' is not in the hierarchy");
          break;
        }
        expected = it->second;
      }
      if (v != expected) {
        add(report, K::wrong_value, rc.output_column, r + 1, "'" + v + "' should be '" + expected + "' or the marker");
        break;
      }
    }
  }

  // Propagation from coarser to finer levels of one source.
  for (std::size_t i = 0; i < options.released.size(); ++i)
    for (std::size_t j = 0; j < options.released.size(); ++j) {
      const auto& coarse = options.released[i];
      const auto& fine = options.released[j];
      if (coarse.input_column != fine.input_column || fine.level >= coarse.level) continue;
      if (out_idx[i] < 0 || out_idx[j] < 0) continue;
      for (std::size_t r = 0; r < output.rows.size(); ++r)
        if (output.rows[r][static_cast<std::size_t>(out_idx[i])] == options.marker &&
            output.rows[r][static_cast<std::size_t>(out_idx[j])] != options.marker) {
          add(report, K::not_propagated, fine.output_column, r + 1,
              "'" + coarse.output_column + "' is suppressed but the finer '" + fine.output_column + "' is not");
          break;
        }
    }

  CellReport combos = check_combinations(output, options);
  report.violations.insert(report.violations.end(), combos.violations.begin(), combos.violations.end());
  report.smallest_class = combos.smallest_class;
  locate(report, output);
  return report;
}

CellReport check_cell_suppression(const std::string& input_path, const std::string& output_path,
                                  const CellOptions& options) {
  CellReport report;
  std::string why;
  auto input = read_csv_file(input_path, options.delimiter, true, &why);
  if (!input) {
    add(report, CellViolation::Kind::unreadable, input_path, 0, why);
    return report;
  }
  auto output = read_csv_file(output_path, options.delimiter, true, &why);
  if (!output) {
    add(report, CellViolation::Kind::unreadable, output_path, 0, why);
    return report;
  }
  std::vector<Table> hierarchies;
  for (const auto& rc : options.released) {
    if (rc.level == 0) {
      hierarchies.emplace_back();
      continue;
    }
    auto h = read_csv_file(rc.hierarchy_path, options.hierarchy_delimiter, false, &why);
    if (!h) {
      add(report, CellViolation::Kind::unreadable, rc.hierarchy_path, 0, why);
      return report;
    }
    hierarchies.push_back(std::move(*h));
  }
  return check_cell_tables(*input, *output, hierarchies, options);
}

}  // namespace verify
