// What inspect/ shares between its files: the value patterns (one value at a
// time, no state), the detection by column name and the bundled name lists.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace deid::inspect_detail {

// Numbers as a table writes them: optional sign, digits, at most one '.'
// with digits after it for a decimal. No exponents, no thousands separators.
bool is_integer(std::string_view v);
bool is_decimal(std::string_view v);  // also true for integers
std::optional<double> parse_number(std::string_view v);

// A calendar date in `format`, one of "%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y"
// (two-digit day and month, four-digit year, a real day of the Gregorian
// calendar).
bool is_date(std::string_view v, std::string_view format);
// The date formats tried, in order.
const std::vector<std::string>& date_formats();

// HIPAA identifier patterns of a single value.
bool is_email(std::string_view v);
// A North American (NANP) number: 10 digits, or 11 with a leading 1, the
// area code's first digit 2-9, written with separators ("555-123-4567",
// "(555) 123-4567", "555.123.4567", "+1 555 123 4567"); or an international
// number: '+', a country code and 8 to 15 digits in all.
bool is_phone(std::string_view v);
// "AAA-GG-SSSS" (or with spaces) under the Social Security Administration's
// rules: area not 000, 666 or 900-999; group not 00; serial not 0000.
bool is_ssn(std::string_view v);
bool is_url(std::string_view v);  // http://, https://, ftp:// or www. and a host with a dot
bool is_ip_address(std::string_view v);  // IPv4 dotted quad or IPv6 (inet_pton)
bool is_zip_code(std::string_view v);    // "12345" or "12345-6789"

// A column name split into lower-case words: at non-alphanumerics and at
// lower-to-upper case changes ("patientDOB" -> patient, dob).
std::vector<std::string> name_words(std::string_view name);

// A HIPAA identifier type that a column name suggests.
struct NameMatch {
  std::string type;   // as IdentifierFinding::type
  std::string hipaa;  // the paragraph's letter
  double confidence = 0;
  std::string words;  // the words that matched
};
// Every type the name suggests (at most one per type).
std::vector<NameMatch> match_column_name(std::string_view name);

// Whether the name suggests an age, a demographic attribute an attacker may
// know (sex, birth, residence, ethnicity, marital status, education,
// occupation ...), or a clinical or financial one (sensitive).
bool is_age_name(std::string_view name);
bool is_demographic_name(std::string_view name);
bool is_sensitive_name(std::string_view name);
bool is_year_name(std::string_view name);

// The most common first and last names of the 1990 United States Census
// (public domain; src/inspect/census_names.cc says which), upper case.
bool is_common_first_name(std::string_view upper);
bool is_common_last_name(std::string_view upper);
// A value that looks like a person's name: one to four words of letters
// (apostrophes, hyphens and a trailing '.' allowed), at least one of which
// is a common first or last name; "Smith, Ann" too.
bool looks_like_person_name(std::string_view v);

// A value folded as the bundled list of US places writes its names
// (places.cc): accents folded, upper case, periods and apostrophes dropped,
// hyphens and runs of spaces as one space, SAINT as ST, SAINTE as STE, FT
// as FORT, MT as MOUNT. Empty when the value holds anything but letters,
// spaces and those marks.
std::string normalize_place(std::string_view v);
// Whether a normalized name is that of a US Census place, county
// subdivision or county, without its suffix ("SPRINGFIELD", "COOK").
bool is_us_place_name(std::string_view normalized);
// How a value names a US place below a state: `clear` when it is listed and
// carries a Census suffix ("Cook County") or its state ("Springfield, IL",
// "Boston MA", "Austin, Texas"), or when it is listed and not also a common
// first or last name or a category word; `ambiguous` for a listed single
// word that is one ("Houston", "Ruby", "Union"); `none` otherwise, and for
// a state's or a country's name alone.
enum class PlaceMatch { none, ambiguous, clear };
PlaceMatch match_place(std::string_view v);

}  // namespace deid::inspect_detail
