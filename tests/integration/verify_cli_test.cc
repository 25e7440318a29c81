// `deid verify` (docs/verify.md), run as a process like cli_test.cc: the
// output of every ARX reference job and of a `deid suppress` job verifies
// (exit 0), and an output altered in each way a release can go wrong is
// caught (exit 1) by the check that names the fault, with the first failing
// record on standard error. Also the verifier library's own additions
// (SHA-256, delimiter detection, row lines).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sha256.h"
#include "support/reference.h"
#include "verify.h"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int code = -1;  // -1: did not exit normally
  std::string out, err;
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Runs the CLI with `args` (paths quoted by the caller), keeping its output in `dir`.
CliRun run_cli(const std::string& args, const fs::path& dir) {
  const std::string cmd = std::string("'") + DEID_CLI_PATH + "' " + args + " >'" + (dir / "stdout").string() +
                          "' 2>'" + (dir / "stderr").string() + "'";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.out = deid::testing::slurp((dir / "stdout").string());
  r.err = deid::testing::slurp((dir / "stderr").string());
  if (status != -1 && WIFEXITED(status)) r.code = WEXITSTATUS(status);
  return r;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("deid_verify_cli_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The line of the table of checks for `check` ("" when absent); with
// `prefix`, the first line whose name starts with `check`.
std::string check_line(const std::string& table, const std::string& check, bool prefix = false) {
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(check, 0) == 0 && line.size() > check.size() && (prefix || line[check.size()] == ' ')) return line;
  return "";
}

// The checks that failed, by name.
std::vector<std::string> failures(const std::string& table) {
  std::vector<std::string> out;
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("  FAILED ");
    if (at == std::string::npos) continue;
    std::string name = line.substr(0, at);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    out.push_back(name);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Every ARX reference job, anonymized and verified through the CLI.

const char* const kReferenceRuns[] = {
    "adult_dankar001",  "adult_dankar005",    "adult_k10_loss_s10", "adult_k2_loss_s1",    "adult_k5_aecs",
    "adult_k5_disc",    "adult_k5_entropy",   "adult_k5_height",    "adult_k5_ldist3_occ", "adult_k5_loss",
    "adult_k5_loss_arith", "adult_k5_loss_s0", "adult_k5_prec",     "adult_k5_tord02_age", "adult_ldist2_occ",
    "adult_lent2_occ",  "adult_lrec34_occ",   "adult_pitman001",    "adult_snb001",        "adult_teq02_occ",
    "adult_thier02_occ", "adult_tord02_age",  "adult_zayatz001"};

TEST(VerifyCliReferenceRuns, ListCoversEveryReferenceRun) {
  std::vector<std::string> all;
  for (const auto& run : deid::testing::arx_adult_runs()) all.push_back(run["name"].get<std::string>());
  std::vector<std::string> listed(std::begin(kReferenceRuns), std::end(kReferenceRuns));
  std::sort(all.begin(), all.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(all, listed);
}

// The job file of a reference run (the job of support/reference.h, written
// as YAML for the CLI), with its outputs in `dir`.
std::string reference_job_yaml(const nlohmann::json& run) {
  const std::string h = deid::testing::example_path("adult/hierarchies/");
  std::string y = "input: {path: '" + deid::testing::example_path("adult/adult.csv") + "', delimiter: ';'}\nattributes:\n";
  for (const auto& qi : run["quasi_identifiers"]) {
    const std::string name = qi.get<std::string>();
    y += "  " + name + ": {role: quasi-identifying, hierarchy: '" + h + name + ".csv'}\n";
  }
  std::string sensitive;
  if (!run["sensitive"].is_null()) {
    sensitive = run["sensitive"].get<std::string>();
    y += "  " + sensitive + ": {role: sensitive, hierarchy: '" + h + sensitive + ".csv'}\n";
  }
  y += "default-role: insensitive\nprivacy:\n";
  for (const auto& m : run["privacy_models"]) {
    const std::string s = m.get<std::string>();
    const std::string kind = s.substr(0, s.find('=')), arg = s.substr(s.find('=') + 1);
    if (kind == "k") {
      y += "  - k-anonymity: {k: " + arg + "}\n";
    } else if (kind == "ldiv-distinct" || kind == "ldiv-entropy") {
      y += "  - l-diversity: {attribute: " + sensitive + ", variant: " + kind.substr(5) + ", l: " + arg + "}\n";
    } else if (kind == "ldiv-recursive") {  // "c,l"
      y += "  - l-diversity: {attribute: " + sensitive + ", variant: recursive, c: " + arg.substr(0, arg.find(',')) +
           ", l: " + arg.substr(arg.find(',') + 1) + "}\n";
    } else if (kind.rfind("tclose-", 0) == 0) {
      const std::string d = kind == "tclose-equal" ? "equal" : kind == "tclose-ordered" ? "ordered" : "hierarchical";
      y += "  - t-closeness: {attribute: " + sensitive + ", distance: " + d + ", t: " + arg + "}\n";
    } else {
      std::ostringstream n;
      n.precision(17);
      n << run["population_size"].get<double>();
      y += "  - population-uniqueness: {threshold: " + arg + ", population-size: " + n.str() +
           ", estimator: " + kind + "}\n";
    }
  }
  std::ostringstream limit;
  limit.precision(17);
  limit << run["suppression_limit"].get<double>();
  y += "suppression-limit: " + limit.str() + "\n";
  const std::string model = run["quality_model"].get<std::string>();
  y += "quality: {model: " + model;
  const std::string agg = run["aggregate"].is_null() ? "" : run["aggregate"].get<std::string>();
  if (model != "discernability" && model != "aecs") {
    if (agg == "Geometric mean") y += ", aggregate: geometric-mean";
    if (agg == "Arithmetric mean" || agg == "Arithmetic mean") y += ", aggregate: arithmetic-mean";
    if (agg == "Sum") y += ", aggregate: sum";
    if (agg == "Maximum") y += ", aggregate: max";
  }
  if (model == "loss") {
    std::ostringstream gs;
    gs << run["gs_factor"].get<double>();
    y += ", gs-factor: " + gs.str();
  }
  y += "}\noutput: {path: out.csv, result: out.json}\n";
  return y;
}

class VerifyCliReference : public ::testing::TestWithParam<const char*> {};

TEST_P(VerifyCliReference, AnonymizedOutputVerifiesWithItsResult) {
  const nlohmann::json& run = deid::testing::arx_adult_run(GetParam());
  const fs::path dir = fresh_dir(GetParam());
  write_file(dir / "job.yaml", reference_job_yaml(run));
  const CliRun a = run_cli("anonymize " + q(dir / "job.yaml") + " -q", dir);
  ASSERT_EQ(a.code, 0) << a.err;
  const CliRun v = run_cli("verify " + q(dir / "job.yaml") + " --result " + q(dir / "out.json"), dir);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_TRUE(v.err.empty()) << v.err;
  EXPECT_TRUE(failures(v.out).empty()) << v.out;
  // Every privacy model of the job has its line, and it holds.
  for (const auto& m : run["privacy_models"]) {
    const std::string s = m.get<std::string>();
    const std::string kind = s.substr(0, s.find('='));
    const std::string line =
        kind == "k"                      ? check_line(v.out, "k-anonymity (k=" + s.substr(2) + ")")
        : kind.rfind("ldiv-", 0) == 0    ? check_line(v.out, "l-diversity (" + kind.substr(5) + ",", true)
        : kind.rfind("tclose-", 0) == 0  ? check_line(v.out, "t-closeness (", true)
                                         : check_line(v.out, "population uniqueness (" + kind + ",", true);
    EXPECT_NE(line.find(" ok "), std::string::npos) << s << "\n" << v.out;
  }
  EXPECT_NE(check_line(v.out, "result counts").find(" ok "), std::string::npos) << v.out;
  // deid anonymize records the SHA-256 of its input and output in the result.
  EXPECT_NE(check_line(v.out, "sha256 input").find(" ok "), std::string::npos) << v.out;
  EXPECT_NE(check_line(v.out, "sha256 output").find(" ok "), std::string::npos) << v.out;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Adult, VerifyCliReference, ::testing::ValuesIn(kReferenceRuns),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// ---------------------------------------------------------------------------
// `deid suppress`: the discharge example, copied with its outputs redirected.

TEST(VerifyCliSuppress, CellSuppressionOutputVerifiesAndAlterationsAreCaught) {
  const fs::path dir = fresh_dir("suppress");
  const fs::path example = deid::testing::example_path("discharge");
  fs::copy(example, dir / "discharge", fs::copy_options::recursive);
  std::string job = deid::testing::slurp((example / "discharge.yaml").string());
  for (std::size_t at; (at = job.find("../../out/")) != std::string::npos;) job.erase(at, 10);
  write_file(dir / "discharge" / "job.yaml", job);
  const fs::path job_path = dir / "discharge" / "job.yaml";
  const CliRun s = run_cli("suppress " + q(job_path) + " -q", dir);
  ASSERT_EQ(s.code, 0) << s.err;
  const fs::path out = dir / "discharge" / "discharge-suppressed.csv";
  const fs::path result = dir / "discharge" / "discharge-suppressed.json";
  ASSERT_TRUE(fs::exists(out));

  const CliRun v = run_cli("verify " + q(job_path) + " --result " + q(result), dir);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_TRUE(failures(v.out).empty()) << v.out;
  // tau 0.2: k = 5, over every choice of released levels from the known one up.
  EXPECT_NE(check_line(v.out, "k-anonymity (k=5, 6 combinations)").find(" ok "), std::string::npos) << v.out;
  // deid suppress records the SHA-256 of its input, output and samples.
  EXPECT_NE(check_line(v.out, "sha256 input").find(" ok "), std::string::npos) << v.out;
  EXPECT_NE(check_line(v.out, "sha256 output").find(" ok "), std::string::npos) << v.out;
  EXPECT_NE(check_line(v.out, "sha256 sample").find(" ok "), std::string::npos) << v.out;

  std::string text = deid::testing::slurp(out.string());
  ASSERT_EQ(text.substr(0, text.find('\n')).find("abstract_id"), std::string::npos);
  // The last row dropped: caught by the row count.
  {
    std::string dropped = text.substr(0, text.rfind('\n', text.size() - 2) + 1);
    write_file(dir / "dropped.csv", dropped);
    const CliRun d = run_cli("verify " + q(job_path) + " --output " + q(dir / "dropped.csv"), dir);
    EXPECT_EQ(d.code, 1) << d.out << d.err;
    EXPECT_EQ(failures(d.out).front(), "rows") << d.out;
  }
  // A copied value changed (the last column, discharge, of the third data row).
  {
    std::string changed = text;
    std::size_t at = 0;
    for (int line = 0; line < 4; ++line) at = changed.find('\n', at) + 1;
    changed.insert(at - 1, "x");
    write_file(dir / "changed.csv", changed);
    const CliRun c = run_cli("verify " + q(job_path) + " --output " + q(dir / "changed.csv"), dir);
    EXPECT_EQ(c.code, 1) << c.out << c.err;
    EXPECT_EQ(failures(c.out), std::vector<std::string>{"copied columns"}) << c.out;
    EXPECT_NE(c.err.find("data row 3, column 'discharge'"), std::string::npos) << c.err;
  }
  fs::remove_all(dir);
}

// ---------------------------------------------------------------------------
// Alterations of one anonymized output, each caught by the check that names
// it. The job has every kind of column: quasi-identifiers, a sensitive
// attribute under distinct 2-diversity, an insensitive and an identifying
// column.

class VerifyCliAltered : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_dir("altered"));
    const std::string h = deid::testing::example_path("adult/hierarchies/");
    std::string job = "input: {path: '" + deid::testing::example_path("adult/adult.csv") + "'}\nattributes:\n";
    for (const char* qi : {"sex", "age", "race", "marital-status", "education", "native-country"})
      job += std::string("  ") + qi + ": {role: quasi-identifying, hierarchy: '" + h + qi + ".csv'}\n";
    job +=
        "  workclass: {role: insensitive}\n"
        "  occupation: {role: sensitive}\n"
        "  salary-class: {role: identifying}\n"
        "privacy:\n"
        "  - k-anonymity: {k: 5}\n"
        "  - l-diversity: {attribute: occupation, l: 2}\n"
        "suppression-limit: 0.05\n"
        "output: {path: out.csv, result: out.json}\n";
    write_file(*dir_ / "job.yaml", job);
    const CliRun a = run_cli("anonymize " + q(*dir_ / "job.yaml") + " -q", *dir_);
    ASSERT_EQ(a.code, 0) << a.err;
    const std::string text = deid::testing::slurp((*dir_ / "out.csv").string());
    rows_ = new std::vector<std::vector<std::string>>();
    for (std::size_t pos = 0; pos < text.size();) {
      const auto nl = text.find('\n', pos);
      const std::string line = text.substr(pos, nl - pos);
      std::vector<std::string> fields;
      for (std::size_t p = 0;;) {
        const auto c = line.find(';', p);
        fields.push_back(line.substr(p, c == std::string::npos ? std::string::npos : c - p));
        if (c == std::string::npos) break;
        p = c + 1;
      }
      rows_->push_back(std::move(fields));
      pos = nl + 1;
    }
    result_ = new nlohmann::json(nlohmann::json::parse(deid::testing::slurp((*dir_ / "out.json").string())));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete rows_;
    delete result_;
  }

  using Rows = std::vector<std::vector<std::string>>;
  static int column(const std::string& name) {
    const auto& h = rows_->front();
    return static_cast<int>(std::find(h.begin(), h.end(), name) - h.begin());
  }
  static bool starred(const std::vector<std::string>& row) {
    for (const char* qi : {"sex", "age", "race", "marital-status", "education", "native-country"})
      if (row[column(qi)] != "*") return false;
    return true;
  }
  static std::string key(const std::vector<std::string>& row) {
    std::string k;
    for (const char* qi : {"sex", "age", "race", "marital-status", "education", "native-country"})
      k += row[column(qi)] + "\x1f";
    return k;
  }
  static void star(std::vector<std::string>& row) {
    for (const char* qi : {"sex", "age", "race", "marital-status", "education", "native-country"}) row[column(qi)].assign(1, '*');  // (not = "*": a GCC 12 -Wrestrict false positive)
  }

  // Writes `rows` as the altered output (and `result`, when given) and verifies it.
  CliRun verify(const Rows& rows, const nlohmann::json* result = nullptr, const std::string& line_end = "\n") {
    std::string text;
    for (const auto& r : rows) {
      for (std::size_t c = 0; c < r.size(); ++c) {
        if (c) text += ';';
        text += r[c];
      }
      text += line_end;
    }
    write_file(*dir_ / "altered.csv", text);
    std::string args = "verify " + q(*dir_ / "job.yaml") + " --output " + q(*dir_ / "altered.csv");
    if (result) {
      write_file(*dir_ / "altered.json", result->dump(2));
      args += " --result " + q(*dir_ / "altered.json");
    }
    return run_cli(args, *dir_);
  }

  static fs::path* dir_;
  static Rows* rows_;
  static nlohmann::json* result_;
};

fs::path* VerifyCliAltered::dir_ = nullptr;
VerifyCliAltered::Rows* VerifyCliAltered::rows_ = nullptr;
nlohmann::json* VerifyCliAltered::result_ = nullptr;

TEST_F(VerifyCliAltered, UnalteredOutputVerifies) {
  const CliRun v = run_cli("verify " + q(*dir_ / "job.yaml") + " --result " + q(*dir_ / "out.json") + " --json " +
                            q(*dir_ / "checks.json"),
                        *dir_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_TRUE(failures(v.out).empty()) << v.out;
  for (const char* check : {"identifying columns", "columns", "rows", "copied columns", "generalization",
                            "suppression", "k-anonymity (k=5)", "l-diversity (distinct, l=2, occupation)",
                            "result counts"})
    EXPECT_NE(check_line(v.out, check).find(" ok "), std::string::npos) << check << "\n" << v.out;
  const auto checks = nlohmann::json::parse(deid::testing::slurp((*dir_ / "checks.json").string()));
  EXPECT_EQ(checks["valid"], true);
  EXPECT_GE(checks["checks"].size(), 9u);
  // --quiet prints only failures: nothing here.
  const CliRun quiet = run_cli("verify " + q(*dir_ / "job.yaml") + " --quiet", *dir_);
  EXPECT_EQ(quiet.code, 0);
  EXPECT_TRUE(quiet.out.empty()) << quiet.out;
}

TEST_F(VerifyCliAltered, OneQuasiIdentifierCellChanged) {
  Rows rows = *rows_;
  // The first record that is not suppressed gets its age at another level.
  std::size_t r = 1;
  while (starred(rows[r])) ++r;
  const std::string before = rows[r][column("age")];
  rows[r][column("age")] = "*" == before ? "39" : "*";
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out).front(), "generalization") << v.out;
  EXPECT_NE(v.err.find("deid: verify: generalization failed"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("data row " + std::to_string(r) + ", column 'age'"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("altered.csv:" + std::to_string(r + 1)), std::string::npos) << v.err;
}

TEST_F(VerifyCliAltered, OneRowDropped) {
  Rows rows = *rows_;
  rows.erase(rows.begin() + 100);
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out).front(), "rows") << v.out;
  EXPECT_NE(check_line(v.out, "copied columns").find(" skipped "), std::string::npos) << v.out;
  EXPECT_NE(v.err.find("deid: verify: rows failed"), std::string::npos) << v.err;
  // Where the output parts from the input: the row after the dropped one.
  EXPECT_NE(v.err.find("altered.csv:101 (data row 100)"), std::string::npos) << v.err;
}

