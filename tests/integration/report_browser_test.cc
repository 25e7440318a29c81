// The HTML reports rendered in a real browser (headless Chromium): the report
// of `deid anonymize` (with its utility figures), that of `deid risk`, the
// page of `deid utility --report` and that of `deid inspect --report`. Every chart must have drawn
// data, the file must load nothing from the network, and a screenshot is
// saved (report-screenshot.png, risk-report-screenshot.png and the others
// named *-screenshot.png, in the test's working directory) for a person to
// look at.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  *status = pclose(pipe);
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Occurrences of `needle` in `hay`.
std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// The integer value of attribute `name="N"` in `html`, or -1.
int attribute(const std::string& html, const std::string& name) {
  const std::string key = name + "=\"";
  const auto at = html.find(key);
  if (at == std::string::npos) return -1;
  return std::atoi(html.c_str() + at + key.size());
}

const char* chromium() {
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(c)) return c;
  return nullptr;
}

class ReportBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("deid-report-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    write_job(dir_ / "job.yaml", "");
  }
  // The job on adult with five quasi-identifiers and `extra` attributes.
  static void write_job(const fs::path& path, const std::string& extra) {
    const std::string h = deid::testing::example_path("adult/hierarchies/");
    std::ofstream job(path);
    job << "input: {path: " << deid::testing::example_path("adult/adult.csv") << ", delimiter: ';'}\n"
        << "attributes:\n"
        << "  age: {role: quasi-identifying, hierarchy: " << h << "age.csv}\n"
        << "  sex: {role: quasi-identifying, hierarchy: " << h << "sex.csv}\n"
        << "  race: {role: quasi-identifying, hierarchy: " << h << "race.csv}\n"
        << "  education: {role: quasi-identifying, hierarchy: " << h << "education.csv}\n"
        << "  marital-status: {role: quasi-identifying, hierarchy: " << h << "marital-status.csv}\n"
        << extra << "default-role: insensitive\n"
        << "privacy:\n  - k-anonymity: {k: 10}\nsuppression-limit: 0.02\n"
        << "output: {path: out.csv, result: out.json, report: report.html}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// Asserts that `report` references nothing outside itself and returns its
// number of charts.
int self_contained_charts(const std::string& html) {
  for (const char* attr : {"src=", "href="})
    for (const char* quote : {"\"", "'", ""})
      for (const char* scheme : {"http:", "https:", "//"})
        EXPECT_EQ(count(html, std::string(attr) + quote + scheme), 0u)
            << "the report references an external resource: " << attr << quote << scheme;
  return static_cast<int>(count(html, "<svg class=\"chart\""));
}

// Renders `report` in headless Chromium: every one of its `charts` charts
// must have drawn a bar; saves a screenshot named `screenshot`.
void expect_charts_drawn_in_chromium(const fs::path& report, int charts, const fs::path& profile,
                                     const std::string& screenshot) {
  const char* browser = chromium();
  if (!browser) {
    if (std::getenv("CI")) FAIL() << "Chromium is required in CI (scripts/install-deps.sh installs it)";
    GTEST_SKIP() << "Chromium is not installed";
  }
  int status = 0;
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --user-data-dir=" + profile.string();
  const std::string dom = run(std::string(browser) + flags + " --dump-dom file://" + report.string() + " 2>/dev/null", &status);
  ASSERT_EQ(status, 0) << dom;
  const int in_browser = attribute(dom, "data-charts");
  ASSERT_GE(in_browser, 0) << "the page script did not run";
  EXPECT_EQ(in_browser, charts);
  EXPECT_EQ(attribute(dom, "data-charts-drawn"), in_browser) << "some chart has no drawn bar";
  EXPECT_EQ(count(dom, "data-empty=\"true\""), 0u) << "a chart is marked empty";

  const fs::path shot = fs::absolute(screenshot);
  fs::remove(shot);
  run(std::string(browser) + flags + " --hide-scrollbars --window-size=1280,2600 --screenshot=" + shot.string() +
          " file://" + report.string() + " 2>/dev/null",
      &status);
  ASSERT_EQ(status, 0);
  ASSERT_TRUE(fs::exists(shot));
  EXPECT_GT(fs::file_size(shot), 20000u) << "the screenshot looks empty";
}

TEST_F(ReportBrowserTest, EveryChartDrawsDataInHeadlessChromium) {
  int status = 0;
  run(std::string(DEID_CLI_PATH) + " --quiet anonymize " + (dir_ / "job.yaml").string() + " 2>&1", &status);
  ASSERT_EQ(status, 0);
  const fs::path report = dir_ / "report.html";
  ASSERT_TRUE(fs::exists(report));
  const std::string html = read_file(report);
  const int charts = self_contained_charts(html);
  EXPECT_GE(charts, 5) << "best solutions, loss per attribute, risk profile, suppression and class sizes";
  EXPECT_NE(html.find("id=\"solutions\""), std::string::npos) << "the best solutions found are charted";
  EXPECT_NE(html.find("<tr class=\"chosen\">"), std::string::npos);
  EXPECT_NE(html.find("id=\"utility-cramers-after\""), std::string::npos) << "the utility figures are there";
  expect_charts_drawn_in_chromium(report, charts, dir_ / "profile", "report-screenshot.png");
}

// With a sensitive attribute the utility section has every kind of figure:
// distances, distributions, heat maps and the classification chart. Each
// draws in the anonymization report and on the page of `deid utility
// --report`.
TEST_F(ReportBrowserTest, EveryUtilityChartDrawsDataInHeadlessChromium) {
  const fs::path job = dir_ / "sensitive.yaml";
  write_job(job, "  salary-class: {role: sensitive}\n");
  int status = 0;
  std::string out = run(std::string(DEID_CLI_PATH) + " --quiet anonymize " + job.string() + " 2>&1", &status);
  ASSERT_EQ(status, 0) << out;
  const fs::path report = dir_ / "report.html";
  const std::string html = read_file(report);
  const int charts = self_contained_charts(html);
  for (const char* id : {"utility-distances", "utility-distribution-0", "utility-cramers-before",
                         "utility-cramers-after", "utility-classification-0"})
    EXPECT_NE(html.find(std::string("<svg class=\"chart\" id=\"") + id + "\""), std::string::npos) << id;
  // The distances, 9 distributions (every released column), 2 heat maps
  // (the five quasi-identifiers and salary-class), 1 classification target.
  const int utility_charts = static_cast<int>(count(html, "<svg class=\"chart\" id=\"utility-"));
  EXPECT_EQ(utility_charts, 1 + 9 + 2 + 1);
  EXPECT_GE(charts, utility_charts + 4);
  EXPECT_EQ(count(html, "<rect class=\"cell\""), 2u * 6 * 6) << "one heat-map cell per pair of 6 attributes";
  expect_charts_drawn_in_chromium(report, charts, dir_ / "profile", "utility-report-screenshot.png");

  const fs::path page = dir_ / "utility.html";
  out = run(std::string(DEID_CLI_PATH) + " --quiet utility " + job.string() + " --output " + (dir_ / "out.csv").string() +
                " --report " + page.string() + " 2>&1",
            &status);
  ASSERT_EQ(status, 0) << out;
  const std::string page_html = read_file(page);
  const int page_charts = self_contained_charts(page_html);
  EXPECT_EQ(page_charts, utility_charts);
  expect_charts_drawn_in_chromium(page, page_charts, dir_ / "profile", "utility-page-screenshot.png");
}

TEST_F(ReportBrowserTest, EveryChartOfTheRiskReportDrawsDataInHeadlessChromium) {
  int status = 0;
  const fs::path report = dir_ / "risk.html", json = dir_ / "risk.json";
  const std::string out = run(std::string(DEID_CLI_PATH) + " --quiet risk " + (dir_ / "job.yaml").string() +
                                  " --json " + json.string() + " --report " + report.string() + " 2>&1",
                              &status);
  ASSERT_EQ(status, 0) << out;
  ASSERT_TRUE(fs::exists(report));
  const std::string html = read_file(report);
  const int charts = self_contained_charts(html);
  for (const char* id : {"risk-profile", "attacker-models", "pu-su", "population-uniques", "class-sizes"})
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(charts, 5);
  // Every population of the JSON has its row; every estimate whose solver
  // did not converge says so instead of showing a number.
  const auto j = nlohmann::json::parse(read_file(json));
  std::size_t not_converged = 0;
  for (const auto& p : j["population_uniques"]) {
    EXPECT_NE(html.find("<tr><td>" + p["name"].get<std::string>() + "</td>"), std::string::npos) << p["name"];
    for (const char* e : {"zayatz", "pitman", "snb", "dankar"}) not_converged += p[e]["status"] == "not-converged";
  }
  EXPECT_EQ(count(html, "did not converge</span>"), not_converged);
  EXPECT_NE(html.find("Records at risk"), std::string::npos);
  expect_charts_drawn_in_chromium(report, charts, dir_ / "profile", "risk-report-screenshot.png");
}

TEST_F(ReportBrowserTest, EveryChartOfTheInspectionReportDrawsDataInHeadlessChromium) {
  int status = 0;
  const fs::path report = dir_ / "inspect.html";
  const std::string out = run(std::string(DEID_CLI_PATH) + " --quiet inspect " +
                                  deid::testing::example_path("patients/patients.csv") + " --report " + report.string() +
                                  " 2>&1",
                              &status);
  ASSERT_EQ(status, 0) << out;
  const std::string html = read_file(report);
  const int charts = self_contained_charts(html);
  for (const char* id : {"column-uniqueness", "combinations"})
    EXPECT_NE(html.find(std::string("<svg class=\"chart\" id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(charts, 2);
  // The patients' 9 columns (7 with unique values), and the ten most
  // identifying of 14 combinations, two bars each.
  EXPECT_EQ(count(html, "<rect class=\"bar\""), 9u + 2 * 10);
  expect_charts_drawn_in_chromium(report, charts, dir_ / "profile", "inspect-report-screenshot.png");
}

}  // namespace
