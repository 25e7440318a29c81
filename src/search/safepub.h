// The pieces of the SafePub search (Bild, Kuhn, Prasser, PoPETs 2018,
// Algorithm 1; ARX's DataDependentEDDPAlgorithm) that decide which
// transformation it picks, kept apart for their tests: the exponential
// mechanism as ARX runs it, and the order in which ARX hands the candidates
// to it (that of a java.util.HashMap of transformation ids).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "privacy/differential_privacy.h"

namespace deid {

// ARX's ExponentialMechanism.setDistribution + sample() (with commons-math's
// EnumeratedDistribution): weights exp(epsilon/2 * score - shift), shift
// the largest exponent; normalized by their sum, accumulated in order; the
// first index whose cumulative probability exceeds one draw of `random`
// (a draw equal to a cumulative probability, or beyond the last, picks the
// last index, as EnumeratedDistribution.sample() does). REQUIRES: scores
// not empty.
std::size_t exponential_mechanism(std::span<const double> scores, double epsilon, DpRandom& random);

// The iteration order of a java.util.HashMap<Long, V> (default capacity 16,
// load factor 0.75) after a sequence of put() of new keys and remove():
// by bucket (hash ^ hash >>> 16, masked by the capacity, which only grows),
// then by insertion within a bucket (splits on resize keep it). A bucket
// that would turn into a tree (9 keys at capacity 64 or more) orders its
// keys differently; exact() turns false then (no run seen so far).
class JavaHashOrder {
 public:
  void put(std::int64_t key);     // REQUIRES: key not present
  void remove(std::int64_t key);  // REQUIRES: key present
  bool contains(std::int64_t key) const;
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  // The keys in iteration order.
  std::vector<std::int64_t> order() const;
  bool exact() const { return exact_; }
  std::size_t capacity() const { return capacity_; }

 private:
  struct Entry {
    std::int64_t key;
    std::uint64_t seq;  // insertion order
  };
  std::uint32_t bucket(std::int64_t key) const;
  std::size_t bucket_size(std::uint32_t b) const;
  std::vector<Entry> entries_;
  std::uint64_t next_seq_ = 0;
  std::size_t capacity_ = 16;
  bool exact_ = true;
};

}  // namespace deid
