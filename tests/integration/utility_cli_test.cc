// `deid utility` and the "utility" section of `deid anonymize`'s result
// (docs/utility.md) on the bundled adult job: the section is there by
// default and gone with output.utility: false (the other keys unchanged),
// the command on the released table agrees with the section, its numbers do
// not depend on the thread count, and tables that are not a release of the
// input are refused. The HTML figures of the analysis: in anonymize's report
// and on the page of `deid utility --report`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

// Occurrences of `needle` in `hay`.
std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// The <svg> element with id `id` in `html` (up to its </svg>), empty when absent.
std::string svg_with_id(const std::string& html, const std::string& id) {
  const std::size_t at = html.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const std::size_t start = html.rfind("<svg", at), end = html.find("</svg>", at);
  if (start == std::string::npos || end == std::string::npos) return "";
  return html.substr(start, end - start);
}

// Asserts that `html` holds the utility figures of the analysis `u`: the
// table, the distances, one distribution chart per attribute with at most
// 12 categories (two bars each), a table per numeric attribute, two heat
// maps with one cell per pair of the dependency attributes, and the
// classification (a chart per target, or the note that there is none).
void expect_utility_figures(const std::string& html, const nlohmann::json& u) {
  EXPECT_NE(html.find("<h2 id=\"utility\">"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"utility-attributes\">"), std::string::npos);
  EXPECT_FALSE(svg_with_id(html, "utility-distances").empty());
  const nlohmann::json& attrs = u["attributes"];
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    const std::string chart = svg_with_id(html, "utility-distribution-" + std::to_string(i));
    ASSERT_FALSE(chart.empty()) << attrs[i]["name"];
    // At most 12 bars a series: 11 categories and "other" when there are
    // more; withheld categories join "other" too.
    const std::size_t categories = attrs[i]["distribution"].size() + attrs[i]["distribution_omitted"].get<std::size_t>();
    const bool withheld = attrs[i].contains("distribution_withheld");
    const bool other = categories > 12 || withheld;
    const std::size_t drawn = count(chart, "<rect class=\"bar\"");
    EXPECT_EQ(drawn, 2 * ((categories > 12 ? 11 : categories) + (other ? 1 : 0))) << attrs[i]["name"];
    EXPECT_EQ(count(chart, ">other (") > 0, other) << attrs[i]["name"];
    EXPECT_EQ(html.find("id=\"utility-numeric-" + std::to_string(i) + "\"") != std::string::npos,
              attrs[i]["numeric"].is_object())
        << attrs[i]["name"];
  }
  const std::size_t d = u["dependencies"]["attributes"].size();
  ASSERT_GT(d, 0u);
  for (const char* map : {"utility-cramers-before", "utility-cramers-after"}) {
    const std::string svg = svg_with_id(html, map);
    ASSERT_FALSE(svg.empty()) << map;
    EXPECT_EQ(count(svg, "<rect class=\"cell\""), d * d) << map;
    std::size_t undefined = 0;
    for (const auto& row : u["dependencies"][std::string(map) == "utility-cramers-before" ? "before" : "after"])
      for (const auto& v : row) undefined += v.is_null();
    EXPECT_EQ(count(svg, ">n/a</text>"), undefined) << map;
  }
  if (u["classification"].empty()) {
    EXPECT_NE(html.find("id=\"utility-classification\""), std::string::npos);
  } else {
    for (std::size_t t = 0; t < u["classification"].size(); ++t)
      EXPECT_EQ(count(svg_with_id(html, "utility-classification-" + std::to_string(t)), "<rect class=\"bar\""), 3u);
  }
  // Strict-CSP friendly: the self-check is the only script, no inline event handler.
  EXPECT_EQ(count(html, "<script"), 1u);
  // No " on<letters>=" anywhere (an inline event handler attribute). Written
  // out: <regex> trips GCC 12's -Wmaybe-uninitialized in the sanitizer build.
  for (std::size_t at = html.find(" on"); at != std::string::npos; at = html.find(" on", at + 1)) {
    std::size_t end = at + 3;
    while (end < html.size() && html[end] >= 'a' && html[end] <= 'z') ++end;
    EXPECT_FALSE(end > at + 3 && end < html.size() && html[end] == '=') << html.substr(at, end - at + 1);
  }
}

class UtilityCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("utility_cli_test_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // examples/adult.yaml with absolute paths and `extra` appended.
  fs::path write_job(const std::string& extra) {
    return deid::testing::write_adult_job((dir_ / "job.yaml").string(),
                                          "privacy:\n  - k-anonymity: {k: 5}\nsuppression-limit: 0.05\n"
                                          "quality: {model: loss, aggregate: geometric-mean, gs-factor: 0.5}\n" +
                                              extra);
  }

  int run(const std::string& args) {
    return deid::testing::run_deid(args, (dir_ / "stdout").string(), (dir_ / "stderr").string());
  }
  std::string err() const { return deid::testing::slurp((dir_ / "stderr").string()); }
  nlohmann::json json(const fs::path& p) const { return nlohmann::json::parse(deid::testing::slurp(p.string())); }

  fs::path dir_;
};

// The bundled example: the result's section, and `deid utility` on the
// table it wrote gives the same JSON, also with one thread.
TEST_F(UtilityCli, CommandOnTheReleasedTableAgreesWithTheAnonymizeResult) {
  const std::string job = deid::testing::example_path("adult.yaml");
  const fs::path out = dir_ / "adult-deid.csv", result = dir_ / "adult-deid.json";
  ASSERT_EQ(run("-q anonymize '" + job + "' --output '" + out.string() + "' --result '" + result.string() + "'"), 0)
      << err();
  const nlohmann::json r = json(result);
  ASSERT_TRUE(r.contains("utility"));
  const nlohmann::json& u = r["utility"];
  EXPECT_EQ(u["records"], 30162);
  EXPECT_EQ(u["suppressed_records"], r["suppressed_records"]);
  ASSERT_EQ(u["attributes"].size(), 9u);
  for (const nlohmann::json& a : u["attributes"]) {
    EXPECT_EQ(a["level"], r["transformation"][a["name"].get<std::string>()]) << a["name"];
    // Categories withheld (level-0 values only suppressed records had) hold
    // the rest of the input's records, and none of the release's.
    std::uint64_t before = a.contains("distribution_withheld") ? a["distribution_withheld"]["before"].get<std::uint64_t>() : 0;
    std::uint64_t after = 0;
    for (const nlohmann::json& c : a["distribution"]) {
      before += c["before"].get<std::uint64_t>();
      after += c["after"].get<std::uint64_t>();
    }
    EXPECT_EQ(before, 30162u) << a["name"];
    EXPECT_EQ(after, 30162u) << a["name"];
    EXPECT_GE(a["total_variation"].get<double>(), 0.0);
    EXPECT_LE(a["total_variation"].get<double>(), 1.0);
  }
  // sex is released as it is (level 0): the distance is the suppressed
  // share moved to '*', TVD = suppressed / records.
  const nlohmann::json& sex = u["attributes"][0];
  ASSERT_EQ(sex["name"], "sex");
  EXPECT_EQ(sex["level"], 0);
  EXPECT_EQ(sex["suppressed_cells"], r["suppressed_records"]);
  EXPECT_NEAR(sex["total_variation"].get<double>(), r["suppressed_records"].get<double>() / 30162, 1e-12);
  // age is numeric; its mean before is adult's 38.4379...
  const nlohmann::json& age = u["attributes"][1];
  ASSERT_EQ(age["name"], "age");
  ASSERT_TRUE(age["numeric"].is_object());
  EXPECT_NEAR(age["numeric"]["before"]["mean"].get<double>(), 38.437901995888865, 1e-9);
  EXPECT_EQ(age["numeric"]["before"]["count"], 30162);
  // Released at level 3: the input's order statistics would be records'
  // ages (the oldest, 90, is released as 80-99), so they are withheld.
  EXPECT_TRUE(age["numeric"]["before"]["min"].is_null());
  EXPECT_TRUE(age["numeric"]["before"]["max"].is_null());
  EXPECT_TRUE(age["numeric"]["deviation"]["median"].is_null());
  EXPECT_EQ(age["numeric"]["before_withheld"], nlohmann::json::parse(R"(["min", "q1", "median", "q3", "max"])"));
  EXPECT_EQ(age["numeric"]["after"]["max"], 89.5);
  // marital-status is released as it is, and every Married-AF-spouse record
  // is suppressed: that value is not named.
  const nlohmann::json& marital = u["attributes"][3];
  ASSERT_EQ(marital["name"], "marital-status");
  EXPECT_EQ(marital["distribution_withheld"], nlohmann::json::parse(R"({"categories": 1, "before": 21})"));
  EXPECT_EQ(marital["distribution"].dump().find("Married-AF-spouse"), std::string::npos);
  EXPECT_EQ(u["dependencies"]["attributes"].size(), 9u);
  EXPECT_EQ(u["classification"], nlohmann::json::array());  // adult.yaml has no sensitive attribute
  EXPECT_EQ(u["dependencies"]["before"].size(), 9u);

  const fs::path u1 = dir_ / "u1.json", u2 = dir_ / "u2.json";
  ASSERT_EQ(run("-q utility '" + job + "' --output '" + out.string() + "' --json '" + u1.string() + "'"), 0) << err();
  EXPECT_EQ(json(u1), u);
  ASSERT_EQ(run("-q -j 1 utility '" + job + "' --output '" + out.string() + "' --json '" + u2.string() + "'"), 0)
      << err();
  EXPECT_EQ(deid::testing::slurp(u1.string()), deid::testing::slurp(u2.string()));
  // Without --json the command prints the same JSON.
  ASSERT_EQ(run("utility '" + job + "' --output '" + out.string() + "'"), 0) << err();
  EXPECT_EQ(json(dir_ / "stdout"), u);
}

