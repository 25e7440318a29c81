#include "verify_microaggregation.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "release_check.h"

namespace verify {
namespace {

bool is_integer_text(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Whether `text` shows `expected` as the column prints it.
bool shows(const std::string& text, double expected, bool integer) {
  const auto got = number(text);
  if (!got) return false;
  if (integer) {
    if (!is_integer_text(text)) return false;
    const double below = std::floor(expected);
    if (std::fabs(expected - (below + 0.5)) < 1e-9) return *got == below || *got == below + 1;
    return *got == std::floor(expected + 0.5);
  }
  return std::fabs(*got - expected) <= 1e-9 * std::max(1.0, std::fabs(expected));
}

struct Class {
  std::vector<std::size_t> rows;
};

}  // namespace

bool known_aggregation_function(const std::string& f) {
  return f == "mean" || f == "median" || f == "mode" || f == "geometric-mean" || f == "interval";
}

AggregateErrors check_aggregates(const Microaggregated& m, const std::vector<std::string>& input,
                                 const std::vector<std::string>& released, const std::vector<std::string>& group,
                                 const std::vector<char>& skip) {
  // An integer column: every value of the input that is not empty is an integer.
  bool integer = true;
  for (const std::string& v : input) integer = integer && (v.empty() || is_integer_text(v));
  std::map<std::string, Class> classes;
  for (std::size_t r = 0; r < input.size(); ++r)
    if (!skip[r]) classes[group[r]].rows.push_back(r);

  AggregateErrors out;
  out.first_row = input.size();
  for (const auto& [key, cls] : classes) {
    std::vector<double> values;
    std::map<std::string, std::uint64_t> counts;
    bool numbers = true;
    for (std::size_t r : cls.rows) {
      if (input[r].empty()) continue;
      ++counts[input[r]];
      const auto v = number(input[r]);
      numbers = numbers && v.has_value();
      if (v) values.push_back(*v);
    }
    std::sort(values.begin(), values.end());
    // Whether `text` is the class's aggregate.
    const auto right = [&](const std::string& text) -> bool {
      if (counts.empty()) return text.empty();
      if (m.function == "mode") {
        std::uint64_t most = 0;
        for (const auto& [v, n] : counts) most = std::max(most, n);
        return counts.count(text) && counts.at(text) == most;
      }
      if (!numbers) return false;
      const double n = static_cast<double>(values.size());
      if (m.function == "mean") {
        double sum = 0;
        for (double v : values) sum += v;
        return shows(text, sum / n, integer);
      }
      if (m.function == "geometric-mean") {
        double logs = 0;
        for (double v : values) logs += std::log(v + 1);
        return shows(text, std::exp(logs / n) - 1, integer);
      }
      if (m.function == "median") {
        const std::size_t k = values.size();
        const double median = k % 2 ? values[k / 2] : (values[k / 2 - 1] + values[k / 2]) / 2;
        return shows(text, median, integer);
      }
      // interval: "[min, max]"
      if (text.size() < 5 || text.front() != '[' || text.back() != ']') return false;
      const std::size_t comma = text.find(", ");
      if (comma == std::string::npos) return false;
      return shows(text.substr(1, comma - 1), values.front(), integer) &&
             shows(text.substr(comma + 2, text.size() - comma - 3), values.back(), integer);
    };
    for (std::size_t r : cls.rows) {
      if (right(released[r])) continue;
      ++out.wrong;
      if (r < out.first_row) {
        out.first_row = r;
        out.why = "'" + released[r] + "' is not the " + m.function + " of its class's " +
                  std::to_string(cls.rows.size()) + " input value(s)";
      }
    }
  }
  return out;
}

void ReleaseCheck::check_microaggregated() {
  // Microaggregated columns: '*' in suppressed records (and in those outside
  // the research subset), elsewhere the aggregate of the input values of
  // the record's class; with a subset, of the class's records in the
  // subset (ARX aggregates only those: HashGroupify.addFromBuffer adds a
  // value to a class's distribution only for a record of the subset). A column
  // generalized before aggregation joins the class at one level of its
  // hierarchy: the first combination of levels at which every record is
  // right, else the one with the fewest wrong records.
  micro_out.assign(micro.size(), -1);
  for (std::size_t m = 0; m < micro.size(); ++m) micro_out[m] = out_index(micro[m].name);
  if (aligned && !micro.empty()) {
    std::vector<std::vector<std::string>> in_values(micro.size()), released(micro.size());
    for (std::size_t m = 0; m < micro.size(); ++m) {
      if (micro_out[m] < 0) continue;  // column_missing reported
      const int ic = in_col.at(micro[m].name);
      std::uint64_t not_star = 0;
      std::size_t first = rows;
      for (std::size_t r = 0; r < rows; ++r) {
        in_values[m].push_back(input.rows[r][static_cast<std::size_t>(ic)]);
        released[m].push_back(output.rows[r][static_cast<std::size_t>(micro_out[m])]);
        if ((suppressed[r] || outside(r)) && released[m][r] != "*" && not_star++ == 0) first = r;
      }
      if (not_star)
        add(Kind::wrong_aggregate, micro[m].name, first + 1, not_star,
            "column " + quote(micro[m].name) + ": " + std::to_string(not_star) +
                " suppressed record(s) show a value instead of '*'; the first at data row " + std::to_string(first + 1));
    }
    // Per column generalized before aggregation: input value -> its hierarchy row.
    std::vector<std::size_t> generalized;
    std::vector<std::unordered_map<std::string, const std::vector<std::string>*>> rows_of(micro.size());
    std::vector<int> heights_of(micro.size(), 1);
    for (std::size_t m = 0; m < micro.size(); ++m) {
      if (micro[m].hierarchy_path.empty() || micro_out[m] < 0 || aggregated_hierarchies[m].rows.empty()) continue;
      generalized.push_back(m);
      heights_of[m] = static_cast<int>(aggregated_hierarchies[m].rows.front().size());
      for (const auto& row : aggregated_hierarchies[m].rows) rows_of[m].emplace(row[0], &row);
    }
    // The records aggregated: neither suppressed nor outside the subset.
    std::vector<char> left_out = suppressed;
    for (std::size_t r = 0; r < rows; ++r) left_out[r] = left_out[r] || outside(r);
    std::vector<std::string> base(rows);
    for (std::size_t r = 0; r < rows; ++r) base[r] = class_key(output.rows[r], qi_out);
    // Local recoding: each pass aggregated its own classes, so with the
    // pass column a class is also one pass's, and a column generalized
    // before aggregation has a level per pass. Without it, records of two
    // passes that show the same values form one class here, and their
    // aggregates are checked together (which can only fail); a column
    // generalized before cannot be grouped (its level may differ by pass),
    // and its aggregates are not checked.
    const int pass_out = options.local_recoding && !options.pass_column.empty() ? out_index(options.pass_column) : -1;
    if (options.local_recoding && pass_out < 0 && !generalized.empty()) {
      report.microaggregation_skipped =
          "local recoding without local-recoding.column: a column generalized before aggregation (" +
          micro[generalized.front()].name + ") may be at another level in each pass";
      return;
    }
    // Each record's pass (0 without local recoding): an index into the
    // passes seen.
    std::vector<std::size_t> pass_of(rows, 0);
    std::size_t passes = 1;
    if (pass_out >= 0) {
      std::map<std::string, std::size_t> index;
      for (std::size_t r = 0; r < rows; ++r) {
        if (left_out[r]) continue;  // not aggregated
        const std::string& pass = output.rows[r][static_cast<std::size_t>(pass_out)];
        base[r] += std::to_string(pass.size()) + "|" + pass;
        pass_of[r] = index.try_emplace(pass, index.size()).first->second;
      }
      passes = std::max<std::size_t>(1, index.size());
    }
    // One level per column generalized before and pass: slot g * passes + p.
    std::vector<int> level(generalized.size() * passes, 0);
    std::vector<AggregateErrors> best;
    std::uint64_t best_wrong = UINT64_MAX;
    for (int combos = 0; combos < 4096; ++combos) {
      std::vector<std::string> group = base;
      for (std::size_t g = 0; g < generalized.size(); ++g)
        for (std::size_t r = 0; r < rows; ++r) {
          const std::size_t m = generalized[g];
          const auto it = rows_of[m].find(in_values[m][r]);
          const int l = level[g * passes + pass_of[r]];
          const std::string& v = it == rows_of[m].end() ? in_values[m][r] : (*it->second)[static_cast<std::size_t>(l)];
          group[r] += std::to_string(v.size()) + "|" + v;
        }
      std::vector<AggregateErrors> errors(micro.size());
      std::uint64_t wrong = 0;
      for (std::size_t m = 0; m < micro.size(); ++m) {
        if (micro_out[m] < 0) continue;
        errors[m] = check_aggregates(micro[m], in_values[m], released[m], group, left_out);
        wrong += errors[m].wrong;
      }
      if (wrong < best_wrong) {
        best_wrong = wrong;
        best = std::move(errors);
      }
      if (wrong == 0) break;
      // The next combination of levels (an odometer), or stop.
      std::size_t g = 0;
      while (g < level.size() && ++level[g] == heights_of[generalized[g / passes]]) level[g++] = 0;
      if (g == level.size()) break;
    }
    for (std::size_t m = 0; m < micro.size(); ++m)
      if (!best.empty() && best[m].wrong)
        add(Kind::wrong_aggregate, micro[m].name, best[m].first_row + 1, best[m].wrong,
            "column " + quote(micro[m].name) + ": " + std::to_string(best[m].wrong) +
                " record(s) do not show their class's " + micro[m].function + "; the first at data row " +
                std::to_string(best[m].first_row + 1) + ": " + best[m].why);
  }
}

}  // namespace verify
