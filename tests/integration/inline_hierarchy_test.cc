// Inline hierarchy definitions in a job file (`hierarchy: {type: ...}`,
// docs/job-file.md): a job with them gives the same output and result as the
// same job with the CSV files `deid hierarchy` writes; bad definitions are
// JobErrors naming the job file's line and column; a value the builder
// cannot place is an error naming the value, its data line and the
// definition's line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "deid/error.h"
#include "deid/job.h"
#include "deid/pipeline.h"

#include "support/reference.h"

namespace deid {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) { return deid::testing::slurp(path.string()); }

class InlineHierarchy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("deid-inline-{}-{}", ::getpid(), ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // 400 people: age, 5-digit ZIP, admission date, education (ordered), sex.
    static const char* kEducation[] = {"none", "primary", "secondary", "bachelor", "master", "doctorate"};
    std::mt19937_64 rng(8);
    std::string csv = "id,age,zip,admitted,education,sex\n";
    for (int i = 0; i < 400; ++i)
      csv += fmt::format("{},{},{},{}-{:02}-{:02},{},{}\n", i, 18 + rng() % 70, 80000 + rng() % 40 * 17,
                         2015 + rng() % 8, 1 + rng() % 12, 1 + rng() % 28, kEducation[rng() % 6],
                         rng() % 2 ? "F" : "M");
    std::ofstream(dir_ / "data.csv") << csv;
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  int cli(const std::string& args) {
    const std::string cmd = fmt::format("'{}' {} >'{}' 2>'{}'", DEID_CLI_PATH, args, (dir_ / "stdout").string(),
                                        (dir_ / "stderr").string());
    const int status = std::system(cmd.c_str());
    err_ = slurp(dir_ / "stderr");
    return status == -1 || !WIFEXITED(status) ? -1 : WEXITSTATUS(status);
  }

  // The job around `attributes` (the attribute lines, indented by two).
  std::string job(const std::string& attributes, const std::string& out) const {
    return fmt::format(
        "input: {{path: data.csv}}\n"
        "attributes:\n"
        "  id: {{role: identifying}}\n"
        "{}"
        "default-role: insensitive\n"
        "privacy:\n  - k-anonymity: {{k: 4}}\n"
        "suppression-limit: 0.04\n"
        "search: {{algorithm: exhaustive}}\n"
        "output: {{path: {}.csv, result: {}.json}}\n",
        attributes, out, out);
  }

  Job parse(const std::string& attributes) const { return parse_job(job(attributes, "out"), "job.yaml", dir_.string()); }

  // The JobError of parsing a job with `attributes`, or "" when it parses.
  std::string parse_error(const std::string& attributes) const {
    try {
      parse(attributes);
    } catch (const JobError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
  std::string err_;
};

TEST_F(InlineHierarchy, GivesTheSameResultAsTheFilesOfDeidHierarchy) {
  const std::string data = (dir_ / "data.csv").string(), d = dir_.string();
  ASSERT_EQ(cli(fmt::format("hierarchy intervals --input {} --column age --min 0 --max 100 --widths 5,10,20 "
                            "-o {}/age.csv",
                            data, d)),
            0)
      << err_;
  ASSERT_EQ(cli(fmt::format("hierarchy masking --input {} --column zip --levels 3 -o {}/zip.csv", data, d)), 0)
      << err_;
  ASSERT_EQ(cli(fmt::format("hierarchy dates --input {} --column admitted --no-month -o {}/admitted.csv", data, d)),
            0)
      << err_;
  ASSERT_EQ(cli(fmt::format("hierarchy grouping --input {} --column education --order "
                            "none,primary,secondary,bachelor,master,doctorate --sizes 2,6 -o {}/education.csv",
                            data, d)),
            0)
      << err_;
  std::ofstream(dir_ / "files.yaml") << job("  age: {role: quasi-identifying, hierarchy: age.csv}\n"
                                            "  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
                                            "  admitted: {role: quasi-identifying, hierarchy: admitted.csv}\n"
                                            "  education: {role: quasi-identifying, hierarchy: education.csv}\n",
                                            "files");
  std::ofstream(dir_ / "inline.yaml")
      << job("  age:\n"
             "    role: quasi-identifying\n"
             "    hierarchy: {type: intervals, min: 0, max: 100, widths: [5, 10, 20]}\n"
             "  zip: {role: quasi-identifying, hierarchy: {type: masking, levels: 3}}\n"
             "  admitted: {role: quasi-identifying, hierarchy: {type: dates, month: false}}\n"
             "  education:\n"
             "    role: quasi-identifying\n"
             "    hierarchy:\n"
             "      type: grouping\n"
             "      order: [none, primary, secondary, bachelor, master, doctorate]\n"
             "      sizes: [2, 6]\n",
             "inline");
  ASSERT_EQ(cli(fmt::format("anonymize {}", (dir_ / "files.yaml").string())), 0) << err_;
  ASSERT_EQ(cli(fmt::format("anonymize {}", (dir_ / "inline.yaml").string())), 0) << err_;

  const std::string files_csv = slurp(dir_ / "files.csv"), inline_csv = slurp(dir_ / "inline.csv");
  EXPECT_GT(files_csv.size(), 4000u);
  EXPECT_EQ(files_csv, inline_csv);
  auto files = nlohmann::json::parse(slurp(dir_ / "files.json"));
  auto inl = nlohmann::json::parse(slurp(dir_ / "inline.json"));
  for (auto* r : {&files, &inl}) {
    r->erase("time_ms");
    r->erase("peak_rss_bytes");
    (*r)["search"].erase("time_to_best_ms");
    for (auto& f : (*r)["files"]) f.erase("path");  // different files, equal digests
  }
  EXPECT_EQ(files.dump(2), inl.dump(2));
  // Something was generalized, so the hierarchies were used.
  int generalized = 0;
  for (const auto& [name, level] : inl["transformation"].items()) generalized += level.get<int>();
  EXPECT_GT(generalized, 0) << inl.dump(2);
}

TEST_F(InlineHierarchy, ParsesEveryParameter) {
  const Job j = parse("  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 10, max: 90, widths: [5, 10],\n"
                      "        bottom-coding: true, top-coding: true}}\n"
                      "  zip: {role: quasi-identifying, hierarchy: {type: masking, levels: 2, from-left: true, "
                      "mask-char: x}}\n"
                      "  admitted: {role: quasi-identifying, hierarchy: {type: dates, year: false, decade: false}}\n"
                      "  education: {role: sensitive, hierarchy: {type: grouping, order: [a, b, c, d], sizes: [2]}}\n");
  const auto* age = j.attribute("age");
  ASSERT_TRUE(age && age->hierarchy_builder);
  EXPECT_TRUE(age->hierarchy.empty());
  EXPECT_EQ(age->hierarchy_line, 4u);
  const auto& iv = std::get<IntervalSpec>(*age->hierarchy_builder);
  EXPECT_EQ(iv.min, 10);
  EXPECT_EQ(iv.max, 90);
  EXPECT_EQ(iv.widths, (std::vector<double>{5, 10}));
  EXPECT_TRUE(iv.bottom_coding && iv.top_coding);
  const auto& mk = std::get<MaskingSpec>(*j.attribute("zip")->hierarchy_builder);
  EXPECT_EQ(mk.levels, 2);
  EXPECT_TRUE(mk.from_left);
  EXPECT_EQ(mk.mask_char, 'x');
  const auto& dt = std::get<DateSpec>(*j.attribute("admitted")->hierarchy_builder);
  EXPECT_TRUE(dt.month);
  EXPECT_FALSE(dt.year);
  EXPECT_FALSE(dt.decade);
  const auto& gr = std::get<GroupingSpec>(*j.attribute("education")->hierarchy_builder);
  EXPECT_EQ(gr.order, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(gr.sizes, (std::vector<std::size_t>{2}));
  EXPECT_TRUE(j.attribute("education")->has_hierarchy());
}

TEST_F(InlineHierarchy, BadDefinitionsAreJobErrorsWithLineAndColumn) {
  // The attribute lines start at line 4 of the job.
  struct Case {
    std::string attributes, expected;
  };
  const std::vector<Case> cases = {
      {"  age: {role: quasi-identifying, hierarchy: {type: bins, min: 0}}\n",
       "job.yaml:4:52: hierarchy type must be one of intervals, masking, dates, grouping, got 'bins'"},
      {"  age: {role: quasi-identifying, hierarchy: {min: 0, max: 10}}\n",
       "job.yaml:4:45: the hierarchy of attribute 'age' needs 'type'"},
      {"  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, widths: [5]}}\n",
       "job.yaml:4:45: an intervals hierarchy needs 'max'"},
      {"  age:\n    role: quasi-identifying\n    hierarchy: {type: intervals, min: 0, max: 100, widths: [5, 7]}\n",
       "job.yaml:6:60: attribute 'age': interval hierarchy: bin width 7 must be a multiple of the previous width 5"},
      {"  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 50, max: 10, widths: [5]}}\n",
       "job.yaml:4:77: attribute 'age': interval hierarchy: max (10) must be greater than min (50)"},
      {"  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 10, widths: [5], top: true}}\n",
       "job.yaml:4:93: unknown key 'top' in the hierarchy of attribute 'age' (allowed: type, min, max, widths, "
       "bottom-coding, top-coding)"},
      {"  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 10, widths: [5], top-coding: yes}}\n",
       "job.yaml:4:105: top-coding must be true or false, got 'yes'"},
      {"  age: {role: quasi-identifying, hierarchy: {type: intervals, min: zero, max: 10, widths: [5]}}\n",
       "job.yaml:4:68: min must be a number, got 'zero'"},
      {"  zip: {role: quasi-identifying, hierarchy: {type: masking, mask-char: '##'}}\n",
       "job.yaml:4:72: mask-char must be a single character, got '##'"},
      {"  zip: {role: quasi-identifying, hierarchy: {type: masking, levels: 0}}\n",
       "job.yaml:4:69: levels must be an integer >= 1, got 0"},
      {"  admitted: {role: quasi-identifying, hierarchy: {type: dates, week: true}}\n",
       "job.yaml:4:64: unknown key 'week'"},
      {"  education: {role: quasi-identifying, hierarchy: {type: grouping, order: [a, b, a], sizes: [2]}}\n",
       "job.yaml:4:75: attribute 'education': grouping hierarchy: category 'a' appears twice in the order"},
      {"  education: {role: quasi-identifying, hierarchy: {type: grouping, order: [a, b, c], sizes: [2, 3]}}\n",
       "job.yaml:4:93: attribute 'education': grouping hierarchy: group size 3 must be a multiple of the previous size 2"},
      {"  education: {role: quasi-identifying, hierarchy: {type: grouping, order: [a, b]}}\n",
       "job.yaml:4:51: a grouping hierarchy needs 'sizes'"},
      {"  sex: {role: insensitive, hierarchy: {type: masking}}\n",
       "job.yaml:4:39: attribute 'sex': a hierarchy is only used for quasi-identifying and sensitive attributes"},
  };
  for (const auto& c : cases) {
    const std::string e = parse_error(c.attributes);
    EXPECT_NE(e.find(c.expected), std::string::npos) << "job attributes:\n" << c.attributes << "error: " << e;
  }
}

TEST_F(InlineHierarchy, CellSuppressionReleasesLevelsOfAnInlineHierarchyLikeItsFile) {
  // deid suppress with zip released at levels 0 and 1 of an inline masking
  // hierarchy writes what it writes with the file 'deid hierarchy' makes.
  const std::string d = dir_.string();
  ASSERT_EQ(cli(fmt::format("hierarchy masking --input {}/data.csv --column zip --levels 2 -o {}/zip.csv", d, d)), 0)
      << err_;
  const auto suppress_job = [](const std::string& hierarchy, const std::string& out) {
    return fmt::format(
        "input: {{path: data.csv}}\n"
        "attributes:\n"
        "  id: {{role: identifying}}\n"
        "  zip: {{role: quasi-identifying, hierarchy: {}}}\n"
        "  sex: {{role: quasi-identifying}}\n"
        "default-role: insensitive\n"
        "cell-suppression:\n"
        "  k: 3\n"
        "  release-levels:\n"
        "    zip: {{levels: [0, 1]}}\n"
        "output: {{path: {}.csv, result: {}.json}}\n",
        hierarchy, out, out);
  };
  std::ofstream(dir_ / "files.yaml") << suppress_job("zip.csv", "files");
  std::ofstream(dir_ / "inline.yaml") << suppress_job("{type: masking, levels: 2}", "inline");
  ASSERT_EQ(cli(fmt::format("suppress {}", (dir_ / "files.yaml").string())), 0) << err_;
  ASSERT_EQ(cli(fmt::format("suppress {}", (dir_ / "inline.yaml").string())), 0) << err_;
  const std::string files = slurp(dir_ / "files.csv");
  ASSERT_FALSE(files.empty());
  EXPECT_NE(files.find("zip,zip_L1,"), std::string::npos) << "level 1 must be released:\n" << files.substr(0, 200);
  EXPECT_EQ(slurp(dir_ / "inline.csv"), files);
}

TEST_F(InlineHierarchy, AValueOutsideEveryIntervalNamesTheValueItsLineAndTheDefinition) {
  // Ages run from 18 to 87: with max 80 and no top coding the builder must
  // refuse the first age of 80 or more.
  const Job j = parse("  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 18, max: 80, widths: [2]}}\n");
  std::string message, value;
  std::uint64_t line = 0;
  try {
    prepare(j);
  } catch (const JobError& e) {
    message = e.what();
    line = e.where().line;
  }
  ASSERT_FALSE(message.empty());
  // The first line of the data with an age of 80 or more.
  std::istringstream data(slurp(dir_ / "data.csv"));
  std::string row;
  std::uint64_t n = 0, first = 0;
  while (std::getline(data, row)) {
    ++n;
    if (n == 1) continue;
    const auto c1 = row.find(','), c2 = row.find(',', c1 + 1);
    const int age = std::stoi(row.substr(c1 + 1, c2 - c1 - 1));
    if (age >= 80) {
      first = n;
      value = row.substr(c1 + 1, c2 - c1 - 1);
      break;
    }
  }
  ASSERT_GT(first, 0u);
  EXPECT_EQ(line, first) << message;
  EXPECT_NE(message.find(fmt::format("data.csv:{}:2 (column 'age')", first)), std::string::npos) << message;
  EXPECT_NE(message.find(fmt::format("value '{}' is outside [18, 80) and top coding is off", value)),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("job.yaml:4:45"), std::string::npos) << "names the definition: " << message;

  // With top coding the same definition covers every age.
  const Job ok = parse(
      "  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 18, max: 80, widths: [2], top-coding: true}}\n");
  const auto p = prepare(ok);
  ASSERT_EQ(p->problem.hierarchies.size(), 1u);
  EXPECT_EQ(p->problem.hierarchies[0].height(), 3);
}

TEST_F(InlineHierarchy, AValueNotInTheOrderOfAGroupingIsNamed) {
  const Job j = parse("  education: {role: quasi-identifying, hierarchy: {type: grouping, order: [none, primary, "
                      "secondary, bachelor, master], sizes: [2]}}\n");
  std::string message;
  try {
    prepare(j);
  } catch (const JobError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("(column 'education'): attribute 'education': grouping hierarchy: value 'doctorate' is not in "
                         "the order of categories"),
            std::string::npos)
      << message;
}

TEST_F(InlineHierarchy, TheCliExitsTwoOnABadDefinition) {
  std::ofstream(dir_ / "bad.yaml")
      << job("  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [0]}}\n", "bad");
  EXPECT_EQ(cli(fmt::format("anonymize {}", (dir_ / "bad.yaml").string())), 2);
  EXPECT_NE(err_.find("bad.yaml:4:89: attribute 'age': interval hierarchy: bin width 0 must be positive"),
            std::string::npos)
      << err_;
}

}  // namespace
}  // namespace deid
