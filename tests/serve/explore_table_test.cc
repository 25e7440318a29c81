// The data explorer's table (serve/explore_table.h) against an oracle:
// plain loops over the rows of a small generated table (numbers, text,
// missing values, ties), for paging, sorting, filters, frequencies and
// cross-tabulations; and the reader's errors.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "deid/error.h"
#include "explore_table.h"

namespace {

namespace fs = std::filesystem;
using deid::serve::ExploreQuery;
using deid::serve::ExploreTable;
using nlohmann::json;
using Rows = std::vector<std::vector<std::string>>;

const std::vector<std::string> kColumns = {"id", "age", "sex", "city", "score"};

// 57 rows: id unique; age 20..39 with every 9th missing; sex two values;
// city four values and every 7th missing; score with ties and negatives.
Rows generated_rows() {
  Rows rows;
  const char* cities[] = {"Ulm", "Bern", "Graz", "Aachen"};
  for (int i = 0; i < 57; ++i) {
    rows.push_back({std::to_string(1000 - 7 * i), i % 9 == 4 ? "" : std::to_string(20 + (i * 13) % 20),
                    i % 3 == 0 ? "female" : "male", i % 7 == 2 ? "" : cities[(i * 5) % 4],
                    std::to_string((i * 37) % 11 - 3) + ".5"});
  }
  return rows;
}

struct Fixture {
  fs::path dir, csv;
  Rows rows = generated_rows();
  Fixture() {
    std::string pattern = (fs::temp_directory_path() / "deid-explore-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    dir = pattern;
    csv = dir / "release.csv";
    std::ofstream out(csv);
    out << "id,age,sex,city,score\n";
    for (const auto& r : rows) out << r[0] << "," << r[1] << "," << r[2] << "," << r[3] << "," << r[4] << "\n";
  }
  ~Fixture() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
};

std::vector<std::string> as_row(const json& j) { return j.get<std::vector<std::string>>(); }

// Every page of `q` in turn, concatenated.
Rows all_pages(const ExploreTable& t, ExploreQuery q, std::size_t limit) {
  Rows out;
  q.limit = limit;
  for (q.offset = 0;; q.offset += limit) {
    const json page = t.page(q);
    for (const json& r : page["rows"]) out.push_back(as_row(r));
    EXPECT_LE(page["rows"].size(), limit);
    if (q.offset + limit >= page["total"].get<std::size_t>()) break;
  }
  return out;
}

TEST(ExploreTable, DescribesColumnsWithTypesDistinctAndMissing) {
  Fixture f;
  const ExploreTable t(f.csv.string());
  const json d = t.describe();
  EXPECT_EQ(d["name"], "release.csv");
  EXPECT_EQ(d["rows"], 57);
  ASSERT_EQ(d["columns"].size(), 5u);
  EXPECT_EQ(d["columns"][0]["type"], "number");
  EXPECT_EQ(d["columns"][0]["distinct"], 57);
  EXPECT_EQ(d["columns"][1]["type"], "number");
  EXPECT_EQ(d["columns"][1]["missing"], 6);  // i % 9 == 4 for i < 57
  EXPECT_EQ(d["columns"][2]["type"], "text");
  EXPECT_EQ(d["columns"][2]["distinct"], 2);
  EXPECT_EQ(d["columns"][3]["missing"], 8);  // i % 7 == 2
}

TEST(ExploreTable, PagingCoversEveryRowOnceInFileOrder) {
  Fixture f;
  const ExploreTable t(f.csv.string());
  for (const std::size_t limit : {1, 7, 25, 57, 100}) EXPECT_EQ(all_pages(t, {}, limit), f.rows) << limit;
}

TEST(ExploreTable, SortsStablyByEveryKeyLikeTheOracle) {
  Fixture f;
  const ExploreTable t(f.csv.string());
  // The oracle: numbers by value, text bytewise, missing last either way;
  // ties keep the file's order.
  auto less = [](const std::string& a, const std::string& b, bool number) {
    return number ? std::stod(a) < std::stod(b) : a < b;
  };
  const std::vector<std::vector<std::pair<int, bool>>> keys = {
      {{1, false}}, {{1, true}}, {{4, true}, {2, false}}, {{3, false}, {1, true}}, {{2, true}, {3, true}, {0, false}}};
  for (const auto& key : keys) {
    Rows expected = f.rows;
    std::stable_sort(expected.begin(), expected.end(), [&](const auto& a, const auto& b) {
      for (const auto& [c, desc] : key) {
        const std::string &x = a[c], &y = b[c];
        if (x == y) continue;
        if (x.empty() || y.empty()) return y.empty();
        const bool number = c != 2 && c != 3;
        return desc ? less(y, x, number) : less(x, y, number);
      }
      return false;
    });
    ExploreQuery q;
    for (const auto& [c, desc] : key) q.sort.push_back({kColumns[c], desc});
    EXPECT_EQ(all_pages(t, q, 10), expected) << key.size() << " keys, first " << kColumns[key[0].first];
  }
}

TEST(ExploreTable, FiltersSelectWhatTheOracleSelects) {
  Fixture f;
  const ExploreTable t(f.csv.string());
  struct Case {
    std::vector<deid::serve::ExploreFilter> filters;
    std::function<bool(const std::vector<std::string>&)> keep;
  };
  const std::vector<Case> cases = {
      {{{"eq", "sex", "female"}}, [](const auto& r) { return r[2] == "female"; }},
      {{{"eq", "city", ""}}, [](const auto& r) { return r[3].empty(); }},
      {{{"has", "city", "r"}}, [](const auto& r) { return r[3].find('r') != std::string::npos; }},
      {{{"min", "age", "30"}}, [](const auto& r) { return !r[1].empty() && std::stod(r[1]) >= 30; }},
      {{{"min", "age", "25"}, {"max", "age", "32"}, {"eq", "sex", "male"}},
       [](const auto& r) { return !r[1].empty() && std::stod(r[1]) >= 25 && std::stod(r[1]) <= 32 && r[2] == "male"; }},
      {{{"max", "score", "-1.5"}}, [](const auto& r) { return std::stod(r[4]) <= -1.5; }},
      {{{"eq", "sex", "nobody"}}, [](const auto&) { return false; }},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Rows expected;
    for (const auto& r : f.rows)
      if (cases[i].keep(r)) expected.push_back(r);
    ExploreQuery q;
    q.filters = cases[i].filters;
    EXPECT_EQ(t.page(q)["total"], expected.size()) << "case " << i;
    EXPECT_EQ(all_pages(t, q, 9), expected) << "case " << i;
  }
}

TEST(ExploreTable, FrequenciesCountLikeTheOracleAndSumToTheRows) {
  Fixture f;
  const ExploreTable t(f.csv.string());
  for (std::size_t c = 0; c < kColumns.size(); ++c) {
    std::map<std::string, std::size_t> expected;
    for (const auto& r : f.rows) ++expected[r[c]];
    const json freq = t.frequencies(kColumns[c], {});
    std::map<std::string, std::size_t> got;
    std::size_t sum = 0, previous = f.rows.size();
    double shares = 0;
    for (const json& v : freq["values"]) {
      got[v["value"]] = v["count"];
      sum += v["count"].get<std::size_t>();
      shares += v["share"].get<double>();
      EXPECT_LE(v["count"].get<std::size_t>(), previous) << "most frequent first";
      previous = v["count"];
    }
    EXPECT_EQ(got, expected) << kColumns[c];
    EXPECT_EQ(sum, f.rows.size());
    EXPECT_EQ(freq["total"], f.rows.size());
    EXPECT_NEAR(shares, 1.0, 1e-9);
    EXPECT_TRUE(freq["other"].is_null());
  }
  ExploreQuery males;
  males.filters = {{"eq", "sex", "male"}};
  const json f2 = t.frequencies("sex", males);
  ASSERT_EQ(f2["values"].size(), 1u);
  EXPECT_EQ(f2["values"][0]["count"], f2["total"]);
}

TEST(ExploreTable, CrossTabulationCountsLikeTheOracleAndSumToTheRows) {
  Fixture f;
  const ExploreTable t(f.csv.string());
  const json x = t.crosstab("city", "sex", {});
  std::map<std::pair<std::string, std::string>, std::size_t> expected;
  for (const auto& r : f.rows) ++expected[{r[3], r[2]}];
  std::size_t sum = 0;
  for (std::size_t i = 0; i < x["row_values"].size(); ++i) {
    std::size_t row = 0;
    for (std::size_t j = 0; j < x["column_values"].size(); ++j) {
      const std::size_t n = x["counts"][i][j];
      const std::pair<std::string, std::string> cell{x["row_values"][i], x["column_values"][j]};
      EXPECT_EQ(n, expected[cell]);
      row += n;
    }
    EXPECT_EQ(x["row_totals"][i], row);
    sum += row;
  }
  EXPECT_EQ(sum, f.rows.size());
  EXPECT_EQ(x["total"], f.rows.size());
  EXPECT_EQ(x["row_values"].size(), 5u);  // four cities and missing
}

TEST(ExploreTable, CategoriesBeyondTheLimitAreLumpedNeverListed) {
  Fixture f;
  deid::serve::ExploreLimits limits;
  limits.max_categories = 10;
  const ExploreTable t(f.csv.string(), limits);
  const json freq = t.frequencies("id", {});
  EXPECT_EQ(freq["values"].size(), 10u);
  EXPECT_EQ(freq["other"]["values"], 47);
  EXPECT_EQ(freq["other"]["count"], 47);
  const json x = t.crosstab("id", "sex", {});
  EXPECT_EQ(x["row_values"].size(), 11u);
  EXPECT_EQ(x["row_values"].back(), "(other)");
  EXPECT_EQ(x["row_totals"].back(), 47);
}

TEST(ExploreTable, BoundsAndBadQueriesAreQueryErrors) {
  Fixture f;
  const ExploreTable t(f.csv.string());
  ExploreQuery q;
  q.limit = 101;
  EXPECT_THROW(t.page(q), ExploreTable::QueryError);
  q.limit = 100;
  EXPECT_EQ(t.page(q)["rows"].size(), 57u);
  q.offset = 58;
  EXPECT_THROW(t.page(q), ExploreTable::QueryError);
  q.offset = 57;
  EXPECT_EQ(t.page(q)["rows"].size(), 0u);
  ExploreQuery bad;
  bad.sort = {{"nope", false}};
  EXPECT_THROW(t.page(bad), ExploreTable::QueryError);
  bad = {};
  bad.filters = {{"min", "sex", "1"}};
  EXPECT_THROW(t.page(bad), ExploreTable::QueryError);
  bad.filters = {{"min", "age", "ten"}};
  EXPECT_THROW(t.page(bad), ExploreTable::QueryError);
  bad.filters = {{"like", "age", "1"}};
  EXPECT_THROW(t.page(bad), ExploreTable::QueryError);
  EXPECT_THROW(t.frequencies("nope", {}), ExploreTable::QueryError);
  EXPECT_THROW(t.crosstab("sex", "nope", {}), ExploreTable::QueryError);
}

TEST(ExploreTable, BadFilesAreInputErrorsNamingTheFile) {
  Fixture f;
  const auto message = [](const fs::path& p) {
    try {
      ExploreTable t(p.string());
    } catch (const deid::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(f.write("ragged.csv", "a,b\n1,2\n3\n")).find("ragged.csv:3"), std::string::npos);
  EXPECT_NE(message(f.write("twice.csv", "a,a\n1,2\n")).find("appears twice"), std::string::npos);
  EXPECT_NE(message(f.write("empty.csv", "a,b\n")).find("no rows"), std::string::npos);
  EXPECT_NE(message(f.write("quote.csv", "a,b\n1,\"2\n")).find("quote.csv"), std::string::npos);
  EXPECT_NE(message(f.dir / "missing.csv").find("missing.csv"), std::string::npos);
}

}  // namespace
