// Linked tables on the built CLI (docs/identifiers.md, "Linked tables"): a
// table of admissions released beside the patients' release with the same
// pseudonyms and date offsets (intervals within a person exact, in both
// tables), its quasi-identifier at the level the search chose, the rows of
// suppressed people kept with '*' or dropped, orphans refused or dropped,
// every released key present in the person release, another secret giving
// other pseudonyms and offsets, and the jobs and tables that cannot work
// refused before anything is written.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "deid/error.h"
#include "deid/identifiers.h"
#include "deid/job.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;
using deid::testing::slurp;

constexpr const char* kSecret = "correct horse battery staple";

// Eight people in four decades of age, two in each; P-0001's offset with
// this secret and 30 days is +11 (tests/unit/identifiers_test.cc).
constexpr const char* kPatients =
    "mrn,name,admitted,age,sex\n"
    "P-0001,Ann Smith,2024-02-25,34,F\n"
    "P-0002,Bob Jones,2023-12-30,37,M\n"
    "P-0003,Cid Brown,2024-05-01,52,M\n"
    "P-0004,Dee White,2022-07-14,58,F\n"
    "P-0005,Eve Black,2021-01-31,61,F\n"
    "P-0006,Fay Green,2020-02-29,66,F\n"
    "P-0007,Gus Grey,2019-06-30,23,M\n"
    "P-0008,Hal Blue,2024-11-11,27,M\n";

// Admissions: several per person, ages at admission the patients' table
// does not have (placed by the inline interval hierarchy), a doctor and a
// free-text note.
constexpr const char* kAdmissions =
    "mrn,admitted,discharged,ward,age_at_admission,attending,note\n"
    "P-0001,2023-01-10,2023-01-14,medicine,33,D-17,call Ann Smith\n"
    "P-0001,2024-02-25,2024-03-02,respiratory,34,D-17,\n"
    "P-0002,2023-12-30,2024-01-04,cardiology,37,D-03,\n"
    "P-0004,2022-07-14,2022-08-01,oncology,58,D-08,\n"
    "P-0004,2024-01-15,2024-01-19,oncology,59,D-08,\n"
    "P-0007,2019-06-30,2019-07-02,orthopaedics,23,D-30,\n"
    "P-0008,2024-11-11,2024-11-20,endocrinology,27,D-21,\n"
    "P-0008,2024-12-24,2024-12-27,endocrinology,28,D-21,Hal's wife\n";

constexpr const char* kPersonJob = R"(input: {path: patients.csv}
attributes:
  mrn:      {role: identifying, action: pseudonym}
  name:     {role: identifying}
  admitted: {role: identifying, action: date-shift}
  age:      {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [10, 50]}}
  sex:      {role: insensitive}
identifiers:
  secret: {env: DEID_TEST_SECRET}
  person: mrn
  shift-days: 30
output: {path: out/patients.csv, result: out/result.json, report: out/report.html}
)";

constexpr const char* kColumns = R"(    columns:
      admitted:         {role: identifying, action: date-shift}
      discharged:       {role: identifying, action: date-shift}
      ward:             {role: insensitive}
      age_at_admission: {role: quasi-identifying, as: age}
      attending:        {role: identifying, action: pseudonym, length: 8}
      note:             {role: identifying}
)";

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row(1);
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;  // no doubled quotes in these tables
      else if (ch == ',' && !quoted) row.emplace_back();
      else row.back().push_back(ch);
    }
    rows.push_back(row);
  }
  return rows;
}

// Column `name` of a parsed table (header first), one value per data row.
std::vector<std::string> column(const std::vector<std::vector<std::string>>& t, const std::string& name) {
  std::size_t c = 0;
  while (c < t[0].size() && t[0][c] != name) ++c;
  std::vector<std::string> out;
  if (c == t[0].size()) return out;
  for (std::size_t r = 1; r < t.size(); ++r) out.push_back(t[r][c]);
  return out;
}