// output.utility: false leaves the section out and every other key as it
// was (but the times and the peak memory, which vary from run to run).
TEST_F(UtilityCli, OutputUtilityFalseLeavesTheSectionOutAndTheRestUnchanged) {
  const fs::path on = write_job("output: {path: '" + (dir_ / "on.csv").string() + "', result: '" +
                                (dir_ / "on.json").string() + "'}\n");
  ASSERT_EQ(run("-q anonymize '" + on.string() + "'"), 0) << err();
  const fs::path off = write_job("output: {path: '" + (dir_ / "off.csv").string() + "', result: '" +
                                 (dir_ / "off.json").string() + "', utility: false}\n");
  ASSERT_EQ(run("-q anonymize '" + off.string() + "'"), 0) << err();
  nlohmann::json a = json(dir_ / "on.json"), b = json(dir_ / "off.json");
  EXPECT_TRUE(a.contains("utility"));
  EXPECT_FALSE(b.contains("utility"));
  for (nlohmann::json* r : {&a, &b}) {
    r->erase("utility");
    r->erase("time_ms");
    r->erase("peak_rss_bytes");
    (*r)["search"].erase("time_to_best_ms");
    for (nlohmann::json& f : (*r)["files"]) f.erase("path");
  }
  EXPECT_EQ(a, b);
  EXPECT_EQ(deid::testing::slurp((dir_ / "on.csv").string()), deid::testing::slurp((dir_ / "off.csv").string()));
}

TEST_F(UtilityCli, RefusesATableThatIsNotAReleaseOfTheInput) {
  const std::string job = deid::testing::example_path("adult.yaml");
  const fs::path out = dir_ / "adult-deid.csv", result = dir_ / "adult-deid.json";
  ASSERT_EQ(run("-q anonymize '" + job + "' --output '" + out.string() + "' --result '" + result.string() + "'"), 0)
      << err();
  const std::string text = deid::testing::slurp(out.string());
  // The first record's sex changed: other records with its input value keep theirs.
  const std::size_t line2 = text.find('\n') + 1;
  ASSERT_EQ(text.substr(line2, 5), "Male;");
  const fs::path changed = dir_ / "changed.csv";
  std::ofstream(changed) << text.substr(0, line2) + "Female;" + text.substr(line2 + 5);
  EXPECT_EQ(run("-q utility '" + job + "' --output '" + changed.string() + "'"), 2);
  EXPECT_NE(err().find("changed.csv:"), std::string::npos) << err();
  EXPECT_NE(err().find("column 'sex'"), std::string::npos) << err();
  // A record less.
  const fs::path shorter = dir_ / "shorter.csv";
  std::ofstream(shorter) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  EXPECT_EQ(run("-q utility '" + job + "' --output '" + shorter.string() + "'"), 2);
  EXPECT_NE(err().find("30161 records, the input 30162"), std::string::npos) << err();
}

