#include "deid/property_store.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace deid {

PropertyStore::PropertyStore(const Lattice& lattice, Inheritance inheritance)
    : inheritance_(inheritance), heights_(lattice.heights()) {
  if (heights_.empty()) throw std::invalid_argument("a property store needs at least one dimension");
  // The tree's depths go from the attribute of fewest levels to the one of
  // most (ties: attribute order): more elements share the upper nodes. On
  // the synthetic 12-attribute job the trees had 26 % fewer nodes and
  // queries visited 13 % fewer than in attribute order (most levels first:
  // 20 % more nodes, no fewer visits).
  order_.resize(heights_.size());
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return heights_[a] < heights_[b]; });
  {
    std::vector<int> sorted(heights_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) sorted[i] = heights_[order_[i]];
    heights_ = std::move(sorted);
  }
  int max_rank = 0;
  for (int h : heights_) max_rank += h - 1;
  // Ranks are kept in 16 bits per node: 30 attributes of height 255 use 7,620.
  if (max_rank > std::numeric_limits<std::uint16_t>::max())
    throw std::invalid_argument("lattice ranks exceed the property store's 16-bit range");
  const std::size_t m = heights_.size();
  nodes_.emplace_back();  // the root; its bounds are those of an empty set until something is added
  nodes_[0].min_rank = std::numeric_limits<std::uint16_t>::max();
  nodes_[0].set(0, kBelowMask);
  static_assert(sizeof(Node) == 16, "the summary lives in what was padding");
  stride_ = (m + 15) / 16 * 16;
  key_.assign(stride_, 0);
  recent_.assign(kRecent * stride_, 0);
  suffix_.resize(m + 1);
  below_key_.resize(m + 1);
  cur_.resize(m);
  prev_.resize(m);
  prefix_.resize(m + 1);
  removed_mark_.resize(m);
}

void PropertyStore::load(const Transformation& x) {
  const std::size_t m = heights_.size();
  for (std::size_t i = 0; i < m; ++i)
    key_[i] = stored_level(i, x[order_[i]]);
  suffix_[m] = 0;
  below_key_[m] = kBelowMask;
  for (std::size_t i = m; i-- > 0;) {
    suffix_[i] = suffix_[i + 1] + key_[i];
    below_key_[i] = (std::min<std::uint32_t>(key_[i], kLaneMax) | below_key_[i + 1] << kLaneBits) & kBelowMask;
  }
}

std::uint32_t PropertyStore::lane_min(std::uint32_t a, std::uint32_t b) {
  std::uint32_t out = 0;
  for (unsigned j = 0; j < kLanes; ++j) {
    const unsigned shift = j * kLaneBits;
    out |= std::min((a >> shift) & kLaneMax, (b >> shift) & kLaneMax) << shift;
  }
  return out;
}

bool PropertyStore::recent_covers(std::size_t r) const {
  const std::uint8_t* y = recent_.data() + r * stride_;
#if defined(__SSE2__)
  // Hand-written: 16 levels compared at once (y ≤ key ⇔ max(y, key) = key).
  for (std::size_t i = 0; i < stride_; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(y + i));
    const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key_.data() + i));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(a, k), k)) != 0xFFFF) return false;
  }
  return true;
#else
  for (std::size_t i = 0; i < stride_; ++i)
    if (y[i] > key_[i]) return false;
  return true;
#endif
}

