// The inspection of a raw table (deid/inspect.h, docs/inspect.md): the
// value patterns with their validity rules, the words of column names, the
// type of a column with its non-conforming values, alpha-distinction and
// alpha-separation against a hand-worked table (Motwani and Xu, VLDB 2007,
// as ARX's RiskModelAttributes defines them), their independence of the
// thread count, and the detection table of a generated table with planted
// identifiers, with its precision and recall (docs/inspect.md).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>

#include <fmt/format.h>

#include "deid/dataset.h"
#include "deid/inspect.h"
#include "deid/job.h"
#include "inspect/detectors.h"

namespace {

using namespace deid;
using namespace deid::inspect_detail;

Dataset table(const std::string& text) { return read_dataset_text(text, "t.csv", CsvOptions{',', true}); }

const ColumnProfile& column(const Inspection& in, const std::string& name) {
  for (const auto& c : in.columns)
    if (c.name == name) return c;
  throw std::runtime_error("no column " + name);
}

TEST(InspectPatterns, SocialSecurityNumbersFollowTheSsaRules) {
  EXPECT_TRUE(is_ssn("078-05-1120"));
  EXPECT_TRUE(is_ssn("123 45 6789"));
  EXPECT_FALSE(is_ssn("000-12-3456"));  // area 000
  EXPECT_FALSE(is_ssn("666-12-3456"));  // area 666
  EXPECT_FALSE(is_ssn("912-12-3456"));  // area 900-999
  EXPECT_FALSE(is_ssn("123-00-4567"));  // group 00
  EXPECT_FALSE(is_ssn("123-45-0000"));  // serial 0000
  EXPECT_FALSE(is_ssn("123-45 6789"));  // mixed separators
  EXPECT_FALSE(is_ssn("123456789"));
}

TEST(InspectPatterns, ContactDetailsAndAddresses) {
  EXPECT_TRUE(is_phone("555-123-4567"));
  EXPECT_TRUE(is_phone("(555) 123-4567"));
  EXPECT_TRUE(is_phone("+1 555 123 4567"));
  EXPECT_TRUE(is_phone("+49 30 1234567"));
  EXPECT_FALSE(is_phone("5551234567"));    // bare digits: any number
  EXPECT_FALSE(is_phone("155-123-4567"));  // area code starts with 1
  EXPECT_FALSE(is_phone("2024-01-04"));
  // Other countries: the access code 00, or the national trunk prefix 0.
  EXPECT_TRUE(is_phone("0049 30 1234567"));
  EXPECT_TRUE(is_phone("0044 20 7946 0958"));
  EXPECT_TRUE(is_phone("020 7946 0958"));
  EXPECT_TRUE(is_phone("030 1234567"));
  EXPECT_TRUE(is_phone("01 23 45 67 89"));
  EXPECT_TRUE(is_phone("(02) 9876 5432"));
  EXPECT_TRUE(is_phone("020-1234567"));
  EXPECT_FALSE(is_phone("0201234567"));     // bare digits
  EXPECT_FALSE(is_phone("01.02.2003"));     // a date: 8 digits
  EXPECT_FALSE(is_phone("0.123456789"));    // a decimal: a first group of 1
  EXPECT_FALSE(is_phone("0 1 2 3 4 5 6 7 8 9"));
  EXPECT_FALSE(is_phone("00 12 34 56 78")); // 00 and a group too short to be a country code and number
  EXPECT_FALSE(is_phone("12/03/2024"));
  EXPECT_FALSE(is_phone("003-45-6789"));    // 9 digits, SSN-like: a first group of 3 after 00 is no country code
  EXPECT_TRUE(is_email("ann@example.org"));
  EXPECT_TRUE(is_email("bob.jones+x@mail.example.co.uk"));
  EXPECT_FALSE(is_email("ann@localhost"));
  EXPECT_FALSE(is_email("a@b@example.org"));
  EXPECT_TRUE(is_url("https://example.org/a?b"));
  EXPECT_TRUE(is_url("www.example.org"));
  EXPECT_FALSE(is_url("example.org"));
  EXPECT_TRUE(is_ip_address("192.168.0.1"));
  EXPECT_TRUE(is_ip_address("2001:db8::1"));
  EXPECT_FALSE(is_ip_address("256.1.1.1"));
  EXPECT_FALSE(is_ip_address("1.2.3"));
  EXPECT_TRUE(is_zip_code("02139"));
  EXPECT_TRUE(is_zip_code("02139-4307"));
  EXPECT_FALSE(is_zip_code("2139"));
  EXPECT_TRUE(looks_like_person_name("Ann Smith"));
  EXPECT_TRUE(looks_like_person_name("Smith, John"));
  EXPECT_FALSE(looks_like_person_name("Married-civ-spouse"));
  EXPECT_FALSE(looks_like_person_name("J10"));
}

TEST(InspectPatterns, DatesAreCalendarDaysInTheirFormat) {
  EXPECT_TRUE(is_date("2024-02-29", "%Y-%m-%d"));
  EXPECT_FALSE(is_date("2023-02-29", "%Y-%m-%d"));
  EXPECT_TRUE(is_date("29.02.2024", "%d.%m.%Y"));
  EXPECT_FALSE(is_date("02.29.2024", "%d.%m.%Y"));
  EXPECT_TRUE(is_date("02/29/2024", "%m/%d/%Y"));
  EXPECT_FALSE(is_date("29/02/2024", "%m/%d/%Y"));
}

TEST(InspectNames, WordsOfColumnNames) {
  EXPECT_EQ(name_words("patientDOB"), (std::vector<std::string>{"patient", "dob"}));
  EXPECT_EQ(name_words("first_name"), (std::vector<std::string>{"first", "name"}));
  EXPECT_EQ(name_words("FirstName"), (std::vector<std::string>{"first", "name"}));
  EXPECT_EQ(name_words("DOBDate"), (std::vector<std::string>{"dob", "date"}));
  auto types = [](const std::string& name) {
    std::set<std::string> out;
    for (const auto& m : match_column_name(name)) out.insert(m.hipaa);
    return out;
  };
  EXPECT_EQ(types("firstname"), std::set<std::string>{"A"});
  EXPECT_EQ(types("Fax Number"), std::set<std::string>{"E"});
  EXPECT_EQ(types("phone_no"), std::set<std::string>{"D"});
  EXPECT_EQ(types("MRN"), std::set<std::string>{"H"});
  EXPECT_EQ(types("zip"), std::set<std::string>{"B"});
  EXPECT_EQ(types("marital-status"), std::set<std::string>{});
  EXPECT_EQ(types("native-country"), std::set<std::string>{});
}

TEST(InspectTypes, TypesWithTheirNonConformingValues) {
  std::string csv = "n,d,iso,de,us,year,code,text\n";
  for (int i = 0; i < 20; ++i)
    csv += fmt::format("{},{}.5,2024-01-{:02},{:02}.03.2020,03/{:02}/2020,{},E1{},note number {} about this\n",
                       i == 7 ? "?" : std::to_string(i), i, i + 1, i + 1, i + 1, 1990 + i, i % 3, i);
  csv += ",,,,,,,\n";
  const Inspection in = inspect(table(csv));
  const ColumnProfile& n = column(in, "n");
  EXPECT_EQ(n.type, ValueType::integer);
  EXPECT_EQ(n.conforming, 19u);
  EXPECT_EQ(n.non_conforming, 1u);
  ASSERT_EQ(n.non_conforming_examples.size(), 1u);
  EXPECT_EQ(n.non_conforming_examples[0].value, "?");
  EXPECT_EQ(n.non_conforming_examples[0].line, 9u);  // header on line 1, i = 7 on line 9
  EXPECT_EQ(n.missing, 1u);
  EXPECT_EQ(n.distinct, 20u);
  EXPECT_EQ(column(in, "d").type, ValueType::decimal);
  EXPECT_EQ(column(in, "iso").date_format, "%Y-%m-%d");
  EXPECT_EQ(column(in, "de").date_format, "%d.%m.%Y");
  EXPECT_EQ(column(in, "us").date_format, "%m/%d/%Y");
  EXPECT_EQ(column(in, "year").type, ValueType::date);
  EXPECT_EQ(column(in, "year").date_format, "%Y");
  EXPECT_EQ(column(in, "code").type, ValueType::code);
  EXPECT_EQ(column(in, "code").distinct, 3u);
  EXPECT_DOUBLE_EQ(column(in, "code").uniqueness, 0.0);
  EXPECT_EQ(column(in, "text").type, ValueType::free_text);
  EXPECT_DOUBLE_EQ(column(in, "text").uniqueness, 1.0);
}

// A table worked by hand. Five records, 10 pairs:
//   sex age zip
//   M   30  111
//   M   30  111
//   M   40  111
//   F   30  222
//   F   40  222
// {sex}: classes M (3), F (2): distinction 2/5; pairs inside 3 + 1 = 4, so
// separation (10 - 4) / 10 = 0.6; no unique record. {age} and {zip} and
// {sex, zip} are the same. {sex, age}: (M,30) 2, (M,40), (F,30), (F,40)
// 1 each: distinction 4/5, separation (10 - 1) / 10 = 0.9, 3 unique
// records; {age, zip} and {sex, age, zip} the same.
TEST(InspectAttributeRisk, HandWorkedDistinctionAndSeparation) {
  const Dataset d = table("sex,age,zip\nM,30,111\nM,30,111\nM,40,111\nF,30,222\nF,40,222\n");
  const std::vector<CombinationRisk> r = attribute_risks(d, {0, 1, 2}, 3);
  ASSERT_EQ(r.size(), 7u);
  const std::vector<std::vector<int>> order{{0, 1}, {1, 2}, {0, 1, 2}, {0}, {1}, {2}, {0, 2}};
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].columns, order[i]) << i;
    const bool fine = i < 3;
    EXPECT_EQ(r[i].classes, fine ? 4u : 2u) << i;
    EXPECT_EQ(r[i].unique_records, fine ? 3u : 0u) << i;
    EXPECT_DOUBLE_EQ(r[i].distinction, fine ? 0.8 : 0.4) << i;
    EXPECT_DOUBLE_EQ(r[i].separation, fine ? 0.9 : 0.6) << i;
  }
  EXPECT_EQ(attribute_risks(d, {0, 1, 2}, 2).size(), 6u);
  EXPECT_EQ(attribute_risks(d, {0, 2}, 3).size(), 3u);
}