TEST_F(VerifyCliAltered, OneRowDuplicated) {
  Rows rows = *rows_;
  rows.insert(rows.begin() + 50, rows[50]);
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out).front(), "rows") << v.out;
}

TEST_F(VerifyCliAltered, RowsSwapped) {
  Rows rows = *rows_;
  // Two rows that differ in their copied columns.
  std::size_t a = 1, b = 2;
  while (rows[a][column("occupation")] == rows[b][column("occupation")]) ++b;
  std::swap(rows[a], rows[b]);
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out).front(), "copied columns") << v.out;
  EXPECT_NE(v.err.find("data row 1, column '"), std::string::npos) << v.err;
}

TEST_F(VerifyCliAltered, ClassBrokenBelowK) {
  // A class of exactly k = 5 loses one record to suppression ('*' in every
  // quasi-identifier, a valid form): 4 are left.
  Rows rows = *rows_;
  std::map<std::string, std::vector<std::size_t>> classes;
  for (std::size_t r = 1; r < rows.size(); ++r)
    if (!starred(rows[r])) classes[key(rows[r])].push_back(r);
  std::size_t victim = 0;
  for (const auto& [k, members] : classes)
    if (members.size() == 5) {
      victim = members.front();
      break;
    }
  ASSERT_GT(victim, 0u);
  star(rows[victim]);
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out), std::vector<std::string>{"k-anonymity (k=5)"}) << v.out;
  EXPECT_NE(v.err.find("deid: verify: k-anonymity (k=5) failed"), std::string::npos) << v.err;
}

