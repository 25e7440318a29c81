// Pairing of released rows with input rows by their values (pairing.h).
#include "pairing.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

namespace verify {
namespace {

constexpr std::size_t kMaxCombinations = 64;
// At most this many comparisons of an unexplained row with a row left over.
constexpr std::size_t kMaxComparisons = std::size_t{1} << 26;

// Appends `v` length-prefixed, so that no two tuples share a key.
void append_field(std::string& key, std::string_view v) {
  key += std::to_string(v.size());
  key.push_back(':');
  key.append(v);
}

struct Column {
  std::size_t in = 0, out = 0;  // its index in the input and in the output
};

// A quasi-identifier's hierarchy as value -> row, with the levels to try.
struct Qi {
  Column column;
  std::unordered_map<std::string_view, const std::vector<std::string>*> rows;
  std::vector<int> levels;  // the candidates, best first
};

std::string_view at_level(const std::vector<std::string>& row, int level) {
  return static_cast<std::size_t>(level) < row.size() ? std::string_view(row[level]) : std::string_view(row.back());
}

std::optional<std::size_t> find_column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header.begin());
}

// The candidate levels of `qi`: those within its bounds that leave the
// fewest output values of records not starred unexplained, lowest first.
std::vector<int> candidate_levels(const QuasiIdentifier& spec, const Qi& qi, const Table& input, const Table& output,
                                  const std::vector<bool>& starred) {
  std::size_t depth = 0;
  for (const auto& [value, row] : qi.rows) depth = std::max(depth, row->size());
  if (depth == 0) return {0};
  std::unordered_map<std::string_view, std::uint64_t> in_counts, out_counts;
  for (const auto& row : input.rows) ++in_counts[row[qi.column.in]];
  for (std::size_t r = 0; r < output.rows.size(); ++r)
    if (!starred[r]) ++out_counts[output.rows[r][qi.column.out]];
  const int top = static_cast<int>(depth) - 1;
  int lo = std::clamp(spec.min_level, 0, top), hi = std::clamp(spec.max_level.value_or(top), 0, top);
  if (lo > hi) lo = 0, hi = top;
  std::vector<std::pair<std::uint64_t, int>> scored;
  for (int l = lo; l <= hi; ++l) {
    std::unordered_map<std::string_view, std::uint64_t> generalized;
    for (const auto& [value, n] : in_counts) {
      const auto it = qi.rows.find(value);
      if (it != qi.rows.end()) generalized[at_level(*it->second, l)] += n;
    }
    std::uint64_t left_over = 0;
    for (const auto& [value, n] : out_counts) {
      const auto it = generalized.find(value);
      const std::uint64_t have = it == generalized.end() ? 0 : it->second;
      if (n > have) left_over += n - have;
    }
    scored.emplace_back(left_over, l);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<int> out;
  for (const auto& [left_over, l] : scored)
    if (left_over == scored.front().first) out.push_back(l);
  return out;
}

// Steps 2 to 4 of pairing.h with one level per quasi-identifier.
Pairing pair_with(const std::vector<Qi>& qis, const std::vector<int>& levels, const std::vector<Column>& copied,
                  const Table& input, const Table& output, const std::vector<bool>& starred) {
  const std::size_t n = input.rows.size();
  auto copied_key = [&](const std::vector<std::string>& row, bool from_input) {
    std::string key;
    for (const Column& c : copied) append_field(key, row[from_input ? c.in : c.out]);
    return key;
  };
  // Input rows by their full key (copied columns, then the quasi-identifiers
  // generalized) and by their copied columns, each list in input order.
  std::unordered_map<std::string, std::vector<std::size_t>> by_key, by_copied;
  std::vector<std::string> copied_of(n);
  for (std::size_t r = 0; r < n; ++r) {
    const auto& row = input.rows[r];
    copied_of[r] = copied_key(row, true);
    std::string key = copied_of[r];
    bool known = true;
    for (std::size_t q = 0; q < qis.size() && known; ++q) {
      const auto it = qis[q].rows.find(row[qis[q].column.in]);
      if (it == qis[q].rows.end()) known = false;
      else append_field(key, at_level(*it->second, levels[q]));
    }
    if (known) by_key[key].push_back(r);
  }
  std::unordered_map<std::string, std::size_t> key_next;
  std::vector<bool> taken(n, false);
  Pairing p;
  p.input_row.assign(n, n);
  for (std::size_t o = 0; o < n; ++o) {
    if (starred[o]) continue;
    const auto& row = output.rows[o];
    std::string key = copied_key(row, false);
    for (const Qi& qi : qis) append_field(key, row[qi.column.out]);
    const auto it = by_key.find(key);
    if (it == by_key.end()) continue;
    std::size_t& next = key_next[key];
    if (next == it->second.size()) continue;
    const std::size_t r = it->second[next++];
    p.input_row[o] = r;
    taken[r] = true;
  }
  // An output row not starred that no input row explains (a cell changed):
  // paired with the input row left over, of equal copied columns, whose
  // quasi-identifiers generalize to the most of its values, so that the
  // checks name the cell that differs (not a row that a suppressed record
  // would otherwise have taken). Bounded: a table changed throughout is
  // paired in order below.
  std::vector<std::size_t> unexplained, left;
  for (std::size_t o = 0; o < n; ++o)
    if (!starred[o] && p.input_row[o] == n) unexplained.push_back(o);
  for (std::size_t r = 0; r < n; ++r)
    if (!taken[r]) left.push_back(r);
  if (!unexplained.empty() && unexplained.size() * left.size() <= kMaxComparisons) {
    for (const std::size_t o : unexplained) {
      const auto& row = output.rows[o];
      const std::string key = copied_key(row, false);
      std::size_t best = n, best_equal = 0;
      for (const std::size_t r : left) {
        if (taken[r] || copied_of[r] != key) continue;
        std::size_t equal = 0;
        for (std::size_t q = 0; q < qis.size(); ++q) {
          const auto it = qis[q].rows.find(input.rows[r][qis[q].column.in]);
          if (it != qis[q].rows.end() && at_level(*it->second, levels[q]) == row[qis[q].column.out]) ++equal;
        }
        if (best == n || equal > best_equal) best = r, best_equal = equal;
      }
      if (best == n) continue;
      p.input_row[o] = best;
      taken[best] = true;
      ++p.unexplained;
    }
  }
  for (std::size_t r = 0; r < n; ++r)
    if (!taken[r]) by_copied[copied_of[r]].push_back(r);
  std::unordered_map<std::string, std::size_t> copied_next;
  for (std::size_t o = 0; o < n; ++o) {
    if (!starred[o]) continue;
    const std::string key = copied_key(output.rows[o], false);
    const auto it = by_copied.find(key);
    if (it == by_copied.end()) continue;
    std::size_t& next = copied_next[key];
    if (next == it->second.size()) continue;
    const std::size_t r = it->second[next++];
    p.input_row[o] = r;
    taken[r] = true;
  }
  std::size_t free_row = 0;
  for (std::size_t o = 0; o < n; ++o) {
    if (p.input_row[o] != n) continue;
    while (taken[free_row]) ++free_row;
    p.input_row[o] = free_row;
    taken[free_row] = true;
    ++p.unexplained;
  }
  return p;
}

}  // namespace

