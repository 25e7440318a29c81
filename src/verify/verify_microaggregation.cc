#include "verify_microaggregation.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>

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

}  // namespace verify
