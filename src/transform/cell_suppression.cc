// The combinations suppression algorithm of papers/003 (Figure 4), on
// dictionary codes. See include/deid/cell_suppression.h for the contract
// and docs/cell-suppression.md for the design.

#include "deid/cell_suppression.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <string>

namespace deid {

std::uint64_t k_for_threshold(double tau) {
  if (!(tau > 0) || tau > 1) throw std::invalid_argument("tau must be in (0, 1]");
  // ceil(1/tau) computed in floating point can be one too high when 1/tau
  // is an integer that is not exact in binary; step down while 1/(k-1)
  // still meets the threshold.
  auto k = static_cast<std::uint64_t>(std::ceil(1.0 / tau));
  while (k > 1 && 1.0 / static_cast<double>(k - 1) <= tau * (1 + 1e-12)) --k;
  while (1.0 / static_cast<double>(k) > tau * (1 + 1e-12)) ++k;
  return k;
}

int CellTable::column_index(const std::string& name) const {
  for (std::size_t c = 0; c < names.size(); ++c)
    if (names[c] == name) return static_cast<int>(c);
  return -1;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// How the tuple of a combination becomes a hash key. Packed: each column's
// code (the suppressed marker mapped to `cardinality`) in its own bit
// field of a uint64_t; the common case (the discharge file needs 41 bits).
// Wide: the codes as bytes of a string, for combinations that do not fit.
struct KeyLayout {
  std::vector<std::size_t> columns;
  std::vector<std::uint32_t> cardinality;
  std::vector<unsigned> shift;
  bool packed = true;

  KeyLayout(const CellTable& t, std::span<const std::size_t> cols, bool force_wide)
      : columns(cols.begin(), cols.end()) {
    unsigned bits = 0;
    for (std::size_t c : columns) {
      const std::uint32_t card = t.cardinality[c];
      cardinality.push_back(card);
      shift.push_back(bits);
      bits += static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(card)));  // codes 0..card
    }
    packed = !force_wide && bits <= 64;
  }
};

struct PackedKey {
  using Type = std::uint64_t;
  static Type make(const KeyLayout& l, const std::uint32_t* tuple) {
    Type k = 0;
    for (std::size_t p = 0; p < l.columns.size(); ++p) {
      const std::uint32_t v = tuple[p] == kSuppressedCell ? l.cardinality[p] : tuple[p];
      k |= static_cast<Type>(v) << l.shift[p];
    }
    return k;
  }
};

struct WideKey {
  using Type = std::string;
  static Type make(const KeyLayout& l, const std::uint32_t* tuple) {
    return std::string(reinterpret_cast<const char*>(tuple), l.columns.size() * sizeof(std::uint32_t));
  }
};

// The classes of one combination, with the index from tuple to class that
// lets moles find the class they move into.
template <class K>
struct Classes {
  const KeyLayout& layout;
  absl::flat_hash_map<typename K::Type, std::uint32_t> index;
  std::vector<std::uint32_t> row_class;
  std::vector<std::uint32_t> size;
  std::vector<std::uint64_t> rep;  // a row of the class: every row of a class has the class's tuple

  Classes(const CellTable& t, const KeyLayout& l) : layout(l) {
    const std::size_t w = l.columns.size();
    std::vector<std::uint32_t> tuple(w);
    row_class.resize(t.rows);
    std::vector<const std::uint32_t*> col(w);
    for (std::size_t p = 0; p < w; ++p) col[p] = t.codes[l.columns[p]].data();
    for (std::uint64_t r = 0; r < t.rows; ++r) {
      for (std::size_t p = 0; p < w; ++p) tuple[p] = col[p][r];
      const auto [it, inserted] = index.try_emplace(K::make(l, tuple.data()), static_cast<std::uint32_t>(size.size()));
      if (inserted) {
        size.push_back(0);
        rep.push_back(r);
      }
      row_class[r] = it->second;
      ++size[it->second];
    }
  }

  std::uint32_t find_or_add(const std::uint32_t* tuple, std::uint64_t row_if_new) {
    const auto [it, inserted] = index.try_emplace(K::make(layout, tuple), static_cast<std::uint32_t>(size.size()));
    if (inserted) {
      size.push_back(0);
      rep.push_back(row_if_new);
    }
    return it->second;
  }
};

