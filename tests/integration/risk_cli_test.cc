// `deid risk` end to end: the report of the adult input (against ARX's
// estimates), of an anonymized output with suppressed records, the
// |PU|/|SU| of papers/002 Table II, and errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "deid/check.h"
#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) { return deid::testing::slurp(path.string()); }

class RiskCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("risk_cli_test_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The 1 % job of papers/002 (Dankar's rule, USA) on adult, as YAML.
  fs::path write_job(const std::string& extra = "") {
    return deid::testing::write_adult_job((dir_ / "job.yaml").string(),
                                          "privacy:\n  - population-uniqueness: {threshold: 0.01, population-size: "
                                          "318.9e6, estimator: dankar}\nsuppression-limit: 1.0\n" +
                                              extra);
  }

  int run(const std::string& args) {
    return deid::testing::run_deid(args, (dir_ / "stdout").string(), (dir_ / "stderr").string());
  }
  std::string out() const { return slurp(dir_ / "stdout"); }
  std::string err() const { return slurp(dir_ / "stderr"); }

  fs::path dir_;
};

// The input's report equals ARX's figures for the nine quasi-identifiers
// (arx-adult-risk.json, case adult_all9_N318.9M) and the table names them.
TEST_F(RiskCli, ReportOfTheInputMatchesArx) {
  const fs::path job = write_job();
  const fs::path json = dir_ / "risk.json";
  ASSERT_EQ(run("risk '" + job.string() + "' --json '" + json.string() + "'"), 0) << err();
  const nlohmann::json r = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(r["records"], 30162);
  EXPECT_EQ(r["suppressed_records"], 0);
  EXPECT_EQ(r["classes"], 19502);
  EXPECT_EQ(r["sample_uniques"]["records"], 15512);
  EXPECT_NEAR(r["attacker_models"]["prosecutor"]["records_at_risk"].get<double>(), 0.7781314236456468, 1e-12);
  EXPECT_NEAR(r["sample_risk"]["average_risk"].get<double>(), 0.6465751607983555, 1e-12);
  ASSERT_EQ(r["population_uniques"].size(), 3u);  // Table II's populations; the job's is USA's
  const nlohmann::json& usa = r["population_uniques"][0];
  EXPECT_EQ(usa["name"], "USA");
  EXPECT_NEAR(usa["pitman"]["uniques"].get<double>(), 12385733.880570082, 1e-6 * 12385733.880570082);
  EXPECT_NEAR(usa["zayatz"]["uniques"].get<double>(), 84369570.65864728, 1e-6 * 84369570.65864728);
  EXPECT_TRUE(usa["snb"]["uniques"].is_null());  // ARX: not available
  EXPECT_EQ(usa["snb"]["converged"], false);
  EXPECT_EQ(usa["dankar"]["selected"], "pitman");
  // Risk profile: ARX's 24 bins, the last holding the sample uniques.
  ASSERT_EQ(r["risk_profile"].size(), 24u);
  EXPECT_NEAR(r["risk_profile"][23]["records"].get<double>(), 15512.0 / 30162.0, 1e-12);
  EXPECT_NEAR(r["risk_profile"][23]["cumulative"].get<double>(), 1.0, 1e-12);

  const std::string table = out();
  EXPECT_NE(table.find("Sample uniques     15512"), std::string::npos) << table;
  EXPECT_NE(table.find("Los Angeles"), std::string::npos) << table;
  EXPECT_NE(table.find("(pitman)"), std::string::npos) << table;
}

