#include "deid/formula_warnings.h"

#include <fmt/format.h>

#include "deid/formulas.h"

namespace deid {

std::vector<std::string> formula_warnings(const Dataset& data, const std::vector<bool>& written,
                                          const std::vector<const std::vector<std::string>*>& released_labels,
                                          const std::vector<const FormulaCount*>& counted) {
  std::vector<std::string> out;
  for (std::size_t c = 0; c < data.columns.size(); ++c) {
    if (c < written.size() && !written[c]) continue;
    const Column& col = data.columns[c];
    std::uint64_t count = 0;
    std::string example;
    auto see = [&](const std::string& v) {
      if (!looks_like_formula(v)) return;
      if (count++ == 0) example = v;
    };
    if (c < counted.size() && counted[c] != nullptr) {
      count = counted[c]->count;
      example = counted[c]->example;
    } else if (c < released_labels.size() && released_labels[c] != nullptr) {
      for (const std::string& v : *released_labels[c]) see(v);
    } else {
      for (std::uint32_t v = 0; v < col.dictionary.size(); ++v) see(col.dictionary.value(v));
    }
    if (count > 0)
      out.push_back(fmt::format("column '{}': {} distinct value{} start{} with =, +, - or @ (e.g. '{}'); a "
                                "spreadsheet would run {} as a formula. The values are written unchanged; "
                                "'output: {{escape-formulas: true}}' prefixes them with '",
                                col.name, count, count == 1 ? "" : "s", count == 1 ? "s" : "", example,
                                count == 1 ? "it" : "them"));
  }
  return out;
}

}  // namespace deid
