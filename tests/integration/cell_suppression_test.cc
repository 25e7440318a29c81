// `deid suppress` end to end (docs/cell-suppression.md): the example job on
// the synthetic discharge file, checked by the independent checker
// (src/verify/cell_suppression_check.h), the combinations algorithm
// against the complete one, determinism, samples, the command line, job
// errors, and random jobs with released hierarchy levels.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cell_suppression_check.h"
#include "deid/cell_suppression_job.h"
#include "deid/error.h"
#include "deid/job.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) { return deid::testing::slurp(path.string()); }

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("deid_cells_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const fs::path kExample = fs::path(DEID_EXAMPLES_DIR) / "discharge";

// The example job with every output moved to `dir`.
deid::Job example_job(const fs::path& dir) {
  deid::Job job = deid::read_job((kExample / "discharge.yaml").string());
  job.output.path = (dir / "out.csv").string();
  job.output.result = (dir / "out.json").string();
  auto& samples = job.cell_suppression->samples;
  for (std::size_t i = 0; i < samples.size(); ++i)
    samples[i].path = (dir / ("sample" + std::to_string(i) + ".csv")).string();
  return job;
}

// What the example releases, written out by hand from the job file.
verify::CellOptions example_options(std::uint64_t k) {
  verify::CellOptions o;
  o.k = k;
  const std::string h = (kExample / "hierarchies").string() + "/";
  o.released = {{"region", "province", 1, h + "province.csv"},
                {"age_group", "age_group", 0, ""},
                {"sex", "sex", 0, ""},
                {"mrdx", "diagnosis", 0, ""},
                {"cmg", "diagnosis", 1, h + "diagnosis.csv"},
                {"diag_block", "diagnosis", 2, h + "diagnosis.csv"},
                {"diag_chapter", "diagnosis", 3, h + "diagnosis.csv"},
                {"cci", "intervention", 0, ""},
                {"short_cci", "intervention", 1, h + "intervention.csv"},
                {"los_weeks", "los", 1, h + "los.csv"}};
  o.removed = {"abstract_id"};
  // Every way the adversary can attack: the diagnosis at any level from the
  // one he knows (CMG) up, including the chapter, which is not evaluated
  // but copies the block's suppression.
  for (const char* d : {"cmg", "diag_block", "diag_chapter"}) {
    o.combinations.push_back({"region", "age_group", "sex", d, "short_cci"});
    o.combinations.push_back({"age_group", "sex", d, "los_weeks"});
  }
  return o;
}

TEST(CellSuppressionJob, ExampleOutputPassesTheIndependentChecker) {
  const fs::path dir = temp_dir("example");
  const deid::Job job = example_job(dir);
  const deid::CellSuppressionRun run = deid::run_cell_suppression(job);
  EXPECT_EQ(run.k, 5u);  // tau 0.2

  const auto result = nlohmann::json::parse(slurp(dir / "out.json"));
  EXPECT_EQ(result["combinations"],
            (nlohmann::json{{"region", "age_group", "sex", "cmg", "short_cci"},
                            {"region", "age_group", "sex", "diag_block", "short_cci"},
                            {"age_group", "sex", "cmg", "los_weeks"},
                            {"age_group", "sex", "diag_block", "los_weeks"}}));

  const verify::CellOptions opt = example_options(run.k);
  const verify::CellReport report =
      verify::check_cell_suppression((kExample / "discharge.csv").string(), (dir / "out.csv").string(), opt);
  EXPECT_TRUE(report.valid()) << report.to_string();
  for (std::uint64_t smallest : report.smallest_class) EXPECT_GE(smallest, run.k);
  EXPECT_EQ(report.suppressed_cells, run.loss.suppressed_cells);

  // The output keeps the sensitive and other columns and drops the identifier.
  const std::string header = slurp(dir / "out.csv").substr(0, slurp(dir / "out.csv").find('\n'));
  EXPECT_EQ(header, "region,age_group,sex,mrdx,cmg,diag_block,diag_chapter,cci,short_cci,los_weeks,discharge");

  // Attack 3 on the released file: no class below k in any combination.
  for (const auto& a : result["attack3"]) EXPECT_TRUE(a["file"]["meets_threshold"].get<bool>()) << a.dump();
  EXPECT_TRUE(result.contains("missingness"));
  EXPECT_TRUE(result["registry"].contains("attack1"));
  EXPECT_TRUE(result["registry"].contains("attack2"));
}

TEST(CellSuppressionJob, CombinationsSuppressFewerCellsThanTheCompleteAlgorithm) {
  // papers/003, Tables 9 and 10: the combinations algorithm loses less
  // than the same algorithm on one combination of all quasi-identifiers.
  const fs::path dir = temp_dir("complete");
  const deid::CellSuppressionRun run = deid::run_cell_suppression(example_job(dir));
  ASSERT_TRUE(run.complete_loss.has_value());
  const auto combos = run.loss.suppressed_cells, complete = run.complete_loss->suppressed_cells;
  RecordProperty("combinations_suppressed_cells", std::to_string(combos));
  RecordProperty("complete_suppressed_cells", std::to_string(complete));
  std::cout << "[ cells    ] combinations " << combos << ", complete " << complete << " of " << run.loss.cells
            << " quasi-identifier cells\n";
  EXPECT_LT(combos, complete);
  EXPECT_LT(run.loss.entropy, run.complete_loss->entropy);
  const auto result = nlohmann::json::parse(slurp(dir / "out.json"));
  EXPECT_LT(result["entropy_percent_of_complete"]["total"].get<double>(), 100.0);
}

TEST(CellSuppressionJob, OutputAndSamplesAreByteForByteDeterministic) {
  const fs::path a = temp_dir("det_a"), b = temp_dir("det_b");
  deid::run_cell_suppression(example_job(a));
  deid::run_cell_suppression(example_job(b));
  for (const char* f : {"out.csv", "sample0.csv", "sample1.csv"}) EXPECT_EQ(slurp(a / f), slurp(b / f)) << f;
}

TEST(CellSuppressionJob, SamplesAreNonOverlappingTenPercentDrawsOfTheOutput) {
  const fs::path dir = temp_dir("samples");
  deid::run_cell_suppression(example_job(dir));
  std::string why;
  const auto out = verify::read_csv_file((dir / "out.csv").string(), ',', true, &why);
  ASSERT_TRUE(out) << why;
  std::map<std::vector<std::string>, long> available;
  for (const auto& row : out->rows) ++available[row];
  for (const char* f : {"sample0.csv", "sample1.csv"}) {
    const auto s = verify::read_csv_file((dir / f).string(), ',', true, &why);
    ASSERT_TRUE(s) << why;
    EXPECT_EQ(s->header, out->header);
    EXPECT_EQ(s->rows.size(), 500u);
    // Together the samples take each output row at most once.
    for (const auto& row : s->rows) EXPECT_GE(--available[row], 0) << f;
  }
}

// ---------------------------------------------------------------------------
// The command line.

class SuppressCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    spit(dir_ / "data.csv",
         "id,age,sex,diag,note\n"
         "1,30,M,J18,a\n2,30,M,J18,b\n3,30,F,J18,c\n4,30,F,J20,d\n5,40,M,J20,e\n"
         "6,40,M,J20,f\n7,40,F,J20,g\n8,40,F,K35,h\n9,30,M,K35,i\n10,40,M,K35,j\n");
    spit(dir_ / "diag.csv", "J18;J;*\nJ20;J;*\nK35;K;*\n");
  }
  int run(const std::string& args) {
    const std::string cmd = std::string("'") + DEID_CLI_PATH + "' " + args + " >'" + (dir_ / "stdout").string() +
                            "' 2>'" + (dir_ / "stderr").string() + "'";
    const int status = std::system(cmd.c_str());
    out_ = slurp(dir_ / "stdout");
    err_ = slurp(dir_ / "stderr");
    return (status == -1 || !WIFEXITED(status)) ? -1 : WEXITSTATUS(status);
  }
  void job(const std::string& section) {
    spit(dir_ / "job.yaml",
         "input: {path: data.csv}\n"
         "attributes:\n"
         "  id:   {role: identifying}\n"
         "  age:  {role: quasi-identifying}\n"
         "  sex:  {role: quasi-identifying}\n"
         "  diag: {role: quasi-identifying, hierarchy: diag.csv}\n"
         "  note: {role: insensitive}\n" +
             section + "output: {path: out.csv, result: out.json}\n");
  }
  fs::path dir_;
  std::string out_, err_;
};

