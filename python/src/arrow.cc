// Arrow tables into the library without a Python object per cell: a
// consumer of the Arrow C stream interface (an ArrowArrayStream handed over
// in a PyCapsule named "arrow_array_stream", as `__arrow_c_stream__` gives
// it) that encodes each record batch's columns straight from the Arrow
// buffers into a Dataset, batch by batch, so the whole table is never
// copied.
//
// The structs below are the ABI of the Arrow C data interface and C stream
// interface, declared as the specification gives them (they are meant to be
// declared by each consumer; no Arrow library is linked).
//
// A value's text is the one the pandas path gives the same column
// (python/deid/_frame.py): strings as they are, integers in decimal, floats
// as Python's repr (3.0, 1e+20; NaN is missing), booleans True and False,
// dates YYYY-MM-DD; a null is the empty string, as an empty CSV field is. So
// a table gives the same answer from Arrow as from its pandas conversion.
#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <tbb/parallel_for.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binding.h"
#include "deid/error.h"
#include "deid/formulas.h"

extern "C" {
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};
}

namespace py = pybind11;

namespace deid::python {
namespace {

// Owners that call the producer's release callback once (a released struct
// has release == nullptr).
struct SchemaOwner {
  ArrowSchema s{};
  SchemaOwner() = default;
  SchemaOwner(const SchemaOwner&) = delete;
  SchemaOwner& operator=(const SchemaOwner&) = delete;
  ~SchemaOwner() {
    if (s.release) s.release(&s);
  }
};
struct ArrayOwner {
  ArrowArray a{};
  ArrayOwner() = default;
  ArrayOwner(const ArrayOwner&) = delete;
  ArrayOwner& operator=(const ArrayOwner&) = delete;
  ~ArrayOwner() { reset(); }
  void reset() {
    if (a.release) a.release(&a);
    a = ArrowArray{};
  }
};
struct StreamOwner {
  ArrowArrayStream s{};
  StreamOwner() = default;
  StreamOwner(const StreamOwner&) = delete;
  StreamOwner& operator=(const StreamOwner&) = delete;
  ~StreamOwner() {
    if (s.release) s.release(&s);
  }
};

// The value types read (format strings of the specification).
enum class Kind { Null, Bool, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Float32, Float64, Utf8,
                  LargeUtf8, Utf8View, Date32, Date64 };

std::optional<Kind> kind_of(std::string_view f) {
  static const std::pair<std::string_view, Kind> table[] = {
      {"n", Kind::Null},    {"b", Kind::Bool},       {"c", Kind::Int8},      {"C", Kind::UInt8},
      {"s", Kind::Int16},   {"S", Kind::UInt16},     {"i", Kind::Int32},     {"I", Kind::UInt32},
      {"l", Kind::Int64},   {"L", Kind::UInt64},     {"f", Kind::Float32},   {"g", Kind::Float64},
      {"u", Kind::Utf8},    {"U", Kind::LargeUtf8},  {"vu", Kind::Utf8View}, {"tdD", Kind::Date32},
      {"tdm", Kind::Date64}};
  for (const auto& [name, kind] : table)
    if (f == name) return kind;
  return std::nullopt;
}

bool is_integer(Kind k) { return k >= Kind::Int8 && k <= Kind::UInt64; }

// Python's repr of a float (float_repr_style 'short'): the shortest digits
// that read back to the same value, positional when the decimal exponent is
// in [-4, 16), else d.ddde+XX; a positional integer keeps ".0".
template <class F>
std::string python_repr(F x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));
  // sci is [-]d[.ddd]e(+|-)XX
  const bool negative = sci.front() == '-';
  const std::size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0)))
    if (c != '.') digits += c;
  const int exp = std::stoi(std::string(sci.substr(e + 1)));
  std::string out = negative ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    } else if (digits.size() <= static_cast<std::size_t>(exp) + 1) {
      out += digits + std::string(static_cast<std::size_t>(exp) + 1 - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(exp) + 1) + "." + digits.substr(static_cast<std::size_t>(exp) + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return out;
}

// Days since 1970-01-01 as YYYY-MM-DD (proleptic Gregorian calendar).
std::string civil_date(std::int64_t days) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t doe = days - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

bool bit(const void* bitmap, std::int64_t i) {
  return (static_cast<const std::uint8_t*>(bitmap)[i >> 3] >> (i & 7)) & 1;
}

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
  void values(const ArrowArray& a, std::int64_t length, std::uint32_t* out, std::int64_t parent_offset) {
    const std::int64_t off = a.offset + parent_offset;
    const void* validity = a.n_buffers > 0 && a.null_count != 0 ? a.buffers[0] : nullptr;
    for (std::int64_t i = 0; i < length; ++i) {
      const std::int64_t j = i + off;
      out[i] = (validity && !bit(validity, j)) || s_.type.kind == Kind::Null ? null_code(i) : element(a, j, i);
    }
  }

  // Codes of a dictionary-encoded batch: each dictionary entry is encoded
  // when first used, so codes keep the order of first appearance.
  void dictionary(const ArrowArray& a, std::int64_t length, std::uint32_t* out, std::int64_t parent_offset) {
    const ArrowArray& dict = *a.dictionary;
    s_.dict_codes.assign(static_cast<std::size_t>(dict.length), -1);
    const std::int64_t off = a.offset + parent_offset;
    const void* validity = a.n_buffers > 0 && a.null_count != 0 ? a.buffers[0] : nullptr;
    const void* data = a.buffers[1];
    const void* dict_validity = dict.n_buffers > 0 && dict.null_count != 0 ? dict.buffers[0] : nullptr;
    for (std::int64_t i = 0; i < length; ++i) {
      const std::int64_t j = i + off;
      if (validity && !bit(validity, j)) {
        out[i] = null_code(i);
        continue;
      }
      const std::int64_t k = index(data, j);
      if (k < 0 || k >= dict.length) throw_bad_index(k, i);
      std::int64_t& code = s_.dict_codes[static_cast<std::size_t>(k)];
      if (code < 0) {
        const std::int64_t e = k + dict.offset;
        code = (dict_validity && !bit(dict_validity, e)) || s_.type.kind == Kind::Null ? null_code(i)
                                                                                       : element(dict, e, i);
      }
      out[i] = static_cast<std::uint32_t>(code);
    }
  }

  std::string bad;  // a problem found (thrown by the caller, with the GIL)

 private:
  std::int64_t index(const void* data, std::int64_t j) const {
    switch (s_.type.index) {
      case Kind::Int8: return static_cast<const std::int8_t*>(data)[j];
      case Kind::UInt8: return static_cast<const std::uint8_t*>(data)[j];
      case Kind::Int16: return static_cast<const std::int16_t*>(data)[j];
      case Kind::UInt16: return static_cast<const std::uint16_t*>(data)[j];
      case Kind::Int32: return static_cast<const std::int32_t*>(data)[j];
      case Kind::UInt32: return static_cast<const std::uint32_t*>(data)[j];
      case Kind::Int64: return static_cast<const std::int64_t*>(data)[j];
      default: {
        const std::uint64_t u = static_cast<const std::uint64_t*>(data)[j];
        return u > static_cast<std::uint64_t>(INT64_MAX) ? -1 : static_cast<std::int64_t>(u);
      }
    }
  }

  [[noreturn]] void throw_bad_index(std::int64_t k, std::int64_t i) {
    throw std::runtime_error(fmt::format("dictionary index {} of row {} is outside the dictionary", k,
                                         first_row_ + static_cast<std::uint64_t>(i) + 1));
  }

  std::uint32_t add(std::string_view text, std::int64_t i) {
    Column& c = *s_.col;
    const std::uint32_t code = c.dictionary.intern(text);
    if (code == c.first_line.size()) c.first_line.push_back(first_row_ + static_cast<std::uint64_t>(i) + 2);
    return code;
  }

  std::uint32_t null_code(std::int64_t i) {
    if (s_.null_code < 0) s_.null_code = add("", i);
    return static_cast<std::uint32_t>(s_.null_code);
  }

  // A number's code, through its bits (each distinct number has one text).
  template <class Render>
  std::uint32_t number(std::uint64_t key, std::int64_t i, Render&& render) {
    auto [it, added] = s_.by_value.try_emplace(key, 0);
    if (added) it->second = add(render(), i);
    return it->second;
  }

  std::uint32_t element(const ArrowArray& a, std::int64_t j, std::int64_t i) {
    const void* data = a.n_buffers > 1 ? a.buffers[1] : nullptr;
    switch (s_.type.kind) {
      case Kind::Bool: return add(bit(data, j) ? "True" : "False", i);
      case Kind::Int8: return integer(static_cast<const std::int8_t*>(data)[j], i);
      case Kind::UInt8: return integer(static_cast<const std::uint8_t*>(data)[j], i);
      case Kind::Int16: return integer(static_cast<const std::int16_t*>(data)[j], i);
      case Kind::UInt16: return integer(static_cast<const std::uint16_t*>(data)[j], i);
      case Kind::Int32: return integer(static_cast<const std::int32_t*>(data)[j], i);
      case Kind::UInt32: return integer(static_cast<const std::uint32_t*>(data)[j], i);
      case Kind::Int64: return integer(static_cast<const std::int64_t*>(data)[j], i);
      case Kind::UInt64: return integer(static_cast<const std::uint64_t*>(data)[j], i);
      case Kind::Float32: return floating(static_cast<const float*>(data)[j], i);
      case Kind::Float64: return floating(static_cast<const double*>(data)[j], i);
      case Kind::Date32: {
        const std::int64_t days = static_cast<const std::int32_t*>(data)[j];
        return number(static_cast<std::uint64_t>(days), i, [&] { return civil_date(days); });
      }
      case Kind::Date64: {
        const std::int64_t ms = static_cast<const std::int64_t*>(data)[j];
        const std::int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
        return number(static_cast<std::uint64_t>(days), i, [&] { return civil_date(days); });
      }
      case Kind::Utf8: {
        const auto* o = static_cast<const std::int32_t*>(data);
        const char* chars = static_cast<const char*>(a.buffers[2]);
        return add(std::string_view(chars + o[j], static_cast<std::size_t>(o[j + 1] - o[j])), i);
      }
      case Kind::LargeUtf8: {
        const auto* o = static_cast<const std::int64_t*>(data);
        const char* chars = static_cast<const char*>(a.buffers[2]);
        return add(std::string_view(chars + o[j], static_cast<std::size_t>(o[j + 1] - o[j])), i);
      }
      case Kind::Utf8View: {
        // 16 bytes per view: the length, then up to 12 bytes inline, or a
        // 4-byte prefix, the data buffer's index and the offset in it.
        const auto* view = static_cast<const std::uint8_t*>(data) + 16 * j;
        std::int32_t length, buffer, offset;
        std::memcpy(&length, view, 4);
        if (length <= 12) return add(std::string_view(reinterpret_cast<const char*>(view + 4),
                                                      static_cast<std::size_t>(length)), i);
        std::memcpy(&buffer, view + 8, 4);
        std::memcpy(&offset, view + 12, 4);
        if (buffer < 0 || 2 + buffer >= a.n_buffers - 1) {
          bad = "a string view refers to a data buffer the array does not have";
          return null_code(i);
        }
        const char* chars = static_cast<const char*>(a.buffers[2 + buffer]);
        return add(std::string_view(chars + offset, static_cast<std::size_t>(length)), i);
      }
      case Kind::Null: break;
    }
    return null_code(i);
  }

  template <class T>
  std::uint32_t integer(T v, std::int64_t i) {
    return number(static_cast<std::uint64_t>(v), i, [&] { return fmt::format_int(v).str(); });
  }

  template <class F>
  std::uint32_t floating(F v, std::int64_t i) {
    if (std::isnan(v)) return null_code(i);  // as pandas takes NaN: missing
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    return number(bits, i, [&] { return python_repr(v); });
  }

  ColumnState& s_;
  std::uint64_t first_row_;
};