// One record: one class of one, distinction 1 / 1; no pair, so ARX's
// separation is 0 / 0, NaN, read as 0 (ARX 3.9.2 gives 1 and 0).
TEST(InspectAttributeRisk, OneRecordHasNoPairs) {
  const Dataset d = table("a,b\nx,y\n");
  const std::vector<CombinationRisk> r = attribute_risks(d, {0, 1}, 2);
  ASSERT_EQ(r.size(), 3u);
  for (const auto& x : r) {
    EXPECT_EQ(x.records, 1u);
    EXPECT_EQ(x.unique_records, 1u);
    EXPECT_EQ(x.distinction, 1.0);
    EXPECT_EQ(x.separation, 0.0);
  }
}

// Records whose every value of the combination is `*` (ARX's suppressed
// value) are left out, as ARX's risk models leave out suppressed records:
// {a}: x, y, y count (2 classes of 3), the two `*` do not; {b}: all four
// records are `*`, so none counts (ARX's 0 / 0 read as 0); {a, b}: only
// the records with a = `*` are all `*`.
TEST(InspectAttributeRisk, RecordsAllStarsOnTheCombinationAreLeftOut) {
  const Dataset d = table("a,b\nx,*\ny,*\ny,*\n*,*\n*,*\n");
  const std::vector<CombinationRisk> r = attribute_risks(d, {0, 1}, 2);
  ASSERT_EQ(r.size(), 3u);
  for (const auto& x : r) {
    if (x.columns == std::vector<int>{1}) {
      EXPECT_EQ(x.records, 0u);
      EXPECT_EQ(x.classes, 0u);
      EXPECT_EQ(x.unique_records, 0u);
      EXPECT_EQ(x.distinction, 0.0);
      EXPECT_EQ(x.separation, 0.0);
    } else {
      EXPECT_EQ(x.records, 3u);
      EXPECT_EQ(x.classes, 2u);
      EXPECT_EQ(x.unique_records, 1u);
      EXPECT_DOUBLE_EQ(x.distinction, 2.0 / 3.0);
      EXPECT_DOUBLE_EQ(x.separation, 2.0 / 3.0);  // pairs 3, inside 1
    }
  }
}

