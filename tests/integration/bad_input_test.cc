// The bad-input suite: deid run as a process on what a
// careless or hostile user gives it: malformed data and hierarchies, job keys
// out of range (NaN, infinities, huge numbers, empty selections), bad options
// and file-system traps. Every case asserts
//  (a) the exit code (2 for every user error: never 3, which means a bug,
//      and never a crash or a hang),
//  (b) that standard error names what is at fault: the file, and the line,
//      key, option or value,
//  (c) that no file was created, changed or deleted in the case's directory
//      (names, sizes and content hashes before and after the run).
//
// Cases are data: the files to create (over a small valid project: data.csv,
// two hierarchies, job.yaml), the command line (run in the case's directory,
// so paths in messages are relative), the exit code and the substrings.
//
// Two suites:
//  - Data|Hierarchy|Job|Options|FileSystem/BadInput...: what deid handles.
//  - Outputs/BadInputFiles...: the promises of safe outputs (no input is
//    ever written, write errors name the path and the reason, output
//    directories are checked before the data is read, nothing is deleted
//    when there is no solution; docs/reliability.md), the options of
//    cli/main.cc (`deid risk` numbers, an unknown command) and two checks of
//    a job against its data in files being changed. Run them with
//    --gtest_filter='*/BadInputFiles.*' (and '*/BadInput.*' for the others).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;  // category_what, e.g. "job_k_nan"
  std::vector<std::pair<std::string, std::string>> files;  // relative path -> content, over the base files
  std::string args;                                         // after `deid`, run in the case's directory
  int exit_code = 2;
  std::vector<std::string> message;                         // substrings of standard error
  std::function<void(const fs::path&)> setup = nullptr;     // links, permissions
  bool root_defeats = false;  // permissions that root ignores: skipped when run as root
};

// ---------------------------------------------------------------------------
// The base project: six people, two quasi-identifiers with file hierarchies.

const char* const kData =
    "name;sex;age;zip;diag\n"
    "Ann;Male;30;81675;flu\n"
    "Bob;Male;30;81676;cold\n"
    "Cid;Male;31;81677;flu\n"
    "Dee;Female;30;81678;cold\n"
    "Eve;Male;31;81679;asthma\n"
    "Fay;Female;31;81680;flu\n";
const char* const kSex = "Male;*\nFemale;*\n";
const char* const kAge = "30;30-31;*\n31;30-31;*\n";

const char* const kAttributes =
    "attributes:\n"                                                   // line 2
    "  name: {role: identifying}\n"                                   // 3
    "  sex:  {role: quasi-identifying, hierarchy: hier/sex.csv}\n"    // 4
    "  age:  {role: quasi-identifying, hierarchy: hier/age.csv}\n"    // 5
    "  zip:  {role: insensitive}\n"                                   // 6
    "  diag: {role: sensitive}\n";                                    // 7

// A job: input on line 1, attributes on lines 2-7 (unless replaced), the
// privacy models on line 8, the outputs on line 9, `extra` from line 10.
std::string job(const std::string& privacy = "privacy: [{k-anonymity: {k: 2}}]", const std::string& extra = "",
                const std::string& attributes = kAttributes) {
  return "input: {path: data.csv}\n" + attributes + privacy + "\noutput: {path: out.csv, result: out.json}\n" + extra;
}

// The attributes block with line `line` (4 to 7) replaced.
std::string attributes_with(int line, const std::string& replacement) {
  std::istringstream in(kAttributes);
  std::string out, l;
  for (int n = 2; std::getline(in, l); ++n) out += (n == line ? replacement : l) + "\n";
  return out;
}

// A cell-suppression job (deid suppress): zip is a quasi-identifier without
// hierarchy; `section` is the cell-suppression mapping, on line 9.
std::string cs_job(const std::string& section, const std::string& output = "output: {path: out.csv}") {
  return "input: {path: data.csv}\n"
         "attributes:\n"
         "  name: {role: identifying}\n"
         "  sex:  {role: quasi-identifying, hierarchy: hier/sex.csv}\n"
         "  age:  {role: quasi-identifying, hierarchy: hier/age.csv}\n"
         "  zip:  {role: quasi-identifying}\n"
         "  diag: {role: insensitive}\n" +
         output + "\ncell-suppression: " + section + "\n";
}

// A data file with `rows` after the header.
std::string data(const std::string& rows, const std::string& header = "name;sex;age;zip;diag\n") {
  return header + rows;
}

// ---------------------------------------------------------------------------
// Running a case.

// A stable digest of a file's content (FNV-1a, 64 bits): enough to see a change.
std::uint64_t digest(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::uint64_t h = 1469598103934665603ull;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= 1099511628211ull;
    }
  }
  return h;
}

// Every entry under `dir`: its type, size and content digest (links: their target).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path& p = it->path();
    const std::string rel = fs::relative(p, dir).string();
    struct stat st {};
    lstat(p.c_str(), &st);
    std::ostringstream d;
    d << "mode " << std::oct << st.st_mode << std::dec;
    if (it->is_symlink()) {
      d << " -> " << fs::read_symlink(p).string();
    } else if (it->is_regular_file()) {
      d << " size " << st.st_size << " links " << st.st_nlink << " fnv " << std::hex << digest(p);
    }
    out[rel] = d.str();
  }
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class BadInputBase : public ::testing::TestWithParam<Case> {
 protected:
  void check(const Case& c) {
    if (c.root_defeats && geteuid() == 0) GTEST_SKIP() << "root ignores file permissions";
    // Per process: two test runs at once (two build trees) must not share
    // (and delete) each other's case directories.
    const fs::path root = fs::temp_directory_path() / ("deid_bad_input-" + std::to_string(::getpid()));
    const fs::path dir = root / c.name;
    fs::remove_all(dir);
    fs::create_directories(dir / "hier");
    std::map<std::string, std::string> files = {
        {"data.csv", kData}, {"hier/sex.csv", kSex}, {"hier/age.csv", kAge}, {"job.yaml", job()}};
    for (const auto& [path, content] : c.files) files[path] = content;
    for (const auto& [path, content] : files) {
      fs::create_directories((dir / path).parent_path());
      std::ofstream(dir / path, std::ios::binary) << content;
    }
    if (c.setup) c.setup(dir);
    const auto before = snapshot(dir);

    // Outside the directory, so that the strict snapshot holds; a time limit,
    // so that a hang fails the case (exit 124) instead of the suite.
    const fs::path out = root / (c.name + ".stdout"), err = root / (c.name + ".stderr");
    const std::string cmd = "cd '" + dir.string() + "' && timeout 60 '" + DEID_CLI_PATH + "' " + c.args + " >'" +
                            out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    const int code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const std::string message = slurp(err);

    EXPECT_EQ(code, c.exit_code) << "deid " << c.args << "\nstderr: " << message;
    EXPECT_EQ(message.find("internal error"), std::string::npos) << message;
    for (const auto& m : c.message)
      EXPECT_NE(message.find(m), std::string::npos) << "expected '" << m << "' in the message:\n" << message;
    const auto after = snapshot(dir);
    EXPECT_EQ(after, before) << "deid " << c.args << " created, changed or deleted a file";
    if (!HasFailure()) {
      fs::remove_all(dir);
      fs::remove(out);
      fs::remove(err);
      std::error_code ec;
      fs::remove(root, ec);  // when empty
    }
  }
};

class BadInput : public BadInputBase {};
class BadInputFiles : public BadInputBase {};

TEST_P(BadInput, ExitsTwoNamingTheFaultAndWritesNothing) { check(GetParam()); }
TEST_P(BadInputFiles, ExitsTwoNamingTheFaultAndWritesNothing) { check(GetParam()); }

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

// gtest prints a failing case by its name, not its bytes (found by ADL).
void PrintTo(const Case& c, std::ostream* os) { *os << c.name << ": deid " << c.args; }

// ---------------------------------------------------------------------------
// Data: the CSV file to de-identify, and values that do not fit the job.