std::string last_error(ArrowArrayStream& s, int code) {
  const char* m = s.get_last_error ? s.get_last_error(&s) : nullptr;
  return m ? std::string(m) : fmt::format("error {} ({})", code, std::strerror(code));
}

std::string format_of(const ArrowSchema& s) { return s.format ? s.format : ""; }

}  // namespace

void check_header(const std::vector<std::string>& names, const std::string& source) {
  if (names.empty()) throw InputError(Location{source, 0, 0, {}}, "the table has no columns");
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (names[c].empty())
      throw InputError(Location{source, 1, c + 1, {}},
                       fmt::format("column {} has an empty name in the header row; every column needs a name", c + 1));
    for (std::size_t d = 0; d < c; ++d)
      if (names[d] == names[c])
        throw InputError(Location{source, 1, c + 1, names[c]},
                         fmt::format("duplicate column name '{}' in the header row (columns {} and {})", names[c],
                                     d + 1, c + 1));
  }
}

Dataset encode_stream(const py::capsule& capsule, const std::string& source, const std::string& delimiter,
                      std::uint64_t rows_hint, const std::string& weights) {
  if (std::string_view(capsule.name() ? capsule.name() : "") != "arrow_array_stream")
    throw py::type_error("expected a PyCapsule named 'arrow_array_stream' (from __arrow_c_stream__)");
  auto* given = capsule.get_pointer<ArrowArrayStream>();
  if (!given || !given->release) throw py::value_error("the Arrow stream was already consumed");
  // Moved out of the capsule: the capsule's destructor then finds it released.
  StreamOwner stream;
  stream.s = *given;
  given->release = nullptr;

  SchemaOwner schema;
  if (int rc = stream.s.get_schema(&stream.s, &schema.s); rc != 0)
    throw InputError(Location{source, 0, 0, {}}, "cannot read the Arrow stream's schema: " + last_error(stream.s, rc));
  if (format_of(schema.s) != "+s")
    throw InputError(Location{source, 0, 0, {}},
                     fmt::format("the Arrow stream is not a table (its type is '{}', not a struct)", format_of(schema.s)));
  const auto ncols = static_cast<std::size_t>(schema.s.n_children);
  std::vector<std::string> names(ncols);
  std::vector<ColumnState> states(ncols);
  for (std::size_t c = 0; c < ncols; ++c) names[c] = schema.s.children[c]->name ? schema.s.children[c]->name : "";
  check_header(names, source);
  for (std::size_t c = 0; c < ncols; ++c) {
    const ArrowSchema& f = *schema.s.children[c];
    ColumnType& t = states[c].type;
    const ArrowSchema* values = &f;
    if (f.dictionary) {
      const auto index = kind_of(format_of(f));
      if (!index || !is_integer(*index))
        throw InputError(Location{source, 1, c + 1, names[c]},
                         fmt::format("the dictionary indices have Arrow type '{}', not an integer type", format_of(f)));
      t.dictionary = true;
      t.index = *index;
      values = f.dictionary;
    }
    const auto kind = kind_of(format_of(*values));
    if (!kind)
      throw InputError(Location{source, 1, c + 1, names[c]},
                       fmt::format("the column has Arrow type '{}', which deid does not read (it reads strings, "
                                   "integers, floats, booleans, dates, nulls and dictionaries of them); cast it "
                                   "to string first",
                                   format_of(*values)));
    t.kind = *kind;
  }
  std::size_t weight_column = ncols;
  if (!weights.empty()) {
    for (std::size_t c = 0; c < ncols; ++c)
      if (names[c] == weights) weight_column = c;
    if (weight_column == ncols)
      throw InputError(Location{source, 1, 0, weights}, fmt::format("the stream has no count column '{}'", weights));
    const ArrowSchema& f = *schema.s.children[weight_column];
    if (format_of(f) != "l")
      throw InputError(Location{source, 1, weight_column + 1, weights},
                       fmt::format("the count column has Arrow type '{}', not int64", format_of(f)));
  }

  Dataset ds;
  ds.source = source;
  ds.delimiter = delimiter.empty() ? ',' : delimiter[0];
  ds.columns.resize(ncols);
  for (std::size_t c = 0; c < ncols; ++c) {
    ds.columns[c].name = names[c];
    ds.columns[c].codes.widen(1, rows_hint);
    states[c].col = &ds.columns[c];
  }

  std::uint64_t rows = 0;
  for (;;) {
    ArrayOwner batch;
    // The producer may call into Python (a RecordBatchReader over a
    // generator): ask for the next batch with the GIL held.
    if (int rc = stream.s.get_next(&stream.s, &batch.a); rc != 0)
      throw InputError(Location{source, rows + 2, 0, {}},
                       "cannot read the next batch of the Arrow stream: " + last_error(stream.s, rc));
    if (!batch.a.release) break;  // the end of the stream
    const ArrowArray& b = batch.a;
    if (static_cast<std::size_t>(b.n_children) != ncols)
      throw InputError(Location{source, rows + 2, 0, {}},
                       fmt::format("a batch has {} columns, the schema {}", b.n_children, ncols));
    if (b.null_count > 0)
      throw InputError(Location{source, rows + 2, 0, {}}, "a batch has null rows (the struct itself is null)");
    const std::int64_t length = b.length;
    if (length == 0) continue;
    for (std::size_t c = 0; c < ncols; ++c) {
      const ArrowArray& a = *b.children[c];
      if (a.length < length + b.offset || (states[c].type.dictionary && !a.dictionary))
        throw InputError(Location{source, rows + 2, c + 1, names[c]}, "a batch's column does not match the schema");
    }
    if (weight_column < ncols) {
      const ArrowArray& a = *b.children[weight_column];
      const std::int64_t off = a.offset + b.offset;
      if (a.null_count != 0)
        throw InputError(Location{source, rows + 2, weight_column + 1, weights}, "a count is null");
      const auto* counts = static_cast<const std::int64_t*>(a.buffers[1]);
      for (std::int64_t i = 0; i < length; ++i) {
        const std::int64_t n = counts[i + off];
        if (n < 1)
          throw InputError(Location{source, rows + 2 + static_cast<std::uint64_t>(i), weight_column + 1, weights},
                           fmt::format("a count {} that is not a positive integer", n));
        ds.weights.push_back(static_cast<std::uint64_t>(n));
        ds.grouped_records += static_cast<std::uint64_t>(n);
      }
    }
    std::vector<std::string> problems(ncols);
    {
      py::gil_scoped_release release;
      tbb::parallel_for(std::size_t{0}, ncols, [&](std::size_t c) {
        if (c == weight_column) return;
        ColumnState& s = states[c];
        s.scratch.resize(static_cast<std::size_t>(length));
        Encoder e(s, rows);
        try {
          if (s.type.dictionary)
            e.dictionary(*b.children[c], length, s.scratch.data(), b.offset);
          else
            e.values(*b.children[c], length, s.scratch.data(), b.offset);
        } catch (const std::exception& x) {
          problems[c] = x.what();
          return;
        }
        if (!e.bad.empty()) {
          problems[c] = e.bad;
          return;
        }
        Column& col = *s.col;
        const std::size_t old = col.codes.size();
        // Widened when the dictionary outgrows the codes' width; otherwise
        // resize grows the storage geometrically (a reserve per batch would
        // copy the codes at every batch).
        if (const unsigned w = code_width(col.dictionary.size()); w > col.codes.width())
          col.codes.widen(w, std::max<std::size_t>(rows_hint, old + s.scratch.size()));
        col.codes.resize(old + s.scratch.size());
        col.codes.visit_mut([&](auto out) {
          using C = typename decltype(out)::value_type;
          for (std::size_t r = 0; r < s.scratch.size(); ++r) out[old + r] = static_cast<C>(s.scratch[r]);
        });
      });
    }
    for (std::size_t c = 0; c < ncols; ++c)
      if (!problems[c].empty()) throw InputError(Location{source, rows + 2, c + 1, names[c]}, problems[c]);
    rows += static_cast<std::uint64_t>(length);
  }
  if (rows == 0) throw InputError(Location{source, 1, 0, {}}, "the table has a header but no rows");
  for (std::size_t c = 0; c < ncols; ++c) {
    ColumnState& s = states[c];
    std::vector<std::uint32_t>().swap(s.scratch);
    if (c == weight_column) {
      s.col->codes.clear();
      continue;
    }
    // Shrink what was reserved for a hint larger than the table.
    if (s.col->codes.size() < rows_hint) {
      Codes exact(0, s.col->codes.width());
      exact.widen(s.col->codes.width(), rows);
      exact.resize(rows);
      exact.visit_mut([&](auto out) {
        s.col->codes.visit([&](auto in) {
          for (std::size_t r = 0; r < rows; ++r) out[r] = static_cast<typename decltype(out)::value_type>(in[r]);
        });
      });
      s.col->codes = std::move(exact);
    }
  }
  ds.rows = rows;
  return ds;
}

