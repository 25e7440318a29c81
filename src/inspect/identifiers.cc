// HIPAA Safe Harbor identifiers (45 CFR 164.514(b)(2)(i)) found in a
// column, by its name (column_names.cc) and by its values: the patterns of
// value_patterns.cc where a type has a written form, the Census name lists
// for names, the Census list of places for places (places.cc), the values'
// precision for dates, ages over 89, and uniqueness for "any other unique
// identifying number".
//
// A value pattern is reported when it covers at least half of the non-empty
// cells; its confidence grows with the share it covers (a pattern with
// check rules, such as the SSN's, starts higher than one that many other
// numbers share, such as the ZIP code's, which also needs a name that says
// geography or a value only a ZIP code has: a leading zero or ZIP+4).
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "inspect/detectors.h"
#include "inspect/profile.h"

namespace deid::inspect_detail {
namespace {

constexpr double kPatternShare = 0.5;
// The end of the ZIP code finding's evidence, by which roles.cc and
// starter_job.cc tell it from other geographic findings.
constexpr const char* kZipWhat = "ZIP codes";

struct ValueRule {
  const char* type;
  const char* hipaa;
  bool (*match)(std::string_view);
  double low, high;  // confidence when the pattern covers half of the cells, and all of them
  const char* what;
};

constexpr ValueRule kValueRules[] = {
    {"e-mail address", "F", is_email, 0.8, 0.99, "e-mail addresses"},
    {"telephone number", "D", is_phone, 0.6, 0.95, "telephone numbers"},
    {"social security number", "G", is_ssn, 0.8, 0.99, "valid social security numbers"},
    {"web URL", "N", is_url, 0.8, 0.98, "URLs"},
    {"IP address", "O", is_ip_address, 0.7, 0.95, "IPv4 or IPv6 addresses"},
    {"geographic subdivision smaller than a state", "B", is_zip_code, 0.5, 0.85, kZipWhat},
};

double scaled(double low, double high, double share) {
  return low + (high - low) * (share - kPatternShare) / (1.0 - kPatternShare);
}

// A ZIP code column shows itself by a leading zero or a ZIP+4 somewhere;
// five-digit amounts never have them.
bool zip_shape(const Column& column, const ColumnValues& cv) {
  for (std::uint32_t code = 0; code < cv.count.size(); ++code) {
    const std::string& v = column.dictionary.value(code);
    if (is_zip_code(v) && (v[0] == '0' || v.size() == 10)) return true;
  }
  return false;
}

std::string share_text(std::uint64_t cells, std::uint64_t filled) {
  return fmt::format("{} of {} non-empty cells", cells, filled);
}

// Places: most distinct values and most cells name a US place, and more
// than half of the distinct places are clear ones (with a suffix or a
// state, or not also a common name or word), at least 5 of them, so that
// a column of surnames or of categories that happen to be places
// ("Houston", "White", "Union") does not count.
struct PlaceCount {
  PatternCount places;      // clear or ambiguous
  std::uint64_t clear = 0;  // distinct values
};

PlaceCount count_places(const Column& column, const ColumnValues& cv) {
  PlaceCount pc;
  pc.places = count_pattern(column, cv, [&](std::string_view v) {
    const PlaceMatch m = match_place(v);
    if (m == PlaceMatch::clear) ++pc.clear;
    return m != PlaceMatch::none;
  });
  return pc;
}

// The distinct values that look like a person's name and name no place.
std::uint64_t names_only(const Column& column, const ColumnValues& cv) {
  return count_pattern(column, cv, [](std::string_view v) {
           return looks_like_person_name(v) && match_place(v) == PlaceMatch::none;
         }).distinct;
}

}  // namespace

bool is_zip_finding(const IdentifierFinding& f) {
  return f.hipaa == "B" && f.method == "values" && f.evidence.ends_with(kZipWhat);
}

std::vector<IdentifierFinding> find_identifiers(const Column& column, const ColumnValues& cv, const ColumnProfile& p) {
  std::vector<IdentifierFinding> out;
  for (const NameMatch& m : match_column_name(p.name))
    out.push_back({m.type, m.hipaa, "column name", m.confidence, fmt::format("the name's words '{}'", m.words), {}, 0});

  const std::uint64_t filled = p.conforming + p.non_conforming;
  if (filled > 0) {
    const double f = static_cast<double>(filled);
    const bool geo_name =
        std::any_of(out.begin(), out.end(), [](const IdentifierFinding& x) { return x.hipaa == "B"; });
    for (const ValueRule& rule : kValueRules) {
      // Numbers are not ZIP codes unless they have five digits; other
      // patterns never hold for plain numbers.
      if ((p.type == ValueType::decimal) || (p.type == ValueType::integer && rule.match != is_zip_code)) continue;
      if (rule.match == is_zip_code && !geo_name && !zip_shape(column, cv)) continue;
      const PatternCount pc = count_pattern(column, cv, rule.match);
      const double share = static_cast<double>(pc.cells) / f;
      if (share < kPatternShare) continue;
      out.push_back({rule.type, rule.hipaa, "values", scaled(rule.low, rule.high, share),
                     fmt::format("{} are {}", share_text(pc.cells, filled), rule.what), pc.lines, pc.cells});
    }

    // Names: by the distinct values, so that a few frequent categories
    // that happen to be surnames ("White" in a column of races) do not
    // count; a name column has many different values.
    if (p.type == ValueType::code || p.type == ValueType::free_text) {
      const PatternCount pc = count_pattern(column, cv, looks_like_person_name);
      const double distinct_share = p.distinct == 0 ? 0 : static_cast<double>(pc.distinct) / static_cast<double>(p.distinct);
      const double variety = static_cast<double>(p.distinct) / f;
      if (distinct_share >= kPatternShare && p.distinct >= 5 && variety >= 0.2)
        out.push_back({"names", "A", "values", scaled(0.6, 0.95, distinct_share),
                       fmt::format("{} of {} distinct values hold a common first or last name (1990 US Census)",
                                   pc.distinct, p.distinct),
                       pc.lines, pc.cells});
    }

    // Places. A column that also passes for names is taken for the kind
    // it has more values of alone: clear places against names that name
    // no place.
    if (p.type == ValueType::code || p.type == ValueType::free_text) {
      const PlaceCount pc = count_places(column, cv);
      const double distinct_share =
          p.distinct == 0 ? 0 : static_cast<double>(pc.places.distinct) / static_cast<double>(p.distinct);
      const double cell_share = static_cast<double>(pc.places.cells) / f;
      if (distinct_share >= kPatternShare && cell_share >= kPatternShare && pc.clear >= 5 &&
          2 * pc.clear > pc.places.distinct) {
        const auto names = std::find_if(out.begin(), out.end(), [](const IdentifierFinding& x) {
          return x.hipaa == "A" && x.method == "values";
        });
        if (names == out.end() || pc.clear > names_only(column, cv)) {
          if (names != out.end()) out.erase(names);
          out.push_back({"geographic subdivision smaller than a state", "B", "values",
                         scaled(0.6, 0.9, std::min(distinct_share, cell_share)),
                         fmt::format("{} of {} distinct values ({}) name US places (US Census), {} of them clearly",
                                     pc.places.distinct, p.distinct, share_text(pc.places.cells, filled), pc.clear),
                         pc.places.lines, pc.places.cells});
        }
      }
    }

    // Dates more precise than a year.
    if (p.type == ValueType::date && p.date_format != "%Y") {
      const std::string format = p.date_format;
      const PatternCount pc = count_pattern(column, cv, [&](std::string_view v) { return is_date(v, format); });
      out.push_back({"dates (more precise than year)", "C", "values",
                     scaled(0.7, 0.95, std::max(kPatternShare, static_cast<double>(pc.cells) / f)),
                     fmt::format("{} are dates {}", share_text(pc.cells, filled), format), pc.lines, pc.cells});
    }

    // Ages over 89, in a column whose name says age.
    if ((p.type == ValueType::integer || p.type == ValueType::decimal) && is_age_name(p.name) && p.range.valid &&
        p.range.max > 89) {
      const PatternCount pc = count_pattern(column, cv, [](std::string_view v) {
        const auto x = parse_number(v);
        return x && *x > 89;
      });
      out.push_back({"ages over 89", "C", "values", 0.9,
                     fmt::format("{} hold an age over 89 (Safe Harbor aggregates them into 90 or older)",
                                 share_text(pc.cells, filled)),
                     pc.lines, pc.cells});
    }

    // Any other unique identifying number: a code or integer that (almost)
    // every record has to itself, in a table large enough for that to mean
    // something.
    // Only when nothing more specific was found: it is "any other" number,
    // not ZIP codes or dates that happen to be unique.
    const bool specific = std::any_of(out.begin(), out.end(), [](const IdentifierFinding& x) {
      return x.method == "values" || (x.hipaa != "B" && x.hipaa != "C" && x.hipaa != "R");
    });
    if (!specific && (p.type == ValueType::integer || p.type == ValueType::code) && p.uniqueness >= 0.95 &&
        p.distinct >= 20) {
      const PatternCount pc = count_pattern(column, cv, [](std::string_view) { return true; });
      out.push_back({"other unique identifying number", "R", "values", 0.8 * p.uniqueness,
                     fmt::format("{:.1f} % of the non-empty cells hold a value no other cell holds", 100 * p.uniqueness),
                     pc.lines, 0});
    }
  }
  // Telephone numbers in a column whose name says fax are fax numbers.
  if (std::any_of(out.begin(), out.end(), [](const IdentifierFinding& x) { return x.hipaa == "E"; }))
    for (IdentifierFinding& f : out)
      if (f.hipaa == "D") {
        // Assigned from strings, not literals: GCC 12 at -O3 takes the
        // literal's replace for an overlapping copy (-Werror=restrict).
        f.type = std::string("fax number");
        f.hipaa = std::string("E");
      }
  // One finding per type and method.
  std::vector<IdentifierFinding> unique;
  for (IdentifierFinding& f : out)
    if (std::none_of(unique.begin(), unique.end(), [&](const IdentifierFinding& u) {
          return u.hipaa == f.hipaa && u.method == f.method && u.type == f.type;
        }))
      unique.push_back(std::move(f));
  out = std::move(unique);
  std::stable_sort(out.begin(), out.end(),
                   [](const IdentifierFinding& a, const IdentifierFinding& b) { return a.confidence > b.confidence; });
  return out;
}

}  // namespace deid::inspect_detail
