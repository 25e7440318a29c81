// The encoded table (deid/dataset.h): a column's dictionary of values, its
// codes in the narrowest width, and the dataset's own helpers. Reading a
// CSV file into a Dataset is dataset_read.cc.
#include "deid/dataset.h"

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <fmt/format.h>

#include <algorithm>

#include "util/release.h"

namespace deid {

// --- Dictionary --------------------------------------------------------------

// The index is a set of codes hashed and compared through the values, so each
// string is stored once (in values_); `values` is re-pointed when the
// Dictionary moves.
struct Dictionary::Index {
  const std::vector<std::string>* values = nullptr;
  struct Hash {
    using is_transparent = void;
    const Index* ix;
    std::size_t operator()(absl::string_view v) const { return absl::Hash<absl::string_view>{}(v); }
    std::size_t operator()(std::uint32_t c) const { return (*this)(absl::string_view((*ix->values)[c])); }
  };
  struct Eq {
    using is_transparent = void;
    const Index* ix;
    absl::string_view at(std::uint32_t c) const { return (*ix->values)[c]; }
    bool operator()(std::uint32_t a, std::uint32_t b) const { return a == b; }
    bool operator()(std::uint32_t a, absl::string_view b) const { return at(a) == b; }
    bool operator()(absl::string_view a, std::uint32_t b) const { return a == at(b); }
  };
  absl::flat_hash_set<std::uint32_t, Hash, Eq> set{0, Hash{this}, Eq{this}};
};

Dictionary::Dictionary() : index_(std::make_unique<Index>()) { index_->values = &values_; }
Dictionary::~Dictionary() = default;
Dictionary::Dictionary(Dictionary&& o) noexcept : index_(std::move(o.index_)), values_(std::move(o.values_)) {
  if (index_) index_->values = &values_;
}
Dictionary& Dictionary::operator=(Dictionary&& o) noexcept {
  index_ = std::move(o.index_);
  values_ = std::move(o.values_);
  if (index_) index_->values = &values_;
  return *this;
}

std::uint32_t Dictionary::intern(std::string_view value) {
  const absl::string_view v(value.data(), value.size());
  if (auto it = index_->set.find(v); it != index_->set.end()) return *it;
  const auto code = static_cast<std::uint32_t>(values_.size());
  values_.emplace_back(value);
  index_->set.insert(code);
  return code;
}

std::int64_t Dictionary::find(std::string_view value) const {
  auto it = index_->set.find(absl::string_view(value.data(), value.size()));
  return it == index_->set.end() ? -1 : static_cast<std::int64_t>(*it);
}

// --- Codes -------------------------------------------------------------------

unsigned code_width(std::uint32_t n) { return n <= 0x100u ? 1 : n <= 0x10000u ? 2 : 4; }

Codes::Codes(std::size_t n, unsigned width) {
  if (width <= 1)
    storage_.emplace<0>(n);
  else if (width == 2)
    storage_.emplace<1>(n);
  else
    storage_.emplace<2>(n);
}

std::size_t Codes::size() const {
  return std::visit([](const auto& v) { return v.size(); }, storage_);
}

void Codes::widen(unsigned width, std::size_t rows) {
  if (width > this->width()) {
    Codes wider(0, width);
    std::visit(
        [&](auto& to) {
          to.reserve(std::max(rows, size()));
          visit([&](auto from) { to.assign(from.begin(), from.end()); });
        },
        wider.storage_);
    *this = std::move(wider);
  } else {
    std::visit([&](auto& v) { v.reserve(rows); }, storage_);
  }
}

void Codes::resize(std::size_t n) {
  std::visit([&](auto& v) { v.resize(n); }, storage_);
}

void Codes::push_back(std::uint32_t code) {
  if (code > 0xFFu && width() < 2) widen(code > 0xFFFFu ? 4 : 2);
  if (code > 0xFFFFu && width() < 4) widen(4);
  std::visit([&](auto& v) { v.push_back(static_cast<typename std::decay_t<decltype(v)>::value_type>(code)); },
             storage_);
}

std::vector<std::uint32_t> Codes::to_vector() const {
  return visit([](auto s) { return std::vector<std::uint32_t>(s.begin(), s.end()); });
}

// --- Dataset -----------------------------------------------------------------

void Dataset::release_grouped_rows() {
  if (!grouped()) return;
  for (Column& c : columns) c.codes.clear();
  util::release(weights);
}

int Dataset::column_index(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string Dataset::not_a_column() const {
  std::string out = fmt::format("is not a column of {}", source);
  if (columns.size() == 1) {
    const std::string& header = columns.front().name;
    for (const char d : {';', ',', '\t', '|'})
      if (d != delimiter && header.find(d) != std::string::npos)
        return out + fmt::format(": the header was read as one column ('{}') with the delimiter '{}'; set "
                                 "input.delimiter: '{}'",
                                 header.size() > 80 ? header.substr(0, 77) + "..." : header,
                                 delimiter == '\t' ? "\\t" : std::string(1, delimiter),
                                 d == '\t' ? "\\t" : std::string(1, d));
  }
  std::string names;
  for (std::size_t i = 0; i < columns.size() && i < 20; ++i)
    names += fmt::format("{}'{}'", i ? ", " : "", columns[i].name);
  if (columns.size() > 20) names += fmt::format(" and {} more", columns.size() - 20);
  return out + fmt::format(" (its columns: {})", names);
}

}  // namespace deid
