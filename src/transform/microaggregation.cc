#include "transform/microaggregation.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

#include "deid/error.h"
#include "check/entry_classes.h"
#include "util/java_double.h"

namespace deid {

std::vector<std::string> Problem::dimension_names() const {
  std::vector<std::string> names = qi_names;
  for (const auto& m : microaggregated)
    if (!m.generalized()) names.push_back(m.name);
  return names;
}

std::size_t Problem::aggregated_dimensions() const {
  return static_cast<std::size_t>(
      std::count_if(microaggregated.begin(), microaggregated.end(), [](const auto& m) { return !m.generalized(); }));
}

namespace microaggregation {
namespace {

bool needs_numbers(AggregationFunction f) { return f != AggregationFunction::mode; }

bool parse_integer(std::string_view s, std::int64_t& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') ++b;  // from_chars takes '-' but not '+'
  const auto r = std::from_chars(b, e, out);
  return b != e && r.ec == std::errc() && r.ptr == e;
}

// A decimal number: digits with an optional sign, point and exponent (no
// "inf", "nan" or hexadecimal, which from_chars would take).
bool parse_decimal(std::string_view s, double& out) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return false;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+') ++b;
  const auto r = std::from_chars(b, e, out, std::chars_format::general);
  return b != e && r.ec == std::errc() && r.ptr == e && std::isfinite(out);
}

// The column's values as numbers (per code), and whether all are integers.
struct Numbers {
  std::vector<double> value;    // per code; meaningless for missing ones
  std::vector<bool> missing;    // per code: the empty value
  bool integer = true;
};

Numbers numbers_of(const Column& column) {
  Numbers n;
  const std::uint32_t size = column.dictionary.size();
  n.value.assign(size, 0);
  n.missing.assign(size, false);
  for (std::uint32_t c = 0; c < size; ++c) {
    const std::string& s = column.dictionary.value(c);
    if (s.empty()) {
      n.missing[c] = true;
      continue;
    }
    std::int64_t i = 0;
    if (parse_integer(s, i)) {
      n.value[c] = static_cast<double>(i);
    } else {
      n.integer = false;
      parse_decimal(s, n.value[c]);  // check_values() rejected the others
    }
  }
  return n;
}

// A number as the column's type prints it: integers rounded half up
// (Math.round: floor(x + 0.5)).
std::string format_number(double v, bool integer) {
  if (integer) return fmt::format("{}", static_cast<std::int64_t>(std::floor(v + 0.5)));
  return java_double(v);
}

// The aggregate of one class: (code, count) pairs of its records.
std::string aggregate(const MicroaggregatedAttribute& a, const Numbers& num,
                      std::vector<std::pair<std::uint32_t, std::uint64_t>>& values) {
  std::erase_if(values, [&](const auto& p) { return num.missing[p.first]; });
  if (values.empty()) return "";
  switch (a.function) {
    case AggregationFunction::mean: {
      // commons-math's Mean: sum / n, corrected by the mean deviation.
      double sum = 0, n = 0;
      for (const auto& [code, count] : values) {
        sum += num.value[code] * static_cast<double>(count);
        n += static_cast<double>(count);
      }
      const double xbar = sum / n;
      double correction = 0;
      for (const auto& [code, count] : values) correction += (num.value[code] - xbar) * static_cast<double>(count);
      return format_number(xbar + correction / n, num.integer);
    }
    case AggregationFunction::geometric_mean: {
      double logs = 0, n = 0;
      for (const auto& [code, count] : values) {
        logs += std::log(num.value[code] + 1.0) * static_cast<double>(count);
        n += static_cast<double>(count);
      }
      return format_number(std::exp(logs / n) - 1.0, num.integer);
    }
    case AggregationFunction::median: {
      std::sort(values.begin(), values.end(),
                [&](const auto& x, const auto& y) { return num.value[x.first] < num.value[y.first]; });
      std::uint64_t total = 0;
      for (const auto& p : values) total += p.second;
      // The value at 0-based position i of the sorted records.
      const auto at = [&](std::uint64_t i) {
        std::uint64_t seen = 0;
        for (const auto& [code, count] : values) {
          seen += count;
          if (i < seen) return num.value[code];
        }
        return num.value[values.back().first];
      };
      if (total % 2 == 1) return format_number(at(total / 2), num.integer);
      return format_number((at(total / 2 - 1) + at(total / 2)) / 2.0, num.integer);
    }
    case AggregationFunction::mode: {
      // Codes are numbered in order of first appearance in the input, so
      // the smallest code wins a tie.
      std::uint32_t best = values[0].first;
      std::uint64_t most = 0;
      for (const auto& [code, count] : values)
        if (count > most || (count == most && code < best)) {
          most = count;
          best = code;
        }
      return a.data->dictionary.value(best);
    }
    case AggregationFunction::interval: {
      double lo = num.value[values[0].first], hi = lo;
      for (const auto& p : values) {
        lo = std::min(lo, num.value[p.first]);
        hi = std::max(hi, num.value[p.first]);
      }
      return fmt::format("[{}, {}]", format_number(lo, num.integer), format_number(hi, num.integer));
    }
  }
  return "";
}

}  // namespace

void index_entries(MicroaggregatedAttribute& a, const Histogram& h, const std::vector<std::uint8_t>& subset) {
  // Distinct (entry, code) pairs, entry-major, of the subset's rows.
  std::vector<std::uint64_t> pairs;
  pairs.reserve(h.row_entry.size());
  for (std::size_t r = 0; r < h.row_entry.size(); ++r)
    if (subset.empty() || subset[r])
      pairs.push_back((static_cast<std::uint64_t>(h.row_entry[r]) << 32) | a.data->codes[r]);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  a.offsets.assign(h.size() + 1, 0);
  a.codes.resize(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ++a.offsets[(pairs[i] >> 32) + 1];
    a.codes[i] = static_cast<std::uint32_t>(pairs[i]);
  }
  for (std::size_t e = 0; e < h.size(); ++e) a.offsets[e + 1] += a.offsets[e];
}

void check_values(const MicroaggregatedAttribute& a, const Dataset& data) {
  if (!needs_numbers(a.function)) return;
  const Column& col = *a.data;
  for (std::uint32_t c = 0; c < col.dictionary.size(); ++c) {
    const std::string& s = col.dictionary.value(c);
    std::int64_t i = 0;
    double d = 0;
    if (s.empty() || parse_integer(s, i) || parse_decimal(s, d)) continue;
    throw InputError(Location{data.source, first_line_of(col, c), static_cast<std::uint64_t>(a.column) + 1, col.name},
                     fmt::format("attribute '{}' is microaggregated with function {}, which needs numbers; '{}' is "
                                 "not a number (use function: mode, or generalization)",
                                 a.name, to_string(a.function), s));
  }
}

std::vector<double> dimension_sums(const Problem& problem, const Transformation& t, const Classes& classes, double g,
                                   double s) {
  std::vector<double> sums;
  if (problem.aggregated_dimensions() == 0) return sums;
  const std::vector<std::uint32_t> cls = entry_classes(problem, t, classes);
  for (const MicroaggregatedAttribute& a : problem.microaggregated) {
    if (a.generalized()) continue;
    // The distinct values of each class: its entries' codes, each counted
    // once (seen[code] holds the last class that counted it), with the
    // entries listed class by class (a counting sort, no comparison sort).
    std::vector<std::uint32_t> start(classes.size() + 1, 0);
    for (std::uint32_t c : cls) ++start[c + 1];
    for (std::size_t c = 0; c < classes.size(); ++c) start[c + 1] += start[c];
    std::vector<std::uint32_t> by_class(cls.size());
    {
      std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
      for (std::size_t e = 0; e < cls.size(); ++e) by_class[next[cls[e]]++] = static_cast<std::uint32_t>(e);
    }
    std::vector<std::uint32_t> seen(a.data->dictionary.size(), UINT32_MAX);
    std::vector<std::uint32_t> distinct(classes.size(), 0);
    for (std::uint32_t c = 0; c < classes.size(); ++c)
      for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
        const std::uint32_t e = by_class[i];
        for (std::uint64_t j = a.offsets[e]; j < a.offsets[e + 1]; ++j)
          if (seen[a.codes[j]] != c) {
            seen[a.codes[j]] = c;
            ++distinct[c];
          }
      }
    const double domain = static_cast<double>(a.data->dictionary.size());
    double sum = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const double count = static_cast<double>(classes.counts[c]);
      const double share = count * (static_cast<double>(distinct[c]) / domain);
      sum += !classes.suppressed[c] ? share * g : (s == 1.0 ? count : share + s * (count - share));
    }
    sums.push_back(sum);
  }
  return sums;
}