TEST_F(SuppressCli, WritesOneRowPerInputRowWithMarkersAndTheResult) {
  job("cell-suppression:\n  k: 2\n  release-levels:\n    diag: {levels: [0, 1]}\n");
  ASSERT_EQ(run("suppress " + (dir_ / "job.yaml").string()), 0) << err_;
  EXPECT_NE(out_.find("Cells suppressed"), std::string::npos) << out_;
  const std::string csv = slurp(dir_ / "out.csv");
  std::istringstream lines(csv);
  std::string first;
  std::getline(lines, first);
  EXPECT_EQ(first, "age,sex,diag,diag_L1,note");
  int rows = 0;
  for (std::string l; std::getline(lines, l);) ++rows;
  EXPECT_EQ(rows, 10);
  const auto result = nlohmann::json::parse(slurp(dir_ / "out.json"));
  EXPECT_EQ(result["k"], 2);
  EXPECT_EQ(result["marker"], "*");
  verify::CellOptions opt;
  opt.k = 2;
  opt.released = {{"age", "age", 0, ""}, {"sex", "sex", 0, ""}, {"diag", "diag", 0, ""},
                  {"diag_L1", "diag", 1, (dir_ / "diag.csv").string()}};
  opt.removed = {"id"};
  opt.combinations = {{"age", "sex", "diag"}, {"age", "sex", "diag_L1"}};
  const auto rep = verify::check_cell_suppression((dir_ / "data.csv").string(), (dir_ / "out.csv").string(), opt);
  EXPECT_TRUE(rep.valid()) << rep.to_string();
}

