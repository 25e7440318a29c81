// The first steps of a check (release_check.h): the options against the
// input's header, the hierarchies bound to their columns, the output's
// columns, and where input and output part when their row counts differ.
#include <algorithm>

#include "release_check.h"

namespace verify {

void ReleaseCheck::check_options() {
  for (std::size_t c = 0; c < input.header.size(); ++c)
    if (!in_col.emplace(input.header[c], static_cast<int>(c)).second)
      add(Kind::bad_options, input.header[c], 0, 0, "the input has the column " + quote(input.header[c]) + " twice");
  for (const auto& q : qis) {
    if (!in_col.count(q.name)) add(Kind::bad_options, q.name, 0, 0, "quasi-identifier " + quote(q.name) + " is not an input column");
    if (identifying.count(q.name)) add(Kind::bad_options, q.name, 0, 0, quote(q.name) + " is both quasi-identifying and identifying");
    if (!qi_names.insert(q.name).second) add(Kind::bad_options, q.name, 0, 0, "quasi-identifier " + quote(q.name) + " listed twice");
  }
  for (const auto& name : options.identifying)
    if (!in_col.count(name)) add(Kind::bad_options, name, 0, 0, "identifying column " + quote(name) + " is not an input column");
  for (const auto& r : options.released_identifiers) {
    if (!in_col.count(r.name))
      add(Kind::bad_options, r.name, 0, 0, "released identifier " + quote(r.name) + " is not an input column");
    if (identifying.count(r.name) || qi_names.count(r.name))
      add(Kind::bad_options, r.name, 0, 0, quote(r.name) + " is both a released identifier and removed or quasi-identifying");
    if (r.action != ReleasedIdentifier::Action::mask && options.secret.empty())
      add(Kind::bad_options, r.name, 0, 0, "released identifier " + quote(r.name) + " needs the secret");
    if (r.action == ReleasedIdentifier::Action::date_shift && (!in_col.count(options.person) || options.shift_days < 1))
      add(Kind::bad_options, r.name, 0, 0, "the date shift of " + quote(r.name) + " needs the person column and a range of at least one day");
  }
  for (const auto& m : micro) {
    if (!in_col.count(m.name)) add(Kind::bad_options, m.name, 0, 0, "microaggregated " + quote(m.name) + " is not an input column");
    if (identifying.count(m.name)) add(Kind::bad_options, m.name, 0, 0, quote(m.name) + " is both microaggregated and identifying");
    if (!known_aggregation_function(m.function))
      add(Kind::bad_options, m.name, 0, 0, "unknown microaggregation function " + quote(m.function));
    if (!qi_names.insert(m.name).second) add(Kind::bad_options, m.name, 0, 0, quote(m.name) + " listed twice as a quasi-identifier");
  }
  if (aggregated_hierarchies.size() != micro.size())
    add(Kind::bad_options, {}, 0, 0, std::to_string(micro.size()) + " microaggregated columns but " + std::to_string(aggregated_hierarchies.size()) + " hierarchies for them");
  for (const auto& req : options.class_requirements) {
    const std::string& a = requirement_attribute(req);
    if (!in_col.count(a) || qi_names.count(a) || identifying.count(a))
      add(Kind::bad_options, a, 0, 0, "the attribute " + quote(a) + " of a class requirement must be an input column that is neither quasi-identifying nor identifying");
  }
  if (hierarchies.size() != qis.size())
    add(Kind::bad_options, {}, 0, 0, std::to_string(qis.size()) + " quasi-identifiers but " + std::to_string(hierarchies.size()) + " hierarchies");
  if (options.k == 0) add(Kind::bad_options, {}, 0, 0, "k must be at least 1");
  if (options.profitability && options.profitability->journalist && options.subset.empty())
    add(Kind::bad_options, {}, 0, 0, "the journalist's profitability needs the research subset");
  if (!(options.suppression_limit >= 0 && options.suppression_limit <= 1))
    add(Kind::bad_options, {}, 0, 0, "the suppression limit must lie in [0, 1]");
}

void ReleaseCheck::bind_hierarchies() {
  for (std::size_t q = 0; q < qis.size(); ++q) {
    const Table& h = hierarchies[q];
    if (h.rows.empty()) {
      add(Kind::bad_hierarchy, qis[q].name, 0, 0, "hierarchy " + qis[q].hierarchy_path + " is empty");
      continue;
    }
    heights[q] = static_cast<int>(h.rows.front().size());
    for (std::size_t r = 0; r < h.rows.size(); ++r) {
      auto [it, inserted] = hier[q].emplace(h.rows[r][0], &h.rows[r]);
      if (!inserted && *it->second != h.rows[r])
        add(Kind::bad_hierarchy, qis[q].name, r + 1, 0,
            "hierarchy " + qis[q].hierarchy_path + " lists " + quote(h.rows[r][0]) + " twice with different generalizations (line " + std::to_string(r + 1) + ")");
    }
  }
}

void ReleaseCheck::check_output_columns() {
  for (std::size_t c = 0; c < output.header.size(); ++c) {
    const std::string& name = output.header[c];
    if (!out_col.emplace(name, static_cast<int>(c)).second) {
      add(Kind::unexpected_column, name, 0, 0, "the output has the column " + quote(name) + " twice");
    } else if (identifying.count(name)) {
      add(Kind::identifying_column_present, name, 0, 0, "identifying column " + quote(name) + " is in the output");
    } else if (!in_col.count(name) && !(name == options.pass_column && !options.pass_column.empty())) {
      add(Kind::unexpected_column, name, 0, 0, "the output has a column " + quote(name) + " that the input does not have");
    }
  }
  for (const auto& name : input.header)
    if (!identifying.count(name) && !out_col.count(name))
      add(Kind::column_missing, name, 0, 0, "column " + quote(name) + " of the input is missing from the output");
  if (!options.pass_column.empty() && !out_col.count(options.pass_column))
    add(Kind::column_missing, options.pass_column, 0, 0,
        "local recoding's column " + quote(options.pass_column) + " (each record's pass) is missing from the output");
  for (std::size_t q = 0; q < qis.size(); ++q) {
    qi_in[q] = in_col.at(qis[q].name);
    qi_out[q] = out_index(qis[q].name);
  }
}

void ReleaseCheck::check_row_count() {
  aligned = input.rows.size() == output.rows.size();
  if (!aligned) {
    // Where the two part (a row dropped or added there): the first row
    // whose copied columns differ, or whose quasi-identifier is neither '*'
    // nor at any level of its input value's hierarchy row; else the end of
    // the shorter table.
    std::vector<std::pair<std::size_t, int>> copied;  // input column, output column
    for (std::size_t c = 0; c < input.header.size(); ++c) {
      const int oc = out_index(input.header[c]);
      if (oc >= 0 && !qi_names.count(input.header[c]) && !identifying.count(input.header[c]) &&
          !released.count(input.header[c]))
        copied.emplace_back(c, oc);
    }
    auto matches = [&](std::size_t r) {
      for (const auto& [ic, oc] : copied)
        if (input.rows[r][ic] != output.rows[r][oc]) return false;
      for (std::size_t q = 0; q < qis.size(); ++q) {
        if (qi_out[q] < 0) continue;
        const std::string& out = output.rows[r][qi_out[q]];
        const auto it = hier[q].find(input.rows[r][qi_in[q]]);
        if (out != "*" && it != hier[q].end() && std::find(it->second->begin(), it->second->end(), out) == it->second->end())
          return false;
      }
      return true;
    };
    const std::size_t common = std::min(input.rows.size(), output.rows.size());
    std::size_t part = common;
    for (std::size_t r = 0; r < common; ++r)
      if (!matches(r)) {
        part = r;
        break;
      }
    const bool beyond = part >= output.rows.size();  // the output ends there
    add(Kind::row_count, {}, beyond ? 0 : part + 1, 0,
        "the output has " + std::to_string(output.rows.size()) + " rows, the input " + std::to_string(input.rows.size()) +
            " (one output row per input row is required); " +
            (part == common && beyond ? "the output ends after data row " + std::to_string(part)
                                      : "input and output first part at data row " + std::to_string(part + 1)));
  }
  rows = output.rows.size();
}

}  // namespace verify