TEST_F(VerifyCliAltered, IdentifyingColumnLeftIn) {
  Rows rows = *rows_;
  const std::string input = deid::testing::slurp(deid::testing::example_path("adult/adult.csv"));
  // salary-class is the input's last column.
  std::size_t r = 0;
  for (std::size_t pos = 0; pos < input.size() && r < rows.size(); ++r) {
    const auto nl = input.find('\n', pos);
    const std::string line = input.substr(pos, nl - pos);
    std::string value = line.substr(line.rfind(';') + 1);
    if (!value.empty() && value.back() == '\r') value.pop_back();  // the input has CRLF line ends
    rows[r].push_back(value);
    pos = nl + 1;
  }
  ASSERT_EQ(rows[0].back(), "salary-class");
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out), std::vector<std::string>{"identifying columns"}) << v.out;
  EXPECT_NE(v.err.find("column 'salary-class'"), std::string::npos) << v.err;
}

TEST_F(VerifyCliAltered, InsensitiveValueChanged) {
  Rows rows = *rows_;
  rows[1234][column("workclass")] += "x";
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out), std::vector<std::string>{"copied columns"}) << v.out;
  EXPECT_NE(v.err.find("data row 1234, column 'workclass'"), std::string::npos) << v.err;
}

TEST_F(VerifyCliAltered, TooManySuppressed) {
  // Whole classes suppressed until the limit is passed: every class left
  // still holds, only the suppression limit does not.
  Rows rows = *rows_;
  std::map<std::string, std::vector<std::size_t>> classes;
  std::uint64_t suppressed = 0;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (starred(rows[r]))
      ++suppressed;
    else
      classes[key(rows[r])].push_back(r);
  }
  const std::uint64_t limit = (*result_)["suppression_limit_records"].get<std::uint64_t>();
  for (const auto& [k, members] : classes) {
    if (suppressed > limit) break;
    for (std::size_t r : members) star(rows[r]);
    suppressed += members.size();
  }
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out), std::vector<std::string>{"suppression"}) << v.out;
}