TEST_F(SuppressCli, ExitsTwoOnAJobErrorNamingTheKey) {
  job("cell-suppression:\n  k: 2\n  tau: 0.5\n");
  ASSERT_EQ(run("suppress " + (dir_ / "job.yaml").string()), 2);
  EXPECT_NE(err_.find("either k or tau"), std::string::npos) << err_;
  job("cell-suppression:\n  k: 2\n  colour: red\n");
  ASSERT_EQ(run("suppress " + (dir_ / "job.yaml").string()), 2);
  EXPECT_NE(err_.find("unknown key 'colour' in cell-suppression"), std::string::npos) << err_;
  job("cell-suppression:\n  k: 2\n  weights: {note: 0.5}\n");
  ASSERT_EQ(run("suppress " + (dir_ / "job.yaml").string()), 2);
  EXPECT_NE(err_.find("role: quasi-identifying"), std::string::npos) << err_;
  job("cell-suppression:\n  k: 2\n  combinations: [[age, nosuch]]\n");
  ASSERT_EQ(run("suppress " + (dir_ / "job.yaml").string()), 2);
  EXPECT_NE(err_.find("'nosuch'"), std::string::npos) << err_;
  job("cell-suppression:\n  k: 20\n");
  ASSERT_EQ(run("suppress " + (dir_ / "job.yaml").string()), 2);
  EXPECT_NE(err_.find("fewer than k"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
}

TEST_F(SuppressCli, AnonymizeRefusesACellSuppressionOnlyJob) {
  job("cell-suppression:\n  k: 2\n");
  ASSERT_EQ(run("anonymize " + (dir_ / "job.yaml").string()), 2);
  EXPECT_NE(err_.find("deid suppress"), std::string::npos) << err_;
}

// ---------------------------------------------------------------------------
// Random jobs: every combination an adversary can use (each attribute at
// any released level from the known one up) is k-anonymous, released values
// are the generalized input values, and suppression propagates.

TEST(CellSuppressionJob, RandomJobsWithReleasedLevelsPassTheChecker) {
  std::mt19937_64 rng(303);
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE(std::string("trial ").append(std::to_string(trial)));
    const fs::path dir = temp_dir("random");
    const int na = 2 + static_cast<int>(rng() % 3);
    const int n = 40 + static_cast<int>(rng() % 260);
    struct Attr {
      std::string name;
      int domain;
      std::vector<int> levels;
      int known;
    };
    std::vector<Attr> attrs;
    for (int a = 0; a < na; ++a) {
      Attr at{std::string("q").append(std::to_string(a)), 2 + static_cast<int>(rng() % 12), {}, 0};
      for (int l = 0; l < 3; ++l)
        if (rng() % 2) at.levels.push_back(l);
      if (at.levels.empty()) at.levels.push_back(static_cast<int>(rng() % 3));
      at.known = at.levels[rng() % at.levels.size()];
      attrs.push_back(at);
      // Hierarchy: v<i> ; g<i/2> ; h<i/4> ; *
      std::string h;
      for (int i = 0; i < at.domain; ++i)
        h += "v" + std::to_string(i) + ";g" + std::to_string(i / 2) + ";h" + std::to_string(i / 4) + ";*\n";
      spit(dir / (at.name + ".csv"), h);
    }
    std::string data = "id";
    for (const auto& a : attrs) data += "," + a.name;
    data += ",s\n";
    for (int r = 0; r < n; ++r) {
      data += std::to_string(r);
      for (const auto& a : attrs) {
        const auto x = rng() % static_cast<unsigned>(a.domain), y = rng() % static_cast<unsigned>(a.domain);
        data += ",v" + std::to_string(std::min(x, y));  // skewed
      }
      data += ",s" + std::to_string(rng() % 3) + "\n";
    }
    spit(dir / "data.csv", data);
    const std::uint64_t k = 2 + rng() % 4;
    std::string yaml = "input: {path: data.csv}\nattributes:\n  id: {role: identifying}\n  s: {role: sensitive}\n";
    for (const auto& a : attrs) yaml += "  " + a.name + ": {role: quasi-identifying, hierarchy: " + a.name + ".csv}\n";
    yaml += "cell-suppression:\n  k: " + std::to_string(k) + "\n  release-levels:\n";
    for (const auto& a : attrs) {
      yaml += "    " + a.name + ": {levels: [";
      for (std::size_t i = 0; i < a.levels.size(); ++i) yaml += (i ? ", " : "") + std::to_string(a.levels[i]);
      yaml += "], known-level: " + std::to_string(a.known) + ", totally-ordered: " + (rng() % 2 ? "true" : "false") +
              "}\n";
    }
    // One or two adversary combinations of attributes.
    std::vector<std::vector<int>> combos(1 + rng() % 2);
    for (auto& c : combos) {
      for (int a = 0; a < na; ++a)
        if (rng() % 3) c.push_back(a);
      if (c.empty()) c.push_back(static_cast<int>(rng() % static_cast<unsigned>(na)));
    }
    yaml += "  combinations:\n";
    for (const auto& c : combos) {
      yaml += "    - [";
      for (std::size_t i = 0; i < c.size(); ++i) yaml += (i ? ", " : "") + attrs[static_cast<std::size_t>(c[i])].name;
      yaml += "]\n";
    }
    if (rng() % 2) {
      yaml += "  weights: {";
      for (int a = 0; a < na; ++a)
        yaml += (a ? ", " : "") + attrs[static_cast<std::size_t>(a)].name + ": " + std::to_string((rng() % 5) / 4.0);
      yaml += "}\n";
    }
    yaml += "output: {path: out.csv}\n";
    spit(dir / "job.yaml", yaml);
    SCOPED_TRACE(yaml);

    deid::run_cell_suppression(deid::read_job((dir / "job.yaml").string()));

    verify::CellOptions opt;
    opt.k = k;
    opt.removed = {"id"};
    auto column = [&](const Attr& a, int level) {
      return level == a.levels.front() ? a.name : a.name + "_L" + std::to_string(level);
    };
    for (const auto& a : attrs)
      for (int l : a.levels) opt.released.push_back({column(a, l), a.name, l, (dir / (a.name + ".csv")).string()});
    for (const auto& c : combos) {
      // Cartesian product over the attributes of the levels >= known.
      std::vector<std::vector<std::string>> product = {{}};
      for (int ai : c) {
        const Attr& a = attrs[static_cast<std::size_t>(ai)];
        std::vector<std::vector<std::string>> next;
        for (const auto& partial : product)
          for (int l : a.levels)
            if (l >= a.known) {
              auto p = partial;
              p.push_back(column(a, l));
              next.push_back(p);
            }
        product = next;
      }
      opt.combinations.insert(opt.combinations.end(), product.begin(), product.end());
    }
    const auto rep = verify::check_cell_suppression((dir / "data.csv").string(), (dir / "out.csv").string(), opt);
    ASSERT_TRUE(rep.valid()) << rep.to_string();
  }
}

TEST(CellSuppressionJob, RuntimeErrorsNameTheProblem) {
  const fs::path dir = temp_dir("errors");
  deid::Job job = example_job(dir);
  job.cell_suppression->missingness.push_back({"nosuch", "region"});
  try {
    deid::run_cell_suppression(job);
    FAIL() << "expected a JobError";
  } catch (const deid::JobError& e) {
    EXPECT_NE(std::string(e.what()).find("'nosuch'"), std::string::npos) << e.what();
  }
  deid::Job plain = example_job(dir);
  plain.cell_suppression.reset();
  EXPECT_THROW(deid::run_cell_suppression(plain), deid::JobError);
}

}  // namespace
