#include "privacy/risk_based.h"

#include <algorithm>
#include <vector>

#include "deid/check.h"
#include "risk/suppression.h"

namespace deid {

bool RiskBasedModel::enforce(const Problem& problem, const Transformation& t, Classes& classes,
                             std::uint64_t max_suppressed) const {
  // The class sizes of the records not yet suppressed.
  const ClassSizeFrequencies all = ClassSizeFrequencies::from_class_sizes(classes.counts, classes.suppressed);
  if (fulfilled(all)) return true;

  // The candidates are the classes not yet suppressed, smallest first
  // (risk/suppression.h). Suppressing a prefix of p of them removes the p
  // smallest classes, so the class sizes after it follow from `all` alone,
  // and so do the suppressed records: the order within a size only decides
  // which classes of the last size go, once the search is done. Per
  // distinct size j: the candidates and records of the smaller sizes.
  const std::size_t distinct = all.sizes.size();
  std::vector<std::uint64_t> classes_below(distinct + 1, 0), records_below(distinct + 1, 0);
  for (std::size_t j = 0; j < distinct; ++j) {
    classes_below[j + 1] = classes_below[j] + all.sizes[j].second;
    records_below[j + 1] = records_below[j] + all.sizes[j].first * all.sizes[j].second;
  }
  const std::size_t candidates = classes_below[distinct];
  // The distinct size of the prefix-th candidate (prefix >= 1).
  auto size_index = [&](std::size_t prefix) {
    return static_cast<std::size_t>(std::lower_bound(classes_below.begin() + 1, classes_below.end(), prefix) -
                                    (classes_below.begin() + 1));
  };
  auto removed = [&](std::size_t prefix) -> std::uint64_t {  // records in the first `prefix` candidates
    if (prefix == 0) return 0;
    const std::size_t j = size_index(prefix);
    return records_below[j] + (prefix - classes_below[j]) * all.sizes[j].first;
  };
  auto after = [&](std::size_t prefix) {
    ClassSizeFrequencies rest;
    std::size_t skip = prefix;
    for (const auto& [size, count] : all.sizes) {
      const std::uint64_t drop = std::min<std::uint64_t>(skip, count);
      skip -= drop;
      if (count > drop) rest.sizes.emplace_back(size, count - drop);
    }
    return rest;
  };
  const std::uint64_t base = classes.suppressed_records;
  const PrefixSearch found = find_suppression_prefix(candidates, [&](std::size_t prefix) {
    if (fulfilled(after(prefix))) return ProbeState::fulfilled;
    // ARX stops as soon as an unfulfilled cut-off already exceeds the limit.
    return base + removed(prefix) > max_suppressed ? ProbeState::abort : ProbeState::not_fulfilled;
  });
  if (found.aborted) return false;
  if (found.prefix > 0) {
    const std::uint64_t boundary = all.sizes[size_index(found.prefix)].first;
    for (std::uint32_t c : risk::first_for_suppression(problem, t, classes, found.prefix, boundary))
      classes.suppressed[c] = 1;
  }
  classes.suppressed_records = base + removed(found.prefix);
  return true;
}

}  // namespace deid
