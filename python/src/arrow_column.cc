#include "arrow_column.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace deid::python {

namespace {

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

}  // namespace

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

void Encoder::values(const ArrowArray& a, std::int64_t length, std::uint32_t* out, std::int64_t parent_offset) {
  const std::int64_t off = a.offset + parent_offset;
  const void* validity = a.n_buffers > 0 && a.null_count != 0 ? a.buffers[0] : nullptr;
  for (std::int64_t i = 0; i < length; ++i) {
    const std::int64_t j = i + off;
    out[i] = (validity && !bit(validity, j)) || s_.type.kind == Kind::Null ? null_code(i) : element(a, j, i);
  }
}

void Encoder::dictionary(const ArrowArray& a, std::int64_t length, std::uint32_t* out, std::int64_t parent_offset) {
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

std::int64_t Encoder::index(const void* data, std::int64_t j) const {
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

void Encoder::throw_bad_index(std::int64_t k, std::int64_t i) {
  throw std::runtime_error(fmt::format("dictionary index {} of row {} is outside the dictionary", k,
                                       first_row_ + static_cast<std::uint64_t>(i) + 1));
}

std::uint32_t Encoder::add(std::string_view text, std::int64_t i) {
  Column& c = *s_.col;
  const std::uint32_t code = c.dictionary.intern(text);
  if (code == c.first_line.size()) c.first_line.push_back(first_row_ + static_cast<std::uint64_t>(i) + 2);
  return code;
}

std::uint32_t Encoder::null_code(std::int64_t i) {
  if (s_.null_code < 0) s_.null_code = add("", i);
  return static_cast<std::uint32_t>(s_.null_code);
}

template <class Render>
std::uint32_t Encoder::number(std::uint64_t key, std::int64_t i, Render&& render) {
  auto [it, added] = s_.by_value.try_emplace(key, 0);
  if (added) it->second = add(render(), i);
  return it->second;
}

template <class T>
std::uint32_t Encoder::integer(T v, std::int64_t i) {
  return number(static_cast<std::uint64_t>(v), i, [&] { return fmt::format_int(v).str(); });
}

template <class F>
std::uint32_t Encoder::floating(F v, std::int64_t i) {
  if (std::isnan(v)) return null_code(i);  // as pandas takes NaN: missing
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  return number(bits, i, [&] { return python_repr(v); });
}

std::uint32_t Encoder::element(const ArrowArray& a, std::int64_t j, std::int64_t i) {
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

}  // namespace deid::python
