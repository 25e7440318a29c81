// The utility section of the HTML reports (html::utility_section) drawn
// from hand-written JSON: the skipped analysis, AUC present and absent,
// undefined associations, and distributions cut to 12 categories with the
// categories the JSON left out counted in "other".
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "report/html.h"

namespace {

using nlohmann::json;

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

json analysis() {
  json dist = json::array();
  // 20 categories listed (the i-th with 20 - i records before, 1 after) and
  // 5 left out of the JSON; 300 records in all.
  for (int i = 0; i < 20; ++i) {
    std::string value = std::to_string(i);
    value.insert(value.begin(), 'v');  // not "v" + ...: GCC 12's -Wrestrict false positive at -O3
    dist.push_back({{"value", value}, {"before", 20 - i}, {"after", 1}});
  }
  json a = {{"name", "city"}, {"role", "quasi-identifying"}, {"level", 1}, {"suppressed_cells", 3},
            {"total_variation", 0.25}, {"jensen_shannon", 0.125}, {"distribution", dist},
            {"distribution_omitted", 5}, {"numeric", nullptr}};
  json b = {{"name", "age"}, {"role", "sensitive"}, {"level", nullptr}, {"suppressed_cells", 0},
            {"total_variation", 0.0}, {"jensen_shannon", 0.0},
            {"distribution", json::array({{{"value", "30"}, {"before", 300}, {"after", 300}}})},
            {"distribution_omitted", 0},
            {"numeric",
             {{"kind", "number"},
              {"before", {{"count", 300}, {"missing", 0}, {"mean", 30.5}, {"sd", nullptr}}},
              {"after", {{"count", 300}, {"missing", 0}, {"mean", 30.5}}},
              {"deviation", {{"mean", 0.0}}}}}};
  return {{"records", 300},
          {"suppressed_records", 3},
          {"attributes", {a, b}},
          {"dependencies",
           {{"measure", "cramers_v"},
            {"attributes", {"city", "age"}},
            {"before", {{1.0, 0.75}, {0.75, nullptr}}},
            {"after", {{1.0, 0.5}, {0.5, nullptr}}}}},
          {"classification",
           {{{"target", "age"}, {"records", 300}, {"folds", 5}, {"baseline_accuracy", 0.5},
             {"accuracy_before", 0.8}, {"accuracy_after", 0.7}, {"relative_accuracy", 2.0 / 3}}}}};
}

TEST(UtilityHtml, SkippedShowsTheReason) {
  const std::string html = deid::html::utility_section({{"skipped", "grouped <in> the database"}});
  EXPECT_NE(html.find("id=\"utility-skipped\""), std::string::npos);
  EXPECT_NE(html.find("grouped &lt;in&gt; the database"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
}

TEST(UtilityHtml, FiguresOfEachPart) {
  const std::string html = deid::html::utility_section(analysis());
  // 11 largest categories and "other": 14 listed and 5 omitted categories,
  // 300 - (20 + ... + 10) = 135 records before, 300 - 11 = 289 after.
  EXPECT_NE(html.find(">other (14 categories)</text>"), std::string::npos);
  EXPECT_NE(html.find(">135 (45.00 %)</text>"), std::string::npos);
  EXPECT_NE(html.find(">289 (96.33 %)</text>"), std::string::npos);
  EXPECT_NE(html.find(">v10</text>"), std::string::npos);
  EXPECT_EQ(html.find(">v11</text>"), std::string::npos) << "v11 is the 12th largest: in other";
  EXPECT_NE(html.find("the 11 largest of 25 categories"), std::string::npos);
  // Heat maps: 4 cells each, the undefined one grey with n/a.
  EXPECT_EQ(count(html, "<rect class=\"cell\""), 8u);
  EXPECT_EQ(count(html, ">n/a</text>"), 2u);
  EXPECT_EQ(count(html, "fill=\"#bdbdbd\""), 2u);
  EXPECT_NE(html.find("<title>city × age: 0.7500</title>"), std::string::npos);
  // Numeric table with n/a for what the JSON lacks.
  EXPECT_NE(html.find("id=\"utility-numeric-1\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"utility-numeric-0\""), std::string::npos);
  EXPECT_NE(html.find("<td>mean</td><td class=\"num\">30.5</td><td class=\"num\">30.5</td><td class=\"num\">0</td>"),
            std::string::npos);
  // Classification without AUC: three bars, no AUC column.
  EXPECT_EQ(html.find("AUC"), std::string::npos);
  EXPECT_NE(html.find("id=\"utility-classification-0\""), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">0.667</td>"), std::string::npos);
  // The distances chart has both series.
  EXPECT_NE(html.find("id=\"utility-distances\""), std::string::npos);
  EXPECT_NE(html.find(">Jensen-Shannon</text>"), std::string::npos);
}

TEST(UtilityHtml, AucWhenTheJsonHasIt) {
  json u = analysis();
  u["classification"][0]["auc_before"] = 0.9;
  u["classification"][0]["auc_after"] = 0.85;
  const std::string with = deid::html::utility_section(u);
  EXPECT_NE(with.find("<th>AUC, input</th><th>AUC, release</th>"), std::string::npos);
  EXPECT_NE(with.find("<td class=\"num\">0.9000</td><td class=\"num\">0.8500</td>"), std::string::npos);
  EXPECT_NE(with.find(">AUC, release</text>"), std::string::npos);
  // Null AUC (a target with more than two classes): no bar, "n/a" in the table.
  u["classification"][0]["auc_before"] = nullptr;
  u["classification"][0]["auc_after"] = nullptr;
  const std::string without = deid::html::utility_section(u);
  EXPECT_EQ(without.find("AUC"), std::string::npos);
}

TEST(UtilityHtml, ZeroDistancesGiveANoteNotAnEmptyChart) {
  json u = analysis();
  for (json& a : u["attributes"]) a["total_variation"] = a["jensen_shannon"] = 0.0;
  const std::string html = deid::html::utility_section(u);
  EXPECT_NE(html.find("<p class=\"note\" id=\"utility-distances\">"), std::string::npos);
  EXPECT_EQ(html.find("<svg class=\"chart\" id=\"utility-distances\""), std::string::npos);
}

}  // namespace
