// A per-Problem table that a quality model computes once from the histogram
// and then reads on every check (entropy's generalization entropies, Loss's
// generalization-only leaf counts). Internal to src/quality.
//
// The table is built on first use and kept for that Problem, recognised by
// its address and its histogram's storage (a Problem is immutable while it
// is searched); a model used with another Problem rebuilds it. get() may be
// called from several threads at once: it holds a mutex only to look up or
// replace the table and returns a shared pointer, so a table in use is never
// freed under a reader.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "deid/problem.h"

namespace deid::quality {

template <class Table>
class ProblemCache {
 public:
  // The table of `problem`, built with `build(problem)` when not cached.
  template <class Build>
  std::shared_ptr<const Table> get(const Problem& problem, Build&& build) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (table_ && problem_ == &problem && counts_ == problem.histogram.counts.data() &&
        entries_ == problem.histogram.size())
      return table_;
    table_ = std::make_shared<const Table>(build(problem));
    problem_ = &problem;
    counts_ = problem.histogram.counts.data();
    entries_ = problem.histogram.size();
    return table_;
  }

 private:
  mutable std::mutex mutex_;
  mutable const Problem* problem_ = nullptr;
  mutable const std::uint64_t* counts_ = nullptr;
  mutable std::size_t entries_ = 0;
  mutable std::shared_ptr<const Table> table_;
};

// Records per original value of quasi-identifier `q`: index = the column's
// code (level-0 code), sized to the hierarchy's level-0 domain.
inline std::vector<std::uint64_t> value_frequencies(const Problem& problem, std::size_t q) {
  const Histogram& hist = problem.histogram;
  const std::size_t w = hist.width;
  std::vector<std::uint64_t> a(problem.hierarchies[q].map(0).size(), 0);
  for (std::size_t e = 0; e < hist.size(); ++e) a[hist.keys[e * w + q]] += hist.counts[e];
  return a;
}

}  // namespace deid::quality
