// Grouping the histogram range by range of its lead attribute (see
// ranges.h): the sorted copy, and the grouping with its early stop.
#include "check/ranges.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "check/checker_state.h"
#include "check/partitioned.h"
#include "util/release.h"

namespace deid::check_internal {
namespace {

// A level counts at most one range per this many entries when the lead is
// chosen: finer ranges than that do not make the tables smaller in cache.
constexpr std::size_t kMinRangeEntries = 64;

// The first position of each run of equal values of `code_at(i)`, i in
// [0, n), then n.
template <class F>
std::vector<std::uint32_t> run_starts(std::size_t n, const F& code_at) {
  std::vector<std::uint32_t> starts;
  for (std::size_t i = 0; i < n; ++i)
    if (i == 0 || code_at(i) != code_at(i - 1)) starts.push_back(static_cast<std::uint32_t>(i));
  starts.push_back(static_cast<std::uint32_t>(n));
  return starts;
}

// The observed level-0 codes of attribute q.
std::vector<std::uint8_t> seen_codes(const Histogram& hist, std::uint32_t q, std::size_t domain) {
  std::vector<std::uint8_t> seen(domain, 0);
  for (std::size_t e = 0; e < hist.size(); ++e) seen[hist.keys[e * hist.width + q]] = 1;
  return seen;
}

}  // namespace

void LeadOrder::build(const Problem& problem, std::uint32_t q, const std::vector<std::uint8_t>& seen, bool copy) {
  const Histogram& hist = problem.histogram;
  const std::size_t n = hist.size();
  const std::uint32_t w = hist.width;
  const Generalization& g = problem.hierarchies[q];
  lead = static_cast<int>(q);

  // The rank of each level-0 code in hierarchy order: codes sorted by their
  // value at the top level below suppression, then the next level down,
  // ..., then the code (a value has one ancestor per level, so every
  // level's values then cover contiguous runs of ranks). Only the codes
  // that occur (a ZIP hierarchy may list 100,000 values).
  const std::size_t domain = g.map(0).size();
  std::vector<std::uint32_t> sorted;
  for (std::uint32_t c = 0; c < domain; ++c)
    if (seen[c]) sorted.push_back(c);
  std::sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (int level = g.height() - 1; level > 0; --level) {
      const std::uint32_t x = g.map(level)[a], y = g.map(level)[b];
      if (x != y) return x < y;
    }
    return a < b;
  });
  std::vector<std::uint32_t> rank(domain, 0);
  for (std::size_t r = 0; r < sorted.size(); ++r) rank[sorted[r]] = static_cast<std::uint32_t>(r);

  // Entries in rank order (a stable counting sort: entries of equal codes
  // keep the histogram's order).
  std::vector<std::uint32_t> start(domain + 1, 0);
  for (std::size_t e = 0; e < n; ++e) ++start[rank[hist.keys[e * w + q]] + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  entry.assign(n, 0);  // position → histogram entry
  for (std::size_t e = 0; e < n; ++e) entry[start[rank[hist.keys[e * w + q]]]++] = static_cast<std::uint32_t>(e);

  starts.clear();
  largest.clear();
  visit.clear();
  for (int level = 0; level < g.height(); ++level) {
    const auto& map = g.map(level);
    starts.push_back(run_starts(n, [&](std::size_t i) { return map[hist.keys[std::size_t{entry[i]} * w + q]]; }));
    std::uint32_t most = 0;
    for (std::size_t r = 0; r + 1 < starts.back().size(); ++r)
      most = std::max(most, starts.back()[r + 1] - starts.back()[r]);
    largest.push_back(most);
    const auto& st = starts.back();
    std::vector<std::uint32_t> by_size(st.size() - 1);
    std::iota(by_size.begin(), by_size.end(), 0u);
    std::stable_sort(by_size.begin(), by_size.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return st[a + 1] - st[a] < st[b + 1] - st[b]; });
    visit.push_back(std::move(by_size));
  }
  // The copy's keys in two bytes per code when every domain fits (half the
  // memory of the histogram's own keys), else four.
  keys.clear();
  keys16.clear();
  counts.clear();
  packed.words.clear();
  packed.counts.clear();
  if (!copy) {
    if (!packed.layout(problem)) return;
    packed.words.resize(n);
    if (!packed.counts_in_words()) packed.counts.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t* key = hist.keys.data() + std::size_t{entry[i]} * w;
      std::uint64_t word = 0;
      for (std::uint32_t a = 0; a < w; ++a) word |= std::uint64_t{key[a]} << packed.shift[a];
      if (packed.counts_in_words())
        word |= hist.counts[entry[i]] << packed.count_shift;
      else
        packed.counts[i] = static_cast<std::uint32_t>(hist.counts[entry[i]]);
      packed.words[i] = word;
    }
    util::release(entry);
    return;
  }
  if (narrow_keys(problem)) {
    keys16.resize(n * w);
    for (std::size_t i = 0; i < n; ++i)
      for (std::uint32_t a = 0; a < w; ++a)
        keys16[i * w + a] = static_cast<std::uint16_t>(hist.keys[std::size_t{entry[i]} * w + a]);
  } else {
    keys.resize(n * w);
    for (std::size_t i = 0; i < n; ++i)
      std::copy_n(hist.keys.data() + std::size_t{entry[i]} * w, w, keys.data() + i * w);
  }
  counts.resize(n);
  for (std::size_t i = 0; i < n; ++i) counts[i] = hist.counts[entry[i]];
  util::release(entry);
}

