#include "deid/histogram.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <tbb/parallel_for.h>

#include "util/huge_pages.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include "util/release.h"

namespace deid {
namespace {

// Rows are grouped in fixed-size chunks. Each chunk builds its own table in
// parallel; the chunks are then merged in order. Because the chunk size does
// not depend on the number of threads, entries are numbered in order of
// first occurrence in the table, exactly as a sequential pass would number
// them, for any thread count.
constexpr std::uint64_t kChunkRows = 1 << 16;

struct Entry {
  std::uint32_t id;
};

struct Chunk {
  absl::flat_hash_map<std::uint64_t, std::uint32_t> index;
  std::vector<std::uint64_t> keys;    // local entries, in order of first occurrence
  std::vector<std::uint64_t> counts;
  std::vector<std::uint32_t> global;  // local entry → global entry
};

// Packs a row's codes into one 64-bit key (shift[q] is column q's offset).
// Hand-written because hashing one integer per row instead of a vector of
// codes is what makes the build fast: 1.2 M rows × 9 columns took 1.2 s with
// vector keys and one thread. The keys of a chunk are assembled one column
// at a time (a tight loop over that column's narrow codes) before they are
// hashed.
void build_packed(const Dataset& data, const std::vector<int>& columns, const std::vector<int>& shift,
                  const std::vector<int>& bits, Histogram& h) {
  const std::uint64_t rows = data.rows;
  const std::size_t nchunks = static_cast<std::size_t>((rows + kChunkRows - 1) / kChunkRows);
  std::vector<Chunk> chunks(nchunks);
  h.row_entry.resize(rows);

  tbb::parallel_for(std::size_t{0}, nchunks, [&](std::size_t c) {
    Chunk& ch = chunks[c];
    const std::uint64_t begin = c * kChunkRows, end = std::min(rows, begin + kChunkRows);
    ch.index.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(end - begin, 1 << 14)));
    std::vector<std::uint64_t> packed(end - begin, 0);
    for (std::size_t q = 0; q < columns.size(); ++q) {
      const int sh = shift[q];
      data.columns[columns[q]].codes.visit([&](auto codes) {
        for (std::uint64_t r = begin; r < end; ++r) packed[r - begin] |= static_cast<std::uint64_t>(codes[r]) << sh;
      });
    }
    const std::uint64_t* weights = data.grouped() ? data.weights.data() : nullptr;
    for (std::uint64_t r = begin; r < end; ++r) {
      const std::uint64_t key = packed[r - begin];
      auto [it, inserted] = ch.index.try_emplace(key, static_cast<std::uint32_t>(ch.keys.size()));
      if (inserted) {
        ch.keys.push_back(key);
        ch.counts.push_back(0);
      }
      ch.counts[it->second] += weights ? weights[r] : 1;
      h.row_entry[r] = it->second;  // local for now
    }
    // The merge needs only the chunk's keys and counts: freeing the index
    // here keeps one chunk's index per thread alive instead of all of them.
    util::release(ch.index);
  });