// The state shared by both phases: the table, supports per column and
// value, and the transitively closed propagation lists.
class Suppressor {
 public:
  Suppressor(CellTable& t, const CellSuppressionSpec& spec, CellSuppressionStats& stats)
      : t_(t), spec_(spec), stats_(stats) {
    const std::size_t nc = t.columns();
    weights_ = spec.weights.empty() ? std::vector<double>(nc, 1.0) : spec.weights;
    support_.resize(nc);
    for (std::size_t c = 0; c < nc; ++c) {
      support_[c].assign(t.cardinality[c], 0);
      for (std::uint32_t v : t.codes[c])
        if (v != kSuppressedCell) ++support_[c][v];
    }
    // Transitive closure of the propagation lists (small: a handful of
    // levels per attribute), by a depth-first walk from each column.
    propagate_.resize(nc);
    for (std::size_t c = 0; c < nc; ++c) {
      std::vector<bool> seen(nc, false);
      std::vector<std::size_t> stack = {c};
      seen[c] = true;
      while (!stack.empty()) {
        const std::size_t x = stack.back();
        stack.pop_back();
        if (x < spec.propagate.size())
          for (std::size_t y : spec.propagate[x])
            if (!seen[y]) {
              seen[y] = true;
              propagate_[c].push_back(y);
              stack.push_back(y);
            }
      }
      std::sort(propagate_[c].begin(), propagate_[c].end());
    }
  }

  // Suppresses cell (c, r), which holds a value, and the cells it
  // propagates to; `on_propagated(column, old value)` is told of each
  // propagated cell. Returns nothing: the counts go to the stats.
  template <class F>
  void suppress(std::size_t c, std::uint64_t r, F&& on_propagated) {
    std::uint32_t& cell = t_.codes[c][r];
    --support_[c][cell];
    cell = kSuppressedCell;
    for (std::size_t x : propagate_[c]) {
      std::uint32_t& other = t_.codes[x][r];
      if (other == kSuppressedCell) continue;
      --support_[x][other];
      on_propagated(x, other);
      other = kSuppressedCell;
      ++stats_.propagated_cells;
    }
  }

  // Phase 1: values of support below k in every column of a combination,
  // repeated until propagation leaves no such value.
  void phase1() {
    std::vector<bool> in_combination(t_.columns(), false);
    for (const auto& b : spec_.combinations)
      for (std::size_t c : b) in_combination[c] = true;
    bool changed = true;
    while (changed) {
      changed = false;
      for (std::size_t c = 0; c < t_.columns(); ++c) {
        if (!in_combination[c]) continue;
        std::vector<bool> rare(t_.cardinality[c], false);
        std::vector<std::size_t> pass_of(t_.cardinality[c], 0);
        bool any = false;
        for (std::uint32_t v = 0; v < t_.cardinality[c]; ++v) {
          const std::uint64_t s = support_[c][v];
          if (s > 0 && s < spec_.k) {
            rare[v] = true;
            any = true;
            if (spec_.trace) {
              pass_of[v] = stats_.passes.size();
              SuppressionPass p;
              p.phase = 1;
              p.column = c;
              p.value = v;
              p.support = s;
              p.weighted_support = static_cast<double>(s) * weights_[c];
              stats_.passes.push_back(p);
            }
          }
        }
        if (!any) continue;
        changed = true;
        auto& codes = t_.codes[c];
        for (std::uint64_t r = 0; r < t_.rows; ++r) {
          const std::uint32_t v = codes[r];
          if (v == kSuppressedCell || !rare[v]) continue;
          suppress(c, r, [](std::size_t, std::uint32_t) {});
          ++stats_.phase1_cells;
          if (spec_.trace) ++stats_.passes[pass_of[v]].cells;
        }
      }
    }
  }

  // Number of moles of combination `b` in the current table.
  template <class K>
  std::uint64_t count_moles(const KeyLayout& layout) const {
    Classes<K> cls(t_, layout);
    std::uint64_t moles = 0;
    for (std::size_t m = 0; m < cls.size.size(); ++m)
      if (is_mole(cls, static_cast<std::uint32_t>(m))) ++moles;
    return moles;
  }

