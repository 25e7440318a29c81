// Internal to cell suppression (cell_suppression.cc): the classes of one
// combination of columns of a CellTable, kept up to date as cells are
// suppressed.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "deid/cell_suppression.h"

namespace deid::detail {

// The classes of one combination, kept up to date as cells are suppressed
// (the paper recomputes class sizes at every step of phase 2, which its
// evaluation names as the cost that dominates; here every row move is
// applied where it happens, so no combination is ever regrouped after its
// first grouping).
//
// A class is identified by its tuple. The index from tuple to class packs
// each column's code (the marker mapped to the column's cardinality) into a
// bit field of a uint64_t when the widths fit in 64 bits (the discharge
// file needs 41), else it uses the codes' bytes as a string key.
class Combination {
 public:
  Combination(const CellTable& t, std::span<const std::size_t> cols, std::uint64_t k, bool force_wide)
      : t_(t), cols_(cols.begin(), cols.end()), k_(k) {
    unsigned bits = 0;
    for (std::size_t c : cols_) {
      const std::uint32_t card = t.cardinality[c];
      card_.push_back(card);
      shift_.push_back(bits);
      bits += static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(card)));  // codes 0..card
    }
    packed_ = !force_wide && bits <= 64;
    position_.assign(t.columns(), -1);
    for (std::size_t p = 0; p < cols_.size(); ++p) position_[cols_[p]] = static_cast<int>(p);

    const std::size_t w = cols_.size();
    std::vector<std::uint32_t> tuple(w);
    row_class_.resize(t.rows);
    for (std::uint64_t r = 0; r < t.rows; ++r) {
      read_row(r, tuple.data());
      const std::uint32_t m = find_or_add(tuple.data());
      row_class_[r] = m;
      ++size_[m];
    }
    for (std::uint32_t m = 0; m < size_.size(); ++m) moles_ += is_mole(m) ? 1 : 0;
  }

  std::size_t width() const { return cols_.size(); }
  const std::vector<std::size_t>& columns() const { return cols_; }
  int position(std::size_t column) const { return position_[column]; }
  std::uint64_t moles() const { return moles_; }
  std::uint32_t classes() const { return static_cast<std::uint32_t>(size_.size()); }
  std::uint32_t size(std::uint32_t m) const { return size_[m]; }
  std::uint32_t row_class(std::uint64_t r) const { return row_class_[r]; }
  const std::uint32_t* tuple(std::uint32_t m) const { return &tuples_[static_cast<std::size_t>(m) * cols_.size()]; }
  bool exempt(std::uint32_t m) const { return exempt_[m] != 0; }
  bool is_mole(std::uint32_t m) const { return size_[m] > 0 && size_[m] < k_ && !exempt_[m]; }

  void read_row(std::uint64_t r, std::uint32_t* tuple) const {
    for (std::size_t p = 0; p < cols_.size(); ++p) tuple[p] = t_.codes[cols_[p]][r];
  }

  // The class of `tuple`, created empty when new.
  std::uint32_t find_or_add(const std::uint32_t* tuple) {
    const auto next = static_cast<std::uint32_t>(size_.size());
    std::uint32_t m;
    if (packed_) {
      std::uint64_t key = 0;
      for (std::size_t p = 0; p < cols_.size(); ++p)
        key |= static_cast<std::uint64_t>(tuple[p] == kSuppressedCell ? card_[p] : tuple[p]) << shift_[p];
      m = packed_index_.try_emplace(key, next).first->second;
    } else {
      std::string key(reinterpret_cast<const char*>(tuple), cols_.size() * sizeof(std::uint32_t));
      m = wide_index_.try_emplace(std::move(key), next).first->second;
    }
    if (m == next) {
      size_.push_back(0);
      bool all = true;
      for (std::size_t p = 0; p < cols_.size(); ++p) {
        tuples_.push_back(tuple[p]);
        all = all && tuple[p] == kSuppressedCell;
      }
      exempt_.push_back(all ? 1 : 0);
    }
    return m;
  }

  // Moves `count` rows from class `from` to class `to`, keeping the number
  // of moles; the caller updates row_class for each row moved.
  void transfer(std::uint32_t from, std::uint32_t to, std::uint32_t count) {
    if (from == to || count == 0) return;
    moles_ -= (is_mole(from) ? 1 : 0) + (is_mole(to) ? 1 : 0);
    size_[from] -= count;
    size_[to] += count;
    moles_ += (is_mole(from) ? 1 : 0) + (is_mole(to) ? 1 : 0);
  }
  void set_row_class(std::uint64_t r, std::uint32_t m) { row_class_[r] = m; }

  // Re-files row r after cells of it were suppressed.
  void update_row(std::uint64_t r, std::uint32_t* scratch) {
    read_row(r, scratch);
    const std::uint32_t to = find_or_add(scratch);
    const std::uint32_t from = row_class_[r];
    if (to == from) return;
    transfer(from, to, 1);
    row_class_[r] = to;
  }

  std::vector<std::uint32_t> take_row_classes() { return std::move(row_class_); }
  std::vector<std::uint64_t> sizes() const { return {size_.begin(), size_.end()}; }
  std::vector<bool> exempt_flags() const { return {exempt_.begin(), exempt_.end()}; }

 private:
  const CellTable& t_;
  std::vector<std::size_t> cols_;
  std::uint64_t k_;
  std::vector<std::uint32_t> card_;
  std::vector<unsigned> shift_;
  bool packed_ = true;
  std::vector<int> position_;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> packed_index_;
  absl::flat_hash_map<std::string, std::uint32_t> wide_index_;
  std::vector<std::uint32_t> row_class_;
  std::vector<std::uint32_t> size_;
  std::vector<std::uint32_t> tuples_;  // classes x width
  std::vector<char> exempt_;           // every cell of the tuple suppressed
  std::uint64_t moles_ = 0;
};

}  // namespace deid::detail
