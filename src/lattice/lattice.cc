#include "deid/lattice.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace deid {

Lattice::Lattice(std::vector<int> heights) : Lattice(heights, {}, {}) {}

Lattice::Lattice(std::vector<int> heights, std::vector<int> min_levels, std::vector<int> max_levels)
    : heights_(std::move(heights)), lo_(std::move(min_levels)), hi_(std::move(max_levels)) {
  const std::size_t m = heights_.size();
  if (lo_.empty()) lo_.assign(m, 0);
  if (hi_.empty())
    for (int h : heights_) hi_.push_back(h - 1);
  if (lo_.size() != m || hi_.size() != m) throw std::invalid_argument("one level bound per attribute");
  for (std::size_t i = 0; i < m; ++i) {
    if (heights_[i] < 1 || heights_[i] > 255) throw std::invalid_argument("hierarchy height must be in [1, 255]");
    if (lo_[i] < 0 || lo_[i] > hi_[i] || hi_[i] >= heights_[i])
      throw std::invalid_argument("level bounds must satisfy 0 <= min <= max < height");
    size_ *= static_cast<LatticeIndex>(hi_[i] - lo_[i] + 1);
  }
}

bool Lattice::bounded() const {
  for (std::size_t i = 0; i < heights_.size(); ++i)
    if (lo_[i] > 0 || hi_[i] + 1 < heights_[i]) return true;
  return false;
}

Transformation Lattice::bottom() const {
  Transformation t(heights_.size());
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(lo_[i]);
  return t;
}

Transformation Lattice::top() const {
  Transformation t(heights_.size());
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(hi_[i]);
  return t;
}

bool Lattice::contains(const Transformation& t) const {
  if (t.size() != heights_.size()) return false;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] < lo_[i] || t[i] > hi_[i]) return false;
  return true;
}

int Lattice::min_rank() const { return rank(bottom()); }
int Lattice::max_rank() const { return rank(top()); }

LatticeIndex Lattice::index(const Transformation& t) const {
  LatticeIndex idx = 0;
  for (std::size_t i = 0; i < t.size(); ++i)
    idx = idx * static_cast<LatticeIndex>(hi_[i] - lo_[i] + 1) + static_cast<LatticeIndex>(t[i] - lo_[i]);
  return idx;
}

Transformation Lattice::at(LatticeIndex idx) const {
  Transformation t(heights_.size());
  for (std::size_t i = t.size(); i-- > 0;) {
    const auto width = static_cast<LatticeIndex>(hi_[i] - lo_[i] + 1);
    t[i] = static_cast<std::uint8_t>(lo_[i] + static_cast<int>(idx % width));
    idx /= width;
  }
  return t;
}

std::vector<Transformation> Lattice::successors(const Transformation& t) const {
  std::vector<Transformation> out;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] < hi_[i]) {
      out.push_back(t);
      ++out.back()[i];
    }
  return out;
}

std::vector<Transformation> Lattice::predecessors(const Transformation& t) const {
  std::vector<Transformation> out;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] > lo_[i]) {
      out.push_back(t);
      --out.back()[i];
    }
  return out;
}

// Lexicographically smallest placement of `amount` levels above the minimum
// into attributes [from, m): as much as possible at the end.
static void fill_from_end(const std::vector<int>& lo, const std::vector<int>& hi, Transformation& t,
                          std::size_t from, int amount) {
  for (std::size_t j = t.size(); j-- > from;) {
    const int v = std::min(hi[j] - lo[j], amount);
    t[j] = static_cast<std::uint8_t>(lo[j] + v);
    amount -= v;
  }
}

bool Lattice::first_of_rank(int r, Transformation& t) const {
  if (r < min_rank() || r > max_rank()) return false;
  t.assign(heights_.size(), 0);
  fill_from_end(lo_, hi_, t, 0, r - min_rank());
  return true;
}

// The next composition in lexicographic order: raise the rightmost attribute
// that can be raised while some level remains to its right, then place the
// remaining levels (one fewer) lexicographically smallest behind it.
bool Lattice::next_of_rank(Transformation& t) const {
  int right = 0;  // levels above the minimum in attributes after i
  for (std::size_t i = t.size(); i-- > 0;) {
    if (right > 0 && t[i] < hi_[i]) {
      ++t[i];
      fill_from_end(lo_, hi_, t, i + 1, right - 1);
      return true;
    }
    right += t[i] - lo_[i];
  }
  return false;
}

int rank(const Transformation& t) { return std::accumulate(t.begin(), t.end(), 0); }

bool leq(const Transformation& x, const Transformation& y) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i] > y[i]) return false;
  return true;
}

std::string to_string(const Transformation& t) {
  std::string s = "[";
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(t[i]);
  }
  return s + "]";
}

std::string to_string(LatticeIndex v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

}  // namespace deid
