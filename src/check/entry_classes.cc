#include "check/entry_classes.h"

#include <absl/container/flat_hash_map.h>

#include <stdexcept>
#include <string_view>
#include <utility>

#include "deid/check.h"
#include "deid/problem.h"

namespace deid {

// Classes are found by their keys' mixed-radix numbers when these fit 64
// bits (measured: hashing the keys' bytes took a quarter of an adult search
// with a microaggregated attribute), else by the keys' bytes.
std::vector<std::uint32_t> entry_classes(const Problem& problem, const Transformation& t, const Classes& classes) {
  const Histogram& h = problem.histogram;
  if (!classes.entry_class.empty()) return classes.entry_class;
  const std::uint32_t w = classes.width;
  std::vector<std::uint64_t> radix(w);
  bool fits = true;
  unsigned __int128 product = 1;
  for (std::uint32_t q = 0; q < w; ++q) {
    radix[q] = problem.hierarchies[q].domain_size(t[q]);
    product *= radix[q];
    fits = fits && product < (static_cast<unsigned __int128>(1) << 63);
  }
  std::vector<std::uint32_t> out(h.size());
  std::vector<std::uint32_t> key(w);
  const auto generalize = [&](std::size_t e) {
    const auto k = h.key(e);
    for (std::uint32_t q = 0; q < w; ++q) key[q] = problem.hierarchies[q].map(t[q])[k[q]];
  };
  // Indexes the classes by key_of(their key) and looks every entry's
  // generalized key up the same way.
  const auto lookup = [&](auto key_of) {
    absl::flat_hash_map<decltype(key_of(key.data())), std::uint32_t> index;
    index.reserve(classes.size());
    for (std::size_t c = 0; c < classes.size(); ++c)
      index.emplace(key_of(classes.keys.data() + c * w), static_cast<std::uint32_t>(c));
    for (std::size_t e = 0; e < h.size(); ++e) {
      generalize(e);
      const auto it = index.find(key_of(key.data()));
      if (it == index.end()) throw std::logic_error("a histogram entry has no class among the given classes");
      out[e] = it->second;
    }
    return std::move(out);
  };
  if (fits)
    return lookup([&](const std::uint32_t* k) {
      std::uint64_t n = 0;
      for (std::uint32_t q = 0; q < w; ++q) n = n * radix[q] + k[q];
      return n;
    });
  return lookup([w](const std::uint32_t* k) {
    return std::string_view(reinterpret_cast<const char*>(k), w * sizeof(std::uint32_t));
  });
}

}  // namespace deid