// papers/002 Table II, ADULT: after de-identification with Dankar's rule at
// 1 % (ARX's optimum, age to 10-year intervals, 268 records suppressed), the
// share of sample uniques expected to be population unique is 4.0 % (USA),
// 8.3 % (California) and 18.4 % (Los Angeles). The output file has the
// suppressed records as '*', which the report ignores.
TEST_F(RiskCli, OutputOfTheOnePercentJobReproducesTableTwo) {
  const fs::path job = write_job();
  // The output of ARX's optimum, written by the library (the search itself
  // is tested in arx_risk_test.cc).
  {
    auto prepared = deid::prepare(deid::read_job(job.string()));
    deid::Transformation t(prepared->problem.qi_names.size(), 0);
    for (std::size_t q = 0; q < t.size(); ++q)
      if (prepared->problem.qi_names[q] == "age") t[q] = 2;
    deid::Checker checker(prepared->problem);
    deid::Classes classes;
    const deid::CheckResult c = checker.check(t, &classes);
    ASSERT_TRUE(c.solution);
    ASSERT_EQ(c.suppressed_records, 268u);
    std::ofstream out(dir_ / "output.csv", std::ios::binary);
    deid::write_output(*prepared, t, classes, out);
  }
  const fs::path json = dir_ / "risk.json";
  ASSERT_EQ(run("risk '" + job.string() + "' --input '" + (dir_ / "output.csv").string() + "' --json '" +
                json.string() + "'"),
            0)
      << err();
  const nlohmann::json r = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(r["rows"], 30162);
  EXPECT_EQ(r["suppressed_records"], 268);
  EXPECT_EQ(r["records"], 30162 - 268);
  EXPECT_EQ(r["classes"], 10799);  // ARX: output_classes.num_classes
  const double table_two[] = {0.040, 0.083, 0.184};
  for (std::size_t i = 0; i < 3; ++i) {
    const nlohmann::json& p = r["population_uniques"][i];
    EXPECT_NEAR(p["pu_su_ratio"].get<double>(), table_two[i], 0.0005) << p["name"];
    // The model holds: the estimated share of population uniques is <= 1 %
    // for the USA.
    if (i == 0) {
      EXPECT_LE(p["dankar"]["fraction"].get<double>(), 0.01);
    }
  }
}

// The job's risk section and --population choose the populations; the
// threshold changes the records at risk.
TEST_F(RiskCli, PopulationsAndThresholdAreConfigurable) {
  const fs::path job = write_job("risk:\n  threshold: 0.5\n  populations: {Bavaria: 13.1e6}\n");
  const fs::path json = dir_ / "risk.json";
  ASSERT_EQ(run("-q risk '" + job.string() + "' --json '" + json.string() + "'"), 0) << err();
  nlohmann::json r = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(r["population_uniques"].size(), 2u);  // Bavaria, and the job model's 318.9 M
  EXPECT_EQ(r["population_uniques"][0]["name"], "Bavaria");
  EXPECT_EQ(r["population_uniques"][1]["name"], "job");
  EXPECT_DOUBLE_EQ(r["attacker_models"]["threshold"].get<double>(), 0.5);
  // Risk above 0.5: the sample uniques only.
  EXPECT_NEAR(r["attacker_models"]["prosecutor"]["records_at_risk"].get<double>(), 15512.0 / 30162.0, 1e-12);
  EXPECT_TRUE(out().empty());  // -q

  ASSERT_EQ(run("-q risk '" + job.string() + "' --population Munich=1.5e6 --population USA=318.9e6 --json '" +
                json.string() + "'"),
            0)
      << err();
  r = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(r["population_uniques"].size(), 2u);
  EXPECT_EQ(r["population_uniques"][0]["name"], "Munich");
  EXPECT_DOUBLE_EQ(r["population_uniques"][0]["size"].get<double>(), 1.5e6);
}

TEST_F(RiskCli, ErrorsNameTheProblemAndExitWithTwo) {
  const fs::path job = write_job();
  // A table without the quasi-identifiers.
  std::ofstream(dir_ / "other.csv") << "a;b\n1;2\n";
  EXPECT_EQ(run("risk '" + job.string() + "' --input '" + (dir_ / "other.csv").string() + "'"), 2);
  EXPECT_NE(err().find("quasi-identifier 'age' is not a column"), std::string::npos) << err();
  EXPECT_EQ(run("risk '" + job.string() + "' --population USA"), 2);
  EXPECT_NE(err().find("NAME=SIZE"), std::string::npos) << err();
  const fs::path bad = write_job("risk:\n  populations: {USA: -3}\n");
  EXPECT_EQ(run("risk '" + bad.string() + "'"), 2);
  EXPECT_NE(err().find("size must be >= 1"), std::string::npos) << err();
}

}  // namespace
