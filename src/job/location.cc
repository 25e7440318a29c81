// Table locations that are URLs (include/deid/location.h).
#include "deid/location.h"

#include <cctype>

namespace deid {

bool is_url(std::string_view location) {
  const std::size_t colon = location.find("://");
  if (colon == 0 || colon == std::string_view::npos ||
      !std::isalpha(static_cast<unsigned char>(location[0])))
    return false;
  for (char c : location.substr(0, colon))
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  return true;
}

}  // namespace deid