// The status `deid verify` prints for the check named `name`.
std::string status_of(const std::string& table, const std::string& name) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name, 0) != 0 || line.size() <= name.size() || line[name.size()] != ' ') continue;
    std::istringstream rest(line.substr(name.size()));
    std::string status;
    rest >> status;
    return status;
  }
  return "(no line)";
}

std::int64_t day(const std::string& date) { return *deid::DateFormat("%Y-%m-%d").parse(date); }

class Linked : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("deid_linked_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    write("patients.csv", kPatients);
    write("admissions.csv", kAdmissions);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
  }
  // job.yaml: the person job, `privacy` and one linked table with `options`
  // (further keys of its entry) and `columns`.
  std::string job(const std::string& privacy, const std::string& options = "",
                  const std::string& columns = kColumns, const std::string& person = kPersonJob) const {
    write("job.yaml", person + privacy +
                          "linked:\n  - path: admissions.csv\n    key: mrn\n    output: out/admissions.csv\n" +
                          options + columns);
    return p("job.yaml");
  }
  int run(const std::string& job_path, const std::string& secret = kSecret, const std::string& args = "") {
    const std::string cmd = "env DEID_TEST_SECRET='" + secret + "' '" + DEID_CLI_PATH + "' --quiet " + args +
                            " anonymize '" + job_path + "' >'" + p("stdout") + "' 2>'" + p("stderr") + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string stderr_text() const { return slurp(p("stderr")); }
  nlohmann::json result() const { return nlohmann::json::parse(slurp(p("out/result.json"))); }

  fs::path dir_;
};

constexpr const char* kTwoAnonymous = "privacy: [{k-anonymity: {k: 2}}]\nsuppression-limit: 0\n";

TEST_F(Linked, ReleasesTheSamePseudonymsOffsetsAndLevelsAsThePersonTable) {
  ASSERT_EQ(run(job(kTwoAnonymous)), 0) << stderr_text();
  const auto people = parse_csv(slurp(p("out/patients.csv")));
  const auto adm = parse_csv(slurp(p("out/admissions.csv")));
  const auto in_people = parse_csv(kPatients);
  const auto in_adm = parse_csv(kAdmissions);
  // The key and every column not removed, in the file's order; every row.
  EXPECT_EQ(adm[0], (std::vector<std::string>{"mrn", "admitted", "discharged", "ward", "age_at_admission", "attending"}));
  ASSERT_EQ(adm.size(), in_adm.size());

  const nlohmann::json r = result();
  const int level = r["transformation"]["age"].get<int>();
  EXPECT_EQ(level, 1);  // decades: two people in each
  // Per person: the released key and the offset of the person table.
  std::map<std::string, std::string> key_of;
  std::map<std::string, std::int64_t> offset_of;
  const auto mrn = column(in_people, "mrn"), admitted = column(in_people, "admitted");
  const auto released_mrn = column(people, "mrn"), released_admitted = column(people, "admitted");
  for (std::size_t i = 0; i < mrn.size(); ++i) {
    key_of[mrn[i]] = released_mrn[i];
    offset_of[mrn[i]] = day(released_admitted[i]) - day(admitted[i]);
  }
  EXPECT_EQ(offset_of["P-0001"], 11);  // the worked example
  const std::set<std::string> released_keys(released_mrn.begin(), released_mrn.end());
  for (std::size_t row = 1; row < adm.size(); ++row) {
    const auto& in = in_adm[row];
    const auto& out = adm[row];
    SCOPED_TRACE("admission " + std::to_string(row));
    EXPECT_EQ(out[0], key_of[in[0]]);
    EXPECT_EQ(out[0], deid::pseudonym(kSecret, in[0], 16));
    EXPECT_TRUE(released_keys.count(out[0]));  // every linked key is in the person release
    // Both dates by the person's offset: the stay's length and its distance
    // to the person table's date are exact.
    EXPECT_EQ(day(out[1]) - day(in[1]), offset_of[in[0]]);
    EXPECT_EQ(day(out[2]) - day(in[2]), offset_of[in[0]]);
    EXPECT_EQ(day(out[2]) - day(out[1]), day(in[2]) - day(in[1]));
    EXPECT_EQ(out[3], in[3]);
    // Decades, like the person table's ages at level 1.
    const int age = std::stoi(in[4]);
    EXPECT_EQ(out[4], "[" + std::to_string(age / 10 * 10) + ", " + std::to_string(age / 10 * 10 + 10) + ")");
    EXPECT_EQ(out[5], deid::pseudonym(kSecret, in[5], 8));
  }
  // The result describes the table; its files are listed with digests.
  ASSERT_EQ(r["linked"].size(), 1u);
  const auto& l = r["linked"][0];
  EXPECT_EQ(l["name"], "admissions");
  EXPECT_EQ(l["rows"], 8);
  EXPECT_EQ(l["released_rows"], 8);
  EXPECT_EQ(l["suppressed_rows"], 0);
  EXPECT_EQ(l["columns"][4]["as"], "age");
  EXPECT_EQ(l["columns"][4]["level"], 1);
  EXPECT_EQ(l["columns"][6]["released_as"], "removed");
  const std::string report = slurp(p("out/report.html"));
  EXPECT_NE(report.find("<h2>Linked tables</h2>"), std::string::npos);
  EXPECT_NE(report.find("age_at_admission: like age, level 1"), std::string::npos);
  EXPECT_NE(report.find("<h2>Released identifiers</h2>"), std::string::npos);
  std::set<std::string> roles;
  for (const auto& f : r["files"]) roles.insert(f["role"].get<std::string>());
  EXPECT_TRUE(roles.count("linked input") && roles.count("linked output"));
  // No original identifier anywhere: MRNs, names, notes, doctors.
  for (const char* file : {"out/patients.csv", "out/admissions.csv", "out/result.json", "out/report.html"}) {
    const std::string text = slurp(p(file));
    for (const char* v : {"P-000", "Ann Smith", "Hal Blue", "call Ann", "wife", "D-17", "D-21"})
      EXPECT_EQ(text.find(v), std::string::npos) << v << " in " << file;
  }
}

