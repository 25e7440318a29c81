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
  for (const char* attr : {"src=", "href="})
    for (const char* quote : {"\"", "'", ""})
      for (const char* scheme : {"http:", "https:", "//"})
        EXPECT_EQ(count(html, std::string(attr) + quote + scheme), 0u)
            << "the report references an external resource: " << attr << quote << scheme;
  const auto charts = static_cast<int>(count(html, "<svg class=\"chart\""));
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
  const int in_browser = attribute(dom, "data-charts");
  ASSERT_GE(in_browser, 0) << "the page script did not run";
  EXPECT_EQ(in_browser, charts);
  EXPECT_EQ(attribute(dom, "data-charts-drawn"), in_browser) << "some chart has no drawn bar";

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