TEST_F(VerifyCliAltered, LDiversityBroken) {
  // A class of more than k records with two occupations, one of them once:
  // suppressing that record leaves k or more records of one occupation.
  Rows rows = *rows_;
  std::map<std::string, std::vector<std::size_t>> classes;
  for (std::size_t r = 1; r < rows.size(); ++r)
    if (!starred(rows[r])) classes[key(rows[r])].push_back(r);
  std::size_t victim = 0;
  for (const auto& [k, members] : classes) {
    if (members.size() < 6) continue;
    std::map<std::string, std::vector<std::size_t>> by;
    for (std::size_t r : members) by[rows[r][column("occupation")]].push_back(r);
    if (by.size() != 2) continue;
    for (const auto& [value, rs] : by)
      if (rs.size() == 1) victim = rs.front();
    if (victim) break;
  }
  ASSERT_GT(victim, 0u) << "no class of the kind in this output";
  star(rows[victim]);
  const CliRun v = verify(rows);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out), std::vector<std::string>{"l-diversity (distinct, l=2, occupation)"}) << v.out;
  EXPECT_NE(v.err.find("deid: verify: l-diversity"), std::string::npos) << v.err;
}

TEST_F(VerifyCliAltered, ResultWithWrongCounts) {
  nlohmann::json result = *result_;
  result["classes"] = result["classes"].get<std::uint64_t>() + 1;
  result["transformation"]["age"] = result["transformation"]["age"].get<int>() + 1;
  const CliRun v = verify(*rows_, &result);
  EXPECT_EQ(v.code, 1) << v.out;
  EXPECT_EQ(failures(v.out), std::vector<std::string>{"result counts"}) << v.out;
  EXPECT_NE(check_line(v.out, "result counts").find("classes: the result says"), std::string::npos) << v.out;
  EXPECT_NE(check_line(v.out, "result counts").find("age="), std::string::npos) << v.out;
}