// Range query for some stored y ≤ key_ (papers/000, "Queries"). A child c at
// depth d is followed when c.level ≤ key_[d] and the smallest rank beneath
// it, minus the levels already fixed on its path, fits into key_'s remaining
// levels: y ≤ key_ on the remaining attributes implies that their sum is at
// most suffix_[d + 1]. Children are sorted by level, so the scan of a
// sibling list stops at the first level above key_[d]. A child whose
// summary has a level above key_'s at one of the next kLanes depths is
// skipped without reading its children (`below`). The elements that
// answered recent queries are tried first (recent_).
bool PropertyStore::covered() const {
  for (std::size_t r = 0; r < recent_count_; ++r)
    if (recent_covers(r)) {
      hit_row_ = r;
      return true;
    }
  if (!lanes_leq(nodes_[0].below(), below_key_[0])) return false;
  const int m = static_cast<int>(heights_.size());
  int d = 0;
  cur_[0] = nodes_[0].first_child;
  prefix_[0] = 0;
  while (true) {
    std::int32_t c = cur_[d];
    while (c >= 0) {
      const Node& n = nodes_[c];
      if (n.level() > key_[d]) {
        c = -1;
        break;
      }
      if (n.min_rank - (prefix_[d] + n.level()) <= suffix_[d + 1] && lanes_leq(n.below(), below_key_[d + 1])) break;
      c = n.next_sibling;
    }
    if (c < 0) {
      if (d == 0) return false;
      --d;
      cur_[d] = nodes_[cur_[d]].next_sibling;
      continue;
    }
    cur_[d] = c;
    if (d == m - 1) {
      // Remember the element found (the path's levels).
      std::uint8_t* row = recent_.data() + recent_next_ * stride_;
      for (int i = 0; i < m; ++i) row[i] = nodes_[cur_[i]].level();
      hit_row_ = recent_next_;
      recent_next_ = (recent_next_ + 1) % kRecent;
      recent_count_ = std::min(recent_count_ + 1, kRecent);
      return true;
    }
    prefix_[d + 1] = prefix_[d] + nodes_[c].level();
    cur_[d + 1] = nodes_[c].first_child;
    ++d;
  }
}

bool PropertyStore::contains(const Transformation& x) {
  ++stats_.queries;
  const bool hit = peek(x);
  if (hit) ++stats_.hits;
  return hit;
}

bool PropertyStore::contains(const Transformation& x, Transformation& witness) {
  if (!contains(x)) return false;
  const std::size_t m = heights_.size();
  witness.resize(m);
  const std::uint8_t* row = recent_.data() + hit_row_ * stride_;
  for (std::size_t d = 0; d < m; ++d) witness[order_[d]] = stored_level(d, row[d]);
  return true;
}

bool PropertyStore::peek(const Transformation& x) {
  load(x);
  return covered();
}

