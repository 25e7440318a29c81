// The HTML report rendered in a real browser (headless Chromium): every chart
// must have drawn data, the file must load nothing from the network, and a
// screenshot is saved (report-screenshot.png in the test's working
// directory) for a person to look at.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

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
    const std::string h = deid::testing::example_path("adult/hierarchies/");
    std::ofstream job(dir_ / "job.yaml");
    job << "input: {path: " << deid::testing::example_path("adult/adult.csv") << ", delimiter: ';'}\n"
        << "attributes:\n"
        << "  age: {role: quasi-identifying, hierarchy: " << h << "age.csv}\n"
        << "  sex: {role: quasi-identifying, hierarchy: " << h << "sex.csv}\n"
        << "  race: {role: quasi-identifying, hierarchy: " << h << "race.csv}\n"
        << "  education: {role: quasi-identifying, hierarchy: " << h << "education.csv}\n"
        << "  marital-status: {role: quasi-identifying, hierarchy: " << h << "marital-status.csv}\n"
        << "default-role: insensitive\n"
        << "privacy:\n  - k-anonymity: {k: 10}\nsuppression-limit: 0.02\n"
        << "output: {path: out.csv, result: out.json, report: report.html}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ReportBrowserTest, EveryChartDrawsDataInHeadlessChromium) {
  int status = 0;
  run(std::string(DEID_CLI_PATH) + " --quiet anonymize " + (dir_ / "job.yaml").string() + " 2>&1", &status);
  ASSERT_EQ(status, 0);
  const fs::path report = dir_ / "report.html";
  ASSERT_TRUE(fs::exists(report));
  const std::string html = read_file(report);

  // Self-contained: no resource is fetched from anywhere.
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*["']?(https?:)?//)")))
      << "the report references an external resource";
  const std::regex chart_tag("<svg class=\"chart\"");
  const auto charts = std::distance(std::sregex_iterator(html.begin(), html.end(), chart_tag), std::sregex_iterator());
  EXPECT_GE(charts, 4) << "loss per attribute, risk profile, suppression and class sizes at least";

  const char* browser = chromium();
  if (!browser) {
    if (std::getenv("CI")) FAIL() << "Chromium is required in CI (scripts/install-deps.sh installs it)";
    GTEST_SKIP() << "Chromium is not installed";
  }
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --user-data-dir=" + (dir_ / "profile").string();
  const std::string dom = run(std::string(browser) + flags + " --dump-dom file://" + report.string() + " 2>/dev/null", &status);
  ASSERT_EQ(status, 0) << dom;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-charts=\"(\\d+)\""))) << "the page script did not run";
  const int in_browser = std::stoi(m[1]);
  EXPECT_EQ(in_browser, charts);
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-charts-drawn=\"(\\d+)\"")));
  EXPECT_EQ(std::stoi(m[1]), in_browser) << "some chart has no drawn bar";

  const fs::path shot = fs::absolute("report-screenshot.png");
  fs::remove(shot);
  run(std::string(browser) + flags + " --hide-scrollbars --window-size=1280,2600 --screenshot=" + shot.string() +
          " file://" + report.string() + " 2>/dev/null",
      &status);
  ASSERT_EQ(status, 0);
  ASSERT_TRUE(fs::exists(shot));
  EXPECT_GT(fs::file_size(shot), 20000u) << "the screenshot looks empty";
}

}  // namespace
