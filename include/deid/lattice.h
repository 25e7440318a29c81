// The generalization lattice: the solution space of full-domain
// generalization. A transformation is a vector of levels, one per
// quasi-identifier, 0 <= levels[i] < heights[i]. The lattice is never
// materialized; it only knows its shape (papers/000, "Preliminaries").
//
// A job may confine an attribute to the levels [min-level, max-level]
// (ARX's generalization constraints): the lattice is then the sublattice
// of the transformations within those bounds. Levels stay absolute (the
// hierarchy's own levels); bottom() is the vector of minimum levels, top()
// that of maximum levels, and indices number the sublattice only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace deid {

using Transformation = std::vector<std::uint8_t>;
// Lattice sizes and indices: 128 bits, since 30 quasi-identifiers of height
// 5 already exceed 2^64.
using LatticeIndex = unsigned __int128;

class Lattice {
 public:
  // Every level of each hierarchy.
  explicit Lattice(std::vector<int> heights);
  // Levels [min_levels[i], max_levels[i]] of attribute i. Throws
  // std::invalid_argument unless 0 <= min <= max < height for each.
  Lattice(std::vector<int> heights, std::vector<int> min_levels, std::vector<int> max_levels);

  std::size_t dimensions() const { return heights_.size(); }
  // The hierarchies' heights (levels 0 .. height-1), bounds or not.
  const std::vector<int>& heights() const { return heights_; }
  int min_level(std::size_t i) const { return lo_[i]; }
  int max_level(std::size_t i) const { return hi_[i]; }
  // Whether some attribute is confined to fewer levels than its hierarchy has.
  bool bounded() const;
  LatticeIndex size() const { return size_; }
  Transformation bottom() const;
  Transformation top() const;
  // Whether `t` lies within the bounds (and has one level per attribute).
  bool contains(const Transformation& t) const;
  int min_rank() const;
  int max_rank() const;

  // Mixed-radix index of a transformation (first attribute most significant)
  // and its inverse.
  LatticeIndex index(const Transformation& t) const;
  Transformation at(LatticeIndex index) const;

  // Direct generalizations (one level up in one attribute) and
  // specializations, in attribute order.
  std::vector<Transformation> successors(const Transformation& t) const;
  std::vector<Transformation> predecessors(const Transformation& t) const;

  // The transformations of one rank in lexicographic order, enumerated
  // without materializing the lattice (the optimal search sweeps ranks
  // bottom-up, min_rank() to max_rank()). first_of_rank() sets `t` to the
  // first transformation of rank `r` and returns false when there is none;
  // next_of_rank() advances `t` to the next one of the same rank and
  // returns false after the last.
  bool first_of_rank(int r, Transformation& t) const;
  bool next_of_rank(Transformation& t) const;

 private:
  std::vector<int> heights_;
  std::vector<int> lo_, hi_;  // bounds per attribute, inclusive
  LatticeIndex size_ = 1;
};

int rank(const Transformation& t);
// x ≤ y componentwise (x is a specialization of y, or equal).
bool leq(const Transformation& x, const Transformation& y);
std::string to_string(const Transformation& t);
// Decimal representation of a 128-bit index.
std::string to_string(LatticeIndex value);

}  // namespace deid