// The anonymization report has the utility figures of the result's section.
TEST_F(UtilityCli, AnonymizeReportHasTheUtilityFigures) {
  const std::string job = deid::testing::example_path("adult.yaml");
  const fs::path out = dir_ / "adult-deid.csv", result = dir_ / "adult-deid.json", report = dir_ / "report.html";
  ASSERT_EQ(run("-q anonymize '" + job + "' --output '" + out.string() + "' --result '" + result.string() +
                "' --report '" + report.string() + "'"),
            0)
      << err();
  const nlohmann::json r = json(result);
  ASSERT_TRUE(r.contains("utility"));
  const std::string html = deid::testing::slurp(report.string());
  expect_utility_figures(html, r["utility"]);
  EXPECT_EQ(r["utility"]["dependencies"]["attributes"].size(), 9u);
  // occupation is released as one category: its associations after are
  // undefined, grey cells with n/a (and only those are grey).
  std::size_t undefined = 0;
  for (const char* m : {"before", "after"})
    for (const auto& row : r["utility"]["dependencies"][m])
      for (const auto& v : row) undefined += v.is_null();
  EXPECT_GT(undefined, 0u);
  EXPECT_EQ(count(html, "fill=\"#bdbdbd\""), undefined);
}

// `deid utility --report` writes a page with the same figures, and the JSON
// beside it when --json is given too.
TEST_F(UtilityCli, CommandWritesTheReportPage) {
  const std::string job = deid::testing::example_path("adult.yaml");
  const fs::path out = dir_ / "adult-deid.csv", result = dir_ / "adult-deid.json";
  ASSERT_EQ(run("-q anonymize '" + job + "' --output '" + out.string() + "' --result '" + result.string() + "'"), 0)
      << err();
  const fs::path page = dir_ / "utility.html", u = dir_ / "u.json";
  ASSERT_EQ(run("-q utility '" + job + "' --output '" + out.string() + "' --report '" + page.string() + "'"), 0)
      << err();
  EXPECT_EQ(deid::testing::slurp((dir_ / "stdout").string()), "") << "with --report alone nothing is printed";
  const std::string html = deid::testing::slurp(page.string());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_NE(html.find(out.filename().string()), std::string::npos) << "the header names the released table";
  expect_utility_figures(html, json(result)["utility"]);
  // Both at once.
  fs::remove(page);
  ASSERT_EQ(run("-q utility '" + job + "' --output '" + out.string() + "' --json '" + u.string() + "' --report '" +
                page.string() + "'"),
            0)
      << err();
  EXPECT_EQ(json(u), json(result)["utility"]);
  EXPECT_EQ(deid::testing::slurp(page.string()), html);
}

// A report path that is an input (or the released table) is refused before
// anything is written: exit 2, the input unchanged, no JSON.
TEST_F(UtilityCli, CommandRefusesAReportOverAnInput) {
  const std::string job = deid::testing::example_path("adult.yaml");
  const fs::path out = dir_ / "adult-deid.csv", result = dir_ / "adult-deid.json", input = dir_ / "adult.csv";
  ASSERT_EQ(run("-q anonymize '" + job + "' --output '" + out.string() + "' --result '" + result.string() + "'"), 0)
      << err();
  fs::copy_file(deid::testing::example_path("adult/adult.csv"), input);
  const std::string before = deid::testing::slurp(input.string()), released = deid::testing::slurp(out.string());
  const fs::path u = dir_ / "u.json";
  EXPECT_EQ(run("-q utility '" + job + "' --input '" + input.string() + "' --output '" + out.string() + "' --json '" +
                u.string() + "' --report '" + input.string() + "'"),
            2);
  EXPECT_NE(err().find("HTML utility report"), std::string::npos) << err();
  EXPECT_EQ(deid::testing::slurp(input.string()), before);
  EXPECT_FALSE(fs::exists(u));
  EXPECT_EQ(run("-q utility '" + job + "' --input '" + input.string() + "' --output '" + out.string() +
                "' --report '" + out.string() + "'"),
            2);
  EXPECT_EQ(deid::testing::slurp(out.string()), released);
  // Nothing else appeared in the directory (no temporary left).
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.path().filename() != "stdout" && e.path().filename() != "stderr";
  EXPECT_EQ(files, 3u);
}

}  // namespace
