// `deid inspect` (docs/inspect.md) on the bundled tables: the summary, the
// JSON and the starter job, which `deid anonymize` runs as it is; on the
// patients the direct identifiers (mrn, name, phone, email) are removed.
// Outputs that are the input are refused before any work. The HTML report
// escapes every value of the data.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

class InspectCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("inspect_cli_test_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  int run(const std::string& args) {
    return deid::testing::run_deid(args, (dir_ / "stdout").string(), (dir_ / "stderr").string());
  }
  std::string out() const { return deid::testing::slurp((dir_ / "stdout").string()); }
  std::string err() const { return deid::testing::slurp((dir_ / "stderr").string()); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The first line of a CSV file.
  static std::string header(const std::string& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
  }

  fs::path dir_;
};

const nlohmann::json& column(const nlohmann::json& j, const std::string& name) {
  for (const auto& c : j["columns"])
    if (c["name"] == name) return c;
  throw std::runtime_error("no column " + name);
}

TEST_F(InspectCli, PatientsStarterJobRemovesTheDirectIdentifiers) {
  const std::string data = deid::testing::example_path("patients/patients.csv");
  ASSERT_EQ(run("inspect '" + data + "' --json '" + path("inspect.json") + "' --job '" + path("job.yaml") + "'"), 0)
      << err();
  EXPECT_NE(out().find("Suggested roles:"), std::string::npos);
  EXPECT_NE(out().find("Starter job"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(deid::testing::slurp(path("inspect.json")));
  EXPECT_EQ(j["records"], 10);
  const std::map<std::string, std::string> hipaa{{"mrn", "H"}, {"name", "A"}, {"phone", "D"}, {"email", "F"}};
  for (const auto& [name, letter] : hipaa) {
    const nlohmann::json& c = column(j, name);
    EXPECT_EQ(c["role"], "identifying") << name;
    bool found = false;
    for (const auto& f : c["identifiers"]) found = found || f["hipaa"] == letter;
    EXPECT_TRUE(found) << name << ": " << c["identifiers"].dump();
  }
  // phone and email by their values too, with the lines that show them.
  for (const char* name : {"phone", "email"}) {
    bool by_values = false;
    for (const auto& f : column(j, name)["identifiers"])
      if (f["method"] == "values") by_values = !f["lines"].empty() && f["lines"][0] == 2;
    EXPECT_TRUE(by_values) << name;
  }
  EXPECT_EQ(column(j, "admitted")["type"], "date");
  EXPECT_EQ(column(j, "admitted")["date_format"], "%Y-%m-%d");
  EXPECT_EQ(column(j, "admitted")["role"], "quasi-identifying");
  EXPECT_EQ(column(j, "age")["role"], "quasi-identifying");
  EXPECT_EQ(column(j, "diagnosis")["role"], "sensitive");

  const std::string job = deid::testing::slurp(path("job.yaml"));
  for (const char* line : {"  mrn: {role: identifying}", "  name: {role: identifying}", "  phone: {role: identifying}",
                           "  email: {role: identifying}", "  - k-anonymity: {k: 2}"})
    EXPECT_NE(job.find(line), std::string::npos) << line << "\n" << job;
  EXPECT_NE(job.find("hierarchy: {type: dates}"), std::string::npos) << job;

  ASSERT_EQ(run("anonymize '" + path("job.yaml") + "'"), 0) << err() << "\n" << job;
  const std::string released = header(path("patients-deid.csv"));
  EXPECT_FALSE(released.empty());
  for (const char* name : {"mrn", "name", "phone", "email"}) EXPECT_EQ(released.find(name), std::string::npos) << released;
  EXPECT_NE(released.find("age"), std::string::npos) << released;
}

TEST_F(InspectCli, AdultStarterJobRunsAndCombinationsAreAllThere) {
  const std::string data = deid::testing::example_path("adult/adult.csv");
  ASSERT_EQ(run("inspect '" + data + "' --json '" + path("inspect.json") + "' --job '" + path("job.yaml") +
                "' --max-combination-size 2"),
            0)
      << err();
  const nlohmann::json j = nlohmann::json::parse(deid::testing::slurp(path("inspect.json")));
  EXPECT_EQ(j["records"], 30162);
  EXPECT_EQ(j["delimiter"], ";");
  EXPECT_EQ(column(j, "age")["type"], "integer");
  EXPECT_EQ(column(j, "sex")["type"], "code");
  EXPECT_EQ(column(j, "race")["identifiers"].size(), 0u);  // "White" and "Black" are surnames, not a name column
  const std::size_t q = j["quasi_identifiers"].size();
  EXPECT_GE(q, 7u);
  EXPECT_EQ(j["combinations"].size(), q + q * (q - 1) / 2);
  // Most unique first.
  for (std::size_t i = 1; i < j["combinations"].size(); ++i)
    EXPECT_GE(j["combinations"][i - 1]["unique_records"].get<std::uint64_t>(),
              j["combinations"][i]["unique_records"].get<std::uint64_t>());
  ASSERT_EQ(run("anonymize '" + path("job.yaml") + "'"), 0) << err() << "\n" << deid::testing::slurp(path("job.yaml"));
  const nlohmann::json result = nlohmann::json::parse(deid::testing::slurp(path("adult-deid.json")));
  EXPECT_TRUE(result["solution_found"].get<bool>());
}

TEST_F(InspectCli, SameOutputForAnyThreadCount) {
  const std::string data = deid::testing::example_path("adult/adult.csv");
  ASSERT_EQ(run("-j 1 inspect '" + data + "' --json '" + path("one.json") + "' --job '" + path("one.yaml") + "'"), 0)
      << err();
  ASSERT_EQ(run("inspect '" + data + "' --json '" + path("all.json") + "' --job '" + path("all.yaml") + "'"), 0)
      << err();
  EXPECT_EQ(deid::testing::slurp(path("one.json")), deid::testing::slurp(path("all.json")));
  EXPECT_EQ(deid::testing::slurp(path("one.yaml")), deid::testing::slurp(path("all.yaml")));
}

// Every value from the data reaches the report escaped: a cell and a column
// name holding markup, quotes and ampersands. The only script is the
// report's own self-check.
TEST_F(InspectCli, ReportEscapesEveryValueOfTheData) {
  const std::string data = path("hostile.csv");
  {
    std::ofstream out(data);
    out << "age,\"<b>\"\"n\"\"&</b>\"\n";
    for (int i = 0; i < 9; ++i) out << 30 + i << ",v" << i % 3 << "\n";
    out << "\"<script>alert(\"\"x\"\")</script> & 'q'\",v0\n";
  }
  ASSERT_EQ(run("inspect '" + data + "' --report '" + path("report.html") + "'"), 0) << err();
  EXPECT_NE(out().find("Report"), std::string::npos) << out();
  const std::string html = deid::testing::slurp(path("report.html"));
  // The non-conforming value of age, escaped, and never as markup.
  EXPECT_NE(html.find("<code>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; 'q'</code> (line 11, 1&times;)"),
            std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  std::size_t scripts = 0;
  for (auto at = html.find("<script"); at != std::string::npos; at = html.find("<script", at + 1)) ++scripts;
  EXPECT_EQ(scripts, 1u) << "only the report's self-check";
  // The column name, in the tables and in the starter job.
  EXPECT_NE(html.find("<th>&lt;b&gt;&quot;n&quot;&amp;&lt;/b&gt;</th>"), std::string::npos);
  EXPECT_EQ(html.find("<b>\"n\""), std::string::npos);
  for (const char* id : {"id=\"columns\"", "id=\"identifiers\"", "id=\"roles\"", "id=\"starter-job\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  EXPECT_NE(html.find("- k-anonymity: {k: 2}"), std::string::npos) << "the starter job's text";
}

TEST_F(InspectCli, ReportShowsTheStarterJobThatJobWrites) {
  const std::string data = deid::testing::example_path("patients/patients.csv");
  ASSERT_EQ(run("-q inspect '" + data + "' --job '" + path("job.yaml") + "' --report '" + path("report.html") + "'"), 0)
      << err();
  const std::string html = deid::testing::slurp(path("report.html"));
  std::string job = deid::testing::slurp(path("job.yaml")), escaped;
  for (char ch : job) {
    if (ch == '&') escaped += "&amp;";
    else if (ch == '<') escaped += "&lt;";
    else if (ch == '>') escaped += "&gt;";
    else if (ch == '"') escaped += "&quot;";
    else escaped += ch;
  }
  EXPECT_NE(html.find("<pre id=\"starter-job\"><code>" + escaped + "</code></pre>"), std::string::npos);
  // The identifiers found on the patients, with their lines.
  EXPECT_NE(html.find("telephone number"), std::string::npos);
  EXPECT_NE(html.find("<svg class=\"chart\" id=\"combinations\""), std::string::npos);
}

TEST_F(InspectCli, RefusesToWriteItsInputAndBadOptions) {
  const std::string data = path("t.csv");
  {
    std::ofstream(data) << "a,b\n1,2\n";
  }
  EXPECT_EQ(run("inspect '" + data + "' --json '" + data + "'"), 2);
  EXPECT_NE(err().find("input data"), std::string::npos) << err();
  EXPECT_EQ(deid::testing::slurp(data), "a,b\n1,2\n");
  EXPECT_EQ(run("inspect '" + data + "' --report '" + data + "'"), 2);
  EXPECT_NE(err().find("inspection report"), std::string::npos) << err();
  EXPECT_EQ(deid::testing::slurp(data), "a,b\n1,2\n");
  EXPECT_EQ(run("inspect '" + data + "' --max-combination-size 0"), 2);
  EXPECT_NE(err().find("max-combination-size"), std::string::npos) << err();
  EXPECT_EQ(run("inspect '" + data + "' --delimiter ab"), 2);
}

// The options of a PostgreSQL table are refused where they do not fit,
// before any connection is made (exit 2, the message names the options).
TEST_F(InspectCli, TableOptionsThatDoNotFit) {
  const std::string data = path("t.csv");
  {
    std::ofstream(data) << "a,b\n1,2\n";
  }
  const struct {
    std::string args, message;
  } cases[] = {
      {"inspect", "needs DATA"},
      {"inspect '" + data + "' --table t", "give one"},
      {"inspect --table t --query 'SELECT 1'", "not both"},
      {"inspect --query 'SELECT 1' --schema s", "--schema goes with --table"},
      {"inspect --table t --delimiter ';'", "--delimiter is for a CSV file"},
      {"inspect '" + data + "' --connection 'host=x'", "go with --table or --query"},
      {"inspect --table " + std::string(64, 'x'), "at most 63"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(run(c.args + " --json '" + path("out.json") + "'"), 2) << c.args;
    EXPECT_NE(err().find(c.message), std::string::npos) << c.args << ": " << err();
    EXPECT_FALSE(std::filesystem::exists(path("out.json"))) << c.args;
  }
}

}  // namespace