bool LeadOrder::narrow_keys(const Problem& problem) {
  for (const Generalization& g : problem.hierarchies)
    if (g.map(0).size() > 0x10000) return false;
  return true;
}

std::vector<LeadOrder> build_leads(const Problem& problem) {
  const Histogram& hist = problem.histogram;
  const std::size_t n = hist.size();
  const std::uint32_t w = hist.width;
  std::vector<LeadOrder> leads;
  if (n == 0 || w == 0) return leads;
  // Each attribute's score: the ranges its levels below the top split the
  // histogram into (sorted by its hierarchy, a level's ranges are its
  // distinct values among the entries), each level counting at most one
  // range per kMinRangeEntries entries; only levels of kMinRanges ranges
  // or more count.
  const std::size_t cap = std::max<std::size_t>(kMinRanges, n / kMinRangeEntries);
  std::vector<std::pair<std::size_t, std::uint32_t>> scored;
  std::vector<std::vector<std::uint8_t>> seen_by(w);  // per attribute scored, its observed codes
  for (std::uint32_t q = 0; q < w; ++q) {
    const Generalization& g = problem.hierarchies[q];
    if (g.height() < 2) continue;
    seen_by[q] = seen_codes(hist, q, g.map(0).size());
    const std::vector<std::uint8_t>& seen = seen_by[q];
    std::size_t score = 0;
    for (int level = 0; level + 1 < g.height(); ++level) {
      std::vector<std::uint8_t> value(g.domain_size(level), 0);
      std::size_t r = 0;
      for (std::size_t c = 0; c < seen.size(); ++c)
        if (seen[c] && !value[g.map(level)[c]]) {
          value[g.map(level)[c]] = 1;
          ++r;
        }
      if (r >= kMinRanges) score += std::min(r, cap);
    }
    if (score > 0) scored.emplace_back(score, q);
  }
  // Best first (ties: the earlier attribute); the first always, more while
  // all copies together stay within kExtraLeadBytes.
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const std::size_t copy_bytes = n * (w * (LeadOrder::narrow_keys(problem) ? 2 : 4) + sizeof(std::uint64_t));
  for (const auto& [score, q] : scored) {
    // The same leads with bounded memory (so that checks stop early at the
    // same ranges), each packed: at most as large as the copies here.
    if (!leads.empty() && (leads.size() + 1) * copy_bytes > kExtraLeadBytes) break;
    leads.emplace_back();
    leads.back().build(problem, q, seen_by[q], !problem.bounded_memory);
  }
  return leads;
}

const LeadOrder* best_lead(const std::vector<LeadOrder>& leads, const Transformation& t) {
  const LeadOrder* best = nullptr;
  for (const LeadOrder& lead : leads)
    if (lead.usable(t) && (!best || lead.largest[t[lead.lead]] < best->largest[t[best->lead]])) best = &lead;
  return best;
}