std::vector<Case> data_cases() {
  const std::string anonymize = "anonymize job.yaml";
  static const char kBinaryRow[] = "Ann;Male;30;8\0\x01\x02;flu\n";
  // A hierarchy of 256 levels (one more than the lattice keeps) for sex.
  std::string deep_sex;
  for (const char* v : {"Male", "Female"}) {
    deep_sex += v;
    for (int l = 1; l < 256; ++l) deep_sex += ";" + (l == 255 ? std::string("*") : "g" + std::to_string(l));
    deep_sex += "\n";
  }
  return {
      {"data_empty_file", {{"data.csv", ""}}, anonymize, 2, {"data.csv", "empty"}},
      // A binary file: a NUL byte in the second record.
      {"data_binary", {{"data.csv", data(std::string(kBinaryRow, sizeof kBinaryRow - 1))}}, anonymize, 2,
       {"data.csv:2", "not text", "NUL byte"}},
      // Read with the wrong delimiter, the header is one column: said so,
      // with the delimiter to set.
      {"data_wrong_delimiter",
       {{"job.yaml", "input: {path: data.csv, delimiter: ','}\n" + std::string(kAttributes) +
                         "privacy: [{k-anonymity: {k: 2}}]\noutput: {path: out.csv}\n"}},
       anonymize,
       2,
       {"job.yaml:3", "the header was read as one column", "input.delimiter: ';'"}},
      {"data_wrong_delimiter_in_risk",
       {{"job.yaml", "input: {path: data.csv, delimiter: '|'}\n" + std::string(kAttributes) +
                         "privacy: [{k-anonymity: {k: 2}}]\noutput: {path: out.csv}\n"}},
       "risk job.yaml",
       2,
       {"read as one column", "input.delimiter: ';'"}},
      {"hierarchy_deeper_than_255_levels", {{"hier/sex.csv", deep_sex}}, anonymize, 2,
       {"hier/sex.csv", "'sex'", "256 levels", "at most 255"}},
      {"job_yaml_nested_too_deep", {{"job.yaml", "input: " + std::string(5000, '[') + std::string(5000, ']') + "\n"}},
       anonymize, 2, {"job.yaml:1", "nested more than"}},
      {"option_hierarchy_unknown_kind", {}, "hierarchy bogus --values 1,2", 2,
       {"unknown hierarchy kind 'bogus'", "intervals", "masking"}},
      {"data_header_only", {{"data.csv", data("")}}, anonymize, 2, {"data.csv:1", "no data records"}},
      {"data_blank_lines_only", {{"data.csv", data("\n\n\n")}}, anonymize, 2, {"data.csv:1", "no data records"}},
      {"data_duplicate_column",
       {{"data.csv", data("Ann;Male;30;1;Male\n", "name;sex;age;zip;sex\n")}},
       anonymize,
       2,
       {"data.csv:1:5", "duplicate column name 'sex'"}},
      {"data_empty_column_name",
       {{"data.csv", data("Ann;Male;30;1;flu\n", "name;sex;age;;diag\n")}},
       anonymize,
       2,
       {"data.csv:1:4", "empty name"}},
      {"data_missing_field",
       {{"data.csv", data("Ann;Male;30;81675;flu\nBob;Male;30;81676\n")}},
       anonymize,
       2,
       {"data.csv:3:5", "column 'diag'", "record has 4 fields, expected 5"}},
      {"data_extra_field",
       {{"data.csv", data("Ann;Male;30;81675;flu\nBob;Male;30;81676;cold;x\n")}},
       anonymize,
       2,
       {"data.csv:3:6", "record has 6 fields"}},
      {"data_unterminated_quote",
       {{"data.csv", data("Ann;Male;30;81675;flu\nBob;Male;30;\"81676;cold\n")}},
       anonymize,
       2,
       {"data.csv:3:4", "unterminated quoted field"}},
      {"data_quote_inside_unquoted_field",
       {{"data.csv", data("Ann;Male;30;81675;fl\"u\n")}},
       anonymize,
       2,
       {"data.csv:2:5", "quote inside an unquoted field"}},
      {"data_character_after_closing_quote",
       {{"data.csv", data("Ann;Male;30;\"81675\"x;flu\n")}},
       anonymize,
       2,
       {"data.csv:2:4", "after the closing quote"}},
      {"data_invalid_utf8",
       {{"data.csv", data("Ann;Male;30;81675;flu\n\xff" "Bob;Male;30;81676;cold\n")}},
       anonymize,
       2,
       {"data.csv:3", "not valid UTF-8", "0xFF"}},
      {"data_utf16", {{"data.csv", std::string("\xff\xfen\0a\0m\0e\0\n\0", 12)}}, anonymize, 2, {"data.csv", "UTF-16"}},
      {"data_value_not_in_hierarchy",
       {{"data.csv", data("Ann;Male;30;81675;flu\nBob;Other;30;81676;cold\n")}},
       anonymize,
       2,
       {"data.csv:3", "column 'sex'", "'Other'", "hier/sex.csv"}},
      {"data_value_differs_in_case",
       {{"data.csv", data("Ann;Male;30;81675;flu\nBob;male;30;81676;cold\n")}},
       anonymize,
       2,
       {"data.csv:3", "column 'sex'", "'male'"}},
      {"data_empty_value_not_in_hierarchy",
       {{"data.csv", data("Ann;Male;30;81675;flu\nBob;;30;81676;cold\n")}},
       anonymize,
       2,
       {"data.csv:3", "column 'sex'", "value ''"}},
      {"data_attribute_not_a_column",
       {{"data.csv", data("Ann;Male;30;flu\n", "name;sex;age;diag\n")}},
       anonymize,
       2,
       {"job.yaml:6", "attribute 'zip' is not a column of data.csv"}},
      {"data_header_differs_in_case",
       {{"data.csv", data("Ann;Male;30;81675;flu\n", "name;Sex;age;zip;diag\n")}},
       anonymize,
       2,
       {"job.yaml:4", "attribute 'sex' is not a column of data.csv"}},
      {"data_column_without_role",
       {{"data.csv", data("Ann;Male;30;81675;flu;x\n", "name;sex;age;zip;diag;extra\n")}},
       anonymize,
       2,
       {"job.yaml", "'extra'", "no role", "default-role"}},
      {"data_inline_interval_value_outside",
       {{"job.yaml",
         job("privacy: [{k-anonymity: {k: 2}}]", "",
             attributes_with(5, "  age:  {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 31, "
                                "widths: [5]}}"))}},
       anonymize,
       2,
       {"data.csv:4:3", "column 'age'", "'31'", "top coding is off", "job.yaml:5"}},
      {"data_inline_interval_value_not_a_number",
       {{"data.csv", data("Ann;Male;thirty;81675;flu\n")},
        {"job.yaml",
         job("privacy: [{k-anonymity: {k: 2}}]", "",
             attributes_with(5, "  age:  {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, "
                                "widths: [5]}}"))}},
       anonymize,
       2,
       {"data.csv:2:3", "'thirty'", "not a number"}},
      {"data_inline_date_value_invalid",
       {{"job.yaml",
         job("privacy: [{k-anonymity: {k: 2}}]", "",
             attributes_with(5, "  age:  {role: quasi-identifying, hierarchy: {type: dates}}"))}},
       anonymize,
       2,
       {"data.csv:2:3", "'30'", "not a date"}},
      {"data_inline_grouping_value_missing",
       {{"job.yaml",
         job("privacy: [{k-anonymity: {k: 2}}]", "",
             attributes_with(5, "  age:  {role: quasi-identifying, hierarchy: {type: grouping, order: [30, 32], "
                                "sizes: [2]}}"))}},
       anonymize,
       2,
       {"data.csv:4:3", "'31'"}},
      {"data_order_lacks_a_value",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}, {t-closeness: {attribute: diag, distance: ordered, t: 0.5}}]",
                         "", attributes_with(7, "  diag: {role: sensitive, order: [flu, cold]}"))}},
       anonymize,
       2,
       {"data.csv:6", "column 'diag'", "'asthma'", "order"}},
      {"data_ordered_values_not_numbers",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}, {t-closeness: {attribute: diag, distance: ordered, t: 0.5}}]")}},
       anonymize,
       2,
       {"data.csv:2", "column 'diag'", "'flu'", "not a number"}},
      {"data_population_below_records",
       {{"job.yaml", job("privacy: [{population-uniqueness: {threshold: 0.1, population-size: 3}}]")}},
       anonymize,
       2,
       {"job.yaml:8", "population-size 3", "6 records"}},
      {"data_sensitive_hierarchy_lacks_a_value",
       {{"hier/diag.csv", "flu;*\ncold;*\n"},
        {"job.yaml",
         job("privacy: [{k-anonymity: {k: 2}}, {t-closeness: {attribute: diag, distance: hierarchical, t: 0.5}}]", "",
             attributes_with(7, "  diag: {role: sensitive, hierarchy: hier/diag.csv}"))}},
       anonymize,
       2,
       {"data.csv:6", "column 'diag'", "'asthma'", "hier/diag.csv"}},
      {"data_input_option_lacks_columns",
       {{"other.csv", "a;b\n1;2\n"}},
       "anonymize job.yaml --input other.csv",
       2,
       {"job.yaml:3", "attribute 'name' is not a column of other.csv"}},
      {"data_risk_input_lacks_quasi_identifier",
       {{"other.csv", "name;age\nAnn;30\n"}},
       "risk job.yaml --input other.csv",
       2,
       {"job.yaml:4", "'sex'", "other.csv"}},
      {"data_suppress_marker_is_a_value",
       {{"cs.yaml", cs_job("{k: 2, marker: Male}")}},
       "suppress cs.yaml",
       2,
       {"cs.yaml", "'Male'", "marker"}},
      {"data_suppress_k_above_rows",
       {{"cs.yaml", cs_job("{k: 100}")}},
       "suppress cs.yaml",
       2,
       {"cs.yaml:9", "6 rows", "k = 100"}},
      {"data_registry_count_not_an_integer",
       {{"pop.csv", "sex;count\nMale;x\nFemale;3\n"},
        {"cs.yaml", cs_job("{k: 2, registry: {attributes: [sex], population: pop.csv}}")}},
       "suppress cs.yaml",
       2,
       {"pop.csv:2:2", "column 'count'", "'x'"}},
      {"data_registry_without_count_column",
       {{"pop.csv", "sex;n\nMale;3\nFemale;3\n"},
        {"cs.yaml", cs_job("{k: 2, registry: {attributes: [sex], population: pop.csv}}")}},
       "suppress cs.yaml",
       2,
       {"pop.csv:1", "no count column 'count'"}},
      {"data_hierarchy_command_column_missing",
       {},
       "hierarchy masking --input data.csv --column nope",
       2,
       {"data.csv:1", "no column 'nope'"}},
      {"data_hierarchy_command_value_not_a_number",
       {},
       "hierarchy intervals --input data.csv --column sex --min 0 --max 10 --widths 5",
       2,
       {"'Male'", "not a number"}},
  };
}

