// One column's profile: counts from its dictionary, the type of its values
// with those that do not conform, and the identifiers its values show.
// Everything here is computed per distinct value and weighted by the cells
// holding it, so the cost is the dictionary's, not the rows'.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "deid/inspect.h"
#include "inspect/detectors.h"
#include "inspect/profile.h"

namespace deid::inspect_detail {
namespace {

// The share of non-empty cells a type must cover.
constexpr double kTypeShare = 0.8;
// The share of non-empty cells a value pattern must cover to report it.
constexpr std::size_t kMaxExamples = 5;
constexpr std::size_t kMaxLines = 5;
// Categories kept for a grouping hierarchy.
constexpr std::size_t kMaxCategories = 100;

bool has_space(std::string_view v) { return v.find_first_of(" \t\r\n") != std::string_view::npos; }
bool has_digit(std::string_view v) { return std::any_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }); }

}  // namespace

ColumnValues column_values(const Column& column, const std::vector<std::uint64_t>& weights) {
  ColumnValues cv;
  const std::uint32_t n = column.dictionary.size();
  cv.count.assign(n, 0);
  column.codes.visit([&](auto codes) {
    if (weights.empty()) {
      for (auto c : codes) ++cv.count[c];
    } else {
      for (std::size_t r = 0; r < codes.size(); ++r) cv.count[codes[r]] += weights[r];
    }
  });
  const std::int64_t empty = column.dictionary.find("");
  cv.empty_code = empty;
  return cv;
}

// The cells and the first lines of the values `match` accepts.
PatternCount count_pattern(const Column& column, const ColumnValues& cv,
                           const std::function<bool(std::string_view)>& match) {
  PatternCount pc;
  std::vector<std::uint64_t> lines;
  for (std::uint32_t code = 0; code < cv.count.size(); ++code) {
    if (static_cast<std::int64_t>(code) == cv.empty_code || cv.count[code] == 0) continue;
    if (!match(column.dictionary.value(code))) continue;
    pc.cells += cv.count[code];
    ++pc.distinct;
    lines.push_back(first_line_of(column, code));
  }
  std::sort(lines.begin(), lines.end());
  lines.resize(std::min(lines.size(), kMaxLines));
  pc.lines = std::move(lines);
  return pc;
}

void detect_type(const Column& column, const ColumnValues& cv, ColumnProfile& p) {
  const std::uint64_t filled = p.conforming;  // all non-empty cells, before the type splits them
  p.conforming = 0;
  if (filled == 0) {
    p.type = ValueType::empty;
    return;
  }
  struct Candidate {
    ValueType type;
    std::string format;
    std::function<bool(std::string_view)> match;
  };
  std::vector<Candidate> candidates{{ValueType::integer, "", is_integer}, {ValueType::decimal, "", is_decimal}};
  for (const std::string& f : date_formats())
    candidates.push_back({ValueType::date, f, [f](std::string_view v) { return is_date(v, f); }});
  std::function<bool(std::string_view)> conforms = [](std::string_view) { return true; };
  p.type = ValueType::code;
  for (const Candidate& c : candidates) {
    const PatternCount pc = count_pattern(column, cv, c.match);
    if (static_cast<double>(pc.cells) >= kTypeShare * static_cast<double>(filled)) {
      p.type = c.type;
      p.date_format = c.format;
      conforms = c.match;
      break;
    }
  }
  if (p.type == ValueType::code) {
    // Free text: most values hold spaces and most are different, or they
    // are long.
    std::uint64_t spaced = 0, length = 0;
    for (std::uint32_t code = 0; code < cv.count.size(); ++code) {
      if (static_cast<std::int64_t>(code) == cv.empty_code) continue;
      const std::string& v = column.dictionary.value(code);
      spaced += has_space(v) ? cv.count[code] : 0;
      length += v.size() * cv.count[code];
    }
    const double share_spaced = static_cast<double>(spaced) / static_cast<double>(filled);
    const double mean_length = static_cast<double>(length) / static_cast<double>(filled);
    if ((share_spaced >= 0.5 && p.uniqueness >= 0.5) || mean_length > 40) p.type = ValueType::free_text;
    const PatternCount digits = count_pattern(column, cv, has_digit);
    p.has_digits_in_codes = static_cast<double>(digits.cells) >= 0.5 * static_cast<double>(filled);
  }
  // A year: integers of four digits from 1800 to 2100, in a column whose
  // name says year, or all from 1900 to 2100.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> bad;  // (line, code)
  for (std::uint32_t code = 0; code < cv.count.size(); ++code) {
    if (static_cast<std::int64_t>(code) == cv.empty_code || cv.count[code] == 0) continue;
    const std::string& v = column.dictionary.value(code);
    if (!conforms(v)) {
      p.non_conforming += cv.count[code];
      bad.emplace_back(first_line_of(column, code), code);
      continue;
    }
    p.conforming += cv.count[code];
    if (p.type == ValueType::integer || p.type == ValueType::decimal) {
      const double x = parse_number(v).value_or(0);
      if (!p.range.valid) p.range = {true, x, x};
      p.range.min = std::min(p.range.min, x);
      p.range.max = std::max(p.range.max, x);
    }
  }
  std::sort(bad.begin(), bad.end());
  for (std::size_t i = 0; i < bad.size() && i < kMaxExamples; ++i)
    p.non_conforming_examples.push_back(
        {column.dictionary.value(bad[i].second), bad[i].first, cv.count[bad[i].second]});
  if (p.type == ValueType::integer && p.range.valid && p.range.max <= 2100) {
    bool four_digits = true;
    for (std::uint32_t code = 0; code < cv.count.size() && four_digits; ++code) {
      if (static_cast<std::int64_t>(code) == cv.empty_code) continue;
      const std::string& v = column.dictionary.value(code);
      four_digits = !is_integer(v) || v.size() == 4;
    }
    const double low = is_year_name(p.name) ? 1800 : 1900;
    if (four_digits && p.range.min >= low) {
      p.type = ValueType::date;
      p.date_format = "%Y";
    }
  }
  if (p.type == ValueType::code && p.distinct <= kMaxCategories)
    for (std::uint32_t code = 0; code < cv.count.size(); ++code)
      if (cv.count[code] > 0) p.categories.push_back(column.dictionary.value(code));
}

ColumnProfile profile_column(const Column& column, const std::vector<std::uint64_t>& weights) {
  ColumnProfile p;
  p.name = column.name;
  const ColumnValues cv = column_values(column, weights);
  std::uint64_t once = 0;
  for (std::uint32_t code = 0; code < cv.count.size(); ++code) {
    if (cv.count[code] == 0) continue;
    if (static_cast<std::int64_t>(code) == cv.empty_code) {
      p.missing = cv.count[code];
      continue;
    }
    ++p.distinct;
    p.conforming += cv.count[code];
    p.max_length = std::max(p.max_length, column.dictionary.value(code).size());
    once += cv.count[code] == 1;
  }
  p.uniqueness = p.conforming == 0 ? 0.0 : static_cast<double>(once) / static_cast<double>(p.conforming);
  detect_type(column, cv, p);
  p.findings = find_identifiers(column, cv, p);
  return p;
}

}  // namespace deid::inspect_detail
