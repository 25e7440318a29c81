// java.util.Random, bit for bit: the 48-bit linear congruential generator
// of the Java platform (Knuth, TAOCP vol. 2, 3.2.1; the constants and the
// derivation of doubles are those of the class's specification).
//
// ARX's (epsilon, delta)-differential privacy draws its sample and its
// exponential mechanism's choices from `new Random(0xDEADBEEF)` in
// deterministic mode (EDDifferentialPrivacy, ExponentialMechanism); deid
// reproduces ARX's runs by drawing the same numbers. Not a source of secret
// randomness: 48 bits of state, recoverable from a few outputs.
#pragma once

#include <cstdint>
#include <limits>

#include "deid/job.h"  // kArxDeterministicSeed, the seed `seed: arx` names

namespace deid {

class JavaRandom {
 public:
  // new Random(seed): the seed scrambled as Random.setSeed does.
  explicit JavaRandom(std::int64_t seed) { set_seed(seed); }

  void set_seed(std::int64_t seed) {
    seed_ = (static_cast<std::uint64_t>(seed) ^ kMultiplier) & kMask;
  }

  // Random.next(bits): the top `bits` of the next state, as a signed int.
  std::int32_t next(int bits) {
    seed_ = (seed_ * kMultiplier + kAddend) & kMask;
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(seed_ >> (48 - bits)));
  }

  std::int32_t next_int() { return next(32); }

  // Random.nextInt(bound), bound > 0: uniform in [0, bound), by the
  // class's rejection of the top values of next(31).
  std::int32_t next_int(std::int32_t bound) {
    std::int32_t r = next(31);
    const std::int32_t m = bound - 1;
    if ((bound & m) == 0) return static_cast<std::int32_t>((static_cast<std::int64_t>(bound) * r) >> 31);
    // Java's `u - (r = u % bound) + m < 0`: the int sum overflows.
    for (std::int32_t u = r; static_cast<std::int64_t>(u) - (r = u % bound) + m > std::numeric_limits<std::int32_t>::max(); u = next(31)) {
    }
    return r;
  }

  // Random.nextDouble(): ((next(26) << 27) + next(27)) * 2^-53, in [0, 1).
  double next_double() {
    const std::int64_t hi = static_cast<std::int64_t>(next(26)) << 27;
    const std::int64_t lo = next(27);
    return static_cast<double>(hi + lo) * 0x1.0p-53;
  }

  // The state (for tests).
  std::uint64_t state() const { return seed_; }

 private:
  static constexpr std::uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr std::uint64_t kAddend = 0xBULL;
  static constexpr std::uint64_t kMask = (1ULL << 48) - 1;
  std::uint64_t seed_ = 0;
};

}  // namespace deid