std::optional<bool> group_ranges(const Problem& problem, Checker::HashState& hs, const LeadOrder& order, const Transformation& t,
                  Classes& out, const EarlyStop* stop, std::uint64_t& grouped) {
  const std::uint32_t w = problem.histogram.width;
  const Histogram& hist = problem.histogram;
  // A permutation of the histogram (bounded memory) or a sorted copy.
  const bool indexed = !order.entry.empty();
  const bool packed = !order.packed.words.empty();
  const std::size_t n = indexed ? order.entry.size() : packed ? order.packed.words.size() : order.counts.size();
  std::vector<const std::uint32_t*> maps;
  SlotTables st;
  if (!slot_tables(problem, hs, nullptr, t, maps, st)) return std::nullopt;
  // Slots wider than 63 bits are grouped in parts (group_wide) from a
  // sorted copy; a permutation or packed copy (bounded memory) leaves them
  // to group_source.
  const bool wide = st.parts() > 1;
  if (wide && (indexed || packed)) return std::nullopt;
  reset_classes(out, w);
  hs.partitions.keys_pending = false;
  hs.reserve(n);
  out.counts.resize(n);  // uninitialized (CountVector): only the classes written are touched
  const bool dense = !wide && st.slots <= kDenseSlots;
  if (dense) ensure_dense(hs.dense, st.slots);
  // Bounded memory: the cells of a range's classes (for the table's reset)
  // start over at each range, and the buffers of the counts and
  // representatives are uninitialized room for the whole histogram, of
  // which only the classes written are touched (resizing `out.counts` and
  // `rep` by each range zero-filled them: 0.3 of the histogram's size).
  const bool lean = indexed || packed;
  // Each class's first member (a position of the source), not its key: the
  // keys are written when read (materialize_keys), and a quality model that
  // reads them class by class (Loss) reads only the kept ones. Near the
  // bottom of a wide lattice nearly every entry is a class of its own and
  // almost all are suppressed; writing every class's key was a quarter of
  // bottom-up's time on the census-like table with 15 attributes.
  CodeVector& rep = hs.partitions.rep;
  hs.partitions.rep_room(n);

  const std::vector<std::uint32_t>& starts = order.starts[static_cast<std::size_t>(t[order.lead])];
  std::uint32_t classes = 0;
  std::uint64_t violating = 0;
  bool complete = true;
  grouped = 0;
  const std::vector<std::uint32_t>& sequence = order.visit[static_cast<std::size_t>(t[order.lead])];
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    const std::uint32_t first = starts[sequence[i]], last = starts[sequence[i] + 1];
    // An empty table (bounded memory keeps no sorted keys) gives no pointer:
    // an offset from its null data() would be undefined.
    auto at = [](auto& v, std::size_t offset) { return v.empty() ? nullptr : v.data() + offset; };
    GroupArgs args{indexed                ? hist.keys.data()
                   : order.keys16.empty() ? at(order.keys, std::size_t{first} * w)
                                          : nullptr,
                   order.keys16.empty() || indexed ? nullptr : at(order.keys16, std::size_t{first} * w),
                   indexed ? hist.counts.data() : at(order.counts, first),
                   last - first,
                   w,
                   st.tab.data(),
                   st.codes.data(),
                   dense ? hs.dense.data() : nullptr,
                   &hs.slot_table,
                   hs.used.get() + (lean ? 0 : classes),
                   nullptr,
                   nullptr,
                   out.counts.data() + classes,
                   indexed ? order.entry.data() + first : nullptr,
                   rep.data() + classes,
                   packed ? &order.packed : nullptr,
                   first,
                   indexed || packed ? 0 : first};
    if (wide) {
      args.wide = &hs.wide_table;
      args.part_end = st.part_end.data();
      args.parts = st.parts();
      hs.wide_table.prepare(last - first, last - first, st.parts());
    }
    // With bounded memory the table starts at a sixteenth of the range and
    // grows with its classes (a table for every entry of a large range its
    // own class was a tenth of the survey table's peak).
    if (!dense && !wide) hs.slot_table.prepare(lean ? (last - first) / 16 : last - first, 64);
    const std::uint32_t k = wide ? group_wide(args) : group_sequential(args, dense);
    SlotTable::Cell* const cells = args.used;
    if (wide) {
      hs.wide_table.reset(k);
    } else if (dense) {
      for (std::uint32_t c = 0; c < k; ++c) hs.dense[cells[c]] = kMissing;
    } else {
      hs.slot_table.reset(cells, k);
    }
    grouped += last - first;
    if (stop) {
      for (std::uint32_t c = 0; c < k; ++c)
        if (!stop->holds(args.out_counts[c])) violating += args.out_counts[c];
    }
    classes += k;
    if (stop && violating > stop->max_suppressed && i + 1 < sequence.size()) {
      complete = false;
      break;
    }
  }
  if (indexed)
    keys_from_representatives(hs.partitions, hist.keys.data(), w, st.codes);
  else if (packed)
    keys_from_representatives(hs.partitions, order.packed, st.codes);
  else if (!order.keys16.empty())
    keys_from_representatives(hs.partitions, order.keys16.data(), w, st.codes);
  else
    keys_from_representatives(hs.partitions, order.keys.data(), w, st.codes);
  out.counts.resize(classes);
  out.suppressed.assign(classes, 0);
  return complete;
}

