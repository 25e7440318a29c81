#include "deid/check.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

namespace deid {

Lattice Problem::lattice() const {
  std::vector<int> heights;
  for (const auto& h : hierarchies) heights.push_back(h.height());
  return Lattice(heights);
}

bool Problem::monotonic() const {
  return std::all_of(privacy.begin(), privacy.end(), [](const auto& m) { return m->monotonic(); });
}

// Grouping state kept across checks to avoid reallocating the hash tables.
struct Checker::HashState {
  // Generalized keys packed into 64 bits when the codes of all
  // quasi-identifiers fit (bits per attribute from its level-0 domain).
  bool packed = false;
  std::vector<int> shift;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> packed_index;
  absl::flat_hash_map<std::string, std::uint32_t> wide_index;
};

Checker::Checker(const Problem& problem) : problem_(problem), hash_(new HashState) {
  int bits = 0;
  for (const auto& h : problem.hierarchies) {
    hash_->shift.push_back(bits);
    std::uint32_t domain = 0;
    for (int l = 0; l < h.height(); ++l) domain = std::max(domain, h.domain_size(l));
    bits += std::max(1, static_cast<int>(std::bit_width(domain)));
  }
  hash_->packed = bits <= 64;
}

Checker::~Checker() { delete hash_; }

void Checker::group(const Transformation& t, Classes& out) {
  const Histogram& hist = problem_.histogram;
  const std::uint32_t w = hist.width;
  out.width = w;
  out.keys.clear();
  out.counts.clear();
  out.suppressed.clear();
  out.entry_class.resize(hist.size());
  out.suppressed_records = 0;

  std::vector<const std::uint32_t*> maps(w);
  for (std::uint32_t q = 0; q < w; ++q) maps[q] = problem_.hierarchies[q].map(t[q]).data();

  if (hash_->packed) {
    auto& index = hash_->packed_index;
    index.clear();
    for (std::size_t e = 0; e < hist.size(); ++e) {
      const std::uint32_t* key = hist.keys.data() + e * w;
      std::uint64_t packed = 0;
      for (std::uint32_t q = 0; q < w; ++q) packed |= static_cast<std::uint64_t>(maps[q][key[q]]) << hash_->shift[q];
      auto [it, inserted] = index.try_emplace(packed, static_cast<std::uint32_t>(out.counts.size()));
      if (inserted) {
        for (std::uint32_t q = 0; q < w; ++q) out.keys.push_back(maps[q][key[q]]);
        out.counts.push_back(0);
      }
      out.counts[it->second] += hist.counts[e];
      out.entry_class[e] = it->second;
    }
  } else {
    auto& index = hash_->wide_index;
    index.clear();
    std::string probe(w * sizeof(std::uint32_t), '\0');
    for (std::size_t e = 0; e < hist.size(); ++e) {
      const std::uint32_t* key = hist.keys.data() + e * w;
      for (std::uint32_t q = 0; q < w; ++q) {
        const std::uint32_t g = maps[q][key[q]];
        std::memcpy(probe.data() + q * sizeof(std::uint32_t), &g, sizeof g);
      }
      auto [it, inserted] = index.try_emplace(probe, static_cast<std::uint32_t>(out.counts.size()));
      if (inserted) {
        for (std::uint32_t q = 0; q < w; ++q) out.keys.push_back(maps[q][key[q]]);
        out.counts.push_back(0);
      }
      out.counts[it->second] += hist.counts[e];
      out.entry_class[e] = it->second;
    }
  }
  out.suppressed.assign(out.counts.size(), 0);
}

namespace {

// Per sensitive attribute, the distribution of each class: merges the
// distributions of the class's histogram entries.
struct ClassDistributions {
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> codes;
  std::vector<std::uint64_t> counts;
};

ClassDistributions merge_distributions(const Histogram::Sensitive& s, const Classes& classes) {
  struct Item {
    std::uint32_t cls, code;
    std::uint64_t count;
  };
  std::vector<Item> items;
  items.reserve(s.codes.size());
  for (std::size_t e = 0; e + 1 < s.offsets.size(); ++e)
    for (std::uint64_t i = s.offsets[e]; i < s.offsets[e + 1]; ++i)
      items.push_back({classes.entry_class[e], s.codes[i], s.counts[i]});
  std::sort(items.begin(), items.end(),
            [](const Item& a, const Item& b) { return a.cls != b.cls ? a.cls < b.cls : a.code < b.code; });
  ClassDistributions d;
  d.offsets.assign(classes.size() + 1, 0);
  for (std::size_t i = 0; i < items.size();) {
    std::size_t j = i;
    std::uint64_t c = 0;
    while (j < items.size() && items[j].cls == items[i].cls && items[j].code == items[i].code) c += items[j++].count;
    d.codes.push_back(items[i].code);
    d.counts.push_back(c);
    ++d.offsets[items[i].cls + 1];
    i = j;
  }
  for (std::size_t k = 0; k < classes.size(); ++k) d.offsets[k + 1] += d.offsets[k];
  return d;
}

}  // namespace

CheckResult Checker::check(const Transformation& t, Classes* classes_out) {
  Classes& cls = classes_out ? *classes_out : scratch_;
  group(t, cls);

  CheckResult r;
  r.transformation = t;
  r.classes = cls.size();

  std::uint64_t min_size = 1;
  bool need_dist = false;
  for (const auto& m : problem_.privacy) {
    min_size = std::max(min_size, m->minimal_class_size());
    need_dist = need_dist || m->needs_distributions();
  }
  std::vector<ClassDistributions> dists;
  if (need_dist)
    for (const auto& s : problem_.histogram.sensitive) dists.push_back(merge_distributions(s, cls));
  dist_scratch_.resize(dists.size());

  std::uint64_t suppressed = 0;
  for (std::size_t c = 0; c < cls.size(); ++c) {
    bool holds = cls.counts[c] >= min_size;
    if (holds) {
      ClassView view;
      view.count = cls.counts[c];
      if (need_dist) {
        for (std::size_t s = 0; s < dists.size(); ++s) {
          const auto& d = dists[s];
          const auto b = d.offsets[c], e = d.offsets[c + 1];
          dist_scratch_[s] = {std::span<const std::uint32_t>(d.codes.data() + b, e - b),
                              std::span<const std::uint64_t>(d.counts.data() + b, e - b)};
        }
        view.sensitive = dist_scratch_;
      }
      for (const auto& m : problem_.privacy)
        if (!m->holds(view)) {
          holds = false;
          break;
        }
    }
    if (!holds) {
      cls.suppressed[c] = 1;
      suppressed += cls.counts[c];
    }
  }
  r.suppressed_records = suppressed;
  r.solution = suppressed <= problem_.max_suppressed;

  // The bound is the loss with nothing suppressed.
  std::vector<std::uint8_t> flags;
  flags.swap(cls.suppressed);
  cls.suppressed.assign(cls.size(), 0);
  cls.suppressed_records = 0;
  r.lower_bound = problem_.quality->lower_bound(problem_, t, cls);
  cls.suppressed.swap(flags);
  cls.suppressed_records = suppressed;
  if (r.solution) r.quality = problem_.quality->evaluate(problem_, t, cls);
  return r;
}

}  // namespace deid
