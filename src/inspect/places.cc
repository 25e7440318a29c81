// United States places by their names, for detecting place columns by their
// values (identifiers.cc, docs/inspect.md): a value is matched against the
// Census places, county subdivisions and counties of us_places.inc (public
// domain; that file says where it came from and scripts/generate-us-places.py
// how it was made), as written ("Springfield"), with its Census suffix
// ("Cook County", "Orleans Parish") or with its state ("Springfield, IL",
// "Boston MA", "Austin, Texas").
//
// Many places share their name with people and things ("Houston", "Ruby",
// "Union", "Center"): such a value alone is an ambiguous match, which a
// column needs clear matches beside to be taken for places. States and
// countries alone are no match: they are not below a state.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "inspect/detectors.h"

namespace deid::inspect_detail {
namespace {

constexpr std::string_view kPlaces =
#include "inspect/us_places.inc"
    ;

struct State {
  std::string_view code, name;  // the name normalized
};

constexpr std::array<State, 56> kStates{{
    {"AL", "ALABAMA"},        {"AK", "ALASKA"},         {"AZ", "ARIZONA"},
    {"AR", "ARKANSAS"},       {"CA", "CALIFORNIA"},     {"CO", "COLORADO"},
    {"CT", "CONNECTICUT"},    {"DE", "DELAWARE"},       {"DC", "DISTRICT OF COLUMBIA"},
    {"FL", "FLORIDA"},        {"GA", "GEORGIA"},        {"HI", "HAWAII"},
    {"ID", "IDAHO"},          {"IL", "ILLINOIS"},       {"IN", "INDIANA"},
    {"IA", "IOWA"},           {"KS", "KANSAS"},         {"KY", "KENTUCKY"},
    {"LA", "LOUISIANA"},      {"ME", "MAINE"},          {"MD", "MARYLAND"},
    {"MA", "MASSACHUSETTS"},  {"MI", "MICHIGAN"},       {"MN", "MINNESOTA"},
    {"MS", "MISSISSIPPI"},    {"MO", "MISSOURI"},       {"MT", "MONTANA"},
    {"NE", "NEBRASKA"},       {"NV", "NEVADA"},         {"NH", "NEW HAMPSHIRE"},
    {"NJ", "NEW JERSEY"},     {"NM", "NEW MEXICO"},     {"NY", "NEW YORK"},
    {"NC", "NORTH CAROLINA"}, {"ND", "NORTH DAKOTA"},   {"OH", "OHIO"},
    {"OK", "OKLAHOMA"},       {"OR", "OREGON"},         {"PA", "PENNSYLVANIA"},
    {"RI", "RHODE ISLAND"},   {"SC", "SOUTH CAROLINA"}, {"SD", "SOUTH DAKOTA"},
    {"TN", "TENNESSEE"},      {"TX", "TEXAS"},          {"UT", "UTAH"},
    {"VT", "VERMONT"},        {"VA", "VIRGINIA"},       {"WA", "WASHINGTON"},
    {"WV", "WEST VIRGINIA"},  {"WI", "WISCONSIN"},      {"WY", "WYOMING"},
    {"PR", "PUERTO RICO"},    {"GU", "GUAM"},           {"VI", "VIRGIN ISLANDS"},
    {"AS", "AMERICAN SAMOA"}, {"MP", "NORTHERN MARIANA ISLANDS"},
}};

// Countries whose names are also the names of US places: alone, a country.
constexpr std::string_view kCountries[] = {
    "ANGOLA",   "ARMENIA", "BELGIUM", "BOLIVIA", "BRAZIL",   "CANADA",    "CHINA",      "CUBA",
    "DENMARK",  "EGYPT",   "ENGLAND", "GERMANY", "GREECE",   "GRENADA",   "HOLLAND",    "ISRAEL",
    "ITALY",    "JAMAICA", "LEBANON", "MALTA",   "MEXICO",   "MOROCCO",   "NORWAY",     "PALESTINE",
    "PANAMA",   "PERU",    "POLAND",  "RUSSIA",  "SUDAN",    "SWEDEN",    "SWITZERLAND", "TURKEY",
    "SCOTLAND", "WALES",   "PERSIA",  "MACEDONIA", "TRINIDAD", "SAN MARINO",
};

// Words of categories (colours, directions, materials, virtues, ...) that
// are also the names of US places: alone, ambiguous. Person names are
// ambiguous through the Census name lists.
constexpr std::string_view kWords[] = {
    "ADVANCE",   "ALLIANCE",   "ALPHA",      "AMBER",     "ASH",        "BEACON",      "BLACK",      "BLOOM",
    "BLUE",      "BONANZA",    "BOULDER",    "CEDAR",     "CENTER",     "CENTRAL",     "CHAMPION",   "CLIMAX",
    "COAL",      "COMFORT",    "COMMERCE",   "CONCORD",   "CORAL",      "CRYSTAL",     "DELTA",      "DIAMOND",
    "EAGLE",     "EAST",       "ECHO",       "EDEN",      "ELM",        "EMERALD",     "ENERGY",     "ENTERPRISE",
    "FAIR",      "FAIRVIEW",   "FORD",       "FREEDOM",   "FRIENDSHIP", "FRONTIER",    "GLOBE",      "GOLD",
    "GRANITE",   "GRAND",      "GRAY",       "GREEN",     "GREY",       "HARMONY",     "HAVEN",      "HILL",
    "HOME",      "HOMESTEAD",  "HOPE",       "HOUSE",     "IDEAL",      "INDEPENDENCE", "INDUSTRY",  "IRON",
    "JUBILEE",   "JUSTICE",    "LAKE",       "LIBERTY",   "LOYAL",      "MAGNOLIA",    "MAPLE",      "MARBLE",
    "METROPOLIS", "MIDDLE",    "MILL",       "MILLS",     "MOBILE",     "MYSTIC",      "NORMAL",     "NORTH",
    "NORTHEAST", "NORTHWEST",  "OAK",        "OASIS",     "OLIVE",      "OMEGA",       "ORANGE",     "ORIENT",
    "PARADISE",  "PATRIOT",    "PEACE",      "PEARL",     "PILOT",      "PINE",        "PINK",       "PIONEER",
    "PLAIN",     "PLAINS",     "PLATINUM",   "PLEASANT",  "POWER",      "PROGRESS",    "PROSPECT",   "PROSPERITY",
    "PROVIDENCE", "QUEEN",     "RAINBOW",    "RELIANCE",  "RIVER",      "ROCK",        "ROYAL",      "RURAL",
    "SENTINEL",  "SILVER",     "SOUTH",      "SOUTHEAST", "SOUTHWEST",  "SPEED",       "SPRING",     "STAR",
    "STONE",     "SUCCESS",    "SUMMIT",     "SUNRISE",   "SUPERIOR",   "SURPRISE",    "TEMPLE",     "TRIUMPH",
    "UNION",     "UNITY",      "UNIVERSAL",  "VALLEY",    "VICTORY",    "VIOLET",      "VIRGIN",     "VISTA",
    "WELCOME",   "WEST",       "WHITE",      "WILLOW",    "WINTER",
};

// The Census suffixes a value may carry ("Cook County"), longest first.
constexpr std::string_view kSuffixes[] = {
    " CITY AND BOROUGH", " CENSUS AREA", " MUNICIPALITY", " MUNICIPIO", " TOWNSHIP", " BOROUGH", " VILLAGE",
    " COUNTY",           " PARISH",      " CITY",         " TOWN",      " CDP",
};

const std::vector<std::string_view>& places() {
  static const std::vector<std::string_view> list = [] {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < kPlaces.size()) {
      const std::size_t end = std::min(kPlaces.find('\n', i), kPlaces.size());
      if (end > i) out.push_back(kPlaces.substr(i, end - i));
      i = end + 1;
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return list;
}

bool listed(std::string_view normalized) {
  const auto& list = places();
  return std::binary_search(list.begin(), list.end(), normalized);
}

template <std::size_t N>
bool among(const std::string_view (&words)[N], std::string_view w) {
  return std::find(std::begin(words), std::end(words), w) != std::end(words);
}

bool is_state_name(std::string_view normalized) {
  return std::any_of(kStates.begin(), kStates.end(), [&](const State& s) { return s.name == normalized; });
}

bool is_state_code(std::string_view raw) {
  return std::any_of(kStates.begin(), kStates.end(), [&](const State& s) { return s.code == raw; });
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// What follows a place's comma: a state's name or USPS code (as written, in
// upper case), maybe with a ZIP code ("IL", "Texas", "MA 02108").
bool is_state_tail(std::string_view tail) {
  tail = trim(tail);
  const std::size_t space = tail.rfind(' ');
  if (space != std::string_view::npos && is_zip_code(tail.substr(space + 1))) tail = trim(tail.substr(0, space));
  return is_state_code(tail) || is_state_name(normalize_place(tail));
}

bool is_country_tail(std::string_view tail) {
  const std::string n = normalize_place(tail);
  return n == "USA" || n == "US" || n == "UNITED STATES" || n == "UNITED STATES OF AMERICA";
}

// The place named by a normalized value with no state: as listed, or less
// a Census suffix; `suffixed` tells which.
bool place_name(const std::string& n, bool& suffixed) {
  suffixed = false;
  if (listed(n)) return true;
  const std::string_view name(n);
  for (std::string_view s : kSuffixes)
    if (name.size() > s.size() && name.ends_with(s) && listed(name.substr(0, name.size() - s.size()))) {
      suffixed = true;
      return true;
    }
  return false;
}

}  // namespace

std::string normalize_place(std::string_view v) {
  std::string out;
  bool space = false;
  auto put = [&](char c) {
    if (c == ' ') {
      space = !out.empty();
      return;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  };
  // U+00C0 to U+00FF (UTF-8 C3 80 to C3 BF) as ASCII letters; 0 where none.
  static constexpr char kFold[] = "AAAAAAACEEEEIIIIDNOOOOO\0OUUUUY\0\0aaaaaaaceeeeiiiidnooooo\0ouuuuy\0y";
  for (std::size_t i = 0; i < v.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(v[i]);
    if (std::isalpha(c)) {
      put(static_cast<char>(c));
    } else if (c == ' ' || c == '\t' || c == '-') {
      put(' ');
    } else if (c == '.' || c == '\'') {
      // dropped: "St. Louis", "O'Fallon"
    } else if (c == 0xE2 && i + 2 < v.size() && static_cast<unsigned char>(v[i + 1]) == 0x80 &&
               static_cast<unsigned char>(v[i + 2]) == 0x99) {
      i += 2;  // U+2019, a typographic apostrophe
    } else if (const unsigned char next = i + 1 < v.size() ? static_cast<unsigned char>(v[i + 1]) : 0;
               c == 0xC3 && next >= 0x80 && next <= 0xBF && kFold[next - 0x80] != 0) {
      put(kFold[next - 0x80]);
      ++i;
    } else {
      return {};
    }
  }
  // Abbreviations as the list writes them.
  std::string words;
  std::size_t i = 0;
  while (i < out.size()) {
    const std::size_t end = std::min(out.find(' ', i), out.size());
    std::string_view w(out.data() + i, end - i);
    if (w == "SAINT") w = "ST";
    else if (w == "SAINTE") w = "STE";
    else if (w == "FT") w = "FORT";
    else if (w == "MT") w = "MOUNT";
    if (!words.empty()) words.push_back(' ');
    words.append(w);
    i = end + 1;
  }
  return words;
}

bool is_us_place_name(std::string_view normalized) { return listed(normalized); }

PlaceMatch match_place(std::string_view v) {
  std::string_view place = trim(v);
  bool qualified = false;
  std::size_t comma = place.rfind(',');
  if (comma != std::string_view::npos && is_country_tail(place.substr(comma + 1))) {
    place = trim(place.substr(0, comma));
    comma = place.rfind(',');
  }
  if (comma != std::string_view::npos) {
    // "Springfield, IL": a single place and its state; no other comma.
    if (!is_state_tail(place.substr(comma + 1))) return PlaceMatch::none;
    place = trim(place.substr(0, comma));
    if (place.find(',') != std::string_view::npos) return PlaceMatch::none;
    qualified = true;
  } else if (const std::size_t space = place.rfind(' '); space != std::string_view::npos) {
    // "Boston MA": a USPS code as written, in upper case.
    if (is_state_code(place.substr(space + 1))) {
      place = trim(place.substr(0, space));
      qualified = true;
    }
  }
  std::string n = normalize_place(place);
  if (n.empty()) return PlaceMatch::none;
  bool suffixed = false;
  if (!qualified) {
    if (is_state_name(n)) return PlaceMatch::none;  // a state is not below a state
    // "Austin Texas": a place and a state's name.
    for (const State& s : kStates) {
      const std::size_t cut = n.size() - s.name.size();
      if (n.size() > s.name.size() + 1 && std::string_view(n).ends_with(s.name) && n[cut - 1] == ' ') {
        const std::string rest = n.substr(0, cut - 1);
        if (place_name(rest, suffixed)) {
          n = rest;
          qualified = true;
          break;
        }
      }
    }
  }
  if (!qualified && among(kCountries, n)) return PlaceMatch::none;
  if (!place_name(n, suffixed)) return PlaceMatch::none;
  if (qualified || suffixed) return PlaceMatch::clear;
  const bool one_word = n.find(' ') == std::string::npos;
  if (one_word && (is_common_first_name(n) || is_common_last_name(n) || among(kWords, n))) return PlaceMatch::ambiguous;
  return PlaceMatch::clear;
}

}  // namespace deid::inspect_detail
