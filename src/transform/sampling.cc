#include "deid/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace deid {
namespace {

// A uniform draw in [0, bound) by rejection: the top of the generator's
// range that does not divide evenly is thrown away, so every value is
// equally likely and the result does not depend on the library.
std::uint64_t below(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  while (true) {
    const std::uint64_t x = rng();
    if (x >= threshold) return x % bound;
  }
}

}  // namespace

std::vector<std::vector<std::uint64_t>> draw_disjoint_samples(std::uint64_t rows, std::span<const double> fractions,
                                                              std::uint64_t seed) {
  std::vector<std::uint64_t> sizes;
  std::uint64_t total = 0;
  for (double f : fractions) {
    if (!(f >= 0 && f <= 1)) throw std::invalid_argument("a sampling fraction must be in [0, 1]");
    sizes.push_back(static_cast<std::uint64_t>(std::floor(f * static_cast<double>(rows) + 0.5)));
    total += sizes.back();
  }
  if (total > rows) throw std::invalid_argument("the samples together need more rows than the table has");

  // Partial Fisher-Yates: positions 0..total-1 of a random permutation.
  std::vector<std::uint64_t> perm(rows);
  std::iota(perm.begin(), perm.end(), std::uint64_t{0});
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = 0; i < total; ++i) std::swap(perm[i], perm[i + below(rng, rows - i)]);

  std::vector<std::vector<std::uint64_t>> out;
  std::uint64_t at = 0;
  for (std::uint64_t s : sizes) {
    std::vector<std::uint64_t> sample(perm.begin() + static_cast<std::ptrdiff_t>(at),
                                      perm.begin() + static_cast<std::ptrdiff_t>(at + s));
    std::sort(sample.begin(), sample.end());
    out.push_back(std::move(sample));
    at += s;
  }
  return out;
}

}  // namespace deid