// The result's "files" (deid anonymize writes it; here written by hand, so
// that the check is tested on its own): the digests of the files given must
// match.
TEST_F(VerifyCliAltered, ResultWithWrongSha256) {
  const std::string input = deid::testing::example_path("adult/adult.csv");
  std::string error;
  const auto in = verify::sha256_file(input, &error);
  ASSERT_TRUE(in.has_value()) << error;
  // The same rows with CRLF line ends: every check holds, but it is not
  // the file the result describes.
  std::string text;
  for (const auto& r : *rows_) {
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (c) text += ';';
      text += r[c];
    }
    text += "\n";
  }
  nlohmann::json result = *result_;
  result["files"] = nlohmann::json::array(
      {{{"role", "input"}, {"path", input}, {"sha256", in->sha256}, {"bytes", in->bytes}},
       {{"role", "output"}, {"path", "out.csv"}, {"sha256", verify::sha256_hex(text)}, {"bytes", text.size()}}});
  // Right digests: ok.
  const CliRun good = verify(*rows_, &result);
  EXPECT_EQ(good.code, 0) << good.out << good.err;
  EXPECT_NE(check_line(good.out, "sha256 input").find(" ok "), std::string::npos) << good.out;
  EXPECT_NE(check_line(good.out, "sha256 output").find(" ok "), std::string::npos) << good.out;

  const CliRun crlf = verify(*rows_, &result, "\r\n");
  EXPECT_EQ(crlf.code, 1) << crlf.out;
  EXPECT_EQ(failures(crlf.out), std::vector<std::string>{"sha256 output"}) << crlf.out;

  // Upper-case digits are the same digest (other tools write them so).
  nlohmann::json upper = result;
  for (auto& f : upper["files"]) {
    std::string d = f["sha256"].get<std::string>();
    for (char& ch : d) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    f["sha256"] = d;
  }
  const CliRun shouted = verify(*rows_, &upper);
  EXPECT_EQ(shouted.code, 0) << shouted.out << shouted.err;
  EXPECT_NE(check_line(shouted.out, "sha256 input").find(" ok "), std::string::npos) << shouted.out;

  result["files"][0]["sha256"] = std::string(64, '0');
  const CliRun wrong = verify(*rows_, &result);
  EXPECT_EQ(wrong.code, 1) << wrong.out;
  EXPECT_EQ(failures(wrong.out), std::vector<std::string>{"sha256 input"}) << wrong.out;

  // What is no digest is a bad result (exit 2), not a mismatch.
  result["files"][0]["sha256"] = "not-a-digest";
  const CliRun malformed = verify(*rows_, &result);
  EXPECT_EQ(malformed.code, 2) << malformed.out << malformed.err;
  EXPECT_NE(malformed.err.find("not a SHA-256 digest"), std::string::npos) << malformed.err;
}