// ---------------------------------------------------------------------------
// Hierarchies: files in ARX's format and inline definitions in the job.

std::vector<Case> hierarchy_cases() {
  const std::string anonymize = "anonymize job.yaml";
  auto inline_age = [](const std::string& definition) {
    return job("privacy: [{k-anonymity: {k: 2}}]", "",
               attributes_with(5, "  age:  {role: quasi-identifying, hierarchy: " + definition + "}"));
  };
  return {
      {"hierarchy_empty_file", {{"hier/sex.csv", ""}}, anonymize, 2, {"hier/sex.csv", "empty"}},
      {"hierarchy_blank_lines_only", {{"hier/sex.csv", "\n\n"}}, anonymize, 2, {"hier/sex.csv", "empty"}},
      {"hierarchy_rows_of_unequal_length",
       {{"hier/sex.csv", "Male;*\nFemale\n"}},
       anonymize,
       2,
       {"hier/sex.csv:2", "expected 2"}},
      {"hierarchy_value_listed_twice",
       {{"hier/sex.csv", "Male;*\nMale;*\nFemale;*\n"}},
       anonymize,
       2,
       {"hier/sex.csv:2:1", "'Male' is listed twice"}},
      {"hierarchy_inconsistent_generalization",
       {{"hier/age.csv", "30;30-31;*\n31;30-31;all\n"}},
       anonymize,
       2,
       {"hier/age.csv:2:3", "'30-31'", "inconsistently"}},
      {"hierarchy_lacks_a_value_of_the_data",
       {{"hier/sex.csv", "Male;*\n"}},
       anonymize,
       2,
       {"data.csv:5", "column 'sex'", "'Female'", "hier/sex.csv", "1 value missing"}},
      {"hierarchy_unterminated_quote",
       {{"hier/sex.csv", "Male;\"*\nFemale;*\n"}},
       anonymize,
       2,
       {"hier/sex.csv:1:2", "unterminated quoted field"}},
      {"hierarchy_invalid_utf8",
       {{"hier/sex.csv", "Male;*\nFemale;*\n\xc3;*\n"}},
       anonymize,
       2,
       {"hier/sex.csv:3", "not valid UTF-8"}},
      {"hierarchy_file_missing",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(4, "  sex:  {role: quasi-identifying, hierarchy: hier/none.csv}"))}},
       anonymize,
       2,
       {"hier/none.csv", "No such file or directory"}},
      {"hierarchy_is_a_directory",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(4, "  sex:  {role: quasi-identifying, hierarchy: hier}"))}},
       anonymize,
       2,
       {"hier", "directory"}},
      {"hierarchy_path_empty",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(4, "  sex:  {role: quasi-identifying, hierarchy: ''}"))}},
       anonymize,
       2,
       {"job.yaml:4", "hierarchy must not be empty"}},
      {"hierarchy_on_an_insensitive_attribute",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(6, "  zip:  {role: insensitive, hierarchy: hier/sex.csv}"))}},
       anonymize,
       2,
       {"job.yaml:6", "attribute 'zip'", "only used for quasi-identifying and sensitive"}},
      {"hierarchy_inline_unknown_type", {{"job.yaml", inline_age("{type: bins}")}}, anonymize, 2,
       {"job.yaml:5", "hierarchy type", "'bins'"}},
      {"hierarchy_inline_without_type", {{"job.yaml", inline_age("{min: 0}")}}, anonymize, 2,
       {"job.yaml:5", "attribute 'age'", "needs 'type'"}},
      {"hierarchy_inline_unknown_key", {{"job.yaml", inline_age("{type: masking, levels: 2, depth: 3}")}}, anonymize,
       2, {"job.yaml:5", "unknown key 'depth'"}},
      {"hierarchy_inline_missing_widths", {{"job.yaml", inline_age("{type: intervals, min: 0, max: 100}")}}, anonymize,
       2, {"job.yaml:5", "needs 'widths'"}},
      {"hierarchy_inline_widths_do_not_nest",
       {{"job.yaml", inline_age("{type: intervals, min: 0, max: 100, widths: [5, 7]}")}}, anonymize, 2,
       {"job.yaml:5", "bin width 7 must be a multiple of the previous width 5"}},
      {"hierarchy_inline_widths_empty", {{"job.yaml", inline_age("{type: intervals, min: 0, max: 100, widths: []}")}},
       anonymize, 2, {"job.yaml:5", "widths must be a non-empty list"}},
      {"hierarchy_inline_width_zero", {{"job.yaml", inline_age("{type: intervals, min: 0, max: 100, widths: [0]}")}},
       anonymize, 2, {"job.yaml:5", "bin width 0 must be positive"}},
      {"hierarchy_inline_width_too_small",
       {{"job.yaml", inline_age("{type: intervals, min: 0, max: 100, widths: [1e-300]}")}}, anonymize, 2,
       {"job.yaml:5", "bin width 1e-300 is too small"}},
      {"hierarchy_inline_max_not_above_min",
       {{"job.yaml", inline_age("{type: intervals, min: 30, max: 30, widths: [1]}")}}, anonymize, 2,
       {"job.yaml:5", "max (30) must be greater than min (30)"}},
      {"hierarchy_inline_min_nan", {{"job.yaml", inline_age("{type: intervals, min: .nan, max: 100, widths: [5]}")}},
       anonymize, 2, {"job.yaml:5", "min must be a number", "'.nan'"}},
      {"hierarchy_inline_max_inf", {{"job.yaml", inline_age("{type: intervals, min: 0, max: .inf, widths: [5]}")}},
       anonymize, 2, {"job.yaml:5", "max must be a number", "'.inf'"}},
      {"hierarchy_inline_width_nan", {{"job.yaml", inline_age("{type: intervals, min: 0, max: 100, widths: [nan]}")}},
       anonymize, 2, {"job.yaml:5", "widths must be a number", "'nan'"}},
      {"hierarchy_inline_masking_levels_zero", {{"job.yaml", inline_age("{type: masking, levels: 0}")}}, anonymize, 2,
       {"job.yaml:5", "levels must be an integer >= 1, got 0"}},
      {"hierarchy_inline_mask_char_two_characters", {{"job.yaml", inline_age("{type: masking, mask-char: '##'}")}},
       anonymize, 2, {"job.yaml:5", "mask-char must be a single character", "'##'"}},
      {"hierarchy_inline_grouping_category_twice",
       {{"job.yaml", inline_age("{type: grouping, order: [30, 31, 30], sizes: [2]}")}}, anonymize, 2,
       {"job.yaml:5", "category '30' appears twice"}},
      {"hierarchy_inline_grouping_size_one", {{"job.yaml", inline_age("{type: grouping, order: [30, 31], sizes: [1]}")}},
       anonymize, 2, {"job.yaml:5", "group size must be an integer >= 2, got 1"}},
      {"hierarchy_inline_grouping_order_empty", {{"job.yaml", inline_age("{type: grouping, order: [], sizes: [2]}")}},
       anonymize, 2, {"job.yaml:5", "order of the categories is empty"}},
  };
}