  // The merge's index is a set of global entry numbers hashed through
  // `keys` (4 bytes a slot instead of 16 for a key → entry map), reserved
  // for the chunks' entries at once so that it never rehashes; chunk keys
  // and counts are freed as they are merged. Peak memory matters here: the
  // 1.2 M-row survey table has 925 k entries, and these changes (with the
  // early release of chunk indexes) took the peak RSS of reading that table
  // and building its histogram from 144 MB to 105 MB.
  std::vector<std::uint64_t> keys;
  {
    std::size_t upper = 0;
    for (const Chunk& ch : chunks) upper += ch.keys.size();
    keys.reserve(upper);
    h.counts.reserve(upper);
    struct Hash {
      using is_transparent = void;
      const std::vector<std::uint64_t>* keys;
      std::size_t operator()(std::uint64_t k) const { return absl::Hash<std::uint64_t>{}(k); }
      std::size_t operator()(const Entry& e) const { return (*this)((*keys)[e.id]); }
    };
    struct Eq {
      using is_transparent = void;
      const std::vector<std::uint64_t>* keys;
      bool operator()(const Entry& a, const Entry& b) const { return a.id == b.id; }
      bool operator()(const Entry& a, std::uint64_t k) const { return (*keys)[a.id] == k; }
      bool operator()(std::uint64_t k, const Entry& a) const { return (*keys)[a.id] == k; }
    };
    absl::flat_hash_set<Entry, Hash, Eq> index(upper, Hash{&keys}, Eq{&keys});
    for (Chunk& ch : chunks) {
      ch.global.resize(ch.keys.size());
      for (std::size_t i = 0; i < ch.keys.size(); ++i) {
        const std::uint64_t key = ch.keys[i];
        auto it = index.find(key);
        std::uint32_t id;
        if (it == index.end()) {
          id = static_cast<std::uint32_t>(keys.size());
          keys.push_back(key);
          h.counts.push_back(0);
          index.insert(Entry{id});
        } else {
          id = it->id;
        }
        h.counts[id] += ch.counts[i];
        ch.global[i] = id;
      }
      util::release(ch.keys);
      util::release(ch.counts);
    }
  }
  h.counts.shrink_to_fit();
  tbb::parallel_for(std::size_t{0}, nchunks, [&](std::size_t c) {
    const std::uint64_t begin = c * kChunkRows, end = std::min(rows, begin + kChunkRows);
    for (std::uint64_t r = begin; r < end; ++r) h.row_entry[r] = chunks[c].global[h.row_entry[r]];
  });

  // The check reads these keys at random (docs/architecture.md).
  util::reserve_huge(h.keys, keys.size() * h.width);
  h.keys.resize(keys.size() * h.width);
  for (std::size_t e = 0; e < keys.size(); ++e)
    for (std::size_t q = 0; q < columns.size(); ++q) {
      const std::uint64_t mask = bits[q] >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits[q]) - 1;
      h.keys[e * h.width + q] = static_cast<std::uint32_t>((keys[e] >> shift[q]) & mask);
    }
}

// Any number of columns: keys as vectors of codes (slower; used when the
// codes do not fit 64 bits).
void build_wide(const Dataset& data, const std::vector<int>& columns, Histogram& h) {
  h.row_entry.resize(data.rows);
  std::vector<std::uint32_t> probe(h.width);
  absl::flat_hash_map<std::vector<std::uint32_t>, std::uint32_t> index;
  for (std::uint64_t r = 0; r < data.rows; ++r) {
    for (std::uint32_t q = 0; q < h.width; ++q) probe[q] = data.columns[columns[q]].codes[r];
    auto [it, inserted] = index.try_emplace(probe, static_cast<std::uint32_t>(h.counts.size()));
    if (inserted) {
      h.keys.insert(h.keys.end(), probe.begin(), probe.end());
      h.counts.push_back(0);
    }
    h.counts[it->second] += data.grouped() ? data.weights[r] : 1;
    h.row_entry[r] = it->second;
  }
}

// Whether `data` is a table grouped in its database by exactly these
// columns (pushdown without sensitive attributes, docs/databases.md): its
// rows are then distinct combinations, in the order of their first record,
// so row r is entry r.
bool grouped_by_columns(const Dataset& data, const std::vector<int>& columns) {
  if (!data.grouped()) return false;
  std::vector<bool> in(data.columns.size(), false);
  for (int c : columns) {
    if (c < 0 || static_cast<std::size_t>(c) >= in.size() || in[static_cast<std::size_t>(c)]) return false;
    in[static_cast<std::size_t>(c)] = true;
  }
  for (std::size_t c = 0; c < data.columns.size(); ++c)
    if (!in[c] && data.columns[c].codes.size() == data.rows) return false;  // grouped by more columns
  return true;
}

}  // namespace

