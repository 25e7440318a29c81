#include "deid/error.h"

#include <fmt/format.h>

namespace deid {

std::string Location::to_string() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    out += fmt::format(":{}", line);
    if (column > 0) out += fmt::format(":{}", column);
  }
  if (!column_name.empty()) out += fmt::format(" (column '{}')", column_name);
  return out;
}

InputError::InputError(Location where, const std::string& problem)
    : Error(where.to_string() + ": " + problem), where_(std::move(where)), problem_(problem) {}

}  // namespace deid