TEST_F(Linked, TheSameWithOneThreadAndAnotherSecretGivesOthers) {
  ASSERT_EQ(run(job(kTwoAnonymous), kSecret, "-j 1"), 0) << stderr_text();
  const std::string one = slurp(p("out/admissions.csv"));
  ASSERT_EQ(run(job(kTwoAnonymous), kSecret, "-j 2"), 0) << stderr_text();
  EXPECT_EQ(slurp(p("out/admissions.csv")), one);
  // Key rotation: no pseudonym of the first release in the second, and the
  // tables of the second still agree with each other.
  ASSERT_EQ(run(job(kTwoAnonymous), "another secret of some length"), 0) << stderr_text();
  const auto rotated = parse_csv(slurp(p("out/admissions.csv")));
  const auto first = parse_csv(one);
  const auto people = column(parse_csv(slurp(p("out/patients.csv"))), "mrn");
  for (std::size_t row = 1; row < rotated.size(); ++row) {
    EXPECT_NE(rotated[row][0], first[row][0]);
    EXPECT_NE(rotated[row][5], first[row][5]);
    EXPECT_NE(std::find(people.begin(), people.end(), rotated[row][0]), people.end());
  }
}

// Ages 45 and 71 are alone in their decades: with decades forced, those two
// people are suppressed.
constexpr const char* kLonely =
    "mrn,name,admitted,age,sex\n"
    "P-0001,Ann Smith,2024-02-25,34,F\n"
    "P-0002,Bob Jones,2023-12-30,37,M\n"
    "P-0004,Dee White,2022-07-14,45,F\n"
    "P-0007,Gus Grey,2019-06-30,23,M\n"
    "P-0008,Hal Blue,2024-11-11,71,M\n"
    "P-0009,Ida Rose,2023-03-03,29,F\n";

constexpr const char* kDecades =
    "privacy: [{k-anonymity: {k: 2}}]\nsuppression-limit: 0.5\nsearch: {transformation: {age: 1}}\n";

