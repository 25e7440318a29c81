// The `deid anonymize` command line, run as a process on temporary files:
// exit codes (0 solution written, 1 no solution, 2 invalid job or input),
// what is written in each case, the output CSV format, and the --input,
// --output and --result overrides (docs/job-file.md).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) { return deid::testing::slurp(path.string()); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    out.push_back(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

// A temporary directory with a small data set, its hierarchies and a job.
class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("deid_cli_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "hierarchies");
    // Two pairs of men and one woman: with k = 2 the woman's record must be
    // suppressed or sex generalized to '*'.
    write("data.csv",
          "name;sex;age;note\n"
          "Ann;Male;30;plain\n"
          "Bob;Male;30;\"semi;colon\"\n"
          "Cid;Male;31;x\n"
          "Dee;Female;30;y\n"
          "Eve;Male;31;z\n");
    write("hierarchies/sex.csv", "Male;*\nFemale;*\n");
    write("hierarchies/age.csv", "30;30-31;*\n31;30-31;*\n");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
  }

  // A job over data.csv with `privacy_and_more` after the attributes.
  void write_job(const std::string& privacy_and_more, const std::string& name = "job.yaml") {
    write(name,
          "input: {path: data.csv}\n"
          "attributes:\n"
          "  name: {role: identifying}\n"
          "  sex:  {role: quasi-identifying, hierarchy: hierarchies/sex.csv}\n"
          "  age:  {role: quasi-identifying, hierarchy: hierarchies/age.csv}\n"
          "  note: {role: insensitive}\n" +
              privacy_and_more +
              "output: {path: out.csv, result: out.json}\n");
  }

  // Runs the CLI with `args`; returns its exit code (-1 when it did not exit
  // normally, e.g. on a crash) and keeps stdout and stderr.
  int run(const std::string& args) {
    const std::string cmd = std::string("'") + DEID_CLI_PATH + "' " + args + " >'" + (dir_ / "stdout").string() +
                            "' 2>'" + (dir_ / "stderr").string() + "'";
    const int status = std::system(cmd.c_str());
    out_ = slurp(dir_ / "stdout");
    err_ = slurp(dir_ / "stderr");
    if (status == -1 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
  }

  std::string job_path(const std::string& name = "job.yaml") const { return (dir_ / name).string(); }

  fs::path dir_;
  std::string out_, err_;
};

TEST_F(Cli, ExitsZeroAndWritesOneRowPerInputRowInInputOrder) {
  write_job("privacy: [{k-anonymity: {k: 2}}]\nsuppression-limit: 0.2\n");
  ASSERT_EQ(run("anonymize " + job_path()), 0) << err_;
  EXPECT_TRUE(err_.empty()) << err_;
  const std::string csv = slurp(dir_ / "out.csv");
  EXPECT_EQ(csv.find('\r'), std::string::npos) << "LF line ends only";
  const auto rows = lines_of(csv);
  ASSERT_EQ(rows.size(), 6u) << csv;  // header + one row per input row
  EXPECT_EQ(rows[0], "sex;age;note") << "identifying column removed, order kept";
  // The optimum keeps sex and age as they are and suppresses the one woman
  // (1 of 5 records is within the 20 % limit): '*' in every quasi-identifier.
  EXPECT_EQ(rows[1], "Male;30;plain");
  EXPECT_EQ(rows[2], "Male;30;\"semi;colon\"") << "fields quoted only when needed";
  EXPECT_EQ(rows[3], "Male;31;x");
  EXPECT_EQ(rows[4], "*;*;y");
  EXPECT_EQ(rows[5], "Male;31;z");
  EXPECT_EQ(csv.back(), '\n');

  const auto result = nlohmann::json::parse(slurp(dir_ / "out.json"));
  EXPECT_EQ(result["records"], 5);
  EXPECT_EQ(result["transformation"], (nlohmann::json{{"sex", 0}, {"age", 0}}));
  EXPECT_EQ(result["suppressed_records"], 1);
  for (const char* key : {"information_loss", "information_loss_per_attribute", "quality_model", "classes", "optimal",
                          "search", "time_ms", "peak_rss_bytes"})
    EXPECT_TRUE(result.contains(key)) << key;
}

