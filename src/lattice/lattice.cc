#include "deid/lattice.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace deid {

Lattice::Lattice(std::vector<int> heights) : heights_(std::move(heights)) {
  for (int h : heights_) {
    if (h < 1 || h > 255) throw std::invalid_argument("hierarchy height must be in [1, 255]");
    size_ *= static_cast<LatticeIndex>(h);
  }
}

Transformation Lattice::top() const {
  Transformation t(heights_.size());
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(heights_[i] - 1);
  return t;
}

int Lattice::max_rank() const { return rank(top()); }

LatticeIndex Lattice::index(const Transformation& t) const {
  LatticeIndex idx = 0;
  for (std::size_t i = 0; i < t.size(); ++i) idx = idx * static_cast<LatticeIndex>(heights_[i]) + t[i];
  return idx;
}

Transformation Lattice::at(LatticeIndex idx) const {
  Transformation t(heights_.size());
  for (std::size_t i = t.size(); i-- > 0;) {
    t[i] = static_cast<std::uint8_t>(idx % static_cast<LatticeIndex>(heights_[i]));
    idx /= static_cast<LatticeIndex>(heights_[i]);
  }
  return t;
}

std::vector<Transformation> Lattice::successors(const Transformation& t) const {
  std::vector<Transformation> out;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] + 1 < heights_[i]) {
      out.push_back(t);
      ++out.back()[i];
    }
  return out;
}

std::vector<Transformation> Lattice::predecessors(const Transformation& t) const {
  std::vector<Transformation> out;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] > 0) {
      out.push_back(t);
      --out.back()[i];
    }
  return out;
}

// Lexicographically smallest placement of `amount` levels into attributes
// [from, m): as much as possible at the end.
static void fill_from_end(const std::vector<int>& heights, Transformation& t, std::size_t from, int amount) {
  for (std::size_t j = t.size(); j-- > from;) {
    const int v = std::min(heights[j] - 1, amount);
    t[j] = static_cast<std::uint8_t>(v);
    amount -= v;
  }
}

bool Lattice::first_of_rank(int r, Transformation& t) const {
  if (r < 0 || r > max_rank()) return false;
  t.assign(heights_.size(), 0);
  fill_from_end(heights_, t, 0, r);
  return true;
}

// The next composition in lexicographic order: raise the rightmost attribute
// that can be raised while some level remains to its right, then place the
// remaining levels (one fewer) lexicographically smallest behind it.
bool Lattice::next_of_rank(Transformation& t) const {
  int right = 0;  // levels in attributes after i
  for (std::size_t i = t.size(); i-- > 0;) {
    if (right > 0 && t[i] + 1 < heights_[i]) {
      ++t[i];
      fill_from_end(heights_, t, i + 1, right - 1);
      return true;
    }
    right += t[i];
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
