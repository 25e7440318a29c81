// The combinations suppression algorithm of papers/003 (Figure 4), on
// dictionary codes. See include/deid/cell_suppression.h for the contract
// and docs/cell-suppression.md for the design.

#include "deid/cell_suppression.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <string>

#include "transform/combination.h"
#include "util/elapsed.h"

namespace deid {

int CellTable::column_index(const std::string& name) const {
  for (std::size_t c = 0; c < names.size(); ++c)
    if (names[c] == name) return static_cast<int>(c);
  return -1;
}

namespace {

using detail::Combination;

// The state shared by both phases: the table, supports per column and
// value, the transitively closed propagation lists, and (in phase 2) the
// classes of every combination.
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
  // propagated cell.
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

  // Groups every combination once; from here on each suppression re-files
  // the rows it changes in the combinations it affects.
  void build_combinations() {
    const std::size_t nb = spec_.combinations.size();
    combos_.reserve(nb);
    for (const auto& b : spec_.combinations) combos_.emplace_back(t_, b, spec_.k, spec_.force_wide_keys);
    // affected_[c]: combinations holding c or a column c propagates to.
    affected_.assign(t_.columns(), {});
    for (std::size_t c = 0; c < t_.columns(); ++c)
      for (std::size_t b = 0; b < nb; ++b) {
        bool hit = combos_[b].position(c) >= 0;
        for (std::size_t x : propagate_[c]) hit = hit || combos_[b].position(x) >= 0;
        if (hit) affected_[c].push_back(b);
      }
    std::size_t widest = 1;
    for (const auto& b : spec_.combinations) widest = std::max(widest, b.size());
    scratch_.resize(widest);
  }

  std::uint64_t moles(std::size_t b) const { return combos_[b].moles(); }

