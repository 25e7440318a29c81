// Attribute risk: alpha-distinction and alpha-separation of every
// combination of candidate quasi-identifiers (Motwani and Xu, "Efficient
// algorithms for masking and finding quasi-identifiers", VLDB 2007), with
// the definitions of ARX's RiskModelAttributes: over the classes of records
// with equal values of the combination,
//   distinction = classes / records,
//   separation  = (pairs of records in different classes) / (n (n - 1) / 2).
// ARX sums the separated pairs class size by class size; the same count is
// all pairs less the pairs inside a class, which is what is summed here, in
// exact integers. As in ARX, the records whose every value of the
// combination is `*` (ARX's suppressed value) are left out: they are no
// class and do not count in n.
//
// Each combination's classes are found from the columns' codes, one column
// at a time: the class of a record so far (a dense number) and its next
// code make a 64-bit key, numbered densely again in order of first
// appearance, through a direct table while classes x codes is small and a
// hash map otherwise. Combinations run in parallel (oneTBB), each into its
// own slot, so the result does not depend on the number of threads.
#include <tbb/parallel_for.h>

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <numeric>

#include "deid/error.h"
#include "deid/inspect.h"

namespace deid {
namespace {

// Classes x codes up to this use a direct table (4 bytes a slot).
constexpr std::uint64_t kDirectSlots = std::uint64_t{1} << 24;

// Every combination of `k` of `n` items, in lexicographic order.
void combinations_of(int n, int k, std::vector<std::vector<int>>& out) {
  std::vector<int> c(static_cast<std::size_t>(k));
  std::iota(c.begin(), c.end(), 0);
  while (true) {
    out.push_back(c);
    int i = k - 1;
    while (i >= 0 && c[static_cast<std::size_t>(i)] == n - k + i) --i;
    if (i < 0) return;
    ++c[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < k; ++j) c[static_cast<std::size_t>(j)] = c[static_cast<std::size_t>(j - 1)] + 1;
  }
}

// Replaces `ids` (classes so far, 0 .. classes-1) by the classes of the
// pairs (id, code of `column`); returns the number of classes.
std::uint32_t refine(std::vector<std::uint32_t>& ids, std::uint32_t classes, const Column& column) {
  const std::uint64_t width = std::max<std::uint32_t>(column.dictionary.size(), 1);
  std::uint32_t next = 0;
  if (static_cast<std::uint64_t>(classes) * width <= kDirectSlots) {
    std::vector<std::uint32_t> table(static_cast<std::size_t>(classes * width), UINT32_MAX);
    column.codes.visit([&](auto codes) {
      for (std::size_t r = 0; r < ids.size(); ++r) {
        std::uint32_t& slot = table[ids[r] * width + codes[r]];
        if (slot == UINT32_MAX) slot = next++;
        ids[r] = slot;
      }
    });
  } else {
    absl::flat_hash_map<std::uint64_t, std::uint32_t> table;
    table.reserve(std::min<std::size_t>(ids.size(), std::size_t{1} << 20));
    column.codes.visit([&](auto codes) {
      for (std::size_t r = 0; r < ids.size(); ++r) {
        const auto [it, added] = table.try_emplace(ids[r] * width + codes[r], next);
        if (added) ++next;
        ids[r] = it->second;
      }
    });
  }
  return next;
}

// The class (in `ids`) of the records whose every value of `columns` is
// `*`, or -1 when no record is.
std::int64_t suppressed_class(const Dataset& data, const std::vector<int>& columns,
                              const std::vector<std::uint32_t>& ids) {
  std::vector<std::uint32_t> star;
  for (int c : columns) {
    const std::int64_t code = data.columns[static_cast<std::size_t>(c)].dictionary.find("*");
    if (code < 0) return -1;
    star.push_back(static_cast<std::uint32_t>(code));
  }
  for (std::size_t r = 0; r < ids.size(); ++r) {
    bool all = true;
    for (std::size_t i = 0; i < columns.size() && all; ++i)
      all = data.columns[static_cast<std::size_t>(columns[i])].codes[r] == star[i];
    if (all) return ids[r];
  }
  return -1;
}

CombinationRisk measure(const Dataset& data, const std::vector<int>& columns) {
  const std::size_t rows = static_cast<std::size_t>(data.rows);
  std::vector<std::uint32_t> ids(rows, 0);
  std::uint32_t classes = rows > 0 ? 1 : 0;
  for (int c : columns) classes = refine(ids, classes, data.columns[static_cast<std::size_t>(c)]);
  std::vector<std::uint64_t> size(classes, 0);
  if (data.weights.empty()) {
    for (std::uint32_t id : ids) ++size[id];
  } else {
    for (std::size_t r = 0; r < rows; ++r) size[ids[r]] += data.weights[r];
  }
  CombinationRisk risk;
  risk.columns = columns;
  risk.classes = classes;
  std::uint64_t n = data.records();
  // The records suppressed in every column of the combination (all `*`)
  // are one class, if any: the class of the first such record.
  const std::int64_t suppressed = suppressed_class(data, columns, ids);
  if (suppressed >= 0) {
    n -= size[static_cast<std::size_t>(suppressed)];
    size[static_cast<std::size_t>(suppressed)] = 0;
    --risk.classes;
  }
  risk.records = n;
  // Pairs inside classes: sum of s (s - 1) / 2, in 128 bits (n up to 2^32 and beyond).
  unsigned __int128 inside = 0;
  for (std::uint64_t s : size) {
    if (s == 0) continue;
    inside += static_cast<unsigned __int128>(s) * (s - 1) / 2;
    risk.unique_records += s == 1;
  }
  // ARX's 0 / 0 (no record; for the separation, fewer than two) is NaN,
  // which it reads as 0.
  if (n >= 1) risk.distinction = static_cast<double>(risk.classes) / static_cast<double>(n);
  if (n >= 2) {
    const unsigned __int128 all = static_cast<unsigned __int128>(n) * (n - 1) / 2;
    risk.separation = static_cast<double>(all - inside) / static_cast<double>(all);
  }
  return risk;
}

}  // namespace

std::vector<CombinationRisk> attribute_risks(const Dataset& data, const std::vector<int>& candidates, int max_size) {
  std::vector<std::vector<int>> combos;
  const int n = static_cast<int>(candidates.size());
  for (int k = 1; k <= std::min(max_size, n); ++k) {
    std::vector<std::vector<int>> of_k;
    combinations_of(n, k, of_k);
    for (auto& c : of_k) {
      for (int& i : c) i = candidates[static_cast<std::size_t>(i)];
      std::sort(c.begin(), c.end());
      combos.push_back(std::move(c));
    }
  }
  std::vector<CombinationRisk> out(combos.size());
  tbb::parallel_for(std::size_t{0}, combos.size(), [&](std::size_t i) { out[i] = measure(data, combos[i]); });
  std::sort(out.begin(), out.end(), [](const CombinationRisk& a, const CombinationRisk& b) {
    if (a.unique_records != b.unique_records) return a.unique_records > b.unique_records;
    if (a.distinction != b.distinction) return a.distinction > b.distinction;
    if (a.separation != b.separation) return a.separation > b.separation;
    if (a.columns.size() != b.columns.size()) return a.columns.size() < b.columns.size();
    return a.columns < b.columns;
  });
  return out;
}

}  // namespace deid
