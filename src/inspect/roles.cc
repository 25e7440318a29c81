// The role suggested for a column, with its reason. The rules, first that
// applies wins:
//  1. a direct identifier found with confidence >= 0.6 (names, contact
//     details, record and account numbers, ...; 164.514(b)(2)(i) A, D-R):
//     identifying, removed;
//  2. ZIP codes: quasi-identifying (Safe Harbor keeps at most the first
//     three digits); any other geographic unit below a state: identifying;
//  3. dates more precise than a year, years, ages: quasi-identifying;
//  4. a name that says sensitive (diagnosis, income, ...): sensitive;
//  5. free text: identifying (it may hold any identifier);
//  6. a name that says demographic (sex, race, occupation, ...):
//     quasi-identifying;
//  7. otherwise insensitive, with the advice to review it.
// A column with a single value, or none, is insensitive: it tells nothing
// about anyone.
#include <fmt/format.h>

#include <string>

#include "inspect/detectors.h"
#include "inspect/profile.h"

namespace deid::inspect_detail {
namespace {

constexpr double kIdentifying = 0.6;

bool direct(const std::string& hipaa) { return hipaa != "B" && hipaa != "C"; }

const IdentifierFinding* best(const ColumnProfile& p, bool (*accept)(const IdentifierFinding&)) {
  for (const IdentifierFinding& f : p.findings)
    if (accept(f)) return &f;  // findings are sorted by confidence
  return nullptr;
}

std::string via(const IdentifierFinding& f) {
  return f.method == "column name" ? "by its name" : "by its values";
}

}  // namespace

void suggest_role(ColumnProfile& p) {
  auto set = [&](SuggestedRole r, std::string reason) {
    p.role = r;
    p.reason = std::move(reason);
  };
  if (p.distinct <= 1) {
    set(SuggestedRole::insensitive, p.distinct == 0 ? "every cell is empty" : "a single value: it tells nothing about anyone");
    return;
  }
  if (const IdentifierFinding* f =
          best(p, [](const IdentifierFinding& f) { return direct(f.hipaa) && f.confidence >= kIdentifying; })) {
    set(SuggestedRole::identifying, fmt::format("HIPAA identifier ({}) {} ({:.0f} % confidence): removed", f->type,
                                                via(*f), 100 * f->confidence));
    return;
  }
  const bool zip_values = best(p, is_zip_finding) != nullptr;
  const IdentifierFinding* geo =
      best(p, [](const IdentifierFinding& f) { return f.hipaa == "B" && f.confidence >= kIdentifying; });
  if (zip_values && (geo != nullptr || p.type == ValueType::code || p.type == ValueType::integer)) {
    set(SuggestedRole::quasi_identifying,
        "ZIP codes: Safe Harbor allows at most their first three digits, and only where those cover more than "
        "20,000 people; generalized by masking");
    return;
  }
  if (geo != nullptr) {
    set(SuggestedRole::identifying,
        fmt::format("HIPAA identifier ({}) {}: Safe Harbor removes geographic units smaller than a state", geo->type,
                    via(*geo)));
    return;
  }
  if (p.type == ValueType::date && p.date_format != "%Y") {
    set(SuggestedRole::quasi_identifying,
        "dates more precise than a year are HIPAA identifiers, and an attacker may know them: generalized");
    return;
  }
  if (p.type == ValueType::date) {
    set(SuggestedRole::quasi_identifying, "a year an attacker may know (of birth, of an event): generalized");
    return;
  }
  if ((p.type == ValueType::integer || p.type == ValueType::decimal) && is_age_name(p.name)) {
    set(SuggestedRole::quasi_identifying, "an age, known to anyone who knows the person: generalized into intervals");
    return;
  }
  if (is_sensitive_name(p.name)) {
    set(SuggestedRole::sensitive, "its name says clinical or financial detail: what the release must not disclose");
    return;
  }
  if (p.type == ValueType::free_text) {
    set(SuggestedRole::identifying, "free text may hold names, dates and numbers of any kind: removed unless reviewed");
    return;
  }
  if (is_demographic_name(p.name)) {
    set(SuggestedRole::quasi_identifying, "a demographic attribute an attacker may know from other sources: generalized");
    return;
  }
  set(SuggestedRole::insensitive, "not recognised as identifying or demographic: review whether others can know it");
}

}  // namespace deid::inspect_detail
