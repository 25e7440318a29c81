// The independent verifier (verify.h). Only the C++ standard library is used,
// on purpose: sharing a CSV reader, a hierarchy binding or a grouping routine
// with the engine would let one bug hide itself in both.
//
// This file holds the reporting, the research subset given as records, and
// check_tables: the order of the steps of a check (release_check.h), whose
// files are named there; the CSV reader is csv.cc.
#include "verify.h"

#include <algorithm>
#include <map>

#include "release_check.h"

namespace verify {

// ---------------------------------------------------------------------------
// Reporting.

const char* to_string(Violation::Kind kind) {
  switch (kind) {
    case Violation::Kind::unreadable: return "unreadable";
    case Violation::Kind::bad_hierarchy: return "bad_hierarchy";
    case Violation::Kind::bad_options: return "bad_options";
    case Violation::Kind::identifying_column_present: return "identifying_column_present";
    case Violation::Kind::column_missing: return "column_missing";
    case Violation::Kind::unexpected_column: return "unexpected_column";
    case Violation::Kind::row_count: return "row_count";
    case Violation::Kind::value_changed: return "value_changed";
    case Violation::Kind::value_not_in_hierarchy: return "value_not_in_hierarchy";
    case Violation::Kind::not_single_level: return "not_single_level";
    case Violation::Kind::level_outside_bounds: return "level_outside_bounds";
    case Violation::Kind::too_many_suppressed: return "too_many_suppressed";
    case Violation::Kind::class_too_small: return "class_too_small";
    case Violation::Kind::class_requirement: return "class_requirement";
    case Violation::Kind::population_uniqueness: return "population_uniqueness";
    case Violation::Kind::wrong_aggregate: return "wrong_aggregate";
    case Violation::Kind::average_risk: return "average_risk";
    case Violation::Kind::sample_uniqueness: return "sample_uniqueness";
    case Violation::Kind::k_map: return "k_map";
    case Violation::Kind::outside_subset_released: return "outside_subset_released";
    case Violation::Kind::delta_presence: return "delta_presence";
    case Violation::Kind::population_class_too_small: return "population_class_too_small";
    case Violation::Kind::unprofitable_class: return "unprofitable_class";
    case Violation::Kind::identifier_wrong: return "identifier_wrong";
    case Violation::Kind::identifier_leaked: return "identifier_leaked";
  }
  return "?";
}

bool Report::has(Violation::Kind kind) const {
  return std::any_of(violations.begin(), violations.end(), [&](const Violation& v) { return v.kind == kind; });
}

std::string Report::to_string() const {
  std::string out;
  for (const auto& v : violations) out += std::string(verify::to_string(v.kind)) + ": " + v.message + "\n";
  return out;
}

// ---------------------------------------------------------------------------
// What the steps share.

std::string quote(const std::string& s) { return "'" + s + "'"; }

int index_of(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

// The tuple of quasi-identifier values of an output row, as a map key that
// cannot confuse two tuples (values are length-prefixed).
std::string class_key(const std::vector<std::string>& row, const std::vector<int>& qi_out_columns) {
  std::string key;
  for (int c : qi_out_columns) {
    if (c < 0) continue;
    key += std::to_string(row[c].size());
    key.push_back(':');
    key += row[c];
  }
  return key;
}

std::string describe_tuple(const std::vector<std::string>& row, const std::vector<int>& qi_out_columns,
                           const std::vector<QuasiIdentifier>& qis) {
  std::string s;
  for (std::size_t q = 0; q < qis.size(); ++q) {
    if (qi_out_columns[q] < 0) continue;
    if (!s.empty()) s += ", ";
    s += qis[q].name + "=" + quote(row[qi_out_columns[q]]);
  }
  return "(" + s + ")";
}

// ---------------------------------------------------------------------------
// The check.

std::optional<std::vector<char>> match_subset(const Table& input, const Table& subset, std::string* error) {
  // The subset's columns in the input's order.
  std::vector<std::size_t> from(input.header.size(), subset.header.size());
  for (std::size_t s = 0; s < subset.header.size(); ++s) {
    const auto it = std::find(input.header.begin(), input.header.end(), subset.header[s]);
    if (it == input.header.end()) {
      *error = "the subset's column " + quote(subset.header[s]) + " is not an input column";
      return std::nullopt;
    }
    from[static_cast<std::size_t>(it - input.header.begin())] = s;
  }
  for (std::size_t c = 0; c < input.header.size(); ++c)
    if (from[c] == subset.header.size()) {
      *error = "the subset lacks the input column " + quote(input.header[c]);
      return std::nullopt;
    }
  // Input rows by their values, each list in row order.
  std::map<std::vector<std::string>, std::vector<std::size_t>> rows;
  for (std::size_t r = input.rows.size(); r-- > 0;) rows[input.rows[r]].push_back(r);
  std::vector<char> in(input.rows.size(), 0);
  std::vector<std::string> key(input.header.size());
  for (std::size_t r = 0; r < subset.rows.size(); ++r) {
    for (std::size_t c = 0; c < key.size(); ++c) key[c] = subset.rows[r][from[c]];
    const auto it = rows.find(key);
    if (it == rows.end() || it->second.empty()) {
      *error = "the subset's data row " + std::to_string(r + 1) +
               (it == rows.end() ? " is no record of the input" : " is given more often than the input has it");
      return std::nullopt;
    }
    in[it->second.back()] = 1;  // the earliest unmatched row (lists are in reverse)
    it->second.pop_back();
  }
  return in;
}

Report check(const Options& options) {
  Report report;
  auto unreadable = [&](const std::string& why) {
    report.violations.push_back({Violation::Kind::unreadable, {}, 0, 0, why});
    return report;
  };
  std::string why;
  auto input = read_csv_file(options.input_path, options.input_delimiter, true, &why);
  if (!input) return unreadable("input " + why);
  auto output = read_csv_file(options.output_path, options.output_delimiter.value_or(options.input_delimiter), true, &why);
  if (!output) return unreadable("output " + why);
  std::vector<Table> hierarchies;
  for (const auto& qi : options.quasi_identifiers) {
    auto h = read_csv_file(qi.hierarchy_path, options.hierarchy_delimiter, false, &why);
    if (!h) {
      report.violations.push_back({Violation::Kind::bad_hierarchy, qi.name, 0, 0, "hierarchy " + why});
      return report;
    }
    hierarchies.push_back(std::move(*h));
  }
  std::vector<Table> aggregated;
  for (const auto& m : options.microaggregated) {
    if (m.hierarchy_path.empty()) {
      aggregated.emplace_back();
      continue;
    }
    auto h = read_csv_file(m.hierarchy_path, options.hierarchy_delimiter, false, &why);
    if (!h) {
      report.violations.push_back({Violation::Kind::bad_hierarchy, m.name, 0, 0, "hierarchy " + why});
      return report;
    }
    aggregated.push_back(std::move(*h));
  }
  return check_tables(options, *input, *output, hierarchies, aggregated);
}

ReleaseCheck::ReleaseCheck(const Options& options, const Table& input, const Table& output,
                           const std::vector<Table>& hierarchies, const std::vector<Table>& aggregated_hierarchies)
    : options(options),
      input(input),
      output(output),
      hierarchies(hierarchies),
      aggregated_hierarchies(aggregated_hierarchies),
      qis(options.quasi_identifiers),
      micro(options.microaggregated),
      identifying(options.identifying.begin(), options.identifying.end()),
      released([&] {
        std::set<std::string> names;
        for (const auto& r : options.released_identifiers) names.insert(r.name);
        return names;
      }()),
      hier(qis.size()),
      heights(qis.size(), 0),
      qi_in(qis.size()),
      qi_out(qis.size()),
      with_subset(!options.subset.empty()) {
  auto total = [](const Table& t) {
    if (t.weights.empty()) return static_cast<std::uint64_t>(t.rows.size());
    std::uint64_t n = 0;
    for (std::uint64_t w : t.weights) n += w;
    return n;
  };
  report.input_rows = total(input);
  report.output_rows = total(output);
  records = report.output_rows;
  report.levels.assign(qis.size(), std::nullopt);
  report.fitting_levels.assign(qis.size(), {});
}

void ReleaseCheck::add(Kind kind, std::string column, std::uint64_t row, std::uint64_t count, std::string message) {
  report.violations.push_back({kind, std::move(column), row, count, std::move(message)});
}

int ReleaseCheck::out_index(const std::string& name) const {
  auto it = out_col.find(name);
  return it == out_col.end() ? -1 : it->second;
}

bool ReleaseCheck::outside(std::size_t r) const {
  return with_subset && (r >= options.subset.size() || !options.subset[r]);
}

Report ReleaseCheck::finish() {
  // Every row named is a row of the output: its line there.
  for (auto& v : report.violations)
    if (v.row > 0 && v.row <= output.rows.size())
      v.line = v.row - 1 < output.lines.size() ? output.lines[v.row - 1] : v.row + 1;
  return report;
}

Report check_tables(const Options& options, const Table& input, const Table& output,
                    const std::vector<Table>& hierarchies, const std::vector<Table>& aggregated_hierarchies) {
  ReleaseCheck check(options, input, output, hierarchies, aggregated_hierarchies);
  if (!input.weights.empty() || !output.weights.empty()) {
    // Grouped tables: the pairs are counted once with their weight.
    const char* why = input.weights != output.weights ? "the input's and the output's row weights differ"
                      : output.weights.size() != output.rows.size() ? "a weight for each row is needed"
                      : !options.subset.empty()                     ? "a research subset needs the rows one by one"
                      : !options.microaggregated.empty()            ? "microaggregation needs the rows one by one"
                                                                    : nullptr;
    if (why) {
      check.report.violations.push_back({Violation::Kind::bad_options, {}, 0, 0, std::string("grouped tables: ") + why});
      return check.report;
    }
  }
  check.check_options();
  if (!check.report.violations.empty()) return check.report;
  check.bind_hierarchies();
  if (!check.report.violations.empty()) return check.report;
  check.check_output_columns();
  check.check_row_count();
  check.mark_starred();
  if (input.rows.size() == output.rows.size()) {
    check.check_copied_columns();
    check.check_identifiers();
    check.detect_levels();
  }
  check.check_subset();
  check.count_suppressed();
  check.check_microaggregated();
  check.group_classes();
  check.check_class_sizes();
  check.check_class_requirements();
  check.check_k_map();
  check.check_population();
  check.check_profitability();
  check.check_dataset_risk();
  return check.finish();
}

}  // namespace verify