std::int32_t PropertyStore::allocate(std::uint8_t level, std::uint32_t below, int rank) {
  std::int32_t idx;
  if (free_head_ >= 0) {
    idx = free_head_;
    free_head_ = nodes_[idx].next_sibling;
    --free_count_;
  } else {
    idx = static_cast<std::int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  Node& n = nodes_[idx];
  n.first_child = -1;
  n.next_sibling = -1;
  n.set(level, below);
  n.min_rank = n.max_rank = static_cast<std::uint16_t>(rank);
  return idx;
}

void PropertyStore::release(std::int32_t node) {
  nodes_[node].first_child = -1;
  nodes_[node].next_sibling = free_head_;
  free_head_ = node;
  ++free_count_;
}

void PropertyStore::refresh_bounds(std::int32_t node) {
  Node& n = nodes_[node];
  std::uint16_t lo = std::numeric_limits<std::uint16_t>::max(), hi = 0;
  std::uint32_t below = kBelowMask;
  for (std::int32_t c = n.first_child; c >= 0; c = nodes_[c].next_sibling) {
    const Node& k = nodes_[c];
    lo = std::min(lo, k.min_rank);
    hi = std::max(hi, k.max_rank);
    below = lane_min(below, (std::min<std::uint32_t>(k.level(), kLaneMax) | k.below() << kLaneBits) & kBelowMask);
  }
  n.min_rank = lo;
  n.max_rank = hi;
  n.set(n.level(), below);
}

// Range query for every stored y ≥ key_, removing what it finds (papers/000,
// "Inserts"): children with c.level ≥ key_[d] whose largest rank beneath can
// still cover key_'s remaining levels. Leaves found are unlinked; on the way
// back, inner nodes left without children are unlinked too, and the bounds
// of the others are recomputed so that n.min and n.max stay exact (the paper
// notes that stale bounds would still be safe, only less selective).
void PropertyStore::remove_covered_by_key() {
  const int m = static_cast<int>(heights_.size());
  std::uint64_t removed = 0;
  auto unlink = [&](int depth, std::int32_t node) {
    const std::int32_t next = nodes_[node].next_sibling;
    if (prev_[depth] >= 0) {
      nodes_[prev_[depth]].next_sibling = next;
    } else {
      const std::int32_t parent = depth == 0 ? 0 : cur_[depth - 1];
      nodes_[parent].first_child = next;
    }
    release(node);
    return next;
  };
  int d = 0;
  cur_[0] = nodes_[0].first_child;
  prev_[0] = -1;
  prefix_[0] = 0;
  removed_mark_[0] = 0;
  while (true) {
    std::int32_t c = cur_[d];
    while (c >= 0) {
      const Node& n = nodes_[c];
      if (n.level() >= key_[d] && n.max_rank - (prefix_[d] + n.level()) >= suffix_[d + 1]) break;
      prev_[d] = c;
      c = n.next_sibling;
    }
    if (c < 0) {
      if (d == 0) break;
      --d;
      const std::int32_t done = cur_[d];
      if (nodes_[done].first_child < 0) {
        cur_[d] = unlink(d, done);
      } else {
        if (removed != removed_mark_[d + 1]) refresh_bounds(done);
        prev_[d] = done;
        cur_[d] = nodes_[done].next_sibling;
      }
      continue;
    }
    if (d == m - 1) {
      cur_[d] = unlink(d, c);
      ++removed;
      --size_;
      continue;
    }
    cur_[d] = c;
    prefix_[d + 1] = prefix_[d] + nodes_[c].level();
    cur_[d + 1] = nodes_[c].first_child;
    prev_[d + 1] = -1;
    removed_mark_[d + 1] = removed;
    ++d;
  }
  if (removed > 0) refresh_bounds(0);
}

void PropertyStore::add_key() {
  const std::size_t m = heights_.size();
  const int rank = suffix_[0];
  std::int32_t parent = 0;
  for (std::size_t d = 0; d < m; ++d) {
    Node& p = nodes_[parent];
    const auto r = static_cast<std::uint16_t>(rank);
    p.min_rank = std::min(p.min_rank, r);
    p.max_rank = std::max(p.max_rank, r);
    p.set(p.level(), lane_min(p.below(), below_key_[d]));
    // Find the child with key_[d] in the sorted sibling list, or where it goes.
    std::int32_t prev = -1, c = p.first_child;
    while (c >= 0 && nodes_[c].level() < key_[d]) {
      prev = c;
      c = nodes_[c].next_sibling;
    }
    if (c < 0 || nodes_[c].level() != key_[d]) {
      const std::int32_t fresh = allocate(key_[d], below_key_[d + 1], rank);  // may reallocate nodes_
      nodes_[fresh].next_sibling = c;
      if (prev >= 0)
        nodes_[prev].next_sibling = fresh;
      else
        nodes_[parent].first_child = fresh;
      c = fresh;
    }
    parent = c;
  }
  Node& leaf = nodes_[parent];
  leaf.min_rank = leaf.max_rank = static_cast<std::uint16_t>(rank);
  ++size_;
}

bool PropertyStore::insert(const Transformation& x) {
  load(x);
  if (covered()) return false;
  remove_covered_by_key();
  add_key();
  ++stats_.inserts;
  stats_.largest_antichain = std::max<std::uint64_t>(stats_.largest_antichain, size_);
  return true;
}

std::vector<Transformation> PropertyStore::elements() const {
  const int m = static_cast<int>(heights_.size());
  std::vector<Transformation> out;
  std::vector<std::int32_t> cur(m);
  Transformation t(m);
  int d = 0;
  cur[0] = nodes_[0].first_child;
  while (d >= 0) {
    const std::int32_t c = cur[d];
    if (c < 0) {
      if (--d >= 0) cur[d] = nodes_[cur[d]].next_sibling;
      continue;
    }
    t[order_[d]] = stored_level(static_cast<std::size_t>(d), nodes_[c].level());
    if (d == m - 1) {
      out.push_back(t);
      cur[d] = nodes_[c].next_sibling;
      continue;
    }
    cur[d + 1] = nodes_[c].first_child;
    ++d;
  }
  // A hand-written comparison: GCC 12 reports a false -Wstringop-overread
  // for std::vector<std::uint8_t>'s operator< inside std::sort.
  std::sort(out.begin(), out.end(), [m](const Transformation& a, const Transformation& b) {
    for (int i = 0; i < m; ++i)
      if (a[i] != b[i]) return a[i] < b[i];
    return false;
  });
  return out;
}

}  // namespace deid