TEST_F(Cli, ExitsOneWhenNoTransformationSatisfiesTheJobWritesOnlyTheResultAndKeepsAnEarlierOutput) {
  write_job("privacy: [{k-anonymity: {k: 10}}]\nsuppression-limit: 0\n");
  std::ofstream(dir_ / "out.csv") << "an output of an earlier run\n";
  ASSERT_EQ(run("anonymize " + job_path()), 1) << err_;
  // deid deletes nothing it did not create: the earlier output stays, and
  // the result's "files" names no output table, so it cannot be taken for
  // this run's (docs/reliability.md).
  EXPECT_EQ(slurp(dir_ / "out.csv"), "an output of an earlier run\n");
  ASSERT_TRUE(fs::exists(dir_ / "out.json"));
  const auto result = nlohmann::json::parse(slurp(dir_ / "out.json"));
  EXPECT_EQ(result["solution_found"], false);
  EXPECT_TRUE(result["transformation"].is_null());
  ASSERT_EQ(result["files"].size(), 1u);
  EXPECT_EQ(result["files"][0]["role"], "input");
}

// A search cut by its limit before it found a solution proved nothing: it
// says so, and never that no transformation satisfies a job that one does.
TEST_F(Cli, SearchStoppedByItsLimitDoesNotCallTheJobUnsatisfiable) {
  write_job("privacy: [{k-anonymity: {k: 5}}]\nsuppression-limit: 0\nsearch: {max-checks: 1}\n");
  ASSERT_EQ(run("anonymize " + job_path()), 1) << err_;
  EXPECT_NE(out_.find("stopped at search.max-checks"), std::string::npos) << out_;
  EXPECT_NE(out_.find("may still be satisfiable"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("No transformation satisfies"), std::string::npos) << out_;
  const auto result = nlohmann::json::parse(slurp(dir_ / "out.json"));
  EXPECT_EQ(result["search"]["stopped_by"], "max-checks");
  EXPECT_EQ(result["search"]["stopped_by_limit"], true);
  ASSERT_EQ(run("anonymize " + job_path() + " --report " + (dir_ / "r.html").string()), 1) << err_;
  EXPECT_NE(slurp(dir_ / "r.html").find("stopped at search.max-checks"), std::string::npos);
  // Without the limit the job is satisfied (sex and age to '*').
  write_job("privacy: [{k-anonymity: {k: 5}}]\nsuppression-limit: 0\n");
  ASSERT_EQ(run("anonymize " + job_path()), 0) << err_;
  EXPECT_TRUE(nlohmann::json::parse(slurp(dir_ / "out.json"))["search"]["stopped_by"].is_null());
}

TEST_F(Cli, ExitsTwoOnAnInvalidJobNamingKeyAndLine) {
  write_job("privacy: [{k-anonymity: {k: 2}}]\ncolour: red\n");
  ASSERT_EQ(run("anonymize " + job_path()), 2);
  EXPECT_NE(err_.find("deid: error: " + job_path() + ":8:1: unknown key 'colour'"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "out.json"));
}

TEST_F(Cli, ExitsTwoOnMalformedCsvNamingFileAndLine) {
  write("data.csv", "name;sex;age;note\nAnn;Male;30;x\nBob;Male;\"30;y\n");
  write_job("privacy: [{k-anonymity: {k: 2}}]\n");
  ASSERT_EQ(run("anonymize " + job_path()), 2);
  EXPECT_NE(err_.find((dir_ / "data.csv").string() + ":3:3"), std::string::npos) << err_;
  EXPECT_NE(err_.find("unterminated quoted field"), std::string::npos) << err_;
}

TEST_F(Cli, ExitsTwoOnARecordWithTooFewFields) {
  write("data.csv", "name;sex;age;note\nAnn;Male;30;x\nBob;Male\n");
  write_job("privacy: [{k-anonymity: {k: 2}}]\n");
  ASSERT_EQ(run("anonymize " + job_path()), 2);
  EXPECT_NE(err_.find(":3:3 (column 'age'): record has 2 fields, expected 4"), std::string::npos) << err_;
}

TEST_F(Cli, ExitsTwoOnAValueMissingFromAHierarchy) {
  write("data.csv", "name;sex;age;note\nAnn;Male;30;x\nBob;Other;30;y\n");
  write_job("privacy: [{k-anonymity: {k: 2}}]\n");
  ASSERT_EQ(run("anonymize " + job_path()), 2);
  EXPECT_NE(err_.find("attribute 'sex': value 'Other' (data line 3) is not in hierarchy " +
                      (dir_ / "hierarchies/sex.csv").string() + "; 1 value missing"),
            std::string::npos)
      << err_;
}

TEST_F(Cli, ExitsTwoOnAColumnWithoutRole) {
  write("data.csv", "name;sex;age;note;zip\nAnn;Male;30;x;1\n");
  write_job("privacy: [{k-anonymity: {k: 1}}]\n");
  ASSERT_EQ(run("anonymize " + job_path()), 2);
  EXPECT_NE(err_.find("column 'zip' of " + (dir_ / "data.csv").string() + " has no role"), std::string::npos) << err_;
}

TEST_F(Cli, ExitsTwoOnMissingFiles) {
  write_job("privacy: [{k-anonymity: {k: 2}}]\n");
  EXPECT_EQ(run("anonymize " + (dir_ / "nope.yaml").string()), 2);
  EXPECT_FALSE(err_.empty());
  EXPECT_EQ(run("anonymize " + job_path() + " --input " + (dir_ / "nope.csv").string()), 2);
  EXPECT_NE(err_.find((dir_ / "nope.csv").string() + ": cannot open file for reading"), std::string::npos) << err_;
  fs::remove(dir_ / "hierarchies/age.csv");
  EXPECT_EQ(run("anonymize " + job_path()), 2);
  EXPECT_NE(err_.find("age.csv"), std::string::npos) << err_;
}

TEST_F(Cli, ExitsTwoOnBadCommandLine) {
  EXPECT_EQ(run(""), 2);
  EXPECT_EQ(run("frobnicate"), 2);
  EXPECT_EQ(run("anonymize " + job_path() + " --no-such-option"), 2);
}

TEST_F(Cli, CommandLineOverridesTheJobsPaths) {
  // The job names an input that does not exist and outputs elsewhere.
  write("other.csv", "name;sex;age;note\nA;Male;30;a\nB;Male;30;b\n");
  write("job.yaml",
        "input: {path: missing.csv}\n"
        "attributes:\n"
        "  name: {role: identifying}\n"
        "  sex:  {role: quasi-identifying, hierarchy: hierarchies/sex.csv}\n"
        "  age:  {role: quasi-identifying, hierarchy: hierarchies/age.csv}\n"
        "  note: {role: insensitive}\n"
        "privacy: [{k-anonymity: {k: 2}}]\n"
        "output: {path: job-out.csv, result: job-out.json}\n");
  const std::string out = (dir_ / "cli-out.csv").string(), res = (dir_ / "cli-out.json").string();
  ASSERT_EQ(run("anonymize " + job_path() + " --input " + (dir_ / "other.csv").string() + " --output " + out +
                " --result " + res),
            0)
      << err_;
  EXPECT_FALSE(fs::exists(dir_ / "job-out.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "job-out.json"));
  EXPECT_EQ(lines_of(slurp(out)).size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(slurp(res))["records"], 2);
}

TEST_F(Cli, SameJobGivesTheSameOutputByteForByte) {
  write_job("privacy: [{k-anonymity: {k: 2}}]\nsuppression-limit: 0.2\n");
  ASSERT_EQ(run("anonymize " + job_path() + " --output " + (dir_ / "a.csv").string()), 0) << err_;
  ASSERT_EQ(run("anonymize " + job_path() + " --output " + (dir_ / "b.csv").string()), 0) << err_;
  EXPECT_EQ(slurp(dir_ / "a.csv"), slurp(dir_ / "b.csv"));
}

TEST_F(Cli, ThreadsOptionLimitsThreadsAndKeepsTheOutput) {
  // (tests/integration/threads_test.cc runs a table large enough for the
  // parallel paths; this tests the option itself.)
  write_job("privacy: [{k-anonymity: {k: 2}}]\nsuppression-limit: 0.2\n");
  ASSERT_EQ(run("--threads 1 anonymize " + job_path() + " --output " + (dir_ / "one.csv").string()), 0) << err_;
  ASSERT_EQ(run("anonymize " + job_path() + " -j 3 --output " + (dir_ / "three.csv").string()), 0) << err_;
  EXPECT_FALSE(slurp(dir_ / "one.csv").empty());
  EXPECT_EQ(slurp(dir_ / "one.csv"), slurp(dir_ / "three.csv"));
  EXPECT_EQ(run("--threads 0 anonymize " + job_path()), 2);
  EXPECT_NE(err_.find("threads"), std::string::npos) << err_;
}

}  // namespace
