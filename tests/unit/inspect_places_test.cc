// Places by their values (src/inspect/places.cc, docs/inspect.md): the
// normalization shared with the generator of the bundled list, the list
// itself, the matcher (Census suffixes, "City, ST" forms, names and words
// that are also places, states and countries), and the column rule with
// its decoys (surnames, categories, states, countries) and its choice
// between names and places.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "deid/dataset.h"
#include "deid/inspect.h"
#include "inspect/detectors.h"

namespace {

using namespace deid;
using namespace deid::inspect_detail;

TEST(InspectPlaces, NormalizedAsTheListWritesNames) {
  EXPECT_EQ(normalize_place("St. Louis"), "ST LOUIS");
  EXPECT_EQ(normalize_place("Saint Louis"), "ST LOUIS");
  EXPECT_EQ(normalize_place("  Ft.  Worth "), "FORT WORTH");
  EXPECT_EQ(normalize_place("Mt Vernon"), "MOUNT VERNON");
  EXPECT_EQ(normalize_place("Coeur d'Alene"), "COEUR DALENE");
  EXPECT_EQ(normalize_place("Coeur d\u2019Alene"), "COEUR DALENE");
  EXPECT_EQ(normalize_place("Winston-Salem"), "WINSTON SALEM");
  EXPECT_EQ(normalize_place("Mayag\u00fcez"), "MAYAGUEZ");
  EXPECT_EQ(normalize_place("BAYAM\u00d3N"), "BAYAMON");
  EXPECT_EQ(normalize_place("Route 66"), "");
  EXPECT_EQ(normalize_place("a/b"), "");
  EXPECT_EQ(normalize_place(""), "");
}

TEST(InspectPlaces, TheBundledListHoldsNamesWithoutTheirSuffix) {
  for (const char* n : {"SPRINGFIELD", "COOK", "ORLEANS", "ANCHORAGE", "JUNEAU", "BETHEL", "MAYAGUEZ", "ST LOUIS",
                        "LA CANADA FLINTRIDGE", "PASO ROBLES", "EL PASO DE ROBLES", "KANSAS CITY", "CARSON CITY",
                        "COEUR DALENE", "NEW YORK", "HARTSVILLE", "TROUSDALE"})
    EXPECT_TRUE(is_us_place_name(n)) << n;
  for (const char* n : {"COOK COUNTY", "ANCHORAGE MUNICIPALITY", "BETHEL CENSUS AREA", "TOWNSHIP 1", "Springfield",
                        "DIABETES", "HOSPITAL", ""})
    EXPECT_FALSE(is_us_place_name(n)) << n;
}

TEST(InspectPlaces, SuffixesAndStatesMakeAClearMatch) {
  for (const char* v : {"Springfield", "Chicago", "St. Louis", "Kansas City", "Mayag\u00fcez", "Cook County",
                        "Orleans Parish", "Juneau City and Borough", "Bethel Census Area", "A\u00f1asco Municipio",
                        "Anchorage Municipality", "Union Township", "Marshall County", "Springfield, IL",
                        "Boston MA", "Austin, Texas", "Austin Texas", "Houston, TX 77002", "Boston, MA, USA",
                        "New York, NY", "Mexico, MO", "Salt Lake City, UT", "Ft. Worth"})
    EXPECT_EQ(match_place(v), PlaceMatch::clear) << v;
}

TEST(InspectPlaces, NamesAndWordsThatArePlacesAreAmbiguous) {
  for (const char* v : {"Houston", "Marshall", "Jackson", "Austin", "Ruby", "Eagle", "Union", "Center", "White",
                        "Black", "Green", "North"})
    EXPECT_EQ(match_place(v), PlaceMatch::ambiguous) << v;
}

TEST(InspectPlaces, WhatIsNoPlaceBelowAState) {
  for (const char* v : {"Texas", "Washington", "New York", "West Virginia", "Puerto Rico", "Mexico", "Wales",
                        "Canada", "Diabetes", "Hospital", "Ann Smith", "Smith, Ann", "Springfield, Sangamon",
                        "Springfield, IL, Sangamon", "Boston XX", "62701", "IL", "", "Asian", "Other"})
    EXPECT_EQ(match_place(v), PlaceMatch::none) << v;
}

Dataset table(const std::string& text) { return read_dataset_text(text, "t.csv", CsvOptions{',', true}); }

const ColumnProfile& column(const Inspection& in, const std::string& name) {
  for (const auto& c : in.columns)
    if (c.name == name) return c;
  throw std::runtime_error("no column " + name);
}

std::string hipaa_by_values(const ColumnProfile& p) {
  std::string out;
  for (const IdentifierFinding& f : p.findings)
    if (f.method == "values") out += f.hipaa;
  return out;
}

// A table of one column `c` whose cell i holds values[i % size].
Inspection one_column(const std::vector<std::string>& values, std::size_t rows) {
  std::string text = "c\n";
  for (std::size_t i = 0; i < rows; ++i) text += "\"" + values[i % values.size()] + "\"\n";
  return inspect(table(text));
}

TEST(InspectPlaces, AColumnOfPlacesIsFoundAndRemoved) {
  const Inspection in = one_column({"Springfield, IL", "Boston MA", "Austin, Texas", "Chicago", "Phoenix", "Houston",
                                    "Dallas", "Cook County", "Seattle", "Omaha", "Tulsa", "Denver"},
                                   60);
  const ColumnProfile& c = column(in, "c");
  ASSERT_EQ(hipaa_by_values(c), "B");
  const IdentifierFinding& f = c.findings.front();
  EXPECT_EQ(f.type, "geographic subdivision smaller than a state");
  EXPECT_EQ(f.cells, 60u);
  EXPECT_EQ(f.lines, (std::vector<std::uint64_t>{2, 3, 4, 5, 6}));
  EXPECT_NE(f.evidence.find("12 of 12 distinct values"), std::string::npos) << f.evidence;
  EXPECT_NE(f.evidence.find("10 of them clearly"), std::string::npos) << f.evidence;  // not Houston, Dallas
  EXPECT_DOUBLE_EQ(f.confidence, 0.9);
  EXPECT_EQ(c.role, SuggestedRole::identifying);
  EXPECT_NE(c.reason.find("geographic units smaller than a state"), std::string::npos) << c.reason;
}

TEST(InspectPlaces, SurnamesCategoriesStatesAndCountriesAreNotPlaces) {
  // Surnames that are all places: ambiguous, never clear.
  const std::vector<std::string> surnames{"Marshall", "Houston",  "Jackson",  "Franklin", "Warren",
                                          "Monroe",   "Hamilton", "Carter",   "Taylor",   "Wilson",
                                          "Henderson", "Harrison", "Jefferson"};
  EXPECT_EQ(hipaa_by_values(column(one_column(surnames, 200), "c")), "");
  // The same surnames, all distinct in a larger column: names, not places.
  std::vector<std::string> full;
  for (const std::string& s : surnames)
    for (const char* first : {"Ann", "John", "Mary"}) full.push_back(fmt::format("{} {}", first, s));
  EXPECT_EQ(hipaa_by_values(column(one_column(full, 39), "c")), "A");
  // Categories that are also places.
  EXPECT_EQ(hipaa_by_values(column(one_column({"White", "Black", "Asian", "Other"}, 100), "c")), "");
  EXPECT_EQ(hipaa_by_values(column(one_column({"North", "South", "East", "West", "Central", "Northeast", "Southwest",
                                               "Union", "Center", "Eagle", "Liberty", "Gold", "Silver"},
                                              100),
                                   "c")),
            "");
  // States are not below a state, nor are countries.
  EXPECT_EQ(hipaa_by_values(column(one_column({"Texas", "Washington", "New York", "Indiana", "Iowa", "Nevada",
                                               "Oregon", "Florida", "Maine", "Kansas", "Delaware", "Virginia"},
                                              100),
                                   "c")),
            "");
  EXPECT_EQ(hipaa_by_values(column(one_column({"United-States", "United-States", "United-States", "Mexico", "Canada",
                                               "Peru", "Cuba", "Poland", "England", "Italy", "Jamaica", "China"},
                                              120),
                                   "c")),
            "");
}

TEST(InspectPlaces, PlacesThatAreAlsoNamesAreTakenForPlaces) {
  // Every value here looks like a person's name ("Houston, TX" as
  // "Smith, Ann"); the states make them places.
  const Inspection in =
      one_column({"Houston, TX", "Austin, TX", "Dallas, TX", "Tyler, TX", "Jackson, MS", "Marshall, TX", "Warren, OH",
                  "Madison, WI", "Lincoln, NE", "Charlotte, NC"},
                 50);
  EXPECT_EQ(hipaa_by_values(column(in, "c")), "B");
}

}  // namespace
