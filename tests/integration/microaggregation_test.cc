// Microaggregation (transformation: microaggregation): against ARX 3.9.2's
// results on adult with age microaggregated
// (tests/testdata/reference/arx-adult-microaggregation.json), against
// exhaustive search, on a table small enough to work out by hand, and the
// job's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "deid/csv.h"
#include "deid/error.h"
#include "deid/output.h"
#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;
using deid::testing::example_path;

const std::vector<nlohmann::json>& runs() { return deid::testing::reference_runs("arx-adult-microaggregation.json"); }

std::string scalar(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();
}

// The adult job of a reference run: k = 5, the run's suppression limit and
// quality model; age microaggregated as the run says (with its hierarchy
// when generalized before), the other eight generalized.
std::string job_text(const nlohmann::json& run, const std::string& algorithm = "optimal") {
  const std::string adult = example_path("adult");
  std::string yaml = "input: {path: '" + adult + "/adult.csv', delimiter: ';'}\nattributes:\n";
  for (const char* q : {"age", "education", "marital-status", "native-country", "race", "salary-class", "sex",
                        "workclass", "occupation"}) {
    const nlohmann::json spec = run["attributes"].contains(q) ? run["attributes"][q] : nlohmann::json::object();
    yaml += std::string("  ") + q + ": {role: quasi-identifying";
    const bool generalized = !spec.contains("transformation") || spec.value("generalize-before", false);
    if (generalized) yaml += ", hierarchy: '" + adult + "/hierarchies/" + q + ".csv'";
    for (const auto& [key, value] : spec.items()) yaml += ", " + key + ": " + scalar(value);
    yaml += "}\n";
  }
  yaml += "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: 5}\n";
  yaml += "suppression-limit: " + scalar(run["suppression_limit"]) + "\n";
  yaml += "quality: {model: " + run["quality_model"].get<std::string>();
  if (!run["aggregate"].is_null()) yaml += ", aggregate: " + run["aggregate"].get<std::string>();
  yaml += "}\nsearch: {algorithm: " + algorithm + "}\n";
  return yaml;
}

deid::Job job_of(const nlohmann::json& run, const std::string& algorithm = "optimal") {
  return deid::parse_job(job_text(run, algorithm), "microaggregation.yaml", ".");
}

// The released table of a search, as deid anonymize writes it, parsed.
std::vector<std::vector<std::string>> released(deid::PreparedJob& prepared, const deid::Anonymization& a) {
  std::ostringstream out;
  deid::write_output(prepared, a.search.best->transformation, *a.classes, out);
  std::vector<std::vector<std::string>> rows;
  deid::read_csv_text(out.str(), "released.csv", deid::CsvOptions{';'},
                      [&](const deid::CsvRecord& r) { rows.emplace_back(r.fields.begin(), r.fields.end()); });
  return rows;
}

std::size_t column(const std::vector<std::vector<std::string>>& rows, const std::string& name) {
  const auto it = std::find(rows[0].begin(), rows[0].end(), name);
  return static_cast<std::size_t>(it - rows[0].begin());
}

class ArxMicroaggregation : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxMicroaggregation, OptimumLossAndReleasedColumnAreArxs) {
  const nlohmann::json& run = runs()[GetParam()];
  auto prepared = deid::prepare(job_of(run));
  const deid::Problem& pr = prepared->problem;
  const deid::Anonymization a = deid::testing::expect_arx_search(*prepared, run);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.result["microaggregated"]["age"]["function"], run["attributes"]["age"]["function"]);

  const auto rows = released(*prepared, a);
  ASSERT_EQ(rows.size(), pr.rows + 1);
  const std::size_t age = column(rows, "age");
  std::string joined;
  std::map<std::string, std::uint64_t> counts;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    joined += (r == 1 ? "" : "\n") + rows[r][age];
    ++counts[rows[r][age]];
  }
  const nlohmann::json& arx = run["released_age"];
  if (!run["released_ties_differ"].get<bool>()) {
    EXPECT_EQ(deid::sha256_hex(joined), arx["sha256"].get<std::string>());
    EXPECT_EQ(nlohmann::json(counts), arx["values"]);
  } else {
    // mode: ties go another way than in ARX; suppressed records agree.
    EXPECT_EQ(counts["*"], arx["values"]["*"].get<std::uint64_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Runs, ArxMicroaggregation, ::testing::Range<std::size_t>(0, 10),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return runs()[info.param]["name"].get<std::string>();
                         });