// ---------------------------------------------------------------------------
// Job keys: numbers out of range (NaN, infinities, huge), empty selections,
// names that do not fit.

std::vector<Case> job_cases() {
  const std::string anonymize = "anonymize job.yaml";
  auto privacy = [&](const std::string& name, const std::string& models, std::vector<std::string> message) {
    return Case{name, {{"job.yaml", job("privacy: [" + models + "]")}}, anonymize, 2, std::move(message)};
  };
  auto extra = [&](const std::string& name, const std::string& lines, std::vector<std::string> message,
                   const std::string& command = "anonymize") {
    return Case{name, {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", lines)}}, command + " job.yaml", 2,
                std::move(message)};
  };
  auto suppress = [&](const std::string& name, const std::string& section, std::vector<std::string> message) {
    return Case{name, {{"cs.yaml", cs_job(section)}}, "suppress cs.yaml", 2, std::move(message)};
  };
  const std::string ldiv = "{l-diversity: {attribute: diag, ";
  return {
      // Quasi-identifiers and attributes.
      {"job_no_quasi_identifier",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         "attributes:\n  name: {role: identifying}\n  diag: {role: sensitive}\n"
                         "default-role: insensitive\n")}},
       anonymize,
       2,
       {"job.yaml:2", "no quasi-identifying attribute"}},
      {"job_only_a_default_role",
       {{"job.yaml", "input: {path: data.csv}\ndefault-role: insensitive\nprivacy: [{k-anonymity: {k: 2}}]\n"}},
       anonymize,
       2,
       {"job.yaml:1", "no quasi-identifying attribute"}},
      {"job_risk_without_quasi_identifier",
       {{"job.yaml", "input: {path: data.csv}\ndefault-role: insensitive\nprivacy: [{k-anonymity: {k: 2}}]\n"}},
       "risk job.yaml",
       2,
       {"job.yaml:1", "no quasi-identifying attribute"}},
      {"job_quasi_identifier_without_hierarchy",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(4, "  sex:  {role: quasi-identifying}"))}},
       anonymize,
       2,
       {"job.yaml:4", "quasi-identifying attribute 'sex' needs a 'hierarchy'"}},
      {"job_default_role_quasi_identifying",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "default-role: quasi-identifying\n")}},
       anonymize,
       2,
       {"job.yaml:10", "default-role cannot be quasi-identifying"}},
      {"job_attribute_listed_twice",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(6, "  sex:  {role: quasi-identifying, hierarchy: hier/sex.csv}"))}},
       anonymize,
       2,
       {"job.yaml:6", "'sex'", "twice"}},
      {"job_attribute_name_is_a_list",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(6, "  [zip]:  {role: insensitive}"))}},
       anonymize,
       2,
       {"job.yaml:6", "must be a name, not a list"}},
      {"job_attribute_name_empty",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "", attributes_with(6, "  '':  {role: insensitive}"))}},
       anonymize,
       2,
       {"job.yaml:6", "must not be empty"}},
      {"job_unknown_role",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "", attributes_with(6, "  zip:  {role: secret}"))}},
       anonymize,
       2,
       {"job.yaml:6", "role must be one of", "'secret'"}},
      {"job_order_empty",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "", attributes_with(7, "  diag: {role: sensitive, order: []}"))}},
       anonymize,
       2,
       {"job.yaml:7", "attribute 'diag'", "order must be a list of values, at least one"}},
      {"job_order_on_a_quasi_identifier",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(4, "  sex:  {role: quasi-identifying, hierarchy: hier/sex.csv, order: [a]}"))}},
       anonymize,
       2,
       {"job.yaml:4", "attribute 'sex'", "'order' is only used for sensitive attributes"}},
      {"job_order_value_twice",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "",
                         attributes_with(7, "  diag: {role: sensitive, order: [flu, cold, flu]}"))}},
       anonymize,
       2,
       {"job.yaml:7", "value 'flu' is listed twice in 'order'"}},
      // Privacy models.
      privacy("job_privacy_empty", "", {"job.yaml", "at least one privacy model"}),
      privacy("job_privacy_model_twice", "{k-anonymity: {k: 2}}, {k-anonymity: {k: 3}}",
              {"job.yaml:8", "k-anonymity is listed twice"}),
      privacy("job_privacy_unknown_model", "{presence: {delta-min: 0.1}}", {"job.yaml:8", "unknown privacy model 'presence'"}),
      privacy("job_k_nan", "{k-anonymity: {k: .nan}}", {"job.yaml:8", "k must be a number", "'.nan'"}),
      privacy("job_k_inf", "{k-anonymity: {k: .inf}}", {"job.yaml:8", "k must be a number", "'.inf'"}),
      privacy("job_k_zero", "{k-anonymity: {k: 0}}", {"job.yaml:8", "k must be an integer >= 1, got 0"}),
      privacy("job_k_fraction", "{k-anonymity: {k: 2.5}}", {"job.yaml:8", "k must be an integer >= 1, got 2.5"}),
      privacy("job_k_huge", "{k-anonymity: {k: 1e300}}", {"job.yaml:8", "k must be at most", "1e300"}),
      privacy("job_k_hex", "{k-anonymity: {k: 0x10}}", {"job.yaml:8", "k must be a number", "'0x10'"}),
      privacy("job_k_missing", "{k-anonymity: {}}", {"job.yaml:8", "k-anonymity needs 'k'"}),
      privacy("job_l_nan", ldiv + "l: nan}}", {"job.yaml:8", "l must be a number", "'nan'"}),
      privacy("job_l_huge", ldiv + "l: 1e300}}", {"job.yaml:8", "l must be at most", "1e300"}),
      privacy("job_l_below_one", ldiv + "variant: entropy, l: 0.5}}", {"job.yaml:8", "l must be >= 1, got 0.5"}),
      privacy("job_c_nan", ldiv + "variant: recursive, l: 2, c: .nan}}", {"job.yaml:8", "c must be a number", "'.nan'"}),
      privacy("job_c_zero", ldiv + "variant: recursive, l: 2, c: 0}}", {"job.yaml:8", "c must be > 0"}),
      privacy("job_l_diversity_attribute_not_listed", "{l-diversity: {attribute: blood, l: 2}}",
              {"job.yaml:8", "'blood'", "role: sensitive"}),
      privacy("job_l_diversity_attribute_not_sensitive", "{l-diversity: {attribute: zip, l: 2}}",
              {"job.yaml:8", "'zip'", "has role insensitive"}),
      privacy("job_t_inf", "{t-closeness: {attribute: diag, t: .inf}}", {"job.yaml:8", "t must be a number", "'.inf'"}),
      privacy("job_t_above_one", "{t-closeness: {attribute: diag, t: 1.5}}", {"job.yaml:8", "t must be in [0, 1], got 1.5"}),
      privacy("job_t_hierarchical_without_hierarchy", "{t-closeness: {attribute: diag, distance: hierarchical, t: 0.5}}",
              {"job.yaml:8", "needs a 'hierarchy'", "'diag'"}),
      privacy("job_population_threshold_nan", "{population-uniqueness: {threshold: .nan, population-size: 100}}",
              {"job.yaml:8", "threshold must be a number", "'.nan'"}),
      privacy("job_population_size_inf", "{population-uniqueness: {threshold: 0.1, population-size: .inf}}",
              {"job.yaml:8", "population-size must be a number", "'.inf'"}),
      privacy("job_population_size_huge", "{population-uniqueness: {threshold: 0.1, population-size: 1e300}}",
              {"job.yaml:8", "population-size must be at most", "1e300"}),
      privacy("job_population_size_zero", "{population-uniqueness: {threshold: 0.1, population-size: 0}}",
              {"job.yaml:8", "population-size must be >= 1"}),
      // Suppression, quality, search.
      extra("job_suppression_limit_nan", "suppression-limit: .nan\n",
            {"job.yaml:10", "suppression-limit must be a number", "'.nan'"}),
      extra("job_suppression_limit_negative", "suppression-limit: -0.1\n",
            {"job.yaml:10", "suppression-limit must be in [0, 1]"}),
      extra("job_suppression_limit_above_one", "suppression-limit: 1.5\n",
            {"job.yaml:10", "suppression-limit must be in [0, 1], got 1.5"}),
      extra("job_gs_factor_inf", "quality: {gs-factor: .inf}\n", {"job.yaml:10", "gs-factor must be a number", "'.inf'"}),
      extra("job_unknown_quality_model", "quality: {model: Loss}\n", {"job.yaml:10", "quality.model", "'Loss'"}),
      extra("job_time_limit_inf", "search: {time-limit: .inf}\n", {"job.yaml:10", "time-limit", "'.inf'"}),
      extra("job_time_limit_huge", "search: {time-limit: 1e308h}\n", {"job.yaml:10", "time-limit must be at most a year",
                                                                      "'1e308h'"}),
      extra("job_time_limit_zero", "search: {time-limit: 0s}\n", {"job.yaml:10", "time-limit", "'0s'"}),
      extra("job_max_checks_zero", "search: {max-checks: 0}\n", {"job.yaml:10", "max-checks must be an integer >= 1"}),
      extra("job_max_checks_nan", "search: {max-checks: .nan}\n", {"job.yaml:10", "max-checks must be a number"}),
      extra("job_unknown_key", "quality: {gs_factor: 0.5}\n", {"job.yaml:10", "unknown key 'gs_factor'"}),
      extra("job_key_given_twice", "suppression-limit: 0.1\nsuppression-limit: 0.2\n",
            {"job.yaml:11", "key 'suppression-limit' is given twice"}),
      // deid risk settings.
      extra("job_risk_threshold_zero", "risk: {threshold: 0}\n", {"job.yaml:10", "risk.threshold", "got 0"}, "risk"),
      extra("job_risk_threshold_tiny", "risk: {threshold: 1e-300}\n", {"job.yaml:10", "risk.threshold", "1e-300"},
            "risk"),
      extra("job_risk_threshold_nan", "risk: {threshold: .nan}\n", {"job.yaml:10", "risk.threshold must be a number"},
            "risk"),
      extra("job_risk_population_inf", "risk: {populations: {USA: .inf}}\n",
            {"job.yaml:10", "population size must be a number", "'.inf'"}, "risk"),
      extra("job_risk_population_huge", "risk: {populations: {USA: 1e300}}\n",
            {"job.yaml:10", "population 'USA'", "1e300"}, "risk"),
      extra("job_risk_population_twice", "risk: {populations: {USA: 1e6, USA: 2e6}}\n",
            {"job.yaml:10", "population 'USA' is given twice"}, "risk"),
      extra("job_risk_populations_empty", "risk: {populations: {}}\n", {"job.yaml:10", "risk.populations"}, "risk"),
      // deid suppress settings.
      suppress("job_suppress_tau_nan", "{tau: .nan}", {"cs.yaml:9", "tau must be a number", "'.nan'"}),
      suppress("job_suppress_tau_tiny", "{tau: 1e-300}", {"cs.yaml:9", "tau must be at least", "1e-300"}),
      suppress("job_suppress_k_and_tau", "{k: 2, tau: 0.5}", {"cs.yaml:9", "either k or tau"}),
      suppress("job_suppress_weight_nan", "{k: 2, weights: {sex: .nan}}", {"cs.yaml:9", "weight must be a number"}),
      suppress("job_suppress_weight_twice", "{k: 2, weights: {sex: 0.5, sex: 0.2}}",
               {"cs.yaml:9", "'sex' is given twice in weights"}),
      suppress("job_suppress_combinations_empty", "{k: 2, combinations: []}", {"cs.yaml:9", "combinations must be"}),
      suppress("job_suppress_combination_empty", "{k: 2, combinations: [[]]}",
               {"cs.yaml:9", "each combination must be a non-empty list"}),
      suppress("job_suppress_combination_names_twice", "{k: 2, combinations: [[sex, sex]]}",
               {"cs.yaml:9", "combination entry 'sex' is given twice"}),
      suppress("job_suppress_levels_empty", "{k: 2, release-levels: {sex: {levels: []}}}",
               {"cs.yaml:9", "levels must be a non-empty list"}),
      suppress("job_suppress_levels_descending", "{k: 2, release-levels: {sex: {levels: [1, 0]}}}",
               {"cs.yaml:9", "levels must be ascending and distinct"}),
      suppress("job_suppress_level_huge", "{k: 2, release-levels: {sex: {levels: [0, 1e18]}}}",
               {"cs.yaml:9", "levels must be at most", "1e18"}),
      suppress("job_suppress_known_level_not_released", "{k: 2, release-levels: {sex: {levels: [0, 1], known-level: 3}}}",
               {"cs.yaml:9", "known-level 3 is not one of the released levels"}),
      suppress("job_suppress_evaluate_empty", "{k: 2, release-levels: {sex: {levels: [0, 1], evaluate: []}}}",
               {"cs.yaml:9", "evaluate must be a non-empty list"}),
      suppress("job_suppress_column_named_twice",
               "{k: 2, release-levels: {sex: {levels: [0, 1], names: [s, s]}}}",
               {"cs.yaml:9", "column name 's' is given twice"}),
      suppress("job_suppress_release_levels_twice", "{k: 2, release-levels: {sex: {levels: [0]}, sex: {levels: [0]}}}",
               {"cs.yaml:9", "'sex' is given twice in release-levels"}),
      suppress("job_suppress_sample_fraction_zero", "{k: 2, samples: {draws: [{fraction: 0, path: s.csv}]}}",
               {"cs.yaml:9", "fraction must be in (0, 1], got 0"}),
      suppress("job_suppress_sample_fraction_nan", "{k: 2, samples: {draws: [{fraction: .nan, path: s.csv}]}}",
               {"cs.yaml:9", "fraction must be a number"}),
      suppress("job_suppress_sample_fractions_above_one",
               "{k: 2, samples: {draws: [{fraction: 0.6, path: a.csv}, {fraction: 0.6, path: b.csv}]}}",
               {"cs.yaml:9", "add up to more than 1"}),
      suppress("job_suppress_seed_negative", "{k: 2, samples: {seed: -1, draws: [{fraction: 0.5, path: s.csv}]}}",
               {"cs.yaml:9", "seed must be an integer >= 0, got -1"}),
      suppress("job_suppress_seed_nan", "{k: 2, samples: {seed: .nan, draws: [{fraction: 0.5, path: s.csv}]}}",
               {"cs.yaml:9", "seed must be a number"}),
      suppress("job_suppress_registry_attributes_empty", "{k: 2, registry: {attributes: []}}",
               {"cs.yaml:9", "registry needs 'attributes'"}),
      suppress("job_suppress_registry_attribute_twice", "{k: 2, registry: {attributes: [sex, sex]}}",
               {"cs.yaml:9", "registry attribute 'sex' is given twice"}),
      suppress("job_suppress_sampling_fraction_inf", "{k: 2, registry: {attributes: [sex], sampling-fraction: .inf}}",
               {"cs.yaml:9", "sampling-fraction must be a number"}),
      suppress("job_suppress_missingness_by_itself", "{k: 2, missingness: [{variable: sex, by: sex}]}",
               {"cs.yaml:9", "missingness of 'sex' by itself"}),
      // Groups by an identifier or by the input values of a quasi-identifier
      // released under another name would quote values the release removes.
      suppress("job_suppress_missingness_by_identifier", "{k: 2, missingness: [{variable: sex, by: name}]}",
               {"cs.yaml:9", "by 'name' is an identifying column"}),
      suppress("job_suppress_missingness_by_generalized_input",
               "{k: 2, release-levels: {age: {levels: [1], names: [age_band]}}, "
               "missingness: [{variable: sex, by: age}]}",
               {"cs.yaml:9", "by 'age' is a quasi-identifier the release shows only as 'age_band'"}),
      suppress("job_suppress_weight_on_non_quasi_identifier", "{k: 2, weights: {diag: 0.5}}",
               {"cs.yaml:9", "weight for 'diag'", "quasi-identifying"}),
      // The wrong command for the job.
      {"job_anonymize_a_suppression_job",
       {{"cs.yaml", cs_job("{k: 2}")}},
       "anonymize cs.yaml",
       2,
       {"cs.yaml", "run 'deid suppress'"}},
      {"job_suppress_without_section", {}, "suppress job.yaml", 2, {"job.yaml", "no 'cell-suppression' section"}},
      // YAML itself.
      {"job_yaml_syntax_error", {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}")}}, anonymize, 2,
       {"job.yaml:", "invalid YAML"}},
      {"job_empty", {{"job.yaml", ""}}, anonymize, 2, {"job.yaml", "the job file is empty"}},
      {"job_not_a_mapping", {{"job.yaml", "- a\n- b\n"}}, anonymize, 2, {"job.yaml:1", "must be a mapping"}},
  };
}