// No hashing, and no memory beyond the histogram's own: this is what keeps
// a pushdown's peak within the histogram's size (docs/databases.md,
// "Memory"), where the hashed build's temporaries took 1.5 times it.
std::optional<Histogram> take_grouped_histogram(Dataset& data, const std::vector<int>& columns) {
  if (!grouped_by_columns(data, columns)) return std::nullopt;
  Histogram h;
  const std::uint32_t w = h.width = static_cast<std::uint32_t>(columns.size());
  util::reserve_huge(h.keys, data.rows * w);
  h.keys.resize(data.rows * w);
  for (std::uint32_t q = 0; q < w; ++q) {
    Codes& codes = data.columns[static_cast<std::size_t>(columns[q])].codes;
    codes.visit([&](auto column) {
      for (std::uint64_t r = 0; r < data.rows; ++r) h.keys[r * w + q] = column[r];
    });
    codes.clear();
  }
  h.counts = std::move(data.weights);
  util::release(data.weights);
  return h;
}

Histogram build_histogram(const Dataset& data, const std::vector<int>& columns,
                          const std::vector<int>& sensitive_columns, const std::vector<std::uint8_t>* subset) {
  Histogram h;
  h.width = static_cast<std::uint32_t>(columns.size());
  std::vector<int> shift, bits;
  int total = 0;
  for (int c : columns) {
    shift.push_back(total);
    bits.push_back(std::max(1, static_cast<int>(std::bit_width(data.columns[c].dictionary.size()))));
    total += bits.back();
  }
  if (total <= 64)
    build_packed(data, columns, shift, bits, h);
  else
    build_wide(data, columns, h);

  if (subset) {
    if (data.grouped() || subset->size() != data.rows)
      throw std::invalid_argument("build_histogram: a subset needs one flag per row of an ungrouped table");
    h.population = h.counts;
    std::fill(h.counts.begin(), h.counts.end(), 0);
    for (std::uint64_t r = 0; r < data.rows; ++r) h.counts[h.row_entry[r]] += (*subset)[r] ? 1 : 0;
  }

  // Sensitive distributions per entry, in order of code. Of a grouped
  // table, a pair's records are the sum of its rows' weights; with a
  // subset, only its records count.
  for (int sc : sensitive_columns) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // (entry, code)
    std::vector<std::uint64_t> order;                            // of a grouped table: rows by pair
    pairs.reserve(data.rows);
    data.columns[sc].codes.visit([&](auto codes) {
      for (std::uint64_t r = 0; r < data.rows; ++r)
        if (!subset || (*subset)[r]) pairs.emplace_back(h.row_entry[r], codes[r]);
    });
    if (data.grouped()) {
      order.resize(data.rows);
      for (std::uint64_t r = 0; r < data.rows; ++r) order[r] = r;
      std::sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return pairs[a] < pairs[b]; });
    } else {
      std::sort(pairs.begin(), pairs.end());
    }
    auto pair_at = [&](std::size_t i) -> const std::pair<std::uint32_t, std::uint32_t>& {
      return order.empty() ? pairs[i] : pairs[order[i]];
    };
    Histogram::Sensitive s;
    s.offsets.assign(h.size() + 1, 0);
    for (std::size_t i = 0; i < pairs.size();) {
      std::size_t j = i;
      std::uint64_t records = 0;
      for (; j < pairs.size() && pair_at(j) == pair_at(i); ++j) records += order.empty() ? 1 : data.weights[order[j]];
      s.codes.push_back(pair_at(i).second);
      s.counts.push_back(records);
      ++s.offsets[pair_at(i).first + 1];
      i = j;
    }
    for (std::size_t e = 0; e < h.size(); ++e) s.offsets[e + 1] += s.offsets[e];
    h.sensitive.push_back(std::move(s));
  }
  // A grouped table's rows are not records: nothing maps them (Histogram).
  if (data.grouped()) util::release(h.row_entry);
  return h;
}

}  // namespace deid
