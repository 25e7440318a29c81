#include "deid/error.h"

#include <fmt/format.h>

namespace deid {

std::string Location::to_string() const {
  if (file.empty() && line == 0 && column_name.empty()) return {};  // nothing known: no prefix
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    out += fmt::format(":{}", line);
    if (column > 0) out += fmt::format(":{}", column);
  }
  if (!column_name.empty()) out += fmt::format(" (column '{}')", column_name);
  return out;
}

std::string data_line_note(std::uint64_t line) { return line > 0 ? fmt::format(" (data line {})", line) : ""; }

namespace {

std::string message(const Location& where, const std::string& problem) {
  const std::string at = where.to_string();
  return at.empty() ? problem : at + ": " + problem;
}

}  // namespace

InputError::InputError(Location where, const std::string& problem)
    : Error(message(where, problem)), where_(std::move(where)), problem_(problem) {}

}  // namespace deid