namespace {

// The same with `parts` words per slot, q's in word pq.
std::uint32_t base_loop_wide(const std::uint64_t* base, std::uint32_t parts, std::uint32_t pq,
                             const std::uint32_t* column, const std::uint64_t* delta, const std::uint64_t* counts,
                             std::size_t first, std::size_t last, WideTable& table, std::uint64_t* sums,
                             std::uint32_t* rep) {
  std::uint32_t classes = 0;
  std::uint64_t tuple[kBlock * kMaxParts];
  std::size_t cell[kBlock];
  for (std::size_t at = first; at < last; at += kBlock) {
    const std::size_t m = std::min(kBlock, last - at);
    for (std::size_t j = 0; j < m; ++j) {
      std::uint64_t* x = tuple + j * parts;
      std::copy_n(base + (at + j) * parts, parts, x);
      x[pq] += delta[column[at + j]];
      cell[j] = table.cell_of(x);
      table.prefetch(cell[j]);
    }
    if (2 * (std::size_t{classes} + m) > table.cells()) {
      table.grow(classes);
      for (std::size_t j = 0; j < m; ++j) cell[j] = table.cell_of(tuple + j * parts);
    }
    for (std::size_t j = 0; j < m; ++j) {
      bool inserted = false;
      const std::uint32_t cls = table.find_or_insert(tuple + j * parts, cell[j], classes, inserted);
      if (inserted) {
        sums[classes] = 0;
        rep[classes] = static_cast<std::uint32_t>(at + j);
        ++classes;
      }
      sums[cls] += counts[at + j];
    }
  }
  return classes;
}

}  // namespace

bool build_range_base(const Problem& problem, Checker::HashState& hs, const LeadOrder& order,
                      const Transformation& around, RangeBase& out) {
  const std::uint32_t w = problem.histogram.width;
  std::vector<const std::uint32_t*> maps;
  SlotTables st;
  if (!slot_tables(problem, hs, nullptr, around, maps, st)) return false;
  out.order = &order;
  out.around = around;
  out.parts = st.parts();
  out.slots = st.slots;
  out.stride = st.stride;
  out.part_of.assign(w, 0);
  for (std::uint32_t p = 0, q = 0; p < out.parts; ++p)
    for (; q < st.part_end[p]; ++q) out.part_of[q] = p;
  const std::size_t n = order.counts.size();
  const std::uint32_t parts = out.parts;
  out.base.resize(n * parts);
  const auto fill = [&](const auto* keys) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto* key = keys + i * w;
      std::uint32_t q = 0;
      for (std::uint32_t p = 0; p < parts; ++p) {
        std::uint64_t x = 0;
        for (; q < st.part_end[p]; ++q) x += st.tab[q][key[q]];
        out.base[i * parts + p] = x;
      }
    }
  };
  if (!order.keys16.empty())
    fill(order.keys16.data());
  else
    fill(order.keys.data());
  if (out.columns_of != &order) {
    out.columns.assign(w, {});
    out.columns_of = &order;
  }
  return true;
}