TEST_F(Linked, RowsOfSuppressedPeopleAreKeptSuppressedOrDropped) {
  write("patients.csv", kLonely);
  ASSERT_EQ(run(job(kDecades)), 0) << stderr_text();
  EXPECT_EQ(result()["suppressed_records"], 2);
  auto adm = parse_csv(slurp(p("out/admissions.csv")));
  const auto in_adm = parse_csv(kAdmissions);
  ASSERT_EQ(adm.size(), in_adm.size());
  for (std::size_t row = 1; row < adm.size(); ++row) {
    const bool lonely = in_adm[row][0] == "P-0004" || in_adm[row][0] == "P-0008";
    EXPECT_EQ(adm[row][4] == "*", lonely) << row;
    EXPECT_EQ(adm[row][3], in_adm[row][3]);  // the other columns stay
  }
  EXPECT_EQ(result()["linked"][0]["suppressed_rows"], 4);

  ASSERT_EQ(run(job(kDecades, "    suppressed: drop\n")), 0) << stderr_text();
  adm = parse_csv(slurp(p("out/admissions.csv")));
  ASSERT_EQ(adm.size(), in_adm.size() - 4);
  for (std::size_t row = 1; row < adm.size(); ++row) EXPECT_NE(adm[row][4], "*");
  const nlohmann::json r = result();
  const auto& l = r["linked"][0];
  EXPECT_EQ(l["released_rows"], 4);
  EXPECT_EQ(l["dropped_rows"]["suppressed"], 4);
}

TEST_F(Linked, OrphansAreAnErrorAtTheirLineOrDropped) {
  // P-0003 and P-0005 have no admission; P-0009 is nobody in the patients'
  // table.
  write("admissions.csv", std::string(kAdmissions) + "P-0009,2024-01-01,2024-01-02,medicine,40,D-03,\n");
  EXPECT_EQ(run(job(kTwoAnonymous)), 2);
  EXPECT_NE(stderr_text().find("admissions.csv:10"), std::string::npos) << stderr_text();
  EXPECT_NE(stderr_text().find("names no person"), std::string::npos) << stderr_text();
  EXPECT_EQ(stderr_text().find("P-0009"), std::string::npos) << "an identifier in a message: " << stderr_text();
  EXPECT_FALSE(fs::exists(p("out/patients.csv")));
  EXPECT_FALSE(fs::exists(p("out/admissions.csv")));

  ASSERT_EQ(run(job(kTwoAnonymous, "    orphans: drop\n")), 0) << stderr_text();
  EXPECT_EQ(parse_csv(slurp(p("out/admissions.csv"))).size(), 9u);
  EXPECT_EQ(result()["linked"][0]["dropped_rows"]["orphans"], 1);
}

TEST_F(Linked, TablesThatCannotBeJoinedAreRefusedBeforeAnyOutput) {
  auto refused = [&](const std::string& job_path, const std::string& expected) {
    EXPECT_EQ(run(job_path), 2) << expected;
    EXPECT_NE(stderr_text().find(expected), std::string::npos) << stderr_text();
    EXPECT_FALSE(fs::exists(p("out/patients.csv")));
    EXPECT_FALSE(fs::exists(p("out/admissions.csv")));
  };
  // A column without a role, a key or column the table lacks.
  refused(job(kTwoAnonymous, "", "    columns: {ward: {role: insensitive}}\n"), "have no role");
  refused(job(kTwoAnonymous, "", std::string(kColumns) + "      bed: {role: insensitive}\n"), "'bed' is not a column");
  write("job2.yaml", slurp(job(kTwoAnonymous)).replace(slurp(job(kTwoAnonymous)).find("key: mrn"), 8, "key: id"));
  refused(p("job2.yaml"), "key 'id' is not a column");
  // The person column removed: nothing to join the rows to.
  std::string removed = kPersonJob;
  removed.replace(removed.find("{role: identifying, action: pseudonym}"), 38, "{role: identifying}");
  refused(job(kTwoAnonymous, "", kColumns, removed), "which the release removes");
  // Two rows of one person.
  write("patients.csv", std::string(kPatients) + "P-0003,Cid Again,2024-05-02,53,M\n");
  refused(job(kTwoAnonymous), "patients.csv:4");
  EXPECT_NE(stderr_text().find("again in data row 9"), std::string::npos) << stderr_text();
  write("patients.csv", kPatients);
  // A value a hierarchy file does not list.
  write("age.csv", "33;[30, 40);*\n34;[30, 40);*\n37;[30, 40);*\n52;[50, 60);*\n58;[50, 60);*\n61;[60, 70);*\n"
                   "66;[60, 70);*\n23;[20, 30);*\n27;[20, 30);*\n");
  std::string with_file = kPersonJob;
  with_file.replace(with_file.find("{type: intervals, min: 0, max: 100, widths: [10, 50]}"), 53, "age.csv");
  refused(job(kTwoAnonymous, "", kColumns, with_file), "'59' is not a value of the hierarchy of 'age'");
  // An unparsable date.
  write("admissions.csv", std::string(kAdmissions) + "P-0002,2024-13-01,2024-01-02,medicine,40,D-03,\n");
  refused(job(kTwoAnonymous), "admissions.csv:10");
}