  // Phase 2 on one combination (papers/003 Figure 4, steps 2.3-2.7).
  void phase2(std::size_t b, std::size_t round) {
    Combination& cb = combos_[b];
    if (cb.moles() == 0) return;
    const std::vector<std::size_t>& cols = cb.columns();
    const std::size_t w = cols.size();

    // Members of each class, as linked lists over the rows (ascending row
    // order), so that a mole's rows are visited without a scan and a mole
    // joins its destination in O(1).
    std::vector<std::uint32_t> head(cb.classes(), kNone), tail(cb.classes(), kNone);
    next_.assign(t_.rows, kNone);
    for (std::uint64_t r = t_.rows; r-- > 0;) {
      const std::uint32_t m = cb.row_class(r);
      next_[r] = head[m];
      if (head[m] == kNone) tail[m] = static_cast<std::uint32_t>(r);
      head[m] = static_cast<std::uint32_t>(r);
    }

    // Per position and value: how many moles hold it (`held`) and which
    // (`holders`, a list that may hold classes that no longer do: they are
    // checked when read).
    std::vector<std::vector<std::uint32_t>> held(w);
    std::vector<std::vector<std::vector<std::uint32_t>>> holders(w);
    for (std::size_t p = 0; p < w; ++p) {
      held[p].assign(t_.cardinality[cols[p]], 0);
      holders[p].resize(t_.cardinality[cols[p]]);
    }
    auto enlist = [&](std::uint32_t m, int delta) {
      const std::uint32_t* tup = cb.tuple(m);
      for (std::size_t p = 0; p < w; ++p) {
        if (tup[p] == kSuppressedCell) continue;
        held[p][tup[p]] += static_cast<std::uint32_t>(delta);
        if (delta > 0) holders[p][tup[p]].push_back(m);
      }
    };
    for (std::uint32_t m = 0; m < cb.classes(); ++m)
      if (cb.is_mole(m)) enlist(m, +1);

    // Candidates: values held by a mole, smallest weighted support first;
    // ties by position, then code. An entry is pushed again when the
    // value's support drops (by propagation; the value being processed
    // leaves every mole); an entry whose weighted support is out of date,
    // or whose value no mole holds any more, is skipped. A value's count
    // of moles changes without a push: a value whose count is > 0 always
    // has an entry with its current weighted support, since a count only
    // rises (a new mole) in the pass that moved an older mole holding the
    // same value, and an entry is only dropped when it is stale or its
    // value has no mole.
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

    std::vector<std::uint64_t> stamp(cb.classes(), 0);
    std::vector<char> was_mole(cb.classes(), 0);
    std::uint64_t pass_no = 0;
    std::vector<std::uint32_t> tuple(w), moving, dests;

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
      refreshed_.clear();
      moving.clear();
      dests.clear();
      auto note = [&](std::size_t column, std::uint32_t value) {
        if (cb.position(column) >= 0) refreshed_.emplace_back(static_cast<std::uint32_t>(cb.position(column)), value);
      };

      // The moles holding v, in class order (deterministic; the result does
      // not depend on it: each moves to the class of its own tuple).
      for (std::uint32_t m : holders[p][v])
        if (stamp[m] != pass_no && cb.is_mole(m) && cb.tuple(m)[p] == v) {
          stamp[m] = pass_no;
          moving.push_back(m);
        }
      holders[p][v].clear();
      std::sort(moving.begin(), moving.end());

      // Every mole holding v moves, as a whole, into the class of its tuple
      // with v (and what v propagates to) suppressed.
      for (std::uint32_t m : moving) {
        ++pass.classes;
        enlist(m, -1);
        std::copy(cb.tuple(m), cb.tuple(m) + w, tuple.begin());
        tuple[p] = kSuppressedCell;
        for (std::size_t x : propagate_[c])
          if (cb.position(x) >= 0) tuple[static_cast<std::size_t>(cb.position(x))] = kSuppressedCell;
        const std::uint32_t d = cb.find_or_add(tuple.data());
        if (d >= stamp.size()) {
          stamp.resize(d + 1, 0);
          was_mole.resize(d + 1, 0);
          head.resize(d + 1, kNone);
          tail.resize(d + 1, kNone);
        }
        if (stamp[d] != pass_no) {
          stamp[d] = pass_no;
          was_mole[d] = cb.is_mole(d) ? 1 : 0;
          dests.push_back(d);
        }
        std::uint32_t count = 0;
        for (std::uint32_t r = head[m]; r != kNone; r = next_[r]) {
          suppress(c, r, note);
          ++pass.cells;
          ++count;
          cb.set_row_class(r, d);
          for (std::size_t other : affected_[c])
            if (other != b) combos_[other].update_row(r, scratch_.data());
        }
        cb.transfer(m, d, count);
        // Splice m's rows onto d's list.
        if (head[d] == kNone)
          head[d] = head[m];
        else
          next_[tail[d]] = head[m];
        tail[d] = tail[m];
        head[m] = tail[m] = kNone;
      }

      // Classes that received moles: a former mole that reached k no longer
      // holds its values; a new class still below k is a mole.
      for (std::uint32_t d : dests) {
        const bool now = cb.is_mole(d);
        if (was_mole[d] == now) continue;
        enlist(d, now ? +1 : -1);
      }
      for (const auto& [q, u] : refreshed_)
        if (held[q][u] > 0) heap.push({wsup(cols[q], u), q, u});

      stats_.phase2_cells += pass.cells;
      ++stats_.phase2_passes;
      if (spec_.trace) stats_.passes.push_back(pass);
    }
  }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  double wsup(std::size_t c, std::uint32_t v) const { return static_cast<double>(support_[c][v]) * weights_[c]; }

  CellTable& t_;
  const CellSuppressionSpec& spec_;
  CellSuppressionStats& stats_;
  std::vector<double> weights_;
  std::vector<std::vector<std::uint64_t>> support_;
  std::vector<std::vector<std::size_t>> propagate_;
  std::vector<Combination> combos_;
  std::vector<std::vector<std::size_t>> affected_;
  std::vector<std::uint32_t> scratch_;
  std::vector<std::uint32_t> next_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> refreshed_;  // (position, value)
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
  s.build_combinations();
  for (std::size_t round = 0;; ++round) {
    std::vector<std::uint64_t> moles(nb);
    for (std::size_t b = 0; b < nb; ++b) moles[b] = s.moles(b);
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
  Combination cb(table, columns, 1, false);
  CombinationClasses out;
  out.sizes = cb.sizes();
  out.exempt = cb.exempt_flags();
  out.row_class = cb.take_row_classes();
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