TEST(ArxMicroaggregationReference, HasTenRuns) { EXPECT_EQ(runs().size(), 10u); }

// Exhaustive search (every transformation of the lattice, each evaluated
// with its microaggregation loss) finds the optimum the optimal search finds,
// under Loss and under Precision.
TEST(Microaggregation, ExhaustiveSearchAgrees) {
  for (const nlohmann::json& run : runs()) {
    if (run["name"] != "adult_k5_age_mean" && run["name"] != "adult_k5_age_mean_precision") continue;
    SCOPED_TRACE(run["name"].get<std::string>());
    ASSERT_TRUE(deid::testing::expect_exhaustive_agrees(job_of(run), job_of(run, "exhaustive")).found);
  }
}

// mode releases in each class a value of the class that no other value of
// the class outnumbers.
TEST(Microaggregation, ModeIsAMostFrequentValueOfTheClass) {
  const auto it = std::find_if(runs().begin(), runs().end(), [](const auto& r) { return r["name"] == "adult_k5_age_mode"; });
  ASSERT_NE(it, runs().end());
  auto prepared = deid::prepare(job_of(*it));
  const deid::Anonymization a = deid::run_search(*prepared);
  ASSERT_TRUE(a.found);
  const auto rows = released(*prepared, a);
  const std::size_t age = column(rows, "age");
  const deid::Column& input_age = prepared->data.columns[static_cast<std::size_t>(prepared->data.column_index("age"))];
  // Class of a row: its released values other than age.
  std::map<std::vector<std::string>, std::map<std::string, std::uint64_t>> frequencies;
  std::map<std::vector<std::string>, std::string> label;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (rows[r][age] == "*") continue;
    std::vector<std::string> key = rows[r];
    key.erase(key.begin() + static_cast<std::ptrdiff_t>(age));
    ++frequencies[key][input_age.dictionary.value(input_age.codes[r - 1])];
    const auto [l, fresh] = label.emplace(key, rows[r][age]);
    EXPECT_EQ(l->second, rows[r][age]) << "one label per class, row " << r;
  }
  ASSERT_FALSE(label.empty());
  for (const auto& [key, f] : frequencies) {
    std::uint64_t most = 0;
    for (const auto& [value, n] : f) most = std::max(most, n);
    ASSERT_TRUE(f.count(label[key]));
    EXPECT_EQ(f.at(label[key]), most);
  }
}

// deid verify re-checks each released aggregate (its own implementation):
// the CLI's release of every reference job passes, with the line
// "microaggregation ok", and one changed value fails it.
TEST(Microaggregation, VerifyChecksTheAggregates) {
  const fs::path dir = fs::temp_directory_path() / ("deid-micro-verify-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string so = (dir / "out.txt").string(), se = (dir / "err.txt").string();
  for (const nlohmann::json& run : runs()) {
    SCOPED_TRACE(run["name"].get<std::string>());
    const std::string job = (dir / "job.yaml").string(), out = (dir / "out.csv").string();
    std::ofstream(job) << job_text(run);
    ASSERT_EQ(deid::testing::run_deid("-q anonymize '" + job + "' --output '" + out + "'", so, se), 0)
        << deid::testing::slurp(se);
    EXPECT_EQ(deid::testing::run_deid("verify '" + job + "' --output '" + out + "'", so, se), 0)
        << deid::testing::slurp(so) << deid::testing::slurp(se);
    EXPECT_NE(deid::testing::slurp(so).find("microaggregation     ok"), std::string::npos) << deid::testing::slurp(so);
    if (run["name"] != "adult_k5_age_mean") continue;
    // Change the first released age that is not '*'.
    std::string text = deid::testing::slurp(out);
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    const auto split = [](const std::string& line) {
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string x; std::getline(fields, x, ';');) f.push_back(x);
      return f;
    };
    const auto header = split(lines[0]);
    const auto age = static_cast<std::size_t>(std::find(header.begin(), header.end(), "age") - header.begin());
    ASSERT_LT(age, header.size());
    for (std::size_t i = 1; i < lines.size(); ++i) {
      auto f = split(lines[i]);
      if (f[age] == "*") continue;
      f[age] = std::to_string(std::stoi(f[age]) + 1);
      lines[i].clear();
      for (std::size_t c = 0; c < f.size(); ++c) lines[i] += (c ? ";" : "") + f[c];
      break;
    }
    std::ofstream changed(out, std::ios::trunc);
    for (const auto& l : lines) changed << l << "\n";
    changed.close();
    EXPECT_EQ(deid::testing::run_deid("verify '" + job + "' --output '" + out + "'", so, se), 1);
    EXPECT_NE(deid::testing::slurp(so).find("microaggregation     FAILED"), std::string::npos) << deid::testing::slurp(so);
  }
  fs::remove_all(dir);
}