// ---------------------------------------------------------------------------
// Command-line options.

std::vector<Case> option_cases() {
  const std::string intervals = "hierarchy intervals --values 30,31 ";
  return {
      {"option_no_command", {}, "", 2, {"subcommand"}},
      {"option_job_missing", {}, "anonymize", 2, {"job is required"}},
      {"option_unknown_option", {}, "anonymize job.yaml --ouput x.csv", 2, {"--ouput"}},
      {"option_extra_argument", {}, "anonymize job.yaml other.yaml", 2, {"other.yaml"}},
      {"option_threads_zero", {}, "-j 0 anonymize job.yaml", 2, {"--threads", "0"}},
      {"option_threads_not_a_number", {}, "-j many anonymize job.yaml", 2, {"--threads", "many"}},
      {"option_hierarchy_min_hex", {}, intervals + "--min 0x10 --max 100 --widths 5", 2, {"--min", "'0x10'"}},
      {"option_hierarchy_min_nan", {}, intervals + "--min nan --max 100 --widths 5", 2, {"--min", "'nan'"}},
      {"option_hierarchy_max_inf", {}, intervals + "--min 0 --max inf --widths 5", 2, {"--max", "'inf'"}},
      {"option_hierarchy_max_overflows", {}, intervals + "--min 0 --max 1e400 --widths 5", 2, {"--max", "'1e400'"}},
      {"option_hierarchy_width_nan", {}, intervals + "--min 0 --max 100 --widths 5,nan", 2, {"--widths", "'nan'"}},
      {"option_hierarchy_width_zero", {}, intervals + "--min 0 --max 100 --widths 0", 2, {"--widths", "'0'"}},
      {"option_hierarchy_width_too_small", {}, intervals + "--min 0 --max 100 --widths 1e-300", 2,
       {"--widths", "1e-300", "too small"}},
      {"option_hierarchy_widths_do_not_nest", {}, intervals + "--min 0 --max 100 --widths 5,7", 2,
       {"--widths", "bin width 7 must be a multiple of the previous width 5"}},
      {"option_hierarchy_max_not_above_min", {}, intervals + "--min 50 --max 10 --widths 5", 2,
       {"--max", "max (10) must be greater than min (50)"}},
      {"option_hierarchy_widths_missing", {}, intervals + "--min 0 --max 100", 2, {"--widths"}},
      {"option_hierarchy_levels_zero", {}, "hierarchy masking --values 81675 --levels 0", 2, {"--levels", "0"}},
      {"option_hierarchy_mask_char_two", {}, "hierarchy masking --values 81675 --mask-char ab", 2, {"--mask-char"}},
      {"option_hierarchy_sizes_one", {}, "hierarchy grouping --values a,b --order a,b --sizes 1", 2, {"--sizes", "1"}},
      {"option_hierarchy_sizes_do_not_nest", {}, "hierarchy grouping --values a,b --order a,b,c,d,e,f --sizes 2,3", 2,
       {"--sizes", "group size 3 must be a multiple of the previous size 2"}},
      {"option_hierarchy_category_twice", {}, "hierarchy grouping --values a,b --order a,b,a --sizes 2", 2,
       {"--order", "category 'a' appears twice"}},
      {"option_hierarchy_delimiter_two_characters", {}, "hierarchy masking --input data.csv --column zip --delimiter ab",
       2, {"--delimiter", "'ab'"}},
      {"option_hierarchy_values_and_input", {}, "hierarchy masking --input data.csv --column zip --values 1,2", 2,
       {"--values", "--input"}},
      {"option_hierarchy_column_without_input", {}, "hierarchy masking --values 1,2 --column zip", 2,
       {"--column", "--input"}},
      {"option_hierarchy_no_values", {}, "hierarchy masking", 2, {"--values", "--input", "--column"}},
      {"option_hierarchy_output_empty", {}, "hierarchy masking --values 1,2 -o ''", 2, {"--output", "empty"}},
      {"option_hierarchy_date_invalid", {}, "hierarchy dates --values 2020-02-30", 2, {"'2020-02-30'", "not a date"}},
      {"option_risk_threshold_above_one", {}, "risk job.yaml --threshold 2", 2, {"--threshold", "2"}},
      {"option_risk_population_without_size", {}, "risk job.yaml --population USA", 2, {"'USA'", "NAME=SIZE"}},
      // Parquet is read and written by the Python package (`python -m deid`):
      // the tool alone says so, before it writes anything.
      {"option_parquet_input_in_the_tool", {{"in.parquet", "PAR1"}}, "anonymize job.yaml --input in.parquet", 2,
       {"in.parquet", "input data is a Parquet file", "python -m deid"}},
      {"option_parquet_output_in_the_tool", {}, "anonymize job.yaml --output out.parquet", 2,
       {"out.parquet", "output table is a Parquet file", "python -m deid"}},
      {"option_parquet_risk_input_in_the_tool", {{"in.parquet", "PAR1"}}, "risk job.yaml --input in.parquet", 2,
       {"in.parquet", "python -m deid"}},
      {"option_parquet_verify_output_in_the_tool", {{"out.parquet", "PAR1"}}, "verify job.yaml --output out.parquet",
       2, {"out.parquet", "python -m deid"}},
      {"option_parquet_job_input_in_the_tool",
       {{"job.yaml", "input: {parquet: in.parquet}\n" + std::string(kAttributes) +
                         "privacy: [{k-anonymity: {k: 2}}]\noutput: {path: out.csv}\n"},
        {"in.parquet", "PAR1"}},
       "anonymize job.yaml",
       2,
       {"in.parquet", "python -m deid"}},
      {"option_parquet_job_output_in_the_tool",
       {{"job.yaml", "input: {path: data.csv}\n" + std::string(kAttributes) +
                         "privacy: [{k-anonymity: {k: 2}}]\noutput: {parquet: out.parquet, result: out.json}\n"}},
       "anonymize job.yaml",
       2,
       {"out.parquet", "python -m deid"}},
  };
}