TEST(InspectAttributeRisk, CombinationCountAndItsBound) {
  EXPECT_EQ(combination_count(3, 3), 7u);
  EXPECT_EQ(combination_count(3, 2), 6u);
  EXPECT_EQ(combination_count(8, 3), 8u + 28u + 56u);
  EXPECT_EQ(combination_count(0, 3), 0u);
  EXPECT_EQ(combination_count(2, 8), 3u);
  EXPECT_EQ(combination_count(500, 8), 93086514075496225u);  // sum of C(500, k), k = 1 .. 8
  EXPECT_EQ(combination_count(std::size_t{1} << 40, 8), std::numeric_limits<std::uint64_t>::max());  // saturated
  // Three quasi-identifiers (sex, age, race): 7 combinations up to size 3.
  const Dataset d = table("sex,age,race\nM,30,White\nM,30,White\nM,40,White\nF,30,Black\nF,40,Black\n");
  InspectOptions options;
  options.max_combinations = 6;  // 3 singles + 3 pairs fit, the triple does not
  Inspection in = inspect(d, options);
  ASSERT_EQ(in.quasi_identifiers.size(), 3u) << to_text(in);
  EXPECT_EQ(in.max_combination_size, 2);
  EXPECT_EQ(in.combinations.size(), 6u);
  options.max_combinations = 1;  // the single columns are always measured
  in = inspect(d, options);
  EXPECT_EQ(in.max_combination_size, 1);
  EXPECT_EQ(in.combinations.size(), 3u);
  options.max_combinations = 0;  // no bound
  EXPECT_EQ(inspect(d, options).combinations.size(), 7u);
}

