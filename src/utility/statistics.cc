#include "utility/statistics.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>

namespace deid::utility {

std::optional<double> read_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // from_chars also takes "inf" and "nan"; a number here starts with a
  // digit, a sign or a point.
  const char c = text.front();
  if (!(c == '-' || c == '.' || (c >= '0' && c <= '9'))) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> read_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  auto field = [&](std::size_t at, std::size_t n) -> std::optional<int> {
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data() + at, text.data() + at + n, v);
    if (ec != std::errc{} || end != text.data() + at + n || text[at] == '-' || text[at] == '+') return std::nullopt;
    return v;
  };
  const auto y = field(0, 4), m = field(5, 2), d = field(8, 2);
  if (!y || !m || !d) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{*y}, std::chrono::month{static_cast<unsigned>(*m)},
                                        std::chrono::day{static_cast<unsigned>(*d)}};
  if (!ymd.ok()) return std::nullopt;
  return static_cast<double>(std::chrono::sys_days{ymd}.time_since_epoch().count());
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// "[a, b)", "[a, b[", "[a, b]", "(a, b]", "(a, b)": the midpoint.
std::optional<double> bracket_midpoint(std::string_view s) {
  if (s.size() < 5 || (s.front() != '[' && s.front() != '(')) return std::nullopt;
  const char close = s.back();
  if (close != ')' && close != ']' && close != '[') return std::nullopt;
  const std::string_view inner = s.substr(1, s.size() - 2);
  const auto comma = inner.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const auto a = read_number(trim(inner.substr(0, comma)));
  const auto b = read_number(trim(inner.substr(comma + 1)));
  if (!a || !b || *a > *b) return std::nullopt;
  return (*a + *b) / 2;
}

// "a-b" (both numbers, a <= b; a may be negative: "-10--1"): the midpoint.
std::optional<double> dash_midpoint(std::string_view s) {
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] != '-' || !((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == '.')) continue;
    const auto a = read_number(s.substr(0, i));
    const auto b = read_number(s.substr(i + 1));
    if (a && b && *a <= *b) return (*a + *b) / 2;
    return std::nullopt;
  }
  return std::nullopt;
}

// Counts as shares; all zeros when the total is 0.
std::vector<double> shares(std::span<const std::uint64_t> counts) {
  std::uint64_t total = 0;
  for (std::uint64_t n : counts) total += n;
  std::vector<double> p(counts.size(), 0.0);
  if (total == 0) return p;
  for (std::size_t i = 0; i < counts.size(); ++i) p[i] = static_cast<double>(counts[i]) / static_cast<double>(total);
  return p;
}

}  // namespace

std::optional<double> read_back(std::string_view label, bool date) {
  if (date) return read_date(label);
  if (auto v = read_number(label)) return v;
  if (auto v = bracket_midpoint(label)) return v;
  return dash_midpoint(label);
}

double total_variation(std::span<const std::uint64_t> before, std::span<const std::uint64_t> after) {
  const std::vector<double> p = shares(before), q = shares(after);
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) sum += std::abs(p[i] - q[i]);
  return sum / 2;
}

double jensen_shannon(std::span<const std::uint64_t> before, std::span<const std::uint64_t> after) {
  const std::vector<double> p = shares(before), q = shares(after);
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double m = (p[i] + q[i]) / 2;
    if (p[i] > 0) sum += p[i] * std::log2(p[i] / m);
    if (q[i] > 0) sum += q[i] * std::log2(q[i] / m);
  }
  return std::clamp(sum / 2, 0.0, 1.0);
}

NumericSummary summarize(std::vector<std::pair<double, std::uint64_t>> values, std::uint64_t missing) {
  NumericSummary s;
  s.missing = missing;
  std::sort(values.begin(), values.end());
  for (const auto& [x, w] : values) s.count += w;
  if (s.count == 0) return s;
  const double n = static_cast<double>(s.count);
  // Sums in ascending order of value: the same for any thread count.
  double sum = 0;
  for (const auto& [x, w] : values) sum += x * static_cast<double>(w);
  const double mean = sum / n;
  double m2 = 0, m3 = 0, m4 = 0;
  for (const auto& [x, w] : values) {
    const double d = x - mean, d2 = d * d, fw = static_cast<double>(w);
    m2 += fw * d2;
    m3 += fw * d2 * d;
    m4 += fw * d2 * d2;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  s.mean = mean;
  s.sd = std::sqrt(m2);
  s.min = values.front().first;
  s.max = values.back().first;
  if (m2 > 0) {
    s.skewness = m3 / std::pow(m2, 1.5);
    s.kurtosis = m4 / (m2 * m2) - 3;
  }
  // R's type 7: h = (n - 1) p, x(floor h) + (h - floor h) (x(floor h + 1) - x(floor h)),
  // x(k) the k-th smallest value counted from 0.
  auto order_statistic = [&](std::uint64_t k) {
    std::uint64_t below = 0;
    for (const auto& [x, w] : values) {
      below += w;
      if (k < below) return x;
    }
    return values.back().first;
  };
  auto quantile = [&](double p) {
    const double h = static_cast<double>(s.count - 1) * p;
    const auto lo = static_cast<std::uint64_t>(std::floor(h));
    const double frac = h - static_cast<double>(lo);
    const double a = order_statistic(lo);
    return frac > 0 ? a + frac * (order_statistic(lo + 1) - a) : a;
  };
  s.q1 = quantile(0.25);
  s.median = quantile(0.5);
  s.q3 = quantile(0.75);
  return s;
}

std::optional<double> cramers_v(std::vector<Cell> cells, std::uint32_t rows, std::uint32_t cols) {
  // Merge repeated cells, in (row, col) order so that the sum below runs in
  // a fixed order.
  std::sort(cells.begin(), cells.end(),
            [](const Cell& a, const Cell& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  std::vector<std::uint64_t> row_total(rows, 0), col_total(cols, 0);
  std::size_t merged = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].count == 0) continue;
    if (merged > 0 && cells[merged - 1].row == cells[i].row && cells[merged - 1].col == cells[i].col)
      cells[merged - 1].count += cells[i].count;
    else
      cells[merged++] = cells[i];
    row_total[cells[i].row] += cells[i].count;
    col_total[cells[i].col] += cells[i].count;
  }
  cells.resize(merged);
  const auto r = static_cast<std::uint64_t>(std::count_if(row_total.begin(), row_total.end(), [](auto v) { return v > 0; }));
  const auto c = static_cast<std::uint64_t>(std::count_if(col_total.begin(), col_total.end(), [](auto v) { return v > 0; }));
  if (std::min(r, c) < 2) return std::nullopt;
  // chi2 / n = sum n_ij^2 / (n_i. n_.j) - 1.
  double sum = 0;
  for (const Cell& cell : cells) {
    const double x = static_cast<double>(cell.count);
    sum += x / static_cast<double>(row_total[cell.row]) * (x / static_cast<double>(col_total[cell.col]));
  }
  const double phi2 = std::max(0.0, sum - 1);
  return std::sqrt(phi2 / static_cast<double>(std::min(r, c) - 1));
}

}  // namespace deid::utility
