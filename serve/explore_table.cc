#include "explore_table.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "deid/csv.h"
#include "deid/error.h"

namespace deid::serve {

using nlohmann::json;

namespace {

// A finite number written in full ("12", "-3.5", "1e3"), as strtod reads it.
bool parse_number(const std::string& text, double& out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) != 0) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno == 0 && std::isfinite(out);
}

}  // namespace

ExploreTable::ExploreTable(const std::string& path, ExploreLimits limits)
    : name_(std::filesystem::path(path).filename().string()), limits_(limits) {
  CsvOptions options;
  options.header = true;
  // Per column, the distinct values in order of appearance, then recoded
  // in sorted order below.
  std::vector<std::unordered_map<std::string, std::uint32_t>> seen;
  std::vector<std::vector<std::string>> first_seen;
  read_csv(path, options, [&](const CsvRecord& record) {
    if (record.index == 0) {
      std::set<std::string> names;
      for (std::size_t c = 0; c < record.fields.size(); ++c) {
        const std::string column(record.fields[c]);
        if (column.empty())
          throw InputError(Location{path, record.line, c + 1, {}}, "a column without a name in the header");
        if (!names.insert(column).second)
          throw InputError(Location{path, record.line, c + 1, column}, fmt::format("column '{}' appears twice", column));
        columns_.push_back(column);
      }
      seen.resize(columns_.size());
      first_seen.resize(columns_.size());
      return;
    }
    std::vector<std::uint32_t> row(columns_.size());
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string value(record.fields[c]);
      auto [it, added] = seen[c].try_emplace(value, static_cast<std::uint32_t>(first_seen[c].size()));
      if (added) first_seen[c].push_back(value);
      row[c] = it->second;
    }
    rows_.push_back(std::move(row));
  });
  if (columns_.empty()) throw InputError(Location{path, 1, 0, {}}, "the table has no columns");
  if (rows_.empty()) throw InputError(Location{path, 1, 0, {}}, "the table has a header but no rows");

  values_.resize(columns_.size());
  numbers_.resize(columns_.size());
  numeric_.assign(columns_.size(), true);
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const std::vector<std::string>& v = first_seen[c];
    std::vector<double> number(v.size(), 0);
    bool any = false;
    for (std::size_t i = 0; i < v.size() && numeric_[c]; ++i) {
      if (v[i].empty()) continue;
      any = true;
      if (!parse_number(v[i], number[i])) numeric_[c] = false;
    }
    numeric_[c] = numeric_[c] && any;
    // The sorted order of the values, missing ("") last: codes then compare
    // as the values do, so that sorting rows compares integers.
    std::vector<std::uint32_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    const bool num = numeric_[c];
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (v[a].empty() != v[b].empty()) return v[b].empty();
      if (num && number[a] != number[b]) return number[a] < number[b];
      return v[a] < v[b];
    });
    std::vector<std::uint32_t> rank(v.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      rank[order[i]] = static_cast<std::uint32_t>(i);
      values_[c].push_back(v[order[i]]);
      if (num) numbers_[c].push_back(number[order[i]]);
    }
    for (auto& row : rows_) row[c] = rank[row[c]];
  }
}

json ExploreTable::describe() const {
  json columns = json::array();
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const bool has_missing = !values_[c].empty() && values_[c].back().empty();
    std::size_t missing = 0;
    if (has_missing)
      for (const auto& row : rows_) missing += row[c] + 1 == values_[c].size() ? 1 : 0;
    columns.push_back({{"name", columns_[c]},
                       {"type", numeric_[c] ? "number" : "text"},
                       {"distinct", values_[c].size() - (has_missing ? 1 : 0)},
                       {"missing", missing}});
  }
  return {{"name", name_},
          {"rows", rows_.size()},
          {"columns", columns},
          {"limits",
           {{"max_page_size", limits_.max_page_size},
            {"default_page_size", std::min(limits_.default_page_size, limits_.max_page_size)},
            {"max_categories", limits_.max_categories}}}};
}

std::size_t ExploreTable::column_index(const std::string& column) const {
  const auto it = std::find(columns_.begin(), columns_.end(), column);
  if (it == columns_.end()) throw QueryError(fmt::format("no column '{}' in the table", column));
  return static_cast<std::size_t>(it - columns_.begin());
}

std::vector<std::size_t> ExploreTable::selected(const ExploreQuery& query) const {
  if (query.filters.size() > limits_.max_filters)
    throw QueryError(fmt::format("{} filters: at most {}", query.filters.size(), limits_.max_filters));
  // Each filter becomes the set of value codes of its column that pass, so
  // that the rows are then tested by lookups.
  std::vector<std::pair<std::size_t, std::vector<bool>>> tests;
  for (const ExploreFilter& f : query.filters) {
    const std::size_t c = column_index(f.column);
    const std::vector<std::string>& v = values_[c];
    std::vector<bool> pass(v.size(), false);
    if (f.op == "eq") {
      for (std::size_t i = 0; i < v.size(); ++i) pass[i] = v[i] == f.value;
    } else if (f.op == "has") {
      for (std::size_t i = 0; i < v.size(); ++i) pass[i] = v[i].find(f.value) != std::string::npos;
    } else if (f.op == "min" || f.op == "max") {
      if (!numeric_[c])
        throw QueryError(fmt::format("column '{}' is not numeric: filter it with eq or has, not {}", f.column, f.op));
      double bound = 0;
      if (!parse_number(f.value, bound))
        throw QueryError(fmt::format("{} of '{}': '{}' is not a number", f.op, f.column, f.value));
      for (std::size_t i = 0; i < v.size(); ++i)
        pass[i] = !v[i].empty() && (f.op == "min" ? numbers_[c][i] >= bound : numbers_[c][i] <= bound);
    } else {
      throw QueryError(fmt::format("unknown filter '{}' (allowed: eq, has, min, max)", f.op));
    }
    tests.emplace_back(c, std::move(pass));
  }
  std::vector<std::size_t> out;
  out.reserve(rows_.size());
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    bool ok = true;
    for (const auto& [c, pass] : tests) ok = ok && pass[rows_[r][c]];
    if (ok) out.push_back(r);
  }
  return out;
}