// --- a table worked out by hand ---------------------------------------------

class SmallTable : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("deid-micro-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // zip a: x = 1, 2, 2, 10 (and one empty); zip b: x = 3, 4.
    write("data.csv", "zip;x;y\na;1;1.5\na;2;2.5\nb;3;1e7\na;2;0.001\nb;4;1e7\na;10;2\na;;3\n");
    write("zip.csv", "a;*\nb;*\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string job(const std::string& x, const std::string& y = "{role: insensitive}") const {
    return "input: {path: '" + (dir_ / "data.csv").string() + "'}\nattributes:\n  zip: {role: quasi-identifying, " +
           "hierarchy: '" + (dir_ / "zip.csv").string() + "'}\n  x: " + x + "\n  y: " + y +
           "\nprivacy:\n  - k-anonymity: {k: 2}\nsuppression-limit: 0\n";
  }
  // The released x (and y) per row for microaggregation `function` of x.
  std::vector<std::vector<std::string>> run(const std::string& x, const std::string& y = "{role: insensitive}") {
    auto prepared = deid::prepare(deid::parse_job(job(x, y), "small.yaml", "."));
    const deid::Anonymization a = deid::run_search(*prepared);
    EXPECT_TRUE(a.found);
    if (!a.found) return {};
    auto rows = released(*prepared, a);
    rows.erase(rows.begin());
    return rows;
  }
  static std::vector<std::string> col(const std::vector<std::vector<std::string>>& rows, std::size_t c) {
    std::vector<std::string> out;
    for (const auto& r : rows) out.push_back(r[c]);
    return out;
  }
  fs::path dir_;
};

TEST_F(SmallTable, EachFunctionAsWorkedOut) {
  using V = std::vector<std::string>;
  const std::string micro = "{role: quasi-identifying, transformation: microaggregation, function: ";
  // zip stays at level 0: classes a (1, 2, 2, 10, missing) and b (3, 4).
  // mean: a 15/4 = 3.75 -> 4, b 3.5 -> 4 (half up).
  EXPECT_EQ(col(run(micro + "mean}"), 1), (V{"4", "4", "4", "4", "4", "4", "4"}));
  // median: a (2 + 2) / 2 = 2; b (3 + 4) / 2 = 3.5 -> 4.
  EXPECT_EQ(col(run(micro + "median}"), 1), (V{"2", "2", "4", "2", "4", "2", "2"}));
  // mode: a 2; b a tie, 3 came first.
  EXPECT_EQ(col(run(micro + "mode}"), 1), (V{"2", "2", "3", "2", "3", "2", "2"}));
  // interval.
  EXPECT_EQ(col(run(micro + "interval}"), 1),
            (V{"[1, 10]", "[1, 10]", "[3, 4]", "[1, 10]", "[3, 4]", "[1, 10]", "[1, 10]"}));
  // geometric mean: a (2 * 3 * 3 * 11)^(1/4) - 1 = 2.75 -> 3; b (4 * 5)^(1/2) - 1 = 3.47 -> 3.
  EXPECT_EQ(col(run(micro + "geometric-mean}"), 1), (V{"3", "3", "3", "3", "3", "3", "3"}));
  // A decimal column prints as Java's Double.toString: a (1.5 + 2.5 + 0.001 + 2 + 3) / 5, b 1.0E7.
  const auto y = col(run("{role: insensitive}", micro + "mean}"), 2);
  EXPECT_EQ(y, (V{"1.8002", "1.8002", "1.0E7", "1.8002", "1.0E7", "1.8002", "1.8002"}));
}

