// inspect(): every column's profile and role, then the attribute risk of
// the suggested quasi-identifiers; the inspection as JSON and as the text
// `deid inspect` prints (docs/inspect.md).
#include <tbb/parallel_for.h>

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "deid/error.h"
#include "deid/inspect.h"
#include "inspect/profile.h"

namespace deid {

const char* value_type_name(ValueType t) {
  switch (t) {
    case ValueType::empty: return "empty";
    case ValueType::integer: return "integer";
    case ValueType::decimal: return "decimal";
    case ValueType::date: return "date";
    case ValueType::code: return "code";
    case ValueType::free_text: return "free text";
  }
  return "?";
}

const char* role_name(SuggestedRole r) {
  switch (r) {
    case SuggestedRole::identifying: return "identifying";
    case SuggestedRole::quasi_identifying: return "quasi-identifying";
    case SuggestedRole::sensitive: return "sensitive";
    case SuggestedRole::insensitive: return "insensitive";
  }
  return "?";
}

std::uint64_t combination_count(std::size_t candidates, int max_size) {
  // Sum of C(n, k) for k = 1 .. max_size, saturating at the largest value.
  // Each step C(n, k) = C(n, k - 1) (n - k + 1) / k is exact; in 128 bits
  // the product cannot overflow while the sum stays below 2^63.
  const auto n = static_cast<std::uint64_t>(candidates);
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  unsigned __int128 total = 0, c = 1;
  for (std::uint64_t k = 1; k <= static_cast<std::uint64_t>(std::max(max_size, 0)) && k <= n; ++k) {
    c = c * (n - k + 1) / k;
    total += c;
    if (total > kMax / 2) return kMax;
  }
  return static_cast<std::uint64_t>(total);
}

Inspection inspect(const Dataset& data, const InspectOptions& options) {
  if (options.max_combination_size < 1 || options.max_combination_size > 8)
    throw JobError(Location{}, fmt::format("max-combination-size {}: expected 1 to 8", options.max_combination_size));
  Inspection in;
  in.source = data.source;
  in.delimiter = data.delimiter;
  in.records = data.records();
  in.max_combination_size = options.max_combination_size;
  in.columns.resize(data.columns.size());
  // Columns are independent: each profile into its own slot.
  tbb::parallel_for(std::size_t{0}, data.columns.size(), [&](std::size_t c) {
    in.columns[c] = inspect_detail::profile_column(data.columns[c], data.weights);
    inspect_detail::suggest_role(in.columns[c]);
  });
  for (std::size_t c = 0; c < in.columns.size(); ++c)
    if (in.columns[c].role == SuggestedRole::quasi_identifying) in.quasi_identifiers.push_back(static_cast<int>(c));
  if (options.max_combinations > 0)
    while (in.max_combination_size > 1 &&
           combination_count(in.quasi_identifiers.size(), in.max_combination_size) > options.max_combinations)
      --in.max_combination_size;
  in.combinations = attribute_risks(data, in.quasi_identifiers, in.max_combination_size);
  return in;
}

nlohmann::json to_json(const Inspection& in) {
  nlohmann::json j;
  j["source"] = in.source;
  j["delimiter"] = std::string(1, in.delimiter);
  j["records"] = in.records;
  j["columns"] = nlohmann::json::array();
  for (const ColumnProfile& p : in.columns) {
    nlohmann::json c;
    c["name"] = p.name;
    c["type"] = value_type_name(p.type);
    if (!p.date_format.empty()) c["date_format"] = p.date_format;
    c["conforming"] = p.conforming;
    c["non_conforming"] = p.non_conforming;
    c["non_conforming_examples"] = nlohmann::json::array();
    for (const ValueExample& e : p.non_conforming_examples)
      c["non_conforming_examples"].push_back({{"value", e.value}, {"line", e.line}, {"count", e.count}});
    c["distinct"] = p.distinct;
    c["missing"] = p.missing;
    c["uniqueness"] = p.uniqueness;
    if (p.range.valid) c["range"] = {{"min", p.range.min}, {"max", p.range.max}};
    c["identifiers"] = nlohmann::json::array();
    for (const IdentifierFinding& f : p.findings) {
      nlohmann::json fj{{"type", f.type},         {"hipaa", f.hipaa},       {"method", f.method},
                        {"confidence", f.confidence}, {"evidence", f.evidence}, {"lines", f.lines}};
      if (f.method == "values") fj["cells"] = f.cells;
      c["identifiers"].push_back(std::move(fj));
    }
    c["role"] = role_name(p.role);
    c["reason"] = p.reason;
    j["columns"].push_back(std::move(c));
  }
  j["quasi_identifiers"] = nlohmann::json::array();
  for (int q : in.quasi_identifiers) j["quasi_identifiers"].push_back(in.columns[static_cast<std::size_t>(q)].name);
  j["max_combination_size"] = in.max_combination_size;
  j["combinations"] = nlohmann::json::array();
  for (const CombinationRisk& r : in.combinations) {
    nlohmann::json names = nlohmann::json::array();
    for (int c : r.columns) names.push_back(in.columns[static_cast<std::size_t>(c)].name);
    j["combinations"].push_back({{"columns", names},
                                 {"records", r.records},
                                 {"classes", r.classes},
                                 {"unique_records", r.unique_records},
                                 {"distinction", r.distinction},
                                 {"separation", r.separation}});
  }
  return j;
}

std::string to_text(const Inspection& in) {
  std::string out = fmt::format("Records          {}\nColumns          {}\n\n", in.records, in.columns.size());
  out += fmt::format("{:<20} {:<14} {:>8} {:>8} {:>7} {:>6}  {:<17} {}\n", "Column", "Type", "distinct", "missing",
                     "unique", "bad", "Role", "Identifiers");
  for (const ColumnProfile& p : in.columns) {
    std::string type = value_type_name(p.type);
    if (p.type == ValueType::date) type += " " + p.date_format;
    std::string ids;
    for (const IdentifierFinding& f : p.findings)
      ids += fmt::format("{}{} ({}, {:.0f} %)", ids.empty() ? "" : "; ", f.type, f.method, 100 * f.confidence);
    out += fmt::format("{:<20} {:<14} {:>8} {:>8} {:>6.1f}% {:>6}  {:<17} {}\n", p.name, type, p.distinct, p.missing,
                       100 * p.uniqueness, p.non_conforming, role_name(p.role), ids.empty() ? "-" : ids);
  }
  bool any_bad = false;
  for (const ColumnProfile& p : in.columns) {
    if (p.non_conforming_examples.empty()) continue;
    if (!any_bad) out += "\nValues that do not conform to their column's type (first line):\n";
    any_bad = true;
    std::string ex;
    for (const ValueExample& e : p.non_conforming_examples)
      ex += fmt::format("{}'{}' (line {}, {}x)", ex.empty() ? "" : ", ", e.value, e.line, e.count);
    out += fmt::format("  {}: {}\n", p.name, ex);
  }
  out += "\nSuggested roles:\n";
  for (const ColumnProfile& p : in.columns) out += fmt::format("  {:<20} {:<17} {}\n", p.name, role_name(p.role), p.reason);
  if (!in.combinations.empty()) {
    const std::size_t shown = std::min<std::size_t>(in.combinations.size(), 10);
    out += fmt::format("\nCombinations of quasi-identifiers (up to {} columns; {} of {} shown, most unique first):\n",
                       in.max_combination_size, shown, in.combinations.size());
    out += fmt::format("  {:>8} {:>8} {:>11} {:>11}  {}\n", "uniques", "classes", "distinction", "separation", "columns");
    for (std::size_t i = 0; i < shown; ++i) {
      const CombinationRisk& r = in.combinations[i];
      std::string names;
      for (int c : r.columns) names += (names.empty() ? "" : ", ") + in.columns[static_cast<std::size_t>(c)].name;
      out += fmt::format("  {:>8} {:>8} {:>11.6f} {:>11.6f}  {}\n", r.unique_records, r.classes, r.distinction,
                         r.separation, names);
    }
  }
  return out;
}

}  // namespace deid