TEST_F(VerifyCliAltered, BadInvocationsExitTwo) {
  EXPECT_EQ(run_cli("verify " + q(*dir_ / "job.yaml") + " --output " + q(*dir_ / "missing.csv"), *dir_).code, 2);
  EXPECT_EQ(run_cli("verify " + q(*dir_ / "missing.yaml"), *dir_).code, 2);
  write_file(*dir_ / "bad.yaml", "input: {path: x.csv}\nbogus: 1\n");
  const CliRun bad = run_cli("verify " + q(*dir_ / "bad.yaml") + " --output " + q(*dir_ / "out.csv"), *dir_);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bogus"), std::string::npos) << bad.err;
  EXPECT_EQ(run_cli("verify " + q(*dir_ / "job.yaml") + " --result " + q(*dir_ / "missing.json"), *dir_).code, 2);
  // A job that does not fit the data.
  std::string job = deid::testing::slurp((*dir_ / "job.yaml").string());
  job.replace(job.find("  workclass:"), 11, "  workclazz");
  write_file(*dir_ / "misfit.yaml", job);
  const CliRun misfit = run_cli("verify " + q(*dir_ / "misfit.yaml") + " --output " + q(*dir_ / "out.csv"), *dir_);
  EXPECT_EQ(misfit.code, 2);
  EXPECT_NE(misfit.err.find("'workclazz' is not a column"), std::string::npos) << misfit.err;
  // --json must not overwrite a file verify reads.
  EXPECT_EQ(run_cli("verify " + q(*dir_ / "job.yaml") + " --json " + q(*dir_ / "out.csv"), *dir_).code, 2);
}