TEST_F(Linked, VerifyRecomputesTheLinkedReleaseAndFindsTampering) {
  write("patients.csv", kLonely);
  for (const char* options : {"", "    suppressed: drop\n"}) {
    SCOPED_TRACE(options);
    const std::string job_path = job(kDecades, options);
    ASSERT_EQ(run(job_path), 0) << stderr_text();
    const std::string verify = "env DEID_TEST_SECRET='" + std::string(kSecret) + "' '" + DEID_CLI_PATH +
                               "' verify '" + job_path + "' >'" + p("verify") + "' 2>&1";
    EXPECT_EQ(std::system(verify.c_str()), 0) << slurp(p("verify"));
    for (const char* line : {"linked 'admissions' columns", "linked 'admissions' rows", "linked 'admissions' values",
                             "linked 'admissions' identifier values"})
      EXPECT_EQ(status_of(slurp(p("verify")), line), "ok") << slurp(p("verify"));
  }
  // Each kind of tampering fails its line (exit 1).
  const std::string job_path = job(kDecades);
  auto tampered = [&](const std::string& from, const std::string& to, const std::string& line) {
    ASSERT_EQ(run(job_path), 0) << stderr_text();
    std::string text = slurp(p("out/admissions.csv"));
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    write("out/admissions.csv", text);
    const std::string verify = "env DEID_TEST_SECRET='" + std::string(kSecret) + "' '" + DEID_CLI_PATH +
                               "' verify '" + job_path + "' >'" + p("verify") + "' 2>&1";
    const int status = std::system(verify.c_str());
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1) << slurp(p("verify"));
    EXPECT_EQ(status_of(slurp(p("verify")), "linked 'admissions' " + line), "FAILED") << slurp(p("verify"));
    EXPECT_NE(slurp(p("verify")).find("failed at " + p("out/admissions.csv")), std::string::npos)
        << slurp(p("verify"));
  };
  const auto first = parse_csv(slurp(p("out/admissions.csv")));
  tampered(first[1][1], "2000-01-01", "values");             // a date not shifted by the person's offset
  tampered("medicine", "D-17", "identifier values");          // a doctor's id in the clear
  tampered("\n" + first[2][0], "\nP-0001", "identifier values");  // an MRN in the clear
  tampered("[30, 40)", "[30, 35)", "values");                 // another level

  // The report and the result hold no identifying value either: a name,
  // an MRN or a doctor's id there fails its line (the note's words alone
  // do not: "Annual" is not "Ann").
  ASSERT_EQ(run(job_path), 0) << stderr_text();
  const std::string verify = "env DEID_TEST_SECRET='" + std::string(kSecret) + "' '" + DEID_CLI_PATH + "' verify '" +
                             job_path + "' >'" + p("verify") + "' 2>&1";
  ASSERT_EQ(std::system(verify.c_str()), 0) << slurp(p("verify"));
  EXPECT_EQ(status_of(slurp(p("verify")), "identifier values in the report"), "ok") << slurp(p("verify"));
  EXPECT_EQ(status_of(slurp(p("verify")), "identifier values in the result"), "ok") << slurp(p("verify"));
  const std::string report = slurp(p("out/report.html"));
  for (const char* leak : {"<td>Hal Blue</td>", "<td>P-0004</td>", "(D-30)"}) {
    write("out/report.html", report + leak);
    const int status = std::system(verify.c_str());
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1) << leak << slurp(p("verify"));
    EXPECT_EQ(status_of(slurp(p("verify")), "identifier values in the report"), "FAILED") << slurp(p("verify"));
  }
  write("out/report.html", report + "<p>Annual figures</p><p>D-30-B</p>");
  EXPECT_EQ(std::system(verify.c_str()), 0) << slurp(p("verify"));
  std::string result = slurp(p("out/result.json"));
  result.insert(result.find('{') + 1, "\"note\": \"Gus Grey\",");
  write("out/result.json", result);
  EXPECT_NE(std::system(verify.c_str()), 0);
  EXPECT_EQ(status_of(slurp(p("verify")), "identifier values in the result"), "FAILED") << slurp(p("verify"));
}

