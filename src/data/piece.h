// Internal to the CSV reader (dataset_read.cc): a piece of a block of text,
// parsed and encoded on its own with its own dictionaries (in parallel with
// the other pieces), before the pieces are merged in file order; and the
// sinks the record parser (io/csv_parse.h) feeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/csv_parse.h"

namespace deid::detail {

// A piece's dictionary of one column: open addressing over the values'
// bytes with a 64-bit hash kept per value, so a probe compares bytes only
// when the hashes agree. Hand-written because this lookup runs once per
// cell: on the 1.2 M-row survey table (10.7 M cells, one thread) it took
// reading and encoding from 327 ms to 297 ms of CPU against
// absl::flat_hash_map keyed by string_view (medians of 3, csv_bench).
class LocalDictionary {
 public:
  LocalDictionary() : slots_(64, 0), mask_(63) {}

  // The hash intern() takes.
  static std::uint64_t hash(std::string_view v) {
    const char* p = v.data();
    std::size_t n = v.size();
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xFF51AFD7ED558CCDull);
    while (n >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
      p += 8;
      n -= 8;
    }
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < n; ++i) w |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    h = (h ^ w) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
  }
  // Returns the code of `v`, adding it (stored as `stored`, which must equal
  // v and outlive the dictionary) when new; `added` tells which.
  template <class Store>
  std::uint32_t intern(std::string_view v, std::uint64_t h, Store&& store, bool& added) {
    std::size_t i = h & mask_;
    for (;;) {
      const std::uint32_t s = slots_[i];
      if (s == 0) break;
      const std::uint32_t code = s - 1;
      if (hashes_[code] == h && equal(values_[code], v)) {
        added = false;
        return code;
      }
      i = (i + 1) & mask_;
    }
    const auto code = static_cast<std::uint32_t>(values_.size());
    values_.push_back(store(v));
    hashes_.push_back(h);
    slots_[i] = code + 1;
    added = true;
    if (values_.size() * 2 > slots_.size()) grow();
    return code;
  }
  const std::vector<std::string_view>& values() const { return values_; }

 private:
  // Inline: the values are short, and a call to memcmp per cell cost more
  // than the comparison itself (18 % of the read in a profile).
  static bool equal(std::string_view a, std::string_view b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t x, y;
      std::memcpy(&x, a.data() + i, 8);
      std::memcpy(&y, b.data() + i, 8);
      if (x != y) return false;
    }
    for (; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  void grow() {
    std::vector<std::uint32_t> slots(slots_.size() * 2, 0);
    const std::size_t mask = slots.size() - 1;
    for (std::uint32_t code = 0; code < values_.size(); ++code) {
      std::size_t i = hashes_[code] & mask;
      while (slots[i] != 0) i = (i + 1) & mask;
      slots[i] = code + 1;
    }
    slots_ = std::move(slots);
    mask_ = mask;
  }

  std::vector<std::uint32_t> slots_;  // code + 1; 0 = empty
  std::size_t mask_;
  std::vector<std::string_view> values_;
  std::vector<std::uint64_t> hashes_;
};
// One piece of a block, parsed and encoded with its own dictionaries.
struct Piece {
  std::size_t begin = 0, end = 0;  // offsets in the block
  std::size_t bad_utf8 = std::string_view::npos;
  csv_detail::Failure failure;
  std::uint64_t lines = 0;
  std::uint64_t rows = 0;
  std::vector<std::uint32_t> codes;  // row-major, local codes
  struct Local {
    LocalDictionary dictionary;
    std::vector<std::uint64_t> first_line;  // by local code, relative to the piece
  };
  std::vector<Local> columns;
  std::deque<std::string> owned;  // values unescaped from doubled quotes
  std::vector<std::vector<std::uint32_t>> to_global;  // per column: local → global code
};

struct PieceSink {
  Piece* piece;
  const char* text_begin;
  const char* text_end;
  void field(std::size_t c, std::string_view v, std::uint64_t line) {
    Piece::Local& col = piece->columns[c];
    bool added;
    const std::uint32_t code = col.dictionary.intern(v, LocalDictionary::hash(v), [&](std::string_view x) {
      if (x.data() >= text_begin && x.data() < text_end) return x;
      return std::string_view(piece->owned.emplace_back(x));  // unescaped into scratch memory
    }, added);
    if (added) col.first_line.push_back(line);
    piece->codes.push_back(code);
  }
  void record(std::uint64_t, std::size_t) { ++piece->rows; }
};

// Counts the header's record for the sequential first step.
struct HeaderSink {
  std::vector<std::string> names;
  std::uint64_t line = 0;
  void field(std::size_t i, std::string_view v, std::uint64_t) {
    if (names.size() <= i) names.resize(i + 1);
    names[i].assign(v);
  }
  void record(std::uint64_t l, std::size_t n) {
    names.resize(n);
    line = l;
  }
};

}  // namespace deid::detail