// ---------------------------------------------------------------------------
// Inline hierarchies: built from the job, then checked like files.

TEST(VerifyCliInline, InlineHierarchyOutputVerifiesAndAChangedCellFails) {
  const fs::path dir = fresh_dir("inline");
  // ';' separated, so that the interval labels "[20, 25)" need no quotes.
  std::string data = "id;age;zip;note\n";
  for (int i = 0; i < 40; ++i)
    data += std::to_string(i) + ";" + std::to_string(20 + (i * 7) % 40) + ";" + std::to_string(81600 + (i * 13) % 50) +
            ";n" + std::to_string(i % 3) + "\n";
  write_file(dir / "data.csv", data);
  write_file(dir / "job.yaml",
             "input: {path: data.csv}\n"
             "attributes:\n"
             "  id: {role: identifying}\n"
             "  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [5, 10, 20]}}\n"
             "  zip: {role: quasi-identifying, hierarchy: {type: masking, levels: 3}}\n"
             "  note: {role: insensitive}\n"
             "privacy: [{k-anonymity: {k: 3}}]\n"
             "suppression-limit: 0.1\n"
             "output: {path: out.csv, result: out.json}\n");
  ASSERT_EQ(run_cli("anonymize " + q(dir / "job.yaml") + " -q", dir).code, 0);
  const CliRun v = run_cli("verify " + q(dir / "job.yaml") + " --result " + q(dir / "out.json"), dir);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  // A zip cell at another masking level.
  std::string out = deid::testing::slurp((dir / "out.csv").string());
  const auto second = out.find('\n') + 1;
  const auto comma = out.find(';', second);
  const auto comma2 = out.find(';', comma + 1);
  out.replace(comma + 1, comma2 - comma - 1, "8****");
  write_file(dir / "altered.csv", out);
  const CliRun a = run_cli("verify " + q(dir / "job.yaml") + " --output " + q(dir / "altered.csv"), dir);
  EXPECT_EQ(a.code, 1) << a.out;
  EXPECT_EQ(failures(a.out).front(), "generalization") << a.out;
  EXPECT_NE(a.err.find("column 'zip'"), std::string::npos) << a.err;
  fs::remove_all(dir);
}