TEST(LinkedJob, RefusesWhatCannotWork) {
  const std::string head =
      "input: {path: d.csv}\nprivacy: [{k-anonymity: {k: 2}}]\n"
      "attributes:\n  id: {role: identifying, action: pseudonym}\n"
      "  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 9, widths: [5]}}\n";
  const std::string ids = "identifiers: {secret: {env: X}, person: id}\n";
  auto refused = [&](const std::string& text, const std::string& expected) {
    try {
      (void)deid::parse_job(head + text, "job.yaml", ".");
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  const std::string table = "linked:\n  - {path: a.csv, key: id, output: o.csv, columns: ";
  refused(table + "{x: {role: insensitive}}}\n", "needs identifiers: {person: COLUMN}");
  refused("identifiers: {secret: {env: X}}\n" + table + "{x: {role: insensitive}}}\n",
          "linked tables need identifiers.person");
  refused(ids + table + "{x: {role: sensitive}}}\n", "has no sensitive attributes");
  refused(ids + table + "{x: {role: quasi-identifying}}}\n", "the quasi-identifier 'x' of the job's table");
  refused(ids + table + "{x: {role: quasi-identifying, as: id}}}\n", "the quasi-identifier 'id'");
  refused(ids + table + "{x: {role: insensitive, as: age}}}\n", "'as' names the quasi-identifier");
  refused(ids + table + "{id: {role: insensitive}}}\n", "is its key");
  refused(ids + table + "{x: {role: insensitive, action: mask}}}\n", "'action' is for identifying attributes");
  refused(ids + table + "{x: {role: identifying, action: date-shift}}}\n", "needs identifiers.shift-days");
  refused(ids + "linked:\n  - {path: a.csv, key: id, columns: {}}\n", "a linked table needs 'output'");
  refused(ids + table + "{}, suppressed: hide}\n", "must be one of keep, drop");
  refused(ids + table + "{}}\n  - {path: b/a.csv, key: id, output: p.csv, columns: {}}\n",
          "two linked tables are named 'a'");
  // Only the person: a job that links tables needs no secret.
  const deid::Job j = deid::parse_job(
      "input: {path: d.csv}\nprivacy: [{k-anonymity: {k: 2}}]\nattributes:\n  id: {role: insensitive}\n"
      "  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 9, widths: [5]}}\n"
      "identifiers: {person: id}\n" +
          table + "{x: {role: quasi-identifying, as: age}}, suppressed: drop}\n",
      "job.yaml", ".");
  ASSERT_EQ(j.linked.size(), 1u);
  EXPECT_EQ(j.linked[0].name, "a");
  EXPECT_EQ(j.linked[0].suppressed, deid::LinkedTable::Suppressed::drop);
  EXPECT_EQ(j.linked[0].columns[0].as, "age");
}

}  // namespace
