// Rolling sensitive distributions up to a check's classes (see
// distributions.h): a counting sort of the source members by class, then one
// merge per class and attribute.
#include "check/distributions.h"

#include <algorithm>

namespace deid::check_internal {
namespace {

// The source members (histogram entries or rolled-up classes) of each
// class: entries[starts[c] .. starts[c+1]). A counting sort on the member →
// class map, shared by all sensitive attributes of one check.
struct EntriesByClass {
  std::vector<std::uint32_t> starts;
  std::vector<std::uint32_t> entries;
};

EntriesByClass entries_by_class(const std::vector<std::uint32_t>& member, std::size_t classes) {
  EntriesByClass b;
  b.starts.assign(classes + 1, 0);
  for (std::uint32_t c : member) ++b.starts[c + 1];
  for (std::size_t c = 0; c < classes; ++c) b.starts[c + 1] += b.starts[c];
  b.entries.resize(member.size());
  std::vector<std::uint32_t> next(b.starts.begin(), b.starts.end() - 1);
  for (std::size_t e = 0; e < member.size(); ++e) b.entries[next[member[e]]++] = static_cast<std::uint32_t>(e);
  return b;
}

// Linear in the (entry, code) pairs of the histogram: a class's counts
// accumulate in a dense array over the attribute's `domain` codes, and only
// the codes touched are read back, in ascending order. A class of one entry
// takes that entry's distribution as it is (already sorted by code).
// Replaces a sort of all pairs by (class, code), which took about a third of
// the time of an adult check with l-diversity (docs/privacy-models.md).
ClassDistributions merge_distributions(const Histogram::Sensitive& s, const EntriesByClass& by_class,
                                       std::uint32_t domain) {
  const std::size_t classes = by_class.starts.size() - 1;
  ClassDistributions d;
  d.offsets.assign(classes + 1, 0);
  d.codes.reserve(s.codes.size());
  d.counts.reserve(s.codes.size());
  std::vector<std::uint64_t> sum(domain, 0);
  std::vector<std::uint32_t> touched;
  for (std::size_t c = 0; c < classes; ++c) {
    const std::uint32_t* first = by_class.entries.data() + by_class.starts[c];
    const std::uint32_t* last = by_class.entries.data() + by_class.starts[c + 1];
    if (last - first == 1) {
      const std::uint64_t b = s.offsets[*first], e = s.offsets[*first + 1];
      d.codes.insert(d.codes.end(), s.codes.begin() + b, s.codes.begin() + e);
      d.counts.insert(d.counts.end(), s.counts.begin() + b, s.counts.begin() + e);
    } else {
      for (const std::uint32_t* entry = first; entry != last; ++entry)
        for (std::uint64_t i = s.offsets[*entry]; i < s.offsets[*entry + 1]; ++i) {
          const std::uint32_t code = s.codes[i];
          if (sum[code] == 0) touched.push_back(code);
          sum[code] += s.counts[i];
        }
      std::sort(touched.begin(), touched.end());
      for (std::uint32_t code : touched) {
        d.codes.push_back(code);
        d.counts.push_back(sum[code]);
        sum[code] = 0;
      }
      touched.clear();
    }
    d.offsets[c + 1] = d.codes.size();
  }
  return d;
}


// For a small domain (measured: adult's salary-class, 2 values, with the
// classification model; 47 % of that search was the merge above): one pass
// over the members in their order adds into a dense classes x domain table,
// which is then read back class by class, code by code. No sort of the
// members by class, no sort of touched codes. Same result as
// merge_distributions.
ClassDistributions dense_distributions(const Histogram::Sensitive& s, const std::vector<std::uint32_t>& member,
                                       std::size_t classes, std::uint32_t domain) {
  std::vector<std::uint64_t> table(classes * domain, 0);
  for (std::size_t e = 0; e < member.size(); ++e) {
    std::uint64_t* row = table.data() + static_cast<std::size_t>(member[e]) * domain;
    for (std::uint64_t i = s.offsets[e]; i < s.offsets[e + 1]; ++i) row[s.codes[i]] += s.counts[i];
  }
  ClassDistributions d;
  d.offsets.assign(classes + 1, 0);
  d.codes.reserve(s.codes.size());
  d.counts.reserve(s.codes.size());
  for (std::size_t c = 0; c < classes; ++c) {
    const std::uint64_t* row = table.data() + c * domain;
    for (std::uint32_t code = 0; code < domain; ++code)
      if (row[code] != 0) {
        d.codes.push_back(code);
        d.counts.push_back(row[code]);
      }
    d.offsets[c + 1] = d.codes.size();
  }
  return d;
}

}  // namespace

std::vector<ClassDistributions> roll_up_distributions(const Problem& problem,
                                                      const std::vector<Histogram::Sensitive>& source,
                                                      const std::vector<std::uint32_t>& member, std::size_t classes) {
  std::vector<ClassDistributions> dists;
  EntriesByClass by_class;  // built when a merge needs it
  for (std::size_t i = 0; i < problem.histogram.sensitive.size(); ++i) {
    const auto& s = source[i];
    // Codes are below the column's dictionary size; without the column
    // (problems built by hand), below the largest code + 1.
    std::uint32_t domain = 0;
    if (i < problem.sensitive.size() && problem.sensitive[i].data)
      domain = problem.sensitive[i].data->dictionary.size();
    for (const ResponseVariable& r : problem.responses)
      if (r.distribution == static_cast<int>(i)) domain = std::max(domain, r.domain);
    if (domain == 0)
      for (std::uint32_t code : s.codes) domain = std::max(domain, code + 1);
    // Dense when the table is at most a few times the pairs read.
    if (domain <= 64 && static_cast<std::uint64_t>(classes) * domain <= 4 * s.codes.size() + 4096) {
      dists.push_back(dense_distributions(s, member, classes, domain));
      continue;
    }
    if (by_class.starts.empty()) by_class = entries_by_class(member, classes);
    dists.push_back(merge_distributions(s, by_class, domain));
  }
  return dists;
}

}  // namespace deid::check_internal