// ---------------------------------------------------------------------------
// The library's additions.

TEST(VerifyLibrary, Sha256KnownAnswers) {
  // FIPS 180-2, appendix B.
  EXPECT_EQ(verify::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(verify::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::string million(1000000, 'a');
  EXPECT_EQ(verify::sha256_hex(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  const fs::path dir = fresh_dir("sha");
  write_file(dir / "a.txt", million);
  std::string error;
  const auto d = verify::sha256_file((dir / "a.txt").string(), &error);
  ASSERT_TRUE(d.has_value()) << error;
  EXPECT_EQ(d->sha256, verify::sha256_hex(million));
  EXPECT_EQ(d->bytes, 1000000u);
  EXPECT_FALSE(verify::sha256_file((dir / "missing").string(), &error).has_value());
  EXPECT_NE(error.find("missing"), std::string::npos);
  fs::remove_all(dir);
}

TEST(VerifyLibrary, DetectsTheDelimiterAsDocumented) {
  EXPECT_EQ(verify::detect_delimiter("a;b;c\n1,2,3,4,5\n"), ';');  // the first record only
  EXPECT_EQ(verify::detect_delimiter("a,b;c,d\n"), ',');
  EXPECT_EQ(verify::detect_delimiter("a;b,c\n"), ';');               // a tie: the earlier in ; , tab |
  EXPECT_EQ(verify::detect_delimiter("\"a;b;c\",d\n"), ',');         // quoted delimiters do not count
  EXPECT_EQ(verify::detect_delimiter("a\tb|c\tdx\n"), '\t');
  EXPECT_EQ(verify::detect_delimiter("abc\n"), ',');
  EXPECT_EQ(verify::detect_delimiter("\xEF\xBB\xBF" "a|b\n"), '|');
}

TEST(VerifyLibrary, RowsKnowTheLineTheyStartOn) {
  std::string error;
  const auto t = verify::parse_csv("h1;h2\na;\"x\ny\"\n\nb;c\n", ';', true, &error);
  ASSERT_TRUE(t.has_value()) << error;
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->lines, (std::vector<std::uint64_t>{2, 5}));  // a quoted line break, then a blank line
}

}  // namespace