std::optional<Pairing> pair_rows(const Options& options, const Table& input, const Table& output,
                                 const std::vector<Table>& hierarchies) {
  if (input.rows.size() != output.rows.size() || hierarchies.size() != options.quasi_identifiers.size())
    return std::nullopt;
  std::vector<std::string> skipped;  // columns not compared: microaggregated
  for (const auto& m : options.microaggregated) skipped.push_back(m.name);
  std::vector<Qi> qis;
  for (std::size_t q = 0; q < options.quasi_identifiers.size(); ++q) {
    const auto in = find_column(input.header, options.quasi_identifiers[q].name);
    const auto out = find_column(output.header, options.quasi_identifiers[q].name);
    if (!in || !out) return std::nullopt;
    Qi& qi = qis.emplace_back();
    qi.column = {*in, *out};
    for (const auto& row : hierarchies[q].rows)
      if (!row.empty()) qi.rows.emplace(row.front(), &row);
    skipped.push_back(options.quasi_identifiers[q].name);
  }
  std::vector<Column> copied;
  std::vector<std::size_t> marked;  // output columns that are '*' in a suppressed record
  for (std::size_t c = 0; c < output.header.size(); ++c) {
    const auto in = find_column(input.header, output.header[c]);
    if (!in) return std::nullopt;
    // A released identifier (pseudonym, mask, shifted date) pairs nothing.
    if (std::any_of(options.released_identifiers.begin(), options.released_identifiers.end(),
                    [&](const ReleasedIdentifier& r) { return r.name == output.header[c]; }))
      continue;
    if (std::find(skipped.begin(), skipped.end(), output.header[c]) == skipped.end()) copied.push_back({*in, c});
    else marked.push_back(c);
  }
  for (const auto& row : input.rows)
    if (row.size() != input.header.size()) return std::nullopt;
  for (const auto& row : output.rows)
    if (row.size() != output.header.size()) return std::nullopt;
  std::vector<bool> starred(output.rows.size(), false);
  if (!marked.empty())
    for (std::size_t o = 0; o < output.rows.size(); ++o)
      starred[o] = std::all_of(marked.begin(), marked.end(), [&](std::size_t c) { return output.rows[o][c] == "*"; });
  for (std::size_t q = 0; q < qis.size(); ++q)
    qis[q].levels = candidate_levels(options.quasi_identifiers[q], qis[q], input, output, starred);

  // The combinations of candidate levels, in order, until one pairs every row.
  std::vector<std::size_t> choice(qis.size(), 0);
  std::optional<Pairing> best;
  for (std::size_t tried = 0; tried < kMaxCombinations; ++tried) {
    std::vector<int> levels;
    for (std::size_t q = 0; q < qis.size(); ++q) levels.push_back(qis[q].levels[choice[q]]);
    Pairing p = pair_with(qis, levels, copied, input, output, starred);
    if (!best || p.unexplained < best->unexplained) best = std::move(p);
    if (best->unexplained == 0) break;
    std::size_t q = 0;  // the next combination, the last quasi-identifier fastest
    for (q = qis.size(); q-- > 0;) {
      if (++choice[q] < qis[q].levels.size()) break;
      choice[q] = 0;
    }
    if (q == static_cast<std::size_t>(-1)) break;
  }
  return best;
}

Table in_input_order(const Table& output, const Pairing& pairing) {
  Table t;
  t.header = output.header;
  t.rows.resize(output.rows.size());
  for (std::size_t o = 0; o < output.rows.size(); ++o) t.rows[pairing.input_row[o]] = output.rows[o];
  if (output.lines.size() == output.rows.size()) {
    t.lines.resize(output.lines.size());
    for (std::size_t o = 0; o < output.rows.size(); ++o) t.lines[pairing.input_row[o]] = output.lines[o];
  }
  return t;
}

}  // namespace verify
