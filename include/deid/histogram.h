// The histogram: the distinct combinations of quasi-identifier codes with
// their counts. It is the engine's working set (docs/architecture.md): the
// search, the privacy models and the quality models see only this, never
// rows. Only applying the chosen transformation goes back to rows.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "deid/dataset.h"

namespace deid {

struct Histogram {
  std::uint32_t width = 0;                // number of quasi-identifiers
  std::vector<std::uint32_t> keys;        // entry-major: entry e occupies [e*width, (e+1)*width)
  std::vector<std::uint64_t> counts;      // records per entry
  std::vector<std::uint32_t> row_entry;   // row → entry; empty of a table grouped in its database

  // Per sensitive attribute s (and per insensitive response variable of
  // the classification model, Problem::responses, after them): entry-major
  // codes of the column,
  // [sensitive_offsets[e], sensitive_offsets[e+1]) lists (code, count) pairs
  // of entry e. Filled only when sensitive columns are requested.
  struct Sensitive {
    std::vector<std::uint64_t> offsets;           // entries + 1
    std::vector<std::uint32_t> codes;
    std::vector<std::uint64_t> counts;
  };
  std::vector<Sensitive> sensitive;

  // With a research subset (Job::subset): `counts` are the subset's
  // records per entry (ARX's count; entries of records outside it only
  // have 0) and `population` every record's (ARX's pcount); the
  // distributions are the subset's. Empty without a subset.
  std::vector<std::uint64_t> population;

  std::size_t size() const { return counts.size(); }
  std::span<const std::uint32_t> key(std::size_t entry) const {
    return {keys.data() + entry * width, width};
  }
  // The histogram's size: its keys, counts, distributions and population
  // counts (not row_entry, which is the rows', not the histogram's).
  std::uint64_t bytes() const {
    std::uint64_t b = keys.size() * sizeof(std::uint32_t) + counts.size() * sizeof(std::uint64_t) +
                      population.size() * sizeof(std::uint64_t);
    for (const Sensitive& s : sensitive)
      b += s.offsets.size() * sizeof(std::uint64_t) + s.codes.size() * sizeof(std::uint32_t) +
           s.counts.size() * sizeof(std::uint64_t);
    return b;
  }
};

// Builds the histogram of `columns` (indices into `data`). Entries are
// numbered in order of first occurrence, so the result does not depend on
// the number of threads. `sensitive_columns` get per-entry distributions.
// `subset` (one flag per row, not for a grouped table): the research
// subset (Histogram::population).
Histogram build_histogram(const Dataset& data, const std::vector<int>& columns,
                          const std::vector<int>& sensitive_columns = {},
                          const std::vector<std::uint8_t>* subset = nullptr);

// The histogram of a table grouped in its database by exactly `columns`
// (pushdown without sensitive attributes: its rows are the entries, in
// order), built by taking its rows: the counts are its weights, and each
// column's codes are freed once copied, so that the peak is the histogram
// and the grouped codes (docs/databases.md, "Memory"). The table keeps its
// dictionaries and its records(). nullopt, taking nothing, when the table
// is not so grouped; build_histogram gives the same histogram by hashing,
// without taking.
std::optional<Histogram> take_grouped_histogram(Dataset& data, const std::vector<int>& columns);

}  // namespace deid