std::shared_ptr<Table> encode_arrow_stream(const py::capsule& capsule, const std::string& source,
                                           const std::string& delimiter, std::uint64_t rows_hint) {
  auto table = std::make_shared<Table>();
  table->data = encode_stream(capsule, source, delimiter, rows_hint, {});
  return table;
}

namespace {

// A histogram grouped where its rows live (docs/spark.md): a stream with one
// row per distinct combination of the grouped columns, in order of first
// appearance, and its count in the column `count`, as the grouped Dataset
// pushdown reads (include/deid/dataset.h, Dataset::weights). `columns`
// are the names of all the input's columns, in its order; those the stream
// does not hold have a name and nothing else.
std::shared_ptr<Table> encode_grouped_arrow_stream(const py::capsule& capsule, const std::string& source,
                                                   const std::vector<std::string>& columns, const std::string& count) {
  check_header(columns, source);
  Dataset g = encode_stream(capsule, source, ",", 0, count);
  auto table = std::make_shared<Table>();
  Dataset& d = table->data;
  d.source = source;
  d.rows = g.rows;
  d.weights = std::move(g.weights);
  d.grouped_records = g.grouped_records;
  d.columns.resize(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) d.columns[c].name = columns[c];
  for (Column& col : g.columns) {
    if (col.name == count) continue;
    const int c = d.column_index(col.name);
    if (c < 0)
      throw InputError(Location{source, 1, 0, col.name},
                       fmt::format("the grouped stream has a column '{}' that the input does not", col.name));
    col.first_line.clear();  // rows of the histogram, not lines of the input
    d.columns[static_cast<std::size_t>(c)] = std::move(col);
  }
  return table;
}

}  // namespace