  std::uint64_t count_moles(std::size_t b) const {
    const KeyLayout layout(t_, spec_.combinations[b], spec_.force_wide_keys);
    return layout.packed ? count_moles<PackedKey>(layout) : count_moles<WideKey>(layout);
  }

  void phase2(std::size_t b, std::size_t round) {
    const KeyLayout layout(t_, spec_.combinations[b], spec_.force_wide_keys);
    if (layout.packed)
      phase2<PackedKey>(layout, b, round);
    else
      phase2<WideKey>(layout, b, round);
  }

 private:
  template <class K>
  bool exempt(const Classes<K>& cls, std::uint32_t m) const {
    for (std::size_t c : cls.layout.columns)
      if (t_.codes[c][cls.rep[m]] != kSuppressedCell) return false;
    return true;
  }

  template <class K>
  bool is_mole(const Classes<K>& cls, std::uint32_t m) const {
    return cls.size[m] > 0 && cls.size[m] < spec_.k && !exempt(cls, m);
  }

  double wsup(std::size_t c, std::uint32_t v) const { return static_cast<double>(support_[c][v]) * weights_[c]; }

  // Phase 2 on one combination (papers/003 Figure 4, steps 2.3-2.7).
  template <class K>
  void phase2(const KeyLayout& layout, std::size_t b, std::size_t round) {
    const std::vector<std::size_t>& cols = layout.columns;
    const std::size_t w = cols.size();
    Classes<K> cls(t_, layout);

    // How many moles hold each value, per position in the combination.
    std::vector<std::vector<std::uint32_t>> held(w);
    for (std::size_t p = 0; p < w; ++p) held[p].assign(t_.cardinality[cols[p]], 0);
    bool any_mole = false;
    for (std::uint32_t m = 0; m < cls.size.size(); ++m) {
      if (!is_mole(cls, m)) continue;
      any_mole = true;
      for (std::size_t p = 0; p < w; ++p) {
        const std::uint32_t v = t_.codes[cols[p]][cls.rep[m]];
        if (v != kSuppressedCell) ++held[p][v];
      }
    }
    if (!any_mole) return;

    std::vector<int> position(t_.columns(), -1);
    for (std::size_t p = 0; p < w; ++p) position[cols[p]] = static_cast<int>(p);

    // Posting lists: per position, the rows holding each value (the
    // paper's "index information about the records with each support
    // value"), by a counting sort. Entries go stale when a cell is
    // suppressed; readers skip them.
    std::vector<std::vector<std::uint64_t>> offsets(w);
    std::vector<std::vector<std::uint32_t>> postings(w);
    for (std::size_t p = 0; p < w; ++p) {
      const auto& codes = t_.codes[cols[p]];
      auto& off = offsets[p];
      off.assign(static_cast<std::size_t>(t_.cardinality[cols[p]]) + 1, 0);
      for (std::uint32_t v : codes)
        if (v != kSuppressedCell) ++off[v + 1];
      for (std::size_t i = 1; i < off.size(); ++i) off[i] += off[i - 1];
      postings[p].resize(off.back());
      std::vector<std::uint64_t> fill(off.begin(), off.end() - 1);
      for (std::uint64_t r = 0; r < t_.rows; ++r)
        if (codes[r] != kSuppressedCell) postings[p][fill[codes[r]]++] = static_cast<std::uint32_t>(r);
    }

    // Candidates: values held by a mole, smallest weighted support first;
    // ties by position, then code. Entries are refreshed (pushed again)
    // when a value's support drops; an entry whose weighted support is
    // out of date, or whose value no mole holds any more, is skipped.
    struct Entry {
      double wsup;
      std::uint32_t position;
      std::uint32_t value;
      bool operator>(const Entry& o) const {
        if (wsup != o.wsup) return wsup > o.wsup;
        if (position != o.position) return position > o.position;
        return value > o.value;
      }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (std::size_t p = 0; p < w; ++p)
      for (std::uint32_t v = 0; v < held[p].size(); ++v)
        if (held[p][v] > 0) heap.push({wsup(cols[p], v), static_cast<std::uint32_t>(p), v});

    // Per-class scratch, valid when stamp == the pass number.
    std::vector<std::uint64_t> stamp(cls.size.size(), 0);
    std::vector<std::uint32_t> dest_of(cls.size.size(), 0);
    std::vector<std::uint32_t> prev_size(cls.size.size(), 0);
    std::uint64_t pass_no = 0;
    std::vector<std::uint32_t> tuple(w);
    std::vector<std::uint32_t> dests;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> refreshed;  // (position, value)

    while (!heap.empty()) {
      const Entry e = heap.top();
      heap.pop();
      const std::size_t p = e.position;
      const std::uint32_t v = e.value;
      const std::size_t c = cols[p];
      if (held[p][v] == 0 || e.wsup != wsup(c, v)) continue;

      ++pass_no;
      SuppressionPass pass;
      pass.phase = 2;
      pass.round = round;
      pass.combination = b;
      pass.column = c;
      pass.value = v;
      pass.support = support_[c][v];
      pass.weighted_support = e.wsup;
      dests.clear();
      refreshed.clear();
      auto note = [&](std::size_t column, std::uint32_t value) {
        if (position[column] >= 0) refreshed.emplace_back(static_cast<std::uint32_t>(position[column]), value);
      };

      // Every mole holding v moves, as a whole, into the class of its tuple
      // with v (and what v propagates to) suppressed. A class holding v is
      // decided on at its first row, before any of its rows moved: classes
      // receiving rows hold the marker at p, so no class both gives and
      // receives here.
      std::vector<std::uint32_t>& grow = cls.size;
      for (std::uint64_t i = offsets[p][v]; i < offsets[p][v + 1]; ++i) {
        const std::uint64_t r = postings[p][i];
        if (t_.codes[c][r] != v) continue;
        const std::uint32_t m = cls.row_class[r];
        if (stamp[m] != pass_no) {
          stamp[m] = pass_no;
          if (!is_mole(cls, m)) {
            dest_of[m] = m;  // stays
            continue;
          }
          ++pass.classes;
          for (std::size_t q = 0; q < w; ++q) {
            const std::uint32_t u = t_.codes[cols[q]][r];
            tuple[q] = u;
            if (u != kSuppressedCell) {
              --held[q][u];
              note(cols[q], u);
            }
          }
          tuple[p] = kSuppressedCell;
          for (std::size_t x : propagate_[c])
            if (position[x] >= 0) tuple[static_cast<std::size_t>(position[x])] = kSuppressedCell;
          const std::uint32_t d = cls.find_or_add(tuple.data(), r);
          if (d >= stamp.size()) {
            stamp.resize(d + 1, 0);
            dest_of.resize(d + 1, 0);
            prev_size.resize(d + 1, 0);
          }
          if (stamp[d] != pass_no) {
            stamp[d] = pass_no;
            prev_size[d] = grow[d];
            dests.push_back(d);
          }
          dest_of[m] = d;
        } else if (dest_of[m] == m) {
          continue;
        }
        const std::uint32_t d = dest_of[m];
        suppress(c, r, note);
        ++pass.cells;
        cls.row_class[r] = d;
        --grow[m];
        ++grow[d];
      }

      // Classes that received moles: a former mole that reached k no longer
      // holds its values; a new class still below k is a mole.
      for (std::uint32_t d : dests) {
        const bool was = prev_size[d] > 0 && prev_size[d] < spec_.k && !exempt(cls, d);
        const bool now = is_mole(cls, d);
        if (was == now) continue;
        for (std::size_t q = 0; q < w; ++q) {
          const std::uint32_t u = t_.codes[cols[q]][cls.rep[d]];
          if (u == kSuppressedCell) continue;
          if (now)
            ++held[q][u];
          else
            --held[q][u];
          note(cols[q], u);
        }
      }
      for (const auto& [q, u] : refreshed)
        if (held[q][u] > 0) heap.push({wsup(cols[q], u), q, u});

      stats_.phase2_cells += pass.cells;
      ++stats_.phase2_passes;
      if (spec_.trace) stats_.passes.push_back(pass);
    }
  }

  CellTable& t_;
  const CellSuppressionSpec& spec_;
  CellSuppressionStats& stats_;
  std::vector<double> weights_;
  std::vector<std::vector<std::uint64_t>> support_;
  std::vector<std::vector<std::size_t>> propagate_;
};

void validate(const CellTable& t, const CellSuppressionSpec& spec) {
  const std::size_t nc = t.columns();
  if (t.names.size() != nc || t.cardinality.size() != nc)
    throw std::invalid_argument("cell table: names, codes and cardinality differ in size");
  for (std::size_t c = 0; c < nc; ++c) {
    if (t.codes[c].size() != t.rows) throw std::invalid_argument("cell table: a column has the wrong number of rows");
    for (std::uint32_t v : t.codes[c])
      if (v != kSuppressedCell && v >= t.cardinality[c])
        throw std::invalid_argument("cell table: a code is not below its column's cardinality");
  }
  if (t.rows > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("cell suppression supports at most 2^32 - 1 rows");
  if (spec.k < 1) throw std::invalid_argument("k must be >= 1");
  if (!spec.weights.empty() && spec.weights.size() != nc)
    throw std::invalid_argument("one weight per column is needed");
  for (double w : spec.weights)
    if (!(w >= 0 && w <= 1)) throw std::invalid_argument("weights must be in [0, 1]");
  if (spec.propagate.size() > nc) throw std::invalid_argument("propagation lists for more columns than the table has");
  for (const auto& list : spec.propagate)
    for (std::size_t x : list)
      if (x >= nc) throw std::invalid_argument("propagation to a column out of range");
  for (const auto& b : spec.combinations) {
    if (b.empty()) throw std::invalid_argument("an empty combination");
    std::vector<bool> seen(nc, false);
    for (std::size_t c : b) {
      if (c >= nc) throw std::invalid_argument("a combination names a column out of range");
      if (seen[c]) throw std::invalid_argument("a combination repeats a column");
      seen[c] = true;
    }
  }
  if (!spec.combinations.empty() && t.rows < spec.k)
    throw std::invalid_argument("the table has fewer rows than k: no suppression makes it k-anonymous");
}

}  // namespace

CellSuppressionStats suppress_cells(CellTable& table, const CellSuppressionSpec& spec) {
  validate(table, spec);
  CellSuppressionStats stats;
  Suppressor s(table, spec, stats);
  const std::size_t nb = spec.combinations.size();

  auto t0 = std::chrono::steady_clock::now();
  s.phase1();
  stats.phase1_ms = ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  for (std::size_t round = 0;; ++round) {
    std::vector<std::uint64_t> moles(nb);
    for (std::size_t b = 0; b < nb; ++b) moles[b] = s.count_moles(b);
    if (round == 0) stats.moles_after_phase1 = moles;
    std::vector<std::size_t> order;
    for (std::size_t b = 0; b < nb; ++b)
      if (moles[b] > 0) order.push_back(b);
    if (order.empty()) break;
    // Step 2.1: combinations with the most moles first.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) { return moles[a] > moles[c]; });
    for (std::size_t b : order) s.phase2(b, round);
    stats.rounds = round + 1;
  }
  stats.phase2_ms = ms_since(t0);
  return stats;
}

CombinationClasses combination_classes(const CellTable& table, std::span<const std::size_t> columns) {
  const KeyLayout layout(table, columns, false);
  CombinationClasses out;
  auto fill = [&](auto&& cls) {
    out.row_class = std::move(cls.row_class);
    out.sizes.assign(cls.size.begin(), cls.size.end());
    out.exempt.resize(cls.size.size());
    for (std::size_t m = 0; m < cls.size.size(); ++m) {
      bool all = true;
      for (std::size_t c : columns) all = all && table.codes[c][cls.rep[m]] == kSuppressedCell;
      out.exempt[m] = all;
    }
  };
  if (layout.packed)
    fill(Classes<PackedKey>(table, layout));
  else
    fill(Classes<WideKey>(table, layout));
  return out;
}

CellSuppressionSpec complete_spec(const CellSuppressionSpec& spec, std::size_t columns) {
  CellSuppressionSpec out = spec;
  std::vector<bool> used(columns, false);
  for (const auto& b : spec.combinations)
    for (std::size_t c : b) used[c] = true;
  out.combinations.clear();
  std::vector<std::size_t> all;
  for (std::size_t c = 0; c < columns; ++c)
    if (used[c]) all.push_back(c);
  if (!all.empty()) out.combinations.push_back(std::move(all));
  return out;
}

}  // namespace deid
