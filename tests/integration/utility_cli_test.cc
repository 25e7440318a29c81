// `deid utility` and the "utility" section of `deid anonymize`'s result
// (docs/utility.md) on the bundled adult job: the section is there by
// default and gone with output.utility: false (the other keys unchanged),
// the command on the released table agrees with the section, its numbers do
// not depend on the thread count, and tables that are not a release of the
// input are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

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
    std::uint64_t before = 0, after = 0;
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
  EXPECT_EQ(age["numeric"]["before"]["min"], 17.0);
  EXPECT_EQ(age["numeric"]["before"]["max"], 90.0);
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

}  // namespace