void bind_arrow(py::module_& m) {
  m.def("encode_arrow_stream", &encode_arrow_stream, py::arg("stream"), py::arg("source"),
        py::arg("delimiter") = ",", py::arg("rows_hint") = 0,
        "A table from an Arrow C stream (a PyCapsule 'arrow_array_stream', as __arrow_c_stream__ returns it), "
        "encoded batch by batch from the Arrow buffers; `rows_hint` reserves room for that many rows.");
  m.def("encode_grouped_arrow_stream", &encode_grouped_arrow_stream, py::arg("stream"), py::arg("source"),
        py::arg("columns"), py::arg("count"),
        "A grouped table (a histogram: one row per distinct combination, in order of first appearance, with its "
        "count in the int64 column `count`) from an Arrow C stream; `columns` names all the input's columns.");
  m.def(
      "add_formula_candidates",
      [](Table& t, std::size_t c, const std::vector<std::string>& values) {
        // As PostgresPushdown::read: an ungrouped column's dictionary holds
        // the values a spreadsheet would run, for formula_warnings and the
        // release's escaping.
        Column& col = t.data.columns.at(c);
        if (!col.codes.empty()) throw std::invalid_argument("add_formula_candidates: the column is grouped");
        for (const std::string& v : values)
          if (looks_like_formula(v)) col.dictionary.intern(v);
      },
      py::arg("table"), py::arg("column"), py::arg("values"),
      "Of a grouped table: adds to an ungrouped column's dictionary those of `values` that look like formulas.");
}

}  // namespace deid::python
