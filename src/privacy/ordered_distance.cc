#include "privacy/ordered_distance.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <numeric>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "deid/error.h"

namespace deid {

void FibonacciTable::reset(std::size_t keys) {
  // Capacity: a power of two with at least two slots per key.
  const std::size_t capacity = std::max<std::size_t>(8, std::bit_ceil(2 * keys));
  const int bits = std::countr_zero(capacity);
  shift_ = 64 - bits;
  mask_ = capacity - 1;
  slots_.assign(capacity, Slot{kEmpty, 0.0});
}

OrderedDistance::OrderedDistance(std::vector<std::uint64_t> reference_counts, std::vector<std::uint32_t> rank,
                                 double t, OrderedDistanceOptions options)
    : rank_(std::move(rank)), t_(t), options_(options) {
  const std::size_t m = reference_counts.size();
  std::uint64_t rows = 0;
  for (auto c : reference_counts) rows += c;
  // q as ARX computes it: count / rows, in double.
  q_.assign(m, 0.0);
  for (std::size_t code = 0; code < m; ++code)
    q_[rank_[code]] = static_cast<double>(reference_counts[code]) / static_cast<double>(rows);
  threshold_ = t_ * (static_cast<double>(m) - 1.0);

  // Prefix sums of the summands of a class that lacks ranks 0..k
  // (papers/004, optimizations 2 and 3). Computed for every k, so that
  // summand pruning also works with check pruning switched off.
  base_sum_.resize(m);
  base_distance_.resize(m);
  min_rank_ = m;
  double sum = 0.0, distance = 0.0;
  for (std::size_t k = 0; k < m; ++k) {
    // The walk adds (p - q) with p = 0; 0.0 - q == -q exactly, so these are
    // the very values the plain walk reaches.
    sum += 0.0 - q_[k];
    distance += std::fabs(sum);
    base_sum_[k] = sum;
    base_distance_[k] = distance;
    if (min_rank_ == m && distance > threshold_) min_rank_ = k;
  }
}

template <class Table>
bool OrderedDistance::within_with(const Table& table, std::size_t y) const {
  const std::size_t m = q_.size();
  // Optimization 2: the class lacks ranks 0..y-1; if the precomputed sum of
  // those summands already exceeds t(m-1) at x = min_rank_ < y, stop.
  if (options_.check_pruning && y > min_rank_) return false;
  double sum = 0.0, distance = 0.0;
  std::size_t start = 0;
  // Optimization 3: start the walk at y from the precomputed partial sums.
  if (options_.summand_pruning && y > 0) {
    sum = base_sum_[y - 1];
    distance = base_distance_[y - 1];
    start = y;
  }
  for (std::size_t i = start; i < m; ++i) {
    sum += table.get(static_cast<std::uint32_t>(i)) - q_[i];
    distance += std::fabs(sum);
    if (distance > threshold_) return false;  // the sum only grows
  }
  return true;
}

namespace {

// The general-purpose table of the plain check.
struct GeneralTable {
  absl::flat_hash_map<std::uint32_t, double> map;
  double get(std::uint32_t key) const {
    auto it = map.find(key);
    return it == map.end() ? 0.0 : it->second;
  }
};

}  // namespace

bool OrderedDistance::within(const ClassView::Distribution& cls, std::uint64_t count) const {
  const double n = static_cast<double>(count);
  std::size_t y = q_.size();
  if (options_.fibonacci_table) {
    thread_local FibonacciTable table;
    table.reset(cls.codes.size());
    for (std::size_t i = 0; i < cls.codes.size(); ++i) {
      const std::uint32_t r = rank_[cls.codes[i]];
      table.insert(r, static_cast<double>(cls.counts[i]) / n);
      y = std::min<std::size_t>(y, r);
    }
    return within_with(table, y);
  }
  thread_local GeneralTable table;
  table.map.clear();
  table.map.reserve(cls.codes.size());
  for (std::size_t i = 0; i < cls.codes.size(); ++i) {
    const std::uint32_t r = rank_[cls.codes[i]];
    table.map.emplace(r, static_cast<double>(cls.counts[i]) / n);
    y = std::min<std::size_t>(y, r);
  }
  return within_with(table, y);
}

double OrderedDistance::distance(const ClassView::Distribution& cls, std::uint64_t count) const {
  const std::size_t m = q_.size();
  if (m <= 1) return 0.0;
  std::vector<double> p(m, 0.0);
  for (std::size_t i = 0; i < cls.codes.size(); ++i)
    p[rank_[cls.codes[i]]] = static_cast<double>(cls.counts[i]) / static_cast<double>(count);
  double sum = 0.0, distance = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    sum += p[i] - q_[i];
    distance += std::fabs(sum);
  }
  return distance / (static_cast<double>(m) - 1.0);
}

namespace {

// A finite number spelled in full by `s` (leading and trailing blanks
// allowed), or nullopt.
std::optional<double> parse_number(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::vector<std::uint32_t> ordered_ranks(const SensitiveAttribute& attribute) {
  const Column& col = *attribute.data;
  const std::uint32_t m = col.dictionary.size();
  std::vector<std::uint32_t> by_rank(m);  // rank → code
  std::iota(by_rank.begin(), by_rank.end(), 0u);

  // Numbers in numeric order (ARX orders by the attribute's data type; for
  // numbers that is numeric order). Ties (e.g. "1" and "1.0") keep the order
  // of first occurrence.
  std::vector<double> numbers(m);
  std::int64_t not_number = -1;
  for (std::uint32_t c = 0; c < m && not_number < 0; ++c) {
    if (auto v = parse_number(col.dictionary.value(c)))
      numbers[c] = *v;
    else
      not_number = c;
  }
  if (not_number < 0) {
    std::stable_sort(by_rank.begin(), by_rank.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return numbers[a] < numbers[b]; });
  } else if (!attribute.order.empty()) {
    std::unordered_map<std::string, std::uint32_t> position;
    for (std::size_t i = 0; i < attribute.order.size(); ++i) {
      if (!position.emplace(attribute.order[i], static_cast<std::uint32_t>(i)).second)
        throw JobError(Location{},
                       fmt::format("attribute '{}': value '{}' is listed twice in 'order'", attribute.name,
                                   attribute.order[i]));
    }
    std::vector<std::uint32_t> pos(m);
    for (std::uint32_t c = 0; c < m; ++c) {
      auto it = position.find(col.dictionary.value(c));
      if (it == position.end())
        throw JobError(Location{{}, first_line_of(col, c), 0, attribute.name},
                       fmt::format("attribute '{}': value '{}'{} is not in the declared 'order'; "
                                   "t-closeness with ordered distance needs every value of the data ranked",
                                   attribute.name, col.dictionary.value(c), data_line_note(first_line_of(col, c))));
      pos[c] = it->second;
    }
    std::sort(by_rank.begin(), by_rank.end(), [&](std::uint32_t a, std::uint32_t b) { return pos[a] < pos[b]; });
  } else {
    const auto c = static_cast<std::uint32_t>(not_number);
    throw JobError(Location{{}, first_line_of(col, c), 0, attribute.name},
                   fmt::format("t-closeness with ordered distance on '{}': value '{}'{} is not a number; "
                               "declare the order of the values with attributes.{}.order",
                               attribute.name, col.dictionary.value(c), data_line_note(first_line_of(col, c)),
                               attribute.name));
  }
  std::vector<std::uint32_t> rank(m);
  for (std::uint32_t r = 0; r < m; ++r) rank[by_rank[r]] = r;
  return rank;
}

}  // namespace deid
