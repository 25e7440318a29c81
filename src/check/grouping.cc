// Grouping by slot (see grouping.h): the slot computation per check and the
// sequential grouping loops over a direct table or a SlotTable, specialized
// on the number of attributes; sources too large for one table go to the
// partitioned path (partitioned.h), keys too wide for a 63-bit slot to a
// hash map on their codes.
#include "check/grouping.h"

#include <cstring>
#include <string>

#include "check/checker_state.h"
#include "check/partitioned.h"
#include "util/huge_pages.h"

namespace deid {
namespace check_internal {
namespace {


// The grouping loop of the sequential path, specialized on the number of
// quasi-identifiers W (0: any, read from `w`) so that the slot sum is
// unrolled, and on direct addressing or hashing. A new class gets its count
// and its generalized key (codes[q][source code], read while the source key
// is in cache) appended to `out`, and its slot (dense) or cell (hashed) to
// used[c]; member[i] (when not null) receives the class of source member
// i. Returns the classes. REQUIRES: room for n classes in out_keys and
// out_counts.
template <int W, bool Dense, class Key, bool Indexed>
std::uint32_t group_slots(const GroupArgs& a) {
  const std::uint32_t width = W > 0 ? static_cast<std::uint32_t>(W) : a.w;
  const Key* const keys = [&] {
    if constexpr (sizeof(Key) == 2) {
      return a.keys16;
    } else {
      return a.keys;
    }
  }();
  const std::uint64_t* const* tab = a.tab;
  const std::uint32_t* const* codes = a.codes;
  std::uint32_t* const dense = a.dense;
  SlotTable* const table = a.table;
  SlotTable::Cell* const used = a.used;
  std::uint32_t* const member = a.member;
  std::uint64_t* const sums = a.out_counts;
  const std::uint32_t* const index = a.index;
  std::uint32_t* const out_rep = a.out_rep;
  std::uint32_t* out_key = a.out_keys;
  // Source member i's entry: i, or index[i] when the order is a permutation.
  const auto entry = [&](std::size_t i) -> std::size_t {
    if constexpr (Indexed) {
      return index[i];
    } else {
      return i;
    }
  };
  std::uint32_t classes = 0;
  std::uint64_t slot[kBlock];
  std::size_t cell[kBlock];
  for (std::size_t first = 0; first < a.n; first += kBlock) {
    const std::size_t m = std::min(kBlock, a.n - first);
    if constexpr (Indexed) {
      // The next block's entries are scattered over the histogram: their
      // keys and counts are fetched while this block is grouped.
      constexpr std::size_t kAhead = 4 * kBlock;
      const std::size_t next = std::min(kBlock, a.n - std::min(a.n, first + kAhead));
      for (std::size_t j = 0; j < next; ++j) {
        __builtin_prefetch(keys + entry(first + kAhead + j) * width);
        __builtin_prefetch(a.counts + entry(first + kAhead + j));
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      const Key* key = keys + entry(first + j) * width;
      std::uint64_t s = 0;
      for (std::uint32_t q = 0; q < width; ++q) s += tab[q][key[q]];
      slot[j] = s;
      if constexpr (Dense) {
        __builtin_prefetch(dense + s);
      } else {
        cell[j] = table->cell_of(s);
        table->prefetch(cell[j]);
      }
    }
    if constexpr (!Dense) {
      // Keep the load at most 1/2 for the whole block.
      if (2 * (std::size_t{classes} + m) > table->cells()) {
        table->grow(used, classes);
        for (std::size_t j = 0; j < m; ++j) cell[j] = table->cell_of(slot[j]);
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      const std::size_t e = entry(first + j);
      std::uint32_t cls;
      bool inserted;
      SlotTable::Cell where = static_cast<SlotTable::Cell>(slot[j]);  // below kDenseSlots when dense
      if constexpr (Dense) {
        cls = dense[where];
        inserted = cls == kMissing;
        if (inserted) cls = dense[where] = classes;
      } else {
        inserted = false;
        cls = table->find_or_insert(slot[j], cell[j], classes, inserted, where);
      }
      if (inserted) {
        used[classes] = where;
        sums[classes] = 0;
        if (out_key) {
          const Key* key = keys + e * width;
          for (std::uint32_t q = 0; q < width; ++q) out_key[q] = codes[q][key[q]];
          out_key += width;
        } else {
          out_rep[classes] = a.rep_first + static_cast<std::uint32_t>(e);
        }
        ++classes;
      }
      sums[cls] += a.counts[e];
      if (member) member[first + j] = cls;
    }
  }
  return classes;
}

// The grouping loop over a packed copy (PackedKeys): as group_slots, each
// code unpacked from the entry's word; new classes record their position.
template <int W, bool Dense>
std::uint32_t group_packed(const GroupArgs& a) {
  const std::uint32_t width = W > 0 ? static_cast<std::uint32_t>(W) : a.w;
  const PackedKeys& pk = *a.packed;
  const std::uint64_t* const words = pk.words.data() + a.packed_first;
  // The counts beside the words, or (null) in their top bits.
  const std::uint32_t* const counts = pk.counts_in_words() ? nullptr : pk.counts.data() + a.packed_first;
  const std::uint32_t count_shift = pk.count_shift;
  const std::uint32_t* const shift = pk.shift.data();
  const std::uint64_t* const mask = pk.mask.data();
  const std::uint64_t* const* tab = a.tab;
  std::uint32_t* const dense = a.dense;
  SlotTable* const table = a.table;
  SlotTable::Cell* const used = a.used;
  std::uint64_t* const sums = a.out_counts;
  std::uint32_t* const out_rep = a.out_rep;
  std::uint32_t classes = 0;
  std::uint64_t slot[kBlock];
  std::size_t cell[kBlock];
  for (std::size_t first = 0; first < a.n; first += kBlock) {
    const std::size_t m = std::min(kBlock, a.n - first);
    for (std::size_t j = 0; j < m; ++j) {
      const std::uint64_t word = words[first + j];
      std::uint64_t s = 0;
      for (std::uint32_t q = 0; q < width; ++q) s += tab[q][(word >> shift[q]) & mask[q]];
      slot[j] = s;
      if constexpr (Dense) {
        __builtin_prefetch(dense + s);
      } else {
        cell[j] = table->cell_of(s);
        table->prefetch(cell[j]);
      }
    }
    if constexpr (!Dense) {
      if (2 * (std::size_t{classes} + m) > table->cells()) {
        table->grow(used, classes);
        for (std::size_t j = 0; j < m; ++j) cell[j] = table->cell_of(slot[j]);
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      std::uint32_t cls;
      bool inserted;
      SlotTable::Cell where = static_cast<SlotTable::Cell>(slot[j]);  // below kDenseSlots when dense
      if constexpr (Dense) {
        cls = dense[where];
        inserted = cls == kMissing;
        if (inserted) cls = dense[where] = classes;
      } else {
        inserted = false;
        cls = table->find_or_insert(slot[j], cell[j], classes, inserted, where);
      }
      if (inserted) {
        used[classes] = where;
        sums[classes] = 0;
        out_rep[classes] = static_cast<std::uint32_t>(a.packed_first + first + j);
        ++classes;
      }
      sums[cls] += counts ? counts[first + j] : words[first + j] >> count_shift;
    }
  }
  return classes;
}

template <bool Dense>
std::uint32_t group_packed_any(const GroupArgs& a) {
  switch (a.w) {
    case 1: return group_packed<1, Dense>(a);
    case 2: return group_packed<2, Dense>(a);
    case 3: return group_packed<3, Dense>(a);
    case 4: return group_packed<4, Dense>(a);
    case 5: return group_packed<5, Dense>(a);
    case 6: return group_packed<6, Dense>(a);
    case 7: return group_packed<7, Dense>(a);
    case 8: return group_packed<8, Dense>(a);
    case 9: return group_packed<9, Dense>(a);
    case 10: return group_packed<10, Dense>(a);
    case 11: return group_packed<11, Dense>(a);
    case 12: return group_packed<12, Dense>(a);
    default: return group_packed<0, Dense>(a);
  }
}

template <bool Dense, class Key = std::uint32_t, bool Indexed = false>
std::uint32_t group_slots_any(const GroupArgs& a) {
#define DEID_GROUP_CASE(N) \
  case N:                  \
    return group_slots<N, Dense, Key, Indexed>(a);
  switch (a.w) {
    DEID_GROUP_CASE(1)
    DEID_GROUP_CASE(2)
    DEID_GROUP_CASE(3)
    DEID_GROUP_CASE(4)
    DEID_GROUP_CASE(5)
    DEID_GROUP_CASE(6)
    DEID_GROUP_CASE(7)
    DEID_GROUP_CASE(8)
    DEID_GROUP_CASE(9)
    DEID_GROUP_CASE(10)
    DEID_GROUP_CASE(11)
    DEID_GROUP_CASE(12)
    DEID_GROUP_CASE(13)
    DEID_GROUP_CASE(14)
    DEID_GROUP_CASE(15)
    DEID_GROUP_CASE(16)
    DEID_GROUP_CASE(17)
    DEID_GROUP_CASE(18)
    DEID_GROUP_CASE(19)
    DEID_GROUP_CASE(20)
    default:
      return group_slots<0, Dense, Key, Indexed>(a);
  }
#undef DEID_GROUP_CASE
}

// The grouping loop of wide slots (group_wide): P parts (0: a.parts).
template <std::uint32_t P, class Key>
std::uint32_t group_wide_loop(const GroupArgs& a) {
  const std::uint32_t parts = P > 0 ? P : a.parts;
  const std::uint32_t width = a.w;
  const Key* const keys = [&] {
    if constexpr (sizeof(Key) == 2) {
      return a.keys16;
    } else {
      return a.keys;
    }
  }();
  const std::uint64_t* const* tab = a.tab;
  const std::uint32_t* const* codes = a.codes;
  const std::uint32_t* const part_end = a.part_end;
  WideTable& table = *a.wide;
  std::uint32_t* const member = a.member;
  std::uint64_t* const sums = a.out_counts;
  std::uint32_t* const out_rep = a.out_rep;
  std::uint32_t* out_key = a.out_keys;
  std::uint32_t classes = 0;
  std::uint64_t tuple[kBlock * kMaxParts];
  std::size_t cell[kBlock];
  for (std::size_t first = 0; first < a.n; first += kBlock) {
    const std::size_t m = std::min(kBlock, a.n - first);
    for (std::size_t j = 0; j < m; ++j) {
      const Key* key = keys + (first + j) * width;
      std::uint64_t* s = tuple + j * parts;
      std::uint32_t q = 0;
      for (std::uint32_t p = 0; p < parts; ++p) {
        std::uint64_t x = 0;
        for (; q < part_end[p]; ++q) x += tab[q][key[q]];
        s[p] = x;
      }
      cell[j] = table.cell_of(s);
      table.prefetch(cell[j]);
    }
    // Keep the load at most 1/2 for the whole block.
    if (2 * (std::size_t{classes} + m) > table.cells()) {
      table.grow(classes);
      for (std::size_t j = 0; j < m; ++j) cell[j] = table.cell_of(tuple + j * parts);
    }
    for (std::size_t j = 0; j < m; ++j) {
      const std::size_t e = first + j;
      bool inserted = false;
      const std::uint32_t cls = table.find_or_insert(tuple + j * parts, cell[j], classes, inserted);
      if (inserted) {
        sums[classes] = 0;
        if (out_key) {
          const Key* key = keys + e * width;
          for (std::uint32_t q = 0; q < width; ++q) out_key[q] = codes[q][key[q]];
          out_key += width;
        } else {
          out_rep[classes] = a.rep_first + static_cast<std::uint32_t>(e);
        }
        ++classes;
      }
      sums[cls] += a.counts[e];
      if (member) member[e] = cls;
    }
  }
  return classes;
}

template <class Key>
std::uint32_t group_wide_any(const GroupArgs& a) {
  switch (a.parts) {
    case 2: return group_wide_loop<2, Key>(a);
    case 3: return group_wide_loop<3, Key>(a);
    default: return group_wide_loop<0, Key>(a);
  }
}

}  // namespace

std::uint32_t group_wide(const GroupArgs& a) {
  return a.keys16 ? group_wide_any<std::uint16_t>(a) : group_wide_any<std::uint32_t>(a);
}

bool PackedKeys::layout(const Problem& problem) {
  const Histogram& hist = problem.histogram;
  shift.clear();
  mask.clear();
  std::uint32_t bits = 0;
  for (const Generalization& g : problem.hierarchies) {
    const std::size_t domain = g.map(0).size();
    const auto b = static_cast<std::uint32_t>(std::bit_width(domain > 1 ? domain - 1 : 1));
    shift.push_back(bits);
    mask.push_back(b >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b) - 1);
    bits += b;
  }
  if (bits > 64) return false;
  const std::uint64_t most = hist.counts.empty() ? 0 : *std::max_element(hist.counts.begin(), hist.counts.end());
  count_shift = bits + std::bit_width(most) <= 64 ? bits : 64;
  return most <= UINT32_MAX;
}

std::uint32_t group_sequential(const GroupArgs& a, bool dense) {
  if (a.packed) return dense ? group_packed_any<true>(a) : group_packed_any<false>(a);
  if (a.index)
    return dense ? group_slots_any<true, std::uint32_t, true>(a) : group_slots_any<false, std::uint32_t, true>(a);
  if (a.keys16) return dense ? group_slots_any<true, std::uint16_t>(a) : group_slots_any<false, std::uint16_t>(a);
  return dense ? group_slots_any<true>(a) : group_slots_any<false>(a);
}

namespace {

// Same level: the identity on attribute q's `domain` codes.
const std::uint32_t* identity_codes(Checker::HashState& hs, std::uint32_t q, std::size_t domain) {
  if (hs.codes.size() <= q) hs.codes.resize(q + 1);
  auto& identity = hs.codes[q];
  if (identity.size() < domain) {
    const std::size_t old = identity.size();
    identity.resize(domain);
    for (std::size_t c = old; c < domain; ++c) identity[c] = static_cast<std::uint32_t>(c);
  }
  return identity.data();
}

}  // namespace

void group_refined(const Problem& problem, Checker::HashState& hs, const std::uint32_t* member,
                   std::uint32_t base_classes, const std::uint32_t* column, std::uint32_t q,
                   const Transformation& t, Classes& out) {
  const Histogram& hist = problem.histogram;
  const std::uint32_t w = hist.width;
  const std::size_t n = hist.size();
  reset_classes(out, w);
  const Generalization& g = problem.hierarchies[q];
  const std::uint64_t d = t[q] == 0 ? g.map(0).size() : g.domain_size(t[q]);
  const std::uint32_t* map = t[q] == 0 ? nullptr : g.map(t[q]).data();
  const std::uint64_t slots = std::uint64_t{base_classes} * std::max<std::uint64_t>(d, 1);
  hs.reserve(n);
  out.counts.resize(n);  // uninitialized room, trimmed below
  hs.partitions.rep_room(n);
  // A member's slot: its class of g × d + its code of q at t.
  const auto slot_of = [&](std::size_t e) {
    return std::uint64_t{member[e]} * d + (map ? map[column[e]] : column[e]);
  };
  std::uint32_t classes;
  if (slots <= kDenseSlots) {
    ensure_dense(hs.dense, slots);
    classes = group_one_word<true>(0, n, slot_of, hist.counts.data(), hs.dense.data(), hs.slot_table, hs.used.get(),
                                   out.counts.data(), hs.partitions.rep.data());
    for (std::uint32_t c = 0; c < classes; ++c) hs.dense[hs.used[c]] = kMissing;
  } else {
    hs.slot_table.prepare(std::min<std::size_t>(n, std::max<std::size_t>(base_classes, hs.last_classes)));
    classes = group_one_word<false>(0, n, slot_of, hist.counts.data(), nullptr, hs.slot_table, hs.used.get(),
                                    out.counts.data(), hs.partitions.rep.data());
    hs.slot_table.reset(hs.used.get(), classes);
    hs.last_classes = classes;
  }
  out.counts.resize(classes);
  out.suppressed.assign(classes, 0);
  keys_from_representatives(hs.partitions, hist.keys.data(), w, level_codes(problem, hs, t));
}

std::vector<const std::uint32_t*> level_codes(const Problem& problem, Checker::HashState& hs, const Transformation& t) {
  std::vector<const std::uint32_t*> codes(t.size());
  for (std::uint32_t a = 0; a < t.size(); ++a)
    codes[a] = t[a] == 0 ? identity_codes(hs, a, problem.hierarchies[a].map(0).size())
                         : problem.hierarchies[a].map(t[a]).data();
  return codes;
}

bool slot_tables(const Problem& problem, Checker::HashState& hs, const Transformation* levels,
                 const Transformation& t, std::vector<const std::uint32_t*>& maps, SlotTables& out) {
  const std::uint32_t w = problem.histogram.width;
  // Per attribute: the map from the source's level to t's (nullptr: same level).
  maps.assign(w, nullptr);
  for (std::uint32_t q = 0; q < w; ++q) {
    const int from = levels ? (*levels)[q] : 0;
    maps[q] = from == t[q] ? nullptr
              : from == 0  ? problem.hierarchies[q].map(t[q]).data()
                           : (*hs.up)[q][from][t[q]].data();
  }

  // Mixed-radix slot of a generalized key, when the domains at t's levels
  // multiply to less than 2^63; else the attributes in parts, each a run
  // whose domains do (from the last attribute back, each part as long as
  // it fits).
  std::vector<std::uint64_t> stride(w);
  std::vector<std::uint32_t> starts;  // each part's first attribute, last part first
  std::uint64_t slots = 1;
  for (std::uint32_t q = w; q-- > 0;) {
    const std::uint64_t d = std::max<std::uint64_t>(
        1, t[q] == 0 ? problem.hierarchies[q].map(0).size() : problem.hierarchies[q].domain_size(t[q]));
    if (slots > (std::uint64_t{1} << 63) / d) {
      if (d > (std::uint64_t{1} << 63)) return false;
      starts.push_back(q + 1);
      slots = 1;
    }
    stride[q] = slots;
    slots *= d;
  }
  if (starts.size() + 1 > kMaxParts) return false;
  out.part_end.clear();
  for (auto it = starts.rbegin(); it != starts.rend(); ++it) out.part_end.push_back(*it);
  out.part_end.push_back(w);
  out.slots = starts.empty() ? slots : 0;
  out.stride = stride;
  // Hand-written hot path: per attribute a table code → generalized code ×
  // stride, built once per check (domains are small), so a class's slot
  // is a sum of one load per attribute. The slot is then looked up
  // directly when the slots fit a table that stays in cache, else hashed
  // (the slot is a unique 64-bit key). On adult (optimal search, 1,086
  // checks) grouping took 2.7 G instructions with absl::flat_hash_map on
  // packed keys; a 16 MiB direct table spent a third of the grouping time
  // on cache misses (perf annotate), so direct addressing is now limited
  // to tables of at most kDenseSlots entries.
  hs.scaled.resize(w);
  hs.codes.resize(w);
  out.tab.resize(w);
  out.codes.resize(w);
  for (std::uint32_t q = 0; q < w; ++q) {
    const int from = levels ? (*levels)[q] : 0;
    const std::size_t domain =
        from == 0 ? problem.hierarchies[q].map(0).size() : problem.hierarchies[q].domain_size(from);
    auto& table = hs.scaled[q];
    table.resize(domain);
    for (std::size_t c = 0; c < domain; ++c) table[c] = (maps[q] ? maps[q][c] : c) * stride[q];
    out.tab[q] = table.data();
    out.codes[q] = maps[q] ? maps[q] : identity_codes(hs, q, domain);
  }
  return true;
}

void group_source(const Problem& problem, Checker::HashState& hs, const Source& src, const Transformation& t,
                  Classes& out, bool want_members, bool ordered) {
  const std::uint32_t w = problem.histogram.width;
  reset_classes(out, w);
  hs.partitions.keys_pending = false;

  std::vector<const std::uint32_t*> maps;
  SlotTables st;
  const bool tabled = slot_tables(problem, hs, src.levels, t, maps, st);
  const bool fits = tabled && st.parts() == 1;
  const std::uint64_t slots = st.slots;
  std::vector<const std::uint64_t*>& tables = st.tab;
  std::vector<const std::uint32_t*>& codes = st.codes;
  if (want_members || !fits) hs.member.resize(src.size);
  if (fits) {
    // Sequential for any source size (see check.h: the parallel chunked
    // grouping below cost 3 times the CPU on the survey table).
    const bool large = !ordered && slots > kDenseSlots && src.size >= kPartitionMinSource;
    // With bounded memory the histogram is grouped in passes instead (its
    // partitioned grouping takes 40 bytes per entry); the snapshots, a
    // tenth of it at most, still partitioned.
    const bool passes = large && problem.bounded_memory && !src.levels;
    const bool partitioned = large && !passes;
    // Room for the classes: at most one per member and one per slot (with
    // bounded memory the slots often bound them far below the histogram's
    // entries). The passes need none: they grow their own room with a
    // pass's classes and write the counts to out.counts.
    const std::size_t most =
        problem.bounded_memory && !partitioned ? std::min<std::uint64_t>(src.size, slots) : src.size;
    if (!passes) {
      hs.reserve(most);
      out.counts.resize(most);
    }
    // Bounded memory, sequential path: the classes' first entries instead
    // of their keys, as in the other paths (keys for every class of a
    // check are as large as the histogram when each entry is its own); the
    // keys are written later, when read (materialize_keys), and only for
    // the classes there are.
    const bool lean = problem.bounded_memory && !src.levels && !partitioned && !passes;
    // Keys are written straight into the output (uninitialized room for
    // every member its own class, trimmed afterwards); the partitioned
    // path writes them later, when needed (materialize_keys).
    if (lean) {
      hs.partitions.rep_room(most);
    } else if (!partitioned && !passes) {
      util::reserve_huge(out.keys, src.size * w);
      out.keys.resize(src.size * w);
    }
    GroupArgs args{src.keys,
                   nullptr,
                   src.counts,
                   src.size,
                   w,
                   tables.data(),
                   codes.data(),
                   nullptr,
                   &hs.slot_table,
                   hs.used.get(),
                   want_members ? hs.member.data() : nullptr,
                   partitioned || passes || lean ? nullptr : out.keys.data(),
                   out.counts.data(),
                   nullptr,
                   lean ? hs.partitions.rep.data() : nullptr};
    std::uint32_t classes;
    if (passes) {
      // The tables may take a quarter of the histogram's size (at least
      // kBoundedTableBytes); the classes are guessed as below.
      const std::size_t guess = std::min<std::size_t>(src.size, std::max(hs.last_classes, src.size / 4));
      const std::uint64_t table_bytes = std::max<std::uint64_t>(kBoundedTableBytes, problem.histogram.bytes() / 4);
      classes = group_passes(args, hs.partitions, grouping_passes(guess, table_bytes), out.counts);
      hs.last_classes = classes;
    } else if (partitioned) {
      classes = group_partitioned(args, hs.partitions);
    } else if (slots <= kDenseSlots) {
      ensure_dense(hs.dense, slots);
      args.dense = hs.dense.data();
      classes = group_slots_any<true>(args);
      for (std::uint32_t c = 0; c < classes; ++c) hs.dense[hs.used[c]] = kMissing;
    } else {
      // The guess: the previous check's classes (consecutive checks of a
      // search are often alike), at least a quarter of the source; a wrong
      // guess costs a few doublings. (With the previous count alone,
      // doubling was 9 % of the synthetic 15-attribute best-first search.)
      hs.slot_table.prepare(std::min<std::size_t>(src.size, std::max(hs.last_classes, src.size / 4)));
      classes = group_slots_any<false>(args);
      hs.slot_table.reset(hs.used.get(), classes);
      hs.last_classes = classes;
    }
    if (lean) keys_from_representatives(hs.partitions, src.keys, w, codes);
    if (!partitioned && !passes && !lean) out.keys.resize(std::size_t{classes} * w);
    if (!passes) out.counts.resize(classes);
  } else if (tabled) {
    // Slots wider than 63 bits, in parts (WideTable).
    util::reserve_huge(out.keys, src.size * w);
    out.keys.resize(src.size * w);
    out.counts.resize(src.size);
    hs.wide_table.prepare(std::min<std::size_t>(src.size, std::max(hs.last_classes, src.size / 4)), src.size,
                          st.parts());
    GroupArgs args{src.keys, nullptr, src.counts, src.size, w, st.tab.data(), st.codes.data(), nullptr, nullptr,
                   nullptr, want_members ? hs.member.data() : nullptr, out.keys.data(), out.counts.data()};
    args.wide = &hs.wide_table;
    args.part_end = st.part_end.data();
    args.parts = st.parts();
    const std::uint32_t classes = group_wide(args);
    hs.wide_table.reset(classes);
    hs.last_classes = classes;
    out.keys.resize(std::size_t{classes} * w);
    out.counts.resize(classes);
  } else {
    // Keys too wide even for kMaxParts parts (the product of the generalized
    // domains reaches 2^504).
    // Hand-written open addressing on a 64-bit hash of the generalized
    // codes, each hit verified against the class's key: a member's codes
    // are written straight into the next class's room in out.keys and kept
    // there only when they make a new class. It replaced a hash map keyed
    // by the codes as a string (an allocation and a 4 w-byte hash per class),
    // which made bottom-up's checks near the bottom of the synthetic
    // 30-attribute lattice several times slower (docs/search.md, "Wide
    // tables"). Classes are numbered in order of first appearance, as before.
    const std::size_t cap = std::bit_ceil(std::max<std::size_t>(16, 2 * src.size));
    auto& cells = hs.wide_cells;
    cells.assign(cap, kMissing);
    auto& hashes = hs.wide_hashes;
    hashes.clear();
    const std::size_t mask = cap - 1;
    const int shift = 64 - std::countr_zero(cap);
    util::reserve_huge(out.keys, src.size * w);
    out.keys.resize(src.size * w);
    std::uint32_t classes = 0;
    for (std::size_t i = 0; i < src.size; ++i) {
      const std::uint32_t* key = src.keys + i * w;
      std::uint32_t* room = out.keys.data() + std::size_t{classes} * w;
      std::uint64_t h = 0;
      for (std::uint32_t q = 0; q < w; ++q) {
        const std::uint32_t g = maps[q] ? maps[q][key[q]] : key[q];
        room[q] = g;
        h = (h ^ g) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
      }
      std::size_t cell = static_cast<std::size_t>((h * 0x9E3779B97F4A7C15ull) >> shift);
      std::uint32_t c;
      while (true) {
        c = cells[cell];
        if (c == kMissing) {
          c = classes++;
          cells[cell] = c;
          hashes.push_back(h);
          out.counts.push_back(0);
          break;
        }
        if (hashes[c] == h && std::memcmp(out.keys.data() + std::size_t{c} * w, room, w * sizeof(std::uint32_t)) == 0)
          break;
        cell = (cell + 1) & mask;
      }
      out.counts[c] += src.counts[i];
      hs.member[i] = c;
    }
    out.keys.resize(std::size_t{classes} * w);
  }
  out.suppressed.assign(out.counts.size(), 0);
}

}  // namespace check_internal

}  // namespace deid
