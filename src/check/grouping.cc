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
template <int W, bool Dense, class Key>
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
  std::uint64_t* const used = a.used;
  std::uint32_t* const member = a.member;
  std::uint64_t* const sums = a.out_counts;
  std::uint32_t* out_key = a.out_keys;
  std::uint32_t classes = 0;
  std::uint64_t slot[kBlock];
  std::size_t cell[kBlock];
  for (std::size_t first = 0; first < a.n; first += kBlock) {
    const std::size_t m = std::min(kBlock, a.n - first);
    const Key* key = keys + first * width;
    for (std::size_t j = 0; j < m; ++j, key += width) {
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
    key = keys + first * width;
    for (std::size_t j = 0; j < m; ++j, key += width) {
      std::uint32_t cls;
      bool inserted;
      std::uint64_t where = slot[j];
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
        for (std::uint32_t q = 0; q < width; ++q) out_key[q] = codes[q][key[q]];
        out_key += width;
        ++classes;
      }
      sums[cls] += a.counts[first + j];
      if (member) member[first + j] = cls;
    }
  }
  return classes;
}

template <bool Dense, class Key = std::uint32_t>
std::uint32_t group_slots_any(const GroupArgs& a) {
#define DEID_GROUP_CASE(N) \
  case N:                  \
    return group_slots<N, Dense, Key>(a);
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
    default:
      return group_slots<0, Dense, Key>(a);
  }
#undef DEID_GROUP_CASE
}

}  // namespace

std::uint32_t group_sequential(const GroupArgs& a, bool dense) {
  if (a.keys16) return dense ? group_slots_any<true, std::uint16_t>(a) : group_slots_any<false, std::uint16_t>(a);
  return dense ? group_slots_any<true>(a) : group_slots_any<false>(a);
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
  // multiply to less than 2^63 (always, unless the domains are huge).
  std::vector<std::uint64_t> stride(w);
  std::uint64_t slots = 1;
  for (std::uint32_t q = w; q-- > 0;) {
    stride[q] = slots;
    const std::uint64_t d =
        t[q] == 0 ? problem.hierarchies[q].map(0).size() : problem.hierarchies[q].domain_size(t[q]);
    if (d != 0 && slots > (std::uint64_t{1} << 63) / d) return false;
    slots *= d;
  }
  out.slots = slots;
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
    if (maps[q]) {
      out.codes[q] = maps[q];
    } else {
      // Same level: the identity on the source's codes.
      auto& identity = hs.codes[q];
      if (identity.size() < domain) {
        const std::size_t old = identity.size();
        identity.resize(domain);
        for (std::size_t c = old; c < domain; ++c) identity[c] = static_cast<std::uint32_t>(c);
      }
      out.codes[q] = identity.data();
    }
  }
  return true;
}

void group_source(const Problem& problem, Checker::HashState& hs, const Source& src, const Transformation& t,
                  Classes& out, bool want_members, bool ordered) {
  const std::uint32_t w = problem.histogram.width;
  reset_classes(out, w);
  hs.member.resize(src.size);
  hs.partitions.keys_pending = false;

  std::vector<const std::uint32_t*> maps;
  SlotTables st;
  const bool fits = slot_tables(problem, hs, src.levels, t, maps, st);
  const std::uint64_t slots = st.slots;
  std::vector<const std::uint64_t*>& tables = st.tab;
  std::vector<const std::uint32_t*>& codes = st.codes;
  if (fits) {
    // Sequential for any source size (see check.h: the parallel chunked
    // grouping below cost 3 times the CPU on the survey table).
    hs.reserve(src.size);
    const bool partitioned = !ordered && slots > kDenseSlots && src.size >= kPartitionMinSource;
    // Keys are written straight into the output (uninitialized room for
    // every member its own class, trimmed afterwards); the partitioned
    // path writes them later, when needed (materialize_keys).
    if (!partitioned) {
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
                   hs.used.data(),
                   want_members ? hs.member.data() : nullptr,
                   partitioned ? nullptr : out.keys.data(),
                   hs.count_buffer.get()};
    std::uint32_t classes;
    if (partitioned) {
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
      hs.slot_table.reset(hs.used.data(), classes);
      hs.last_classes = classes;
    }
    if (!partitioned) out.keys.resize(std::size_t{classes} * w);
    out.counts.assign(hs.count_buffer.get(), hs.count_buffer.get() + classes);
  } else {
    auto& index = hs.wide_index;
    index.clear();
    std::string probe(w * sizeof(std::uint32_t), '\0');
    for (std::size_t i = 0; i < src.size; ++i) {
      const std::uint32_t* key = src.keys + i * w;
      for (std::uint32_t q = 0; q < w; ++q) {
        const std::uint32_t g = maps[q] ? maps[q][key[q]] : key[q];
        std::memcpy(probe.data() + q * sizeof(std::uint32_t), &g, sizeof g);
      }
      auto [it, inserted] = index.try_emplace(probe, static_cast<std::uint32_t>(out.counts.size()));
      if (inserted) {
        for (std::uint32_t q = 0; q < w; ++q) out.keys.push_back(maps[q] ? maps[q][key[q]] : key[q]);
        out.counts.push_back(0);
      }
      out.counts[it->second] += src.counts[i];
      hs.member[i] = it->second;
    }
  }
  out.suppressed.assign(out.counts.size(), 0);
}

}  // namespace check_internal

}  // namespace deid