// A generated table large enough for the hash-map path of the refinement
// (classes x codes above 2^24) gives the same combinations with 1 thread as
// with all, and its separation agrees with a count over the rows.
TEST(InspectAttributeRisk, SameForAnyThreadCount) {
  std::mt19937 rng(7);
  std::string csv = "a,b,c,d\n";
  for (int i = 0; i < 20000; ++i)
    csv += fmt::format("{},{},{},{}\n", rng() % 5000, rng() % 4000, rng() % 3, rng() % 50);
  const Dataset d = table(csv);
  std::vector<CombinationRisk> one;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    one = attribute_risks(d, {0, 1, 2, 3}, 4);
  }
  const std::vector<CombinationRisk> all = attribute_risks(d, {0, 1, 2, 3}, 4);
  ASSERT_EQ(one.size(), 15u);
  ASSERT_EQ(all.size(), 15u);
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].columns, all[i].columns);
    EXPECT_EQ(one[i].classes, all[i].classes);
    EXPECT_EQ(one[i].separation, all[i].separation);
  }
  // {c}: 3 values; the count of pairs inside the classes by brute force.
  std::map<std::string, std::uint64_t> sizes;
  for (std::uint64_t r = 0; r < d.rows; ++r) ++sizes[d.columns[2].dictionary.value(d.columns[2].codes[r])];
  double inside = 0;
  for (const auto& [v, s] : sizes) inside += static_cast<double>(s) * static_cast<double>(s - 1) / 2;
  const double pairs = 20000.0 * 19999.0 / 2;
  const auto c = std::find_if(all.begin(), all.end(), [](const CombinationRisk& x) { return x.columns == std::vector<int>{2}; });
  ASSERT_NE(c, all.end());
  EXPECT_NEAR(c->separation, 1 - inside / pairs, 1e-12);
  EXPECT_EQ(c->classes, 3u);
}