// ---------------------------------------------------------------------------
// The file system: files that are missing, empty or not files.

std::vector<Case> file_system_cases() {
  auto input = [](const std::string& path) {
    std::string j = job();
    j.replace(j.find("data.csv"), 8, path);
    return j;
  };
  return {
      {"fs_input_missing", {{"job.yaml", input("none.csv")}}, "anonymize job.yaml", 2,
       {"none.csv", "No such file or directory"}},
      {"fs_input_is_a_directory", {{"job.yaml", input("hier")}}, "anonymize job.yaml", 2, {"hier", "directory"}},
      {"fs_input_is_dev_null", {{"job.yaml", input("/dev/null")}}, "anonymize job.yaml", 2, {"/dev/null", "empty"}},
      // Endless NUL bytes: said at once, not read until memory runs out.
      {"fs_input_is_dev_zero", {{"job.yaml", input("/dev/zero")}}, "anonymize job.yaml", 2,
       {"/dev/zero", "not text", "NUL byte"}},
      {"fs_risk_input_is_dev_zero", {}, "risk job.yaml --input /dev/zero", 2, {"/dev/zero", "NUL byte"}},
      {"fs_suppress_hierarchy_missing",
       {{"cs.yaml", "input: {path: data.csv}\n"
                    "attributes:\n"
                    "  name: {role: identifying}\n"
                    "  sex:  {role: quasi-identifying, hierarchy: hier/none.csv}\n"
                    "  age:  {role: quasi-identifying}\n"
                    "  zip:  {role: quasi-identifying}\n"
                    "  diag: {role: insensitive}\n"
                    "output: {path: out.csv}\ncell-suppression: {k: 2}\n"}},
       "suppress cs.yaml",
       2,
       {"cs.yaml:4", "'sex'", "hier/none.csv", "No such file"}},
      {"fs_input_option_missing", {}, "anonymize job.yaml --input none.csv", 2, {"none.csv", "No such file"}},
      {"fs_input_unreadable",
       {},
       "anonymize job.yaml",
       2,
       {"data.csv", "Permission denied"},
       [](const fs::path& dir) { fs::permissions(dir / "data.csv", fs::perms::none); },
       true},
      {"fs_job_missing", {}, "anonymize none.yaml", 2, {"none.yaml"}},
      {"fs_job_is_a_directory", {}, "anonymize hier", 2, {"hier", "directory"}},
      {"fs_job_is_dev_null", {}, "anonymize /dev/null", 2, {"/dev/null", "empty"}},
      {"fs_job_is_dev_zero", {}, "anonymize /dev/zero", 2, {"/dev/zero", "not text"}},
      {"fs_risk_job_is_dev_zero", {}, "risk /dev/zero", 2, {"/dev/zero", "not text"}},
      // verify reports a released table it cannot read as a failed check (exit 1).
      {"fs_verify_output_is_dev_zero", {}, "verify job.yaml --output /dev/zero", 1, {"/dev/zero", "not text"}},
      {"fs_suppress_job_missing", {}, "suppress none.yaml", 2, {"none.yaml"}},
      {"fs_risk_job_missing", {}, "risk none.yaml", 2, {"none.yaml"}},
      {"fs_registry_population_missing",
       {{"cs.yaml", cs_job("{k: 2, registry: {attributes: [sex], population: none.csv}}")}},
       "suppress cs.yaml",
       2,
       {"none.csv", "No such file"}},
      {"fs_hierarchy_command_input_missing", {}, "hierarchy masking --input none.csv --column zip", 2,
       {"none.csv", "No such file"}},
      {"fs_hierarchy_command_input_is_a_directory", {}, "hierarchy masking --input hier --column zip", 2,
       {"hier", "directory"}},
  };
}