void build_range_column(const Problem& problem, RangeBase& out, std::uint32_t q) {
  auto& column = out.columns[q];
  if (!column.empty()) return;
  const LeadOrder& order = *out.order;
  const std::uint32_t w = problem.histogram.width;
  const std::size_t n = order.counts.size();
  column.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    column[i] = order.keys16.empty() ? order.keys[i * w + q] : order.keys16[i * w + q];
}

void group_ranges_from_base(const Problem& problem, Checker::HashState& hs, const RangeBase& base,
                            const Transformation& t, std::uint32_t q, Classes& out, std::uint64_t& grouped) {
  const LeadOrder& order = *base.order;
  const std::uint32_t w = problem.histogram.width;
  const std::size_t n = order.counts.size();
  reset_classes(out, w);
  hs.partitions.keys_pending = false;
  hs.reserve(n);
  out.counts.resize(n);  // uninitialized room, trimmed below
  hs.partitions.rep_room(n);
  // q's digit moves from its value at around's level to its value at t's.
  const Generalization& g = problem.hierarchies[q];
  const std::size_t domain = g.map(0).size();
  const std::uint32_t* from = base.around[q] == 0 ? nullptr : g.map(base.around[q]).data();
  const std::uint32_t* to = g.map(t[q]).data();
  hs.delta.resize(domain);
  for (std::size_t c = 0; c < domain; ++c)
    hs.delta[c] = (std::uint64_t{to[c]} - (from ? std::uint64_t{from[c]} : std::uint64_t{c})) * base.stride[q];
  const std::uint32_t parts = base.parts;
  const bool dense = parts == 1 && base.slots <= kDenseSlots;
  if (dense) ensure_dense(hs.dense, base.slots);
  const std::uint32_t* column = base.columns[q].data();
  const std::uint64_t* counts = order.counts.data();
  // A position's slot: around's, plus the change of q's digit.
  const std::uint64_t* const slots = base.base.data();
  const std::uint64_t* const delta = hs.delta.data();
  const auto slot_of = [&](std::size_t i) { return slots[i] + delta[column[i]]; };
  std::uint32_t* rep = hs.partitions.rep.data();
  const std::size_t level = static_cast<std::size_t>(t[order.lead]);
  const std::vector<std::uint32_t>& starts = order.starts[level];
  std::uint32_t classes = 0;
  grouped = 0;
  for (const std::uint32_t r : order.visit[level]) {
    const std::uint32_t first = starts[r], last = starts[r + 1];
    std::uint64_t* sums = out.counts.data() + classes;
    std::uint32_t k;
    if (parts > 1) {
      hs.wide_table.prepare(last - first, last - first, parts);
      k = base_loop_wide(base.base.data(), parts, base.part_of[q], column, hs.delta.data(), counts, first, last,
                         hs.wide_table, sums, rep + classes);
      hs.wide_table.reset(k);
    } else if (dense) {
      k = group_one_word<true>(first, last, slot_of, counts, hs.dense.data(), hs.slot_table, hs.used.get() + classes,
                               sums, rep + classes);
      for (std::uint32_t c = 0; c < k; ++c) hs.dense[hs.used[classes + c]] = kMissing;
    } else {
      hs.slot_table.prepare(last - first, 64);
      k = group_one_word<false>(first, last, slot_of, counts, nullptr, hs.slot_table, hs.used.get() + classes, sums,
                                rep + classes);
      hs.slot_table.reset(hs.used.get() + classes, k);
    }
    grouped += last - first;
    classes += k;
  }
  out.counts.resize(classes);
  out.suppressed.assign(classes, 0);
  // t's keys, from each class's first position.
  if (!order.keys16.empty())
    keys_from_representatives(hs.partitions, order.keys16.data(), w, level_codes(problem, hs, t));
  else
    keys_from_representatives(hs.partitions, order.keys.data(), w, level_codes(problem, hs, t));
}

}  // namespace deid::check_internal
