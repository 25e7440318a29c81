#include "deid/formulas.h"

#include <charconv>

#include "deid/csv.h"

namespace deid {

void append_output_field(std::string& out, std::string_view cell, char delimiter, bool escape_formulas) {
  if (escape_formulas && looks_like_formula(cell)) {
    std::string escaped;
    escaped.reserve(cell.size() + 1);
    escaped.push_back('\'');
    escaped += cell;
    append_csv_field(out, escaped, delimiter);
  } else {
    append_csv_field(out, cell, delimiter);
  }
}

bool looks_like_formula(std::string_view cell) {
  if (cell.empty()) return false;
  const char c = cell.front();
  if (c != '=' && c != '+' && c != '-' && c != '@') return false;
  if (c == '=' || c == '@') return true;
  // A sign followed by a plain decimal number is data, not a formula.
  std::string_view rest = cell.substr(1);
  if (rest.empty()) return true;
  double value = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  const bool digit_first = (rest.front() >= '0' && rest.front() <= '9') || rest.front() == '.';
  return !(digit_first && ec == std::errc() && end == rest.data() + rest.size());
}

}  // namespace deid
