#include "deid/histogram.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>

namespace deid {
Histogram build_histogram(const Dataset& data, const std::vector<int>& columns,
                          const std::vector<int>& sensitive_columns) {
  Histogram h;
  h.width = static_cast<std::uint32_t>(columns.size());
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
    ++h.counts[it->second];
    h.row_entry[r] = it->second;
  }

  // Sensitive distributions per entry, in order of code.
  for (int sc : sensitive_columns) {
    const auto& codes = data.columns[sc].codes;
    std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> dist(h.size());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // (entry, code)
    pairs.reserve(data.rows);
    for (std::uint64_t r = 0; r < data.rows; ++r) pairs.emplace_back(h.row_entry[r], codes[r]);
    std::sort(pairs.begin(), pairs.end());
    Histogram::Sensitive s;
    s.offsets.assign(h.size() + 1, 0);
    for (std::size_t i = 0; i < pairs.size();) {
      std::size_t j = i;
      while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
      s.codes.push_back(pairs[i].second);
      s.counts.push_back(j - i);
      ++s.offsets[pairs[i].first + 1];
      i = j;
    }
    for (std::size_t e = 0; e < h.size(); ++e) s.offsets[e + 1] += s.offsets[e];
    h.sensitive.push_back(std::move(s));
  }
  return h;
}

}  // namespace deid