// The detection table: a generated table of 300 records whose columns hold
// planted identifiers under neutral names (found by their values), under
// telling names (found by their names), and decoys that no detector should
// take for an identifier (categories that are surnames, surnames that are
// also places, amounts, five-digit counts, version numbers, ICD codes). A finding counts when its confidence
// is at least 0.5; precision and recall are over (column, HIPAA type) pairs.
TEST(InspectDetection, PlantedIdentifiersTable) {
  std::mt19937 rng(20240601);
  const char* first[] = {"Mary", "James", "Linda", "Robert", "Susan", "Michael", "Karen", "David", "Nancy", "Joseph"};
  const char* last[] = {"Smith", "Johnson", "Miller", "Davis", "Garcia", "Wilson", "Moore", "Taylor", "Clark", "Lewis"};
  const char* races[] = {"White", "Black", "Asian", "Other"};
  // Cities as tables write them (some also first or last names), counties
  // with their Census suffix, and wards named after people whose surnames
  // are also places.
  const char* cities[] = {"Springfield, IL", "Boston MA",  "Austin, Texas", "Chicago",     "Phoenix",     "Houston",
                          "Dallas",          "Seattle",    "Denver",        "Albuquerque", "Tucson",      "Sacramento",
                          "Pittsburgh",      "Cincinnati", "Milwaukee",     "Omaha",       "Tulsa",       "Wichita",
                          "Raleigh",         "St. Louis",  "Kansas City",   "Fort Worth",  "Las Vegas",   "Jackson, MS",
                          "Winston-Salem",   "Knoxville",  "Chattanooga",   "Birmingham, AL", "Salt Lake City, UT",
                          "Mayag\u00fcez"};
  const char* counties[] = {"Cook County",     "Harris County",   "Maricopa County",  "Orleans Parish",
                            "King County",     "Kings County",    "Wayne County",     "Fulton County",
                            "Jefferson Parish", "Bethel Census Area", "Juneau City and Borough", "Miami-Dade County",
                            "Los Angeles County", "Suffolk County", "Bayam\u00f3n Municipio", "Travis County",
                            "Marshall County"};
  const char* wards[] = {"Marshall", "Houston",  "Jackson", "Franklin",  "Warren",   "Monroe",   "Hamilton",
                         "Carter",   "Taylor",   "Wilson",  "Henderson", "Harrison", "Jefferson"};
  std::string csv =
      "contact,c2,ref,site,host,area,visit,who,age,patient_id,token,Fax,sex,race,amount,steps,version,dx,score,"
      "count,first_name,homepage,origin,seat,unit\n";
  for (int i = 0; i < 300; ++i) {
    const auto r = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
    const std::string who = fmt::format("{} {}", first[r(10)], last[r(10)]);
    csv += fmt::format(
        "{}-{:03}-{:04},{}{}@example.org,{:03}-{:02}-{:04},https://example.org/p/{},{},{:05},2023-{:02}-{:02},{},{},"
        "P{:06},{:08x},{}-555-{:04},{},{},{}.{:02},{},{}.{}.{},E{}.{},{}.{},{},{},{}\n",
        200 + r(700), r(1000), r(10000), "user", i, 1 + r(665), 1 + r(98), 1 + r(9998), i,
        i % 2 ? fmt::format("10.0.{}.{}", r(256), r(256)) : fmt::format("2001:db8::{:x}", r(65535) + 1),
        r(100) < 10 ? 501 + r(9000) : 10000 + r(89999), 1 + r(12), 1 + r(28), who, 20 + r(76), 100000 + i * 7,
        rng(), 200 + r(700), r(10000), r(2) ? "M" : "F", races[r(4)], 10 + r(5000), r(100), 10000 + r(2000), r(3),
        r(10), r(10),
        10 + r(4), r(10), r(100), r(10), r(50), first[r(10)], fmt::format("www.example{}.org", r(50)));
    csv.pop_back();  // the line break
    csv += fmt::format(",\"{}\",{},{}\n", cities[r(30)], counties[r(17)], wards[r(13)]);
  }
  const Inspection in = inspect(table(csv));
  // Column -> the HIPAA types planted in it.
  const std::map<std::string, std::set<std::string>> planted{
      {"contact", {"D"}},    {"c2", {"F"}},   {"ref", {"G"}},         {"site", {"N"}},     {"host", {"O"}},
      {"area", {"B"}},       {"visit", {"C"}}, {"who", {"A"}},        {"age", {"C"}},      {"patient_id", {"H"}},
      {"token", {"R"}},      {"Fax", {"E"}},  {"first_name", {"A"}}, {"homepage", {"N"}}, {"origin", {"B"}},
      {"seat", {"B"}},
  };
  std::size_t found = 0, correct = 0, expected = 0;
  std::string table_text;
  for (const ColumnProfile& p : in.columns) {
    const auto it = planted.find(p.name);
    const std::set<std::string> want = it == planted.end() ? std::set<std::string>{} : it->second;
    expected += want.size();
    std::set<std::string> got;
    for (const IdentifierFinding& f : p.findings)
      if (f.confidence >= 0.5) got.insert(f.hipaa);
    found += got.size();
    for (const std::string& h : got) correct += want.count(h);
    std::string g;
    for (const std::string& h : got) g += h;
    table_text += fmt::format("{}={} ", p.name, g.empty() ? "-" : g);
  }
  const double precision = static_cast<double>(correct) / static_cast<double>(found);
  const double recall = static_cast<double>(correct) / static_cast<double>(expected);
  std::printf("detection table: %s\nprecision %.3f (%zu of %zu), recall %.3f (%zu of %zu)\n", table_text.c_str(),
              precision, correct, found, recall, correct, expected);
  // The table as docs/inspect.md states it.
  EXPECT_EQ(table_text,
            "contact=D c2=F ref=G site=N host=O area=B visit=C who=A age=C patient_id=H token=R Fax=E sex=- race=- "
            "amount=- steps=- version=- dx=- score=- count=- first_name=A homepage=N origin=B seat=B unit=- ");
  EXPECT_EQ(precision, 1.0);
  EXPECT_EQ(recall, 1.0);
  // Ages over 89 are reported with the lines that hold one.
  const ColumnProfile& age = column(in, "age");
  const auto over = std::find_if(age.findings.begin(), age.findings.end(),
                                 [](const IdentifierFinding& f) { return f.type == "ages over 89"; });
  ASSERT_NE(over, age.findings.end());
  EXPECT_FALSE(over->lines.empty());
  EXPECT_LE(over->lines.size(), 5u);
  // Roles: every planted direct identifier is identifying; the decoys not.
  for (const char* name : {"contact", "c2", "ref", "site", "host", "who", "patient_id", "token", "Fax", "first_name",
                           "homepage", "origin", "seat"})
    EXPECT_EQ(column(in, name).role, SuggestedRole::identifying) << name;
  for (const char* name : {"area", "visit", "age", "sex", "race"})
    EXPECT_EQ(column(in, name).role, SuggestedRole::quasi_identifying) << name;
  EXPECT_EQ(column(in, "dx").role, SuggestedRole::sensitive) << column(in, "dx").reason;
  EXPECT_EQ(column(in, "unit").role, SuggestedRole::insensitive) << column(in, "unit").reason;
}

}  // namespace