// ---------------------------------------------------------------------------
// Safe outputs (docs/reliability.md) and two `deid risk` options.

std::vector<Case> output_file_cases() {
  const std::string anonymize = "anonymize job.yaml";
  auto link = [](const std::string& target, const std::string& name, bool hard) {
    return [=](const fs::path& dir) {
      if (hard) fs::create_hard_link(dir / target, dir / name);
      else fs::create_symlink(target, dir / name);
    };
  };
  // Malformed data: a check of the outputs that comes before reading the data
  // is reported instead of the data's error.
  const std::string bad_data = data("Ann;Male;30;\"81675;flu\n");
  const std::string cs_samples_on_output =
      cs_job("{k: 2, samples: {draws: [{fraction: 0.5, path: out.csv}]}}");
  return {
      {"output_is_the_input", {}, anonymize + " --output data.csv", 2, {"data.csv", "output table", "input data"}},
      {"output_in_the_job_is_the_input",
       {{"job.yaml", "input: {path: data.csv}\n" + std::string(kAttributes) +
                         "privacy: [{k-anonymity: {k: 2}}]\noutput: {path: data.csv}\n"}},
       anonymize,
       2,
       {"data.csv", "output", "input"}},
      {"output_is_a_symlink_to_the_input", {}, anonymize + " --output link.csv", 2,
       {"link.csv", "output table", "input data"}, link("data.csv", "link.csv", false)},
      {"output_is_a_hard_link_to_the_input", {}, anonymize + " --output link.csv", 2,
       {"link.csv", "output table", "input data"}, link("data.csv", "link.csv", true)},
      {"output_is_a_hierarchy", {}, anonymize + " --output hier/sex.csv", 2,
       {"hier/sex.csv", "output table", "hierarchy"}},
      {"output_is_the_job_file", {}, anonymize + " --output job.yaml", 2, {"job.yaml", "output table", "job"}},
      {"result_is_the_input", {}, anonymize + " --result data.csv", 2, {"data.csv", "result", "input data"}},
      {"report_is_a_symlink_to_a_hierarchy", {}, anonymize + " --report link.html", 2,
       {"link.html", "report", "hierarchy"}, link("hier/age.csv", "link.html", false)},
      {"output_and_result_are_one_file", {}, anonymize + " --output o.csv --result o.csv", 2,
       {"o.csv", "output table", "result"}},
      {"risk_json_is_the_input", {}, "risk job.yaml --json data.csv", 2, {"data.csv", "risk JSON", "input data"}},
      {"risk_report_is_the_job_file", {}, "risk job.yaml --report job.yaml", 2, {"job.yaml", "job"}},
      {"suppress_output_is_the_input", {{"cs.yaml", cs_job("{k: 2}")}}, "suppress cs.yaml --output data.csv", 2,
       {"data.csv", "output table", "input data"}},
      {"suppress_output_is_the_registry",
       {{"pop.csv", "sex;count\nMale;100\nFemale;100\n"},
        {"cs.yaml", cs_job("{k: 2, registry: {attributes: [sex], population: pop.csv}}")}},
       "suppress cs.yaml --output pop.csv",
       2,
       {"pop.csv", "output table"}},
      {"suppress_sample_is_the_output", {{"cs.yaml", cs_samples_on_output}}, "suppress cs.yaml", 2,
       {"out.csv", "sample", "output table"}},
      {"suppress_sample_is_the_registry",
       {{"pop.csv", "sex;count\nMale;100\nFemale;100\n"},
        {"cs.yaml",
         cs_job("{k: 2, registry: {attributes: [sex], population: pop.csv}, samples: {draws: [{fraction: 0.5, "
                "path: pop.csv}]}}")}},
       "suppress cs.yaml",
       2,
       {"pop.csv", "sample"}},
      {"hierarchy_output_is_its_input", {}, "hierarchy masking --input data.csv --column zip -o data.csv", 2,
       {"data.csv", "hierarchy", "input data"}},
      {"hierarchy_output_is_a_symlink_to_its_input", {},
       "hierarchy masking --input data.csv --column zip -o link.csv", 2, {"link.csv", "hierarchy", "input data"},
       link("data.csv", "link.csv", false)},
      {"output_directory_missing", {{"data.csv", bad_data}}, anonymize + " --output none/out.csv", 2,
       {"none/out.csv", "No such file or directory"}},
      {"output_directory_in_the_job_missing",
       {{"data.csv", bad_data},
        {"job.yaml", "input: {path: data.csv}\n" + std::string(kAttributes) +
                         "privacy: [{k-anonymity: {k: 2}}]\noutput: {path: none/out.csv}\n"}},
       anonymize,
       2,
       {"none/out.csv", "No such file or directory"}},
      {"result_directory_missing", {{"data.csv", bad_data}}, anonymize + " --result none/out.json", 2,
       {"none/out.json", "No such file or directory"}},
      // Read-only by the permission bits, so root is refused too.
      {"output_directory_read_only",
       {{"data.csv", bad_data}},
       anonymize + " --output ro/out.csv",
       2,
       {"ro/out.csv", "cannot write the output table"},
       [](const fs::path& dir) {
         fs::create_directory(dir / "ro");
         fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
       }},
      {"output_is_read_only",
       {{"out.csv", "protected\n"}},
       anonymize,
       2,
       {"out.csv", "read-only", "0444"},
       [](const fs::path& dir) { fs::permissions(dir / "out.csv", fs::perms::owner_read | fs::perms::group_read |
                                                                   fs::perms::others_read); }},
      {"result_is_read_only_in_a_risk_run",
       {{"r.json", "protected\n"}},
       "risk job.yaml --json r.json",
       2,
       {"r.json", "read-only"},
       [](const fs::path& dir) { fs::permissions(dir / "r.json", fs::perms::owner_read); }},
      // Every file a command reads is safe from each of its outputs: the
      // hierarchies, the subset table and the job for deid risk and deid
      // verify too.
      {"risk_json_is_a_hierarchy", {}, "risk job.yaml --json hier/sex.csv", 2,
       {"hier/sex.csv", "risk JSON", "hierarchy of 'sex'"}},
      {"risk_report_is_a_symlink_to_a_hierarchy", {}, "risk job.yaml --report link.html", 2,
       {"link.html", "HTML risk report", "hierarchy of 'age'"}, link("hier/age.csv", "link.html", false)},
      {"verify_json_is_a_hierarchy", {}, "verify job.yaml --json hier/age.csv", 2,
       {"hier/age.csv", "table of checks", "hierarchy of 'age'"}},
      {"verify_json_is_the_job", {}, "verify job.yaml --json job.yaml", 2, {"job.yaml", "table of checks", "job file"}},
      {"verify_json_is_the_input", {}, "verify job.yaml --json data.csv", 2, {"data.csv", "table of checks", "input"}},
      {"output_is_the_subset_table",
       {{"sub.csv", "name;sex;age;zip;diag\nAnn;Male;30;81675;flu\n"},
        {"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "subset: {file: sub.csv}\n")}},
       anonymize + " --output sub.csv",
       2,
       {"sub.csv", "output table", "research subset"}},
      {"utility_json_is_a_hierarchy", {{"rel.csv", "sex;age;zip;diag\nMale;30;81675;flu\n"}},
       "utility job.yaml --output rel.csv --json hier/sex.csv", 2, {"hier/sex.csv", "utility JSON", "hierarchy"}},
      {"output_is_a_directory", {}, anonymize + " --output hier", 2, {"hier", "directory"}},
      {"output_on_a_full_disk", {}, anonymize + " --output /dev/full", 2, {"/dev/full", "No space left on device"}},
      {"result_on_a_full_disk", {}, anonymize + " --result /dev/full", 2, {"/dev/full", "No space left on device"}},
      {"risk_json_on_a_full_disk", {}, "risk job.yaml --json /dev/full", 2, {"/dev/full", "No space left on device"}},
      {"hierarchy_on_a_full_disk", {}, "hierarchy masking --values 81675 -o /dev/full", 2,
       {"/dev/full", "No space left on device"}},
      {"suppress_output_on_a_full_disk", {{"cs.yaml", cs_job("{k: 2}")}}, "suppress cs.yaml --output /dev/full", 2,
       {"/dev/full", "No space left on device"}},
      // No solution (exit 1): an output left by an earlier run is kept, not
      // deleted (the job writes no result, so the directory stays as it was).
      {"no_solution_keeps_an_existing_output",
       {{"out.csv", "an earlier run's output\n"},
        {"job.yaml", "input: {path: data.csv}\n" + std::string(kAttributes) +
                         "privacy: [{k-anonymity: {k: 100}}]\noutput: {path: out.csv}\n"}},
       anonymize,
       1,
       {}},
      // Options of cli/main.cc: an unknown command is named ("A subcommand
      // is required" today), and `deid risk` numbers are checked.
      {"option_unknown_command", {}, "frobnicate job.yaml", 2, {"frobnicate"}},
      {"risk_threshold_nan", {}, "risk job.yaml --threshold nan", 2, {"--threshold", "nan"}},
      {"risk_threshold_zero", {}, "risk job.yaml --threshold 0", 2, {"--threshold", "0"}},
      {"risk_threshold_tiny", {}, "risk job.yaml --threshold 1e-300", 2, {"--threshold", "1e-300"}},
      {"risk_population_inf", {}, "risk job.yaml --population X=inf", 2, {"X=inf"}},
      {"risk_population_huge", {}, "risk job.yaml --population X=1e300", 2, {"X=1e300"}},
      {"risk_population_below_records", {}, "risk job.yaml --population X=3", 2, {"X=3", "6 records"}},
      // Checks of the job against the data in files others are changing:
      // a population below the records is "invalid" in the table today (exit
      // 0), and samples of round(fraction x rows) rows each that need more
      // rows than the table has end in exit 3 (src/transform/sampling.cc);
      // bind() in src/transform/cell_suppression_job.cc is the place.
      {"risk_population_in_the_job_below_records",
       {{"job.yaml", job("privacy: [{k-anonymity: {k: 2}}]", "risk: {populations: {town: 3}}\n")}},
       "risk job.yaml",
       2,
       {"job.yaml:10", "'town'", "6 records"}},
      {"suppress_samples_need_more_rows_than_the_table",
       {{"cs.yaml", cs_job("{k: 2, samples: {draws: [{fraction: 0.25, path: a.csv}, {fraction: 0.25, path: b.csv}, "
                           "{fraction: 0.25, path: c.csv}, {fraction: 0.25, path: d.csv}]}}")}},
       "suppress cs.yaml",
       2,
       {"cs.yaml:9", "sample", "6 rows"}},
  };
}

INSTANTIATE_TEST_SUITE_P(Data, BadInput, ::testing::ValuesIn(data_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Hierarchy, BadInput, ::testing::ValuesIn(hierarchy_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Job, BadInput, ::testing::ValuesIn(job_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Options, BadInput, ::testing::ValuesIn(option_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(FileSystem, BadInput, ::testing::ValuesIn(file_system_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Outputs, BadInputFiles, ::testing::ValuesIn(output_file_cases()), case_name);

}  // namespace