std::vector<std::string> class_labels(const MicroaggregatedAttribute& a, const Histogram& histogram,
                                      const Classes& classes, const std::vector<std::uint8_t>& subset) {
  const Numbers num = numbers_of(*a.data);
  // Per class, the (code, count) pairs of its records in the subset.
  std::vector<std::uint64_t> pairs;
  pairs.reserve(histogram.row_entry.size());
  for (std::size_t r = 0; r < histogram.row_entry.size(); ++r)
    if (subset.empty() || subset[r])
      pairs.push_back((static_cast<std::uint64_t>(classes.entry_class[histogram.row_entry[r]]) << 32) |
                      a.data->codes[r]);
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::string> labels(classes.size());
  std::vector<std::pair<std::uint32_t, std::uint64_t>> values;
  for (std::size_t i = 0; i < pairs.size();) {
    const std::uint64_t c = pairs[i] >> 32;
    values.clear();
    for (; i < pairs.size() && (pairs[i] >> 32) == c; ++i) {
      const auto code = static_cast<std::uint32_t>(pairs[i]);
      if (!values.empty() && values.back().first == code) {
        ++values.back().second;
      } else {
        values.emplace_back(code, 1);
      }
    }
    if (!classes.suppressed[c]) labels[c] = aggregate(a, num, values);
  }
  return labels;
}

}  // namespace microaggregation
}  // namespace deid
