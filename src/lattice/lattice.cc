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
