// One column of an Arrow table encoded into a Dataset's column (arrow.cc),
// batch by batch: each value's text (as python/deid/_frame.py gives it from
// pandas) interned in order of first appearance. Internal to python/src/.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow_abi.h"
#include "deid/dataset.h"

namespace deid::python {

// The value types read (format strings of the specification).
enum class Kind { Null, Bool, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Float32, Float64, Utf8,
                  LargeUtf8, Utf8View, Date32, Date64 };

std::optional<Kind> kind_of(std::string_view f);
bool is_integer(Kind k);

// The type of one column: its value kind, and for a dictionary-encoded
// column the index kind with the values' kind.
struct ColumnType {
  Kind kind = Kind::Null;   // the values (of the dictionary, when there is one)
  bool dictionary = false;
  Kind index = Kind::Int32;  // the indices of a dictionary-encoded column
};

// One column being encoded across batches.
struct ColumnState {
  ColumnType type;
  Column* col = nullptr;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> by_value;  // a number's bits -> code
  std::int64_t null_code = -1;
  std::vector<std::uint32_t> scratch;     // the batch's codes
  std::vector<std::int64_t> dict_codes;   // per dictionary entry of the batch: its code, -1 until seen
  std::string text;                       // scratch for a number's text
};

class Encoder {
 public:
  Encoder(ColumnState& s, std::uint64_t first_row) : s_(s), first_row_(first_row) {}

  // Codes of elements [0, length) of `a` (values of kind s_.type.kind) into
  // out, for rows first_row + i.
  void values(const ArrowArray& a, std::int64_t length, std::uint32_t* out, std::int64_t parent_offset);

  // Codes of a dictionary-encoded batch: each dictionary entry is encoded
  // when first used, so codes keep the order of first appearance.
  void dictionary(const ArrowArray& a, std::int64_t length, std::uint32_t* out, std::int64_t parent_offset);

  std::string bad;  // a problem found (thrown by the caller, with the GIL)

 private:
  std::int64_t index(const void* data, std::int64_t j) const;
  [[noreturn]] void throw_bad_index(std::int64_t k, std::int64_t i);
  std::uint32_t add(std::string_view text, std::int64_t i);
  std::uint32_t null_code(std::int64_t i);
  // A number's code, through its bits (each distinct number has one text).
  template <class Render>
  std::uint32_t number(std::uint64_t key, std::int64_t i, Render&& render);
  std::uint32_t element(const ArrowArray& a, std::int64_t j, std::int64_t i);
  template <class T>
  std::uint32_t integer(T v, std::int64_t i);
  template <class F>
  std::uint32_t floating(F v, std::int64_t i);

  ColumnState& s_;
  std::uint64_t first_row_;
};

}  // namespace deid::python
