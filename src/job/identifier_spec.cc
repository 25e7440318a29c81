// What a job says of identifying attributes and linked tables
// (deid/identifier_spec.h, deid/linked_spec.h): the names of the actions and
// options, and the date formats of date shifts.
#include "deid/identifier_spec.h"
#include "deid/linked_spec.h"

#include <fmt/format.h>

#include <stdexcept>

namespace deid {

const char* to_string(IdentifierAction action) {
  switch (action) {
    case IdentifierAction::remove: return "remove";
    case IdentifierAction::pseudonym: return "pseudonym";
    case IdentifierAction::mask: return "mask";
    case IdentifierAction::date_shift: return "date-shift";
  }
  return "?";
}

void check_date_format(const std::string& format) {
  int y = 0, m = 0, d = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (i + 1 == format.size()) throw std::invalid_argument("it ends with a lone '%'");
    switch (format[++i]) {
      case 'Y': ++y; break;
      case 'm': ++m; break;
      case 'd': ++d; break;
      case '%': break;
      default: throw std::invalid_argument(fmt::format("'%{}' is not one of %Y, %m, %d, %%", format[i]));
    }
  }
  if (y != 1 || m != 1 || d != 1) throw std::invalid_argument("it needs each of %Y, %m and %d exactly once");
}

}  // namespace deid

namespace deid {

const char* to_string(LinkedTable::Suppressed s) { return s == LinkedTable::Suppressed::keep ? "keep" : "drop"; }
const char* to_string(LinkedTable::Orphans o) { return o == LinkedTable::Orphans::error ? "error" : "drop"; }

}  // namespace deid
