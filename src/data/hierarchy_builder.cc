#include "deid/hierarchy_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <string_view>
#include <type_traits>
#include <variant>

#include "deid/csv.h"
#include "deid/error.h"

namespace deid {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw JobError(Location{}, msg); }
[[noreturn]] void bad_value(const std::string& value, const std::string& msg) { throw HierarchyValueError(value, msg); }

double parse_number(const std::string& v) {
  double x = 0;
  const char* end = v.data() + v.size();
  auto [ptr, ec] = std::from_chars(v.data(), end, x);
  if (v.empty() || ec != std::errc() || ptr != end || !std::isfinite(x))
    bad_value(v, fmt::format("interval hierarchy: value '{}' is not a number", v));
  return x;
}

// Shortest decimal text of a bound ("5", "2.5").
std::string num(double x) { return fmt::format("{}", x); }

std::vector<std::string> distinct(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& v : values)
    if (seen.insert(v).second) out.push_back(v);
  return out;
}

HierarchyTable make_table(const std::string& name) {
  HierarchyTable t;
  t.source = name;
  return t;
}

void add_row(HierarchyTable& t, std::vector<std::string> row) {
  t.rows.push_back(std::move(row));
  t.lines.push_back(t.rows.size());
}

}  // namespace

HierarchyTable build_hierarchy(const std::vector<std::string>& values, const HierarchyBuilderSpec& spec) {
  return std::visit(
      [&](const auto& s) -> HierarchyTable {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, IntervalSpec>) return build_interval_hierarchy(values, s);
        if constexpr (std::is_same_v<S, MaskingSpec>) return build_masking_hierarchy(values, s);
        if constexpr (std::is_same_v<S, DateSpec>) return build_date_hierarchy(values, s);
        if constexpr (std::is_same_v<S, GroupingSpec>) return build_grouping_hierarchy(values, s);
      },
      spec);
}

HierarchyTable build_interval_hierarchy(const std::vector<std::string>& values, const IntervalSpec& spec) {
  check_parameters(spec);
  HierarchyTable t = make_table("<interval hierarchy>");
  for (const auto& v : distinct(values)) {
    const double x = parse_number(v);
    std::vector<std::string> row{v};
    if (x < spec.min || x >= spec.max) {
      const bool below = x < spec.min;
      if (below ? !spec.bottom_coding : !spec.top_coding)
        bad_value(v, fmt::format("interval hierarchy: value '{}' is outside [{}, {}) and {} coding is off", v, num(spec.min),
                         num(spec.max), below ? "bottom" : "top"));
      const std::string label = below ? fmt::format("<{}", num(spec.min)) : fmt::format(">={}", num(spec.max));
      for (std::size_t i = 0; i < spec.widths.size(); ++i) row.push_back(label);
    } else {
      for (double w : spec.widths) {
        const double lo = spec.min + std::floor((x - spec.min) / w) * w;
        const double hi = std::min(lo + w, spec.max);
        row.push_back(fmt::format("[{}, {})", num(lo), num(hi)));
      }
    }
    row.push_back("*");
    add_row(t, std::move(row));
  }
  if (t.rows.empty()) fail("interval hierarchy: there are no values to cover");
  return t;
}

namespace {

// The characters of a UTF-8 value (the CSV reader admits only valid UTF-8):
// masking replaces whole characters, since masking bytes would cut a
// multi-byte character ("é" is C3 A9) and write a label that is not UTF-8.
std::vector<std::string_view> characters(const std::string& v) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i + 1;
    while (j < v.size() && (static_cast<unsigned char>(v[j]) & 0xC0) == 0x80) ++j;  // continuation bytes
    out.emplace_back(v.data() + i, j - i);
    i = j;
  }
  return out;
}

}  // namespace

HierarchyTable build_masking_hierarchy(const std::vector<std::string>& values, const MaskingSpec& spec) {
  check_parameters(spec);
  const auto vals = distinct(values);
  if (vals.empty()) fail("masking hierarchy: there are no values to cover");
  std::vector<std::vector<std::string_view>> chars;
  std::size_t longest = 0;
  for (const auto& v : vals) {
    chars.push_back(characters(v));
    longest = std::max(longest, chars.back().size());
  }
  const std::size_t levels = spec.levels > 0 ? std::min<std::size_t>(static_cast<std::size_t>(spec.levels), longest) : longest;
  HierarchyTable t = make_table("<masking hierarchy>");
  for (std::size_t k = 0; k < vals.size(); ++k) {
    const std::vector<std::string_view>& c = chars[k];
    std::vector<std::string> row{vals[k]};
    for (std::size_t i = 1; i <= levels; ++i) {
      const std::size_t n = std::min(i, c.size());
      const std::size_t mask_from = spec.from_left ? 0 : c.size() - n;  // the n masked characters
      std::string m;
      for (std::size_t j = 0; j < c.size(); ++j) {
        if (j >= mask_from && j < mask_from + n) m.push_back(spec.mask_char);
        else m.append(c[j]);
      }
      row.push_back(m);
    }
    row.push_back("*");
    add_row(t, std::move(row));
  }
  return t;
}

HierarchyTable build_date_hierarchy(const std::vector<std::string>& values, const DateSpec& spec) {
  const auto vals = distinct(values);
  if (vals.empty()) fail("date hierarchy: there are no values to cover");
  HierarchyTable t = make_table("<date hierarchy>");
  for (const auto& v : vals) {
    int y = 0, m = 0, d = 0;
    const bool shape = v.size() == 10 && v[4] == '-' && v[7] == '-' &&
                       std::all_of(v.begin(), v.end(), [](char c) { return (c >= '0' && c <= '9') || c == '-'; });
    if (shape) {
      std::from_chars(v.data(), v.data() + 4, y);
      std::from_chars(v.data() + 5, v.data() + 7, m);
      std::from_chars(v.data() + 8, v.data() + 10, d);
    }
    static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (!shape || m < 1 || m > 12 || d < 1 || d > kDays[m - 1] || (m == 2 && d == 29 && !leap))
      bad_value(v, fmt::format("date hierarchy: value '{}' is not a date of the form YYYY-MM-DD", v));
    std::vector<std::string> row{v};
    if (spec.month) row.push_back(v.substr(0, 7));
    if (spec.year) row.push_back(v.substr(0, 4));
    if (spec.decade) row.push_back(fmt::format("{}-{}", y / 10 * 10, y / 10 * 10 + 9));
    row.push_back("*");
    add_row(t, std::move(row));
  }
  return t;
}

HierarchyTable build_grouping_hierarchy(const std::vector<std::string>& values, const GroupingSpec& spec) {
  check_parameters(spec);
  const std::set<std::string> in_order(spec.order.begin(), spec.order.end());
  for (const auto& v : values)
    if (!in_order.contains(v)) bad_value(v, fmt::format("grouping hierarchy: value '{}' is not in the order of categories", v));
  HierarchyTable t = make_table("<grouping hierarchy>");
  const std::size_t n = spec.order.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::string> row{spec.order[i]};
    for (std::size_t size : spec.sizes) {
      const std::size_t lo = i / size * size, hi = std::min(lo + size, n) - 1;
      row.push_back(lo == hi ? spec.order[lo] : fmt::format("{}..{}", spec.order[lo], spec.order[hi]));
    }
    row.push_back("*");
    add_row(t, std::move(row));
  }
  return t;
}

std::string hierarchy_to_csv(const HierarchyTable& table, char delimiter) {
  std::string out;
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) out.push_back(delimiter);
      append_csv_field(out, row[i], delimiter);
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace deid