TEST_F(SmallTable, LossCountsTheDistinctValuesOfEachClass) {
  auto prepared = deid::prepare(deid::parse_job(
      job("{role: quasi-identifying, transformation: microaggregation, function: mean}"), "small.yaml", "."));
  const deid::Anonymization a = deid::run_search(*prepared);
  ASSERT_TRUE(a.found);
  // x has 6 distinct values (1, 2, 3, 4, 10, empty). Class a (5 records)
  // shows 4 of them, class b (2 records) 2: (5 * 4/6 + 2 * 2/6) / 7 = 4/7.
  EXPECT_NEAR(a.result["information_loss_per_attribute"]["x"].get<double>(), 4.0 / 7.0, 1e-9);
  EXPECT_EQ(a.result["information_loss_per_attribute"]["zip"].get<double>(), 0.0);
  EXPECT_EQ(a.result["transformation"], (nlohmann::json{{"zip", 0}}));
}

TEST_F(SmallTable, ANonNumberIsAnErrorAtItsLine) {
  write("data.csv", "zip;x;y\na;1;1\na;two;1\nb;3;1\nb;4;1\n");
  try {
    deid::prepare(deid::parse_job(job("{role: quasi-identifying, transformation: microaggregation}"), "s.yaml", "."));
    FAIL() << "no error";
  } catch (const deid::InputError& e) {
    EXPECT_EQ(e.where().line, 3u);
    EXPECT_NE(e.problem().find("'two' is not a number"), std::string::npos) << e.problem();
  }
  // mode takes any value.
  EXPECT_NO_THROW(deid::prepare(deid::parse_job(
      job("{role: quasi-identifying, transformation: microaggregation, function: mode}"), "s.yaml", ".")));
}

TEST_F(SmallTable, JobErrors) {
  const auto fails = [&](const std::string& x, const std::string& words) {
    try {
      deid::prepare(deid::parse_job(job(x), "s.yaml", "."));
      ADD_FAILURE() << "no error for " << x;
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  fails("{role: quasi-identifying, transformation: microaggregation, function: average}",
        "unknown microaggregation function 'average'");
  fails("{role: quasi-identifying, transformation: shuffle}", "unknown transformation 'shuffle'");
  fails("{role: insensitive, transformation: microaggregation}", "for quasi-identifying attributes");
  fails("{role: quasi-identifying, hierarchy: h.csv, function: mean}", "only with transformation: microaggregation");
  fails("{role: quasi-identifying, transformation: microaggregation, hierarchy: h.csv}", "generalize-before: true");
  fails("{role: quasi-identifying, transformation: microaggregation, max-level: 1}", "generalize-before: true");
  fails("{role: quasi-identifying, transformation: microaggregation, generalize-before: true}", "needs a 'hierarchy'");
}

TEST_F(SmallTable, EveryQuasiIdentifierMicroaggregatedIsAnError) {
  const std::string text = "input: {path: '" + (dir_ / "data.csv").string() +
                           "'}\nattributes:\n  zip: {role: insensitive}\n  x: {role: quasi-identifying, "
                           "transformation: microaggregation}\n  y: {role: insensitive}\nprivacy:\n  - k-anonymity: "
                           "{k: 2}\n";
  EXPECT_THROW(deid::prepare(deid::parse_job(text, "s.yaml", ".")), deid::JobError);
}

TEST_F(SmallTable, PopulationUniquenessWithAnAggregatedDimensionIsAnError) {
  std::string text = job("{role: quasi-identifying, transformation: microaggregation}");
  text.replace(text.find("  - k-anonymity: {k: 2}"), 23,
               "  - population-uniqueness: {threshold: 0.5, population-size: 1000}");
  EXPECT_THROW(deid::prepare(deid::parse_job(text, "s.yaml", ".")), deid::JobError);
}

}  // namespace