json ExploreTable::page(const ExploreQuery& query) const {
  const std::size_t limit =
      query.limit == 0 ? std::min(limits_.default_page_size, limits_.max_page_size) : query.limit;
  if (limit > limits_.max_page_size)
    throw QueryError(fmt::format("a page of {} rows: at most {}", limit, limits_.max_page_size));
  if (query.sort.size() > limits_.max_sort_keys)
    throw QueryError(fmt::format("{} sort keys: at most {}", query.sort.size(), limits_.max_sort_keys));
  std::vector<std::pair<std::size_t, bool>> keys;
  for (const ExploreSortKey& k : query.sort) keys.emplace_back(column_index(k.column), k.descending);
  std::vector<std::size_t> rows = selected(query);
  if (query.offset > rows.size())
    throw QueryError(fmt::format("offset {} is past the {} rows that pass the filters", query.offset, rows.size()));
  // Missing values sort last both ways: they are the highest code, and a
  // descending key reverses only the present values.
  std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    for (const auto& [c, desc] : keys) {
      const std::uint32_t x = rows_[a][c], y = rows_[b][c];
      if (x == y) continue;
      const std::uint32_t missing = static_cast<std::uint32_t>(values_[c].size() - 1);
      const bool has_missing = values_[c].back().empty();
      if (has_missing && (x == missing || y == missing)) return y == missing;
      return desc ? x > y : x < y;
    }
    return false;
  });
  json out = json::array();
  for (std::size_t i = query.offset; i < rows.size() && i < query.offset + limit; ++i) {
    json row = json::array();
    for (std::size_t c = 0; c < columns_.size(); ++c) row.push_back(values_[c][rows_[rows[i]][c]]);
    out.push_back(std::move(row));
  }
  return {{"total", rows.size()}, {"offset", query.offset}, {"limit", limit}, {"columns", columns_}, {"rows", out}};
}

std::vector<std::pair<std::size_t, std::size_t>> ExploreTable::counted(std::size_t column,
                                                                      const std::vector<std::size_t>& rows) const {
  std::vector<std::size_t> count(values_[column].size(), 0);
  for (const std::size_t r : rows) ++count[rows_[r][column]];
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < count.size(); ++i)
    if (count[i] > 0) out.emplace_back(i, count[i]);
  // Most frequent first, then in the column's order (codes are sorted).
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

json ExploreTable::frequencies(const std::string& column, const ExploreQuery& query) const {
  const std::size_t c = column_index(column);
  const std::vector<std::size_t> rows = selected(query);
  const auto counts = counted(c, rows);
  const double total = static_cast<double>(rows.size());
  json values = json::array();
  std::size_t other_values = 0, other_count = 0;
  for (const auto& [value, n] : counts) {
    if (values.size() < limits_.max_categories) {
      values.push_back({{"value", values_[c][value]}, {"count", n}, {"share", n / total}});
    } else {
      ++other_values;
      other_count += n;
    }
  }
  return {{"column", column},
          {"total", rows.size()},
          {"values", values},
          {"other", other_values == 0 ? json(nullptr) : json{{"values", other_values}, {"count", other_count}}}};
}

json ExploreTable::crosstab(const std::string& row, const std::string& column, const ExploreQuery& query) const {
  const std::size_t a = column_index(row), b = column_index(column);
  const std::vector<std::size_t> rows = selected(query);
  // Each side's values, most frequent first; beyond max_categories they
  // share one last "(other)" slot.
  auto slots = [&](std::size_t c, json& names, bool& other) {
    std::vector<std::size_t> slot(values_[c].size(), 0);
    const auto counts = counted(c, rows);
    std::size_t next = 0;
    for (const auto& [value, n] : counts) {
      if (next < limits_.max_categories) {
        names.push_back(values_[c][value]);
        slot[value] = next++;
      } else {
        other = true;
        slot[value] = limits_.max_categories;
      }
    }
    if (other) names.push_back("(other)");
    return slot;
  };
  json row_values = json::array(), column_values = json::array();
  bool other_row = false, other_column = false;
  const std::vector<std::size_t> sa = slots(a, row_values, other_row), sb = slots(b, column_values, other_column);
  std::vector<std::vector<std::size_t>> counts(row_values.size(), std::vector<std::size_t>(column_values.size(), 0));
  std::vector<std::size_t> row_totals(row_values.size(), 0), column_totals(column_values.size(), 0);
  for (const std::size_t r : rows) {
    const std::size_t i = sa[rows_[r][a]], j = sb[rows_[r][b]];
    ++counts[i][j];
    ++row_totals[i];
    ++column_totals[j];
  }
  return {{"row", row},
          {"column", column},
          {"total", rows.size()},
          {"row_values", row_values},
          {"column_values", column_values},
          {"counts", counts},
          {"row_totals", row_totals},
          {"column_totals", column_totals},
          {"other_row", other_row},
          {"other_column", other_column}};
}

}  // namespace deid::serve