namespace {

// The starter job names its input as the job parser reads it back: a CSV
// file, a PostgreSQL table with its schema (names that YAML must quote), a
// query (quotes and a line break), or nothing for a table given beside the
// job (the Python package).
TEST(InspectStarterJob, InputsAsTheParserReadsThem) {
  std::string text = "age,sex\n";
  for (int i = 0; i < 60; ++i) text += std::to_string(20 + i % 30) + "," + (i % 2 ? "f" : "m") + "\n";
  const Inspection in = inspect(table(text));

  StarterInput file;
  file.path = "data/t.csv";
  Job job = parse_job(starter_job(in, file, "t"), "job.yaml", "/base");
  EXPECT_EQ(job.input.path, "/base/data/t.csv");
  EXPECT_FALSE(job.input.postgres.has_value());
  EXPECT_EQ(job.output.path, "/base/t-deid.csv");

  StarterInput pg;
  pg.postgres = PostgresTable{};
  pg.postgres->connection = "host=/run/pg dbname='my db' user=ana";
  pg.postgres->schema = "Health: \"2024\"";
  pg.postgres->table = "yes";
  const std::string pg_job = starter_job(in, pg, "yes");
  job = parse_job(pg_job, "job.yaml", "/base");
  ASSERT_TRUE(job.input.postgres.has_value()) << pg_job;
  EXPECT_EQ(job.input.postgres->connection, pg.postgres->connection);
  EXPECT_EQ(job.input.postgres->schema, pg.postgres->schema);
  EXPECT_EQ(job.input.postgres->table, "yes");  // quoted: not the boolean
  EXPECT_TRUE(job.input.path.empty());
  EXPECT_EQ(pg_job.find("delimiter"), std::string::npos);

  StarterInput query;
  query.postgres = PostgresTable{};
  query.postgres->query = "SELECT \"a b\", 'x'\nFROM t ORDER BY 1";
  const std::string query_job = starter_job(in, query, "query");
  job = parse_job(query_job, "job.yaml", "/base");
  ASSERT_TRUE(job.input.postgres.has_value()) << query_job;
  EXPECT_EQ(job.input.postgres->query, query.postgres->query);
  EXPECT_TRUE(job.input.postgres->connection.empty());
  EXPECT_NE(query_job.find("PG* environment variables"), std::string::npos);

  const std::string beside = starter_job(in, StarterInput{}, "");
  EXPECT_EQ(beside.find("\ninput:"), std::string::npos) << beside;
  EXPECT_EQ(beside.find("\noutput:"), std::string::npos) << beside;
  EXPECT_NE(beside.find("\nattributes:\n"), std::string::npos) << beside;
  // The same attributes and privacy as the job of a file.
  const std::string of_file = starter_job(in, file, "t");
  const std::size_t a = of_file.find("attributes:"), b = of_file.find("output:");
  EXPECT_EQ(beside.substr(beside.find("attributes:")), of_file.substr(a, b - a));
}

}  // namespace
