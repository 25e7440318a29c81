// Released identifiers on the built CLI (docs/identifiers.md): pseudonyms,
// masks and per-person date shifts in the output, worked out by hand;
// intervals within a person kept; the same secret giving the same
// pseudonyms and another unrelated ones; collisions, bad secrets, bad
// dates and bad jobs refused; the linkage table private; no original
// identifier in any output.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
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

// Eight people; P-0001's offset with this secret and 30 days is +11, P-0002's
// +1 (tests/unit/identifiers_test.cc works both out).
constexpr const char* kPatients =
    "mrn,name,phone,email,admitted,discharged,age,sex\n"
    "P-0001,Ann Smith,555-123-4567,ann@example.org,2024-02-25,2024-03-02,34,F\n"
    "P-0002,Bob Jones,555-987-6543,bob.jones@example.org,2023-12-30,2024-01-04,37,M\n"
    "P-0003,Cid Brown,555-222-3333,cid@example.org,2024-05-01,2024-05-01,52,M\n"
    "P-0004,Dee White,555-444-5555,dee@example.org,2022-07-14,2022-08-01,58,F\n"
    "P-0005,Eve Black,555-666-7777,eve@example.org,2021-01-31,,61,F\n"
    "P-0006,Fay Green,555-888-9999,fay@example.org,2020-02-29,2020-03-01,66,F\n"
    "P-0007,Gus Grey,555-000-1111,gus@example.org,2019-06-30 08:15,2019-07-02 17:40,23,M\n"
    "P-0008,Hal Blue,555-121-3434,hal@example.org,2024-11-11,2024-11-20,27,M\n";

constexpr const char* kAttributes = R"(attributes:
  mrn:        {role: identifying, action: pseudonym}
  name:       {role: identifying}
  phone:      {role: identifying, action: mask, keep-first: 3}
  email:      {role: identifying, action: mask, regex: "^[^@]+", replacement: "***"}
  admitted:   {role: identifying, action: date-shift}
  discharged: {role: identifying, action: date-shift}
  age:        {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [10, 50]}}
  sex:        {role: insensitive}
privacy: [{k-anonymity: {k: 2}}]
suppression-limit: 0
)";

// RFC 4180 without line breaks in fields (none in these tables).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char ch = line[i];
      if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        row.back().push_back('"');
        ++i;
      } else if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        row.emplace_back();
      } else {
        row.back().push_back(ch);
      }
    }
    rows.push_back(row);
  }
  return rows;
}

std::string csv_line(const std::vector<std::string>& row) {
  std::string out;
  for (std::size_t c = 0; c < row.size(); ++c) {
    if (c) out += ',';
    if (row[c].find_first_of(",\"") == std::string::npos) {
      out += row[c];
    } else {
      out += '"';
      for (char ch : row[c]) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      out += '"';
    }
  }
  return out + "\n";
}

std::int64_t day(const std::string& date) { return *deid::DateFormat("%Y-%m-%d").parse(date); }

class Identifiers : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("deid_identifiers_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    write("patients.csv", kPatients);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
  }
  // Writes job.yaml: the input, `attributes` (and the privacy model), the
  // identifiers section `identifiers` and the outputs.
  std::string job(const std::string& identifiers, const std::string& attributes = kAttributes,
                  const std::string& data = "patients.csv", bool linkage = true) const {
    write("job.yaml", "input: {path: " + data + "}\n" + attributes + identifiers +
                          "output: {path: out/release.csv, result: out/result.json, report: out/report.html" +
                          (linkage ? ", linkage: out/linkage.csv" : "") + "}\n");
    return p("job.yaml");
  }
  // Runs `deid anonymize JOB` with DEID_TEST_SECRET=secret (unset when
  // empty); returns the exit code.
  int run(const std::string& job_path, const std::string& secret = kSecret) {
    const std::string env = secret.empty() ? "env -u DEID_TEST_SECRET " : "env DEID_TEST_SECRET='" + secret + "' ";
    const std::string cmd = env + "'" + DEID_CLI_PATH + "' --quiet anonymize '" + job_path + "' >'" + p("stdout") +
                            "' 2>'" + p("stderr") + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string stderr_text() const { return slurp(p("stderr")); }

  fs::path dir_;
};

constexpr const char* kEnvSecret = "identifiers:\n  secret: {env: DEID_TEST_SECRET}\n  person: mrn\n  shift-days: 30\n";

TEST_F(Identifiers, ReleasesPseudonymsMasksAndShiftedDates) {
  ASSERT_EQ(run(job(kEnvSecret)), 0) << stderr_text();
  const auto out = parse_csv(slurp(p("out/release.csv")));
  const auto in = parse_csv(kPatients);
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(out[0], (std::vector<std::string>{"mrn", "phone", "email", "admitted", "discharged", "age", "sex"}));
  // P-0001, by hand: its pseudonym, masks and dates moved by +11 days.
  EXPECT_EQ(out[1][0], "83e2c76d568f4c6d");
  EXPECT_EQ(out[1][1], "555*********");
  EXPECT_EQ(out[1][2], "***@example.org");
  EXPECT_EQ(out[1][3], "2024-03-07");
  EXPECT_EQ(out[1][4], "2024-03-13");
  // P-0002: +1 day, across the year.
  EXPECT_EQ(out[2][0], "7e5103edde37a588");
  EXPECT_EQ(out[2][3], "2023-12-31");
  EXPECT_EQ(out[2][4], "2024-01-05");
  // Every person: both dates move by one offset within 30 days, so the
  // stay keeps its length; an empty date stays empty; a time of day stays.
  for (std::size_t r = 1; r < in.size(); ++r) {
    const std::string& admitted = in[r][4];
    const std::int64_t offset = day(out[r][3].substr(0, 10)) - day(admitted.substr(0, 10));
    EXPECT_LE(std::abs(offset), 30) << r;
    EXPECT_EQ(offset, deid::date_offset(kSecret, in[r][0], 30)) << r;
    if (in[r][5].empty()) {
      EXPECT_EQ(out[r][4], "") << r;
    } else {
      EXPECT_EQ(day(out[r][4].substr(0, 10)) - day(out[r][3].substr(0, 10)),
                day(in[r][5].substr(0, 10)) - day(admitted.substr(0, 10)))
          << r;
    }
    EXPECT_EQ(out[r][0], deid::pseudonym(kSecret, in[r][0], 16)) << r;
  }
  EXPECT_EQ(out[7][3].substr(10), " 08:15");
  EXPECT_EQ(out[7][4].substr(10), " 17:40");

  // The result names the secret by its fingerprint only.
  const auto result = nlohmann::json::parse(slurp(p("out/result.json")));
  const auto& ids = result.at("identifiers");
  EXPECT_EQ(ids.at("secret_fingerprint"), "c00cc69366b264af");
  EXPECT_EQ(ids.at("columns").size(), 5u);
  EXPECT_EQ(ids.at("date_shift").at("days"), 30);
  EXPECT_EQ(ids.at("date_shift").at("person"), "mrn");

  // The linkage table: each MRN beside its pseudonym, for the owner alone.
  struct stat st {};
  ASSERT_EQ(::stat(p("out/linkage.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const auto link = parse_csv(slurp(p("out/linkage.csv")));
  ASSERT_EQ(link.size(), in.size());
  EXPECT_EQ(link[0], (std::vector<std::string>{"column", "value", "pseudonym"}));
  EXPECT_EQ(link[1], (std::vector<std::string>{"mrn", "P-0001", "83e2c76d568f4c6d"}));

  // No original identifier value, and not the secret, in the release, the
  // result or the report.
  for (const char* file : {"out/release.csv", "out/result.json", "out/report.html"}) {
    const std::string text = slurp(p(file));
    EXPECT_EQ(text.find(kSecret), std::string::npos) << file;
    for (std::size_t r = 1; r < in.size(); ++r)
      for (std::size_t c : {0, 1, 2, 3, 4, 5}) {
        if (in[r][c].empty()) continue;
        EXPECT_EQ(text.find(in[r][c]), std::string::npos) << file << " holds '" << in[r][c] << "'";
      }
  }
}

TEST_F(Identifiers, TheSameSecretGivesTheSamePseudonymsAnotherUnrelatedOnes) {
  const std::string j = job(kEnvSecret);
  ASSERT_EQ(run(j), 0) << stderr_text();
  const std::string first = slurp(p("out/release.csv"));
  ASSERT_EQ(run(j), 0) << stderr_text();
  EXPECT_EQ(slurp(p("out/release.csv")), first);
  // Key rotation: a new secret, no pseudonym or offset in common.
  ASSERT_EQ(run(j, "a new secret for the next release"), 0) << stderr_text();
  const auto a = parse_csv(first), b = parse_csv(slurp(p("out/release.csv")));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t r = 1; r < a.size(); ++r) {
    EXPECT_NE(a[r][0], b[r][0]) << r;
    EXPECT_EQ(a[r][1], b[r][1]) << r;  // masks need no secret
  }
  const auto result = nlohmann::json::parse(slurp(p("out/result.json")));
  EXPECT_NE(result.at("identifiers").at("secret_fingerprint"), "c00cc69366b264af");
}

TEST_F(Identifiers, CollidingPseudonymsAreAnErrorNamingBothLines) {
  // With this secret, M003524 and M087974 share their first 8 hex digits
  // (f3dbc9e0), found by trying M000000, M000001, ...
  write("ids.csv", "id,age\nM000001,30\nM003524,31\nM000002,32\nM087974,33\n");
  const std::string attrs =
      "attributes:\n  id: {role: identifying, action: pseudonym, length: 8}\n"
      "  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [10]}}\n"
      "privacy: [{k-anonymity: {k: 2}}]\n";
  ASSERT_EQ(deid::pseudonym(kSecret, "M003524", 8), deid::pseudonym(kSecret, "M087974", 8));
  EXPECT_EQ(run(job("identifiers: {secret: {env: DEID_TEST_SECRET}}\n", attrs, "ids.csv")), 2);
  const std::string err = stderr_text();
  EXPECT_NE(err.find("same pseudonym f3dbc9e0"), std::string::npos) << err;
  EXPECT_NE(err.find("line 3"), std::string::npos) << err;
  EXPECT_NE(err.find(":5"), std::string::npos) << err;
  EXPECT_EQ(err.find("M003524"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(p("out/release.csv")));
  // Longer pseudonyms: no collision.
  std::string longer = attrs;
  longer.replace(longer.find("length: 8"), 9, "length: 12");
  EXPECT_EQ(run(job("identifiers: {secret: {env: DEID_TEST_SECRET}}\n", longer, "ids.csv")), 0) << stderr_text();
}

TEST_F(Identifiers, BadSecretsAreRefusedBeforeAnyOutput) {
  EXPECT_EQ(run(job(kEnvSecret), ""), 2);
  EXPECT_NE(stderr_text().find("DEID_TEST_SECRET (the secret) is not set"), std::string::npos) << stderr_text();
  EXPECT_EQ(run(job(kEnvSecret), "short"), 2);
  EXPECT_NE(stderr_text().find("5 bytes long: it must have at least 16"), std::string::npos) << stderr_text();

  const std::string file_secret =
      "identifiers:\n  secret: {file: secret.key}\n  person: mrn\n  shift-days: 30\n";
  EXPECT_EQ(run(job(file_secret)), 2);
  EXPECT_NE(stderr_text().find("cannot read the secret file"), std::string::npos) << stderr_text();
  write("secret.key", "\n");
  EXPECT_EQ(run(job(file_secret)), 2);
  EXPECT_NE(stderr_text().find("0 bytes long"), std::string::npos) << stderr_text();
  EXPECT_FALSE(fs::exists(p("out/release.csv")));

  // The file's secret less its newline is the environment's secret.
  write("secret.key", std::string(kSecret) + "\n");
  ::chmod(p("secret.key").c_str(), 0600);
  ASSERT_EQ(run(job(file_secret)), 0) << stderr_text();
  auto result = nlohmann::json::parse(slurp(p("out/result.json")));
  EXPECT_EQ(result.at("identifiers").at("secret_fingerprint"), "c00cc69366b264af");
  EXPECT_TRUE(result.at("warnings").empty()) << result.at("warnings");
  // Readable by others: released, with a warning.
  ::chmod(p("secret.key").c_str(), 0644);
  ASSERT_EQ(run(job(file_secret)), 0) << stderr_text();
  result = nlohmann::json::parse(slurp(p("out/result.json")));
  ASSERT_EQ(result.at("warnings").size(), 1u);
  EXPECT_NE(result.at("warnings")[0].get<std::string>().find("can be read by others"), std::string::npos);
  // The secret file is an input: no output may replace it.
  write("job2.yaml", "input: {path: patients.csv}\n" + std::string(kAttributes) + file_secret +
                         "output: {path: secret.key}\n");
  EXPECT_EQ(run(p("job2.yaml")), 2);
  EXPECT_EQ(slurp(p("secret.key")), std::string(kSecret) + "\n");
}

TEST_F(Identifiers, DatesThatDoNotParseOrHaveNoPersonAreErrorsAtTheirLine) {
  std::string bad = kPatients;
  bad.replace(bad.find("2022-07-14"), 10, "2022-07-32");
  write("bad.csv", bad);
  EXPECT_EQ(run(job(kEnvSecret, kAttributes, "bad.csv")), 2);
  EXPECT_NE(stderr_text().find("bad.csv:5"), std::string::npos) << stderr_text();
  EXPECT_NE(stderr_text().find("'2022-07-32' is not a date of the form %Y-%m-%d"), std::string::npos)
      << stderr_text();

  std::string no_person = kPatients;
  no_person.replace(no_person.find("P-0003"), 6, "");
  write("noperson.csv", no_person);
  EXPECT_EQ(run(job(kEnvSecret, kAttributes, "noperson.csv")), 2);
  EXPECT_NE(stderr_text().find("the person column 'mrn' is empty"), std::string::npos) << stderr_text();
  EXPECT_NE(stderr_text().find("noperson.csv:4"), std::string::npos) << stderr_text();

  // Another format.
  std::string eu = "mrn,admitted,age\nP-0001,25.02.2024,34\nP-0002,30.12.2023,37\n";
  write("eu.csv", eu);
  const std::string attrs =
      "attributes:\n  mrn: {role: identifying}\n  admitted: {role: identifying, action: date-shift, format: "
      "\"%d.%m.%Y\"}\n  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [10]}}\n"
      "privacy: [{k-anonymity: {k: 2}}]\n";
  ASSERT_EQ(run(job(kEnvSecret, attrs, "eu.csv", false)), 0) << stderr_text();
  const auto out = parse_csv(slurp(p("out/release.csv")));
  EXPECT_EQ(out[1][0], "07.03.2024");
  EXPECT_EQ(out[2][0], "31.12.2023");
}

TEST_F(Identifiers, VerifyRecomputesThemAndFindsLeaks) {
  const std::string j = job(kEnvSecret);
  ASSERT_EQ(run(j), 0) << stderr_text();
  auto verify = [&](const std::string& output, const std::string& secret = kSecret) {
    const std::string cmd = "env DEID_TEST_SECRET='" + secret + "' '" + std::string(DEID_CLI_PATH) + "' verify '" + j +
                            "' --output '" + output + "' --result '" + p("out/result.json") + "' >'" + p("stdout") +
                            "' 2>'" + p("stderr") + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  ASSERT_EQ(verify(p("out/release.csv")), 0) << slurp(p("stdout")) << stderr_text();
  const std::string lines = slurp(p("stdout"));
  EXPECT_NE(lines.find("released identifiers"), std::string::npos) << lines;
  EXPECT_NE(lines.find("identifier values"), std::string::npos) << lines;

  // Another secret: every pseudonym and shift is wrong.
  EXPECT_EQ(verify(p("out/release.csv"), "a different secret of enough bytes"), 1);
  EXPECT_NE(slurp(p("stdout")).find("released identifier 'mrn': 8 row(s) differ"), std::string::npos)
      << slurp(p("stdout"));

  const auto rows = parse_csv(slurp(p("out/release.csv")));
  auto write_rows = [&](std::vector<std::vector<std::string>> r, const std::string& name) {
    std::string text;
    for (const auto& row : r) text += csv_line(row);
    write(name, text);
    return p(name);
  };
  // One date moved by a day more than its person's offset.
  auto tampered = rows;
  tampered[3][3] = "2024-05-31";
  ASSERT_NE(rows[3][3], tampered[3][3]);
  EXPECT_EQ(verify(write_rows(tampered, "tampered.csv")), 1);
  EXPECT_NE(slurp(p("stdout")).find("released identifier 'admitted': 1 row(s) differ"), std::string::npos)
      << slurp(p("stdout"));
  // A removed name copied into an insensitive column.
  auto leaked = rows;
  leaked[2][6] = "Bob Jones";
  EXPECT_EQ(verify(write_rows(leaked, "leaked.csv")), 1);
  EXPECT_NE(slurp(p("stdout")).find("identifying column 'name' is in 1 output row(s); first at data row 2, column 'sex'"),
            std::string::npos)
      << slurp(p("stdout"));
  // In another person's row too, and an MRN in place of a pseudonym.
  auto elsewhere = rows;
  elsewhere[5][6] = "Bob Jones";
  elsewhere[7][0] = "P-0003";
  EXPECT_EQ(verify(write_rows(elsewhere, "elsewhere.csv")), 1);
  EXPECT_NE(slurp(p("stdout")).find("identifying column 'name' is in 1 output row(s); first at data row 5, column 'sex'"),
            std::string::npos)
      << slurp(p("stdout"));
  EXPECT_NE(slurp(p("stdout")).find("released identifier 'mrn': 1 row(s) differ"), std::string::npos)
      << slurp(p("stdout"));
}

// Masks need no secret: a job that only masks has no identifiers section,
// and its result names no secret.
TEST_F(Identifiers, MasksAloneNeedNoSecret) {
  const std::string attributes = R"(attributes:
  mrn:        {role: identifying, action: mask, keep-last: 2}
  name:       {role: identifying}
  phone:      {role: identifying, action: mask, digits: '#'}
  email:      {role: identifying}
  admitted:   {role: identifying}
  discharged: {role: identifying}
  age:        {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [10, 50]}}
  sex:        {role: insensitive}
privacy: [{k-anonymity: {k: 2}}]
)";
  ASSERT_EQ(run(job("", attributes, "patients.csv", false), ""), 0) << stderr_text();
  const auto out = parse_csv(slurp(p("out/release.csv")));
  EXPECT_EQ(out[1][0], "****01");
  EXPECT_EQ(out[1][1], "###-###-####");
  const nlohmann::json r = nlohmann::json::parse(slurp(p("out/result.json")));
  EXPECT_TRUE(r["identifiers"]["secret_fingerprint"].is_null()) << r["identifiers"];
}

// The README's example (examples/patients.yaml) gives what the README shows.
TEST_F(Identifiers, TheBundledExampleGivesWhatTheReadmeShows) {
  // The example with its data where it is and its outputs here.
  std::string text = slurp(deid::testing::example_path("patients.yaml"));
  ASSERT_FALSE(text.empty());
  text.replace(text.find("patients/patients.csv"), 21, deid::testing::example_path("patients/patients.csv"));
  text.replace(text.find("patients/admissions.csv"), 23, deid::testing::example_path("patients/admissions.csv"));
  for (auto at = text.find("../out/"); at != std::string::npos; at = text.find("../out/")) text.replace(at, 7, p("out") + "/");
  write("patients.yaml", text);
  const std::string cmd = "env DEID_SECRET='" + std::string(kSecret) + "' '" + DEID_CLI_PATH + "' -q anonymize '" +
                          p("patients.yaml") + "' 2>'" + p("stderr") + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << stderr_text();
  EXPECT_TRUE(fs::exists(p("out/patients-linkage.csv")));
  const std::string verify = "env DEID_SECRET='" + std::string(kSecret) + "' '" + DEID_CLI_PATH + "' -q verify '" +
                             p("patients.yaml") + "' 2>'" + p("stderr") + "'";
  EXPECT_EQ(std::system(verify.c_str()), 0) << stderr_text();
  std::error_code ec;
  fs::rename(p("out/patients-deid.csv"), p("out/release.csv"), ec);
  const auto out = parse_csv(slurp(p("out/release.csv")));
  ASSERT_EQ(out.size(), 11u);
  EXPECT_EQ(out[0], (std::vector<std::string>{"mrn", "phone", "email", "admitted", "discharged", "age", "sex",
                                              "diagnosis"}));
  EXPECT_EQ(out[1][0], "83e2c76d568f4c6d");
  EXPECT_EQ(out[1][1], "555*********");
  EXPECT_EQ(out[1][2], "***@example.org");
  EXPECT_EQ(out[1][3], "2024-03-07");
  EXPECT_EQ(out[1][4], "2024-03-13");
  // The second admission of P-0001, as the README shows it.
  const auto admissions = parse_csv(slurp(p("out/admissions-deid.csv")));
  ASSERT_EQ(admissions.size(), 16u);
  EXPECT_EQ(admissions[2], (std::vector<std::string>{"83e2c76d568f4c6d", "2024-03-07", "2024-03-13", "respiratory",
                                                     "[30, 40)", "1be396ef"}));
}

// The job parser's refusals (docs/job-file.md, "identifiers").
TEST(IdentifiersJob, RefusesWhatCannotWork) {
  const std::string qi = "  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 9, widths: [5]}}\n";
  const std::string secret = "identifiers: {secret: {env: X}}\n";
  auto refused = [&](const std::string& text, const std::string& expected) {
    try {
      (void)deid::parse_job("input: {path: d.csv}\nprivacy: [{k-anonymity: {k: 2}}]\n" + text, "job.yaml", ".");
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused("attributes:\n  age: {role: quasi-identifying, action: pseudonym, hierarchy: {type: intervals, min: 0, max: "
          "9, widths: [5]}}\n",
          "'action' is for identifying attributes");
  refused("attributes:\n  id: {role: identifying, action: scramble}\n" + qi, "must be one of remove, pseudonym");
  refused("attributes:\n  id: {role: identifying, length: 12}\n" + qi, "'length' is used only with action: pseudonym");
  refused("attributes:\n  id: {role: identifying, action: mask, keep-first: 2, length: 12}\n" + qi,
          "'length' is used only with action: pseudonym");
  refused("attributes:\n  id: {role: identifying, action: mask, keep-first: 2, digits: '#'}\n" + qi, "not several");
  refused("attributes:\n  id: {role: identifying, action: mask}\n" + qi, "takes one of keep-first");
  refused("attributes:\n  id: {role: identifying, action: mask, regex: '(', replacement: x}\n" + qi,
          "is not a valid ECMAScript regular expression");
  refused("attributes:\n  id: {role: identifying, action: mask, regex: 'a'}\n" + qi, "needs both 'regex' and");
  refused("attributes:\n  id: {role: identifying, action: pseudonym, length: 4}\n" + qi + secret, "length");
  refused("attributes:\n  id: {role: identifying, action: pseudonym}\n" + qi, "needs an 'identifiers' section");
  refused("attributes:\n  id: {role: identifying, action: date-shift}\n" + qi + secret,
          "action: date-shift needs identifiers.person");
  refused("attributes:\n  id: {role: identifying, action: date-shift, format: '%Y-%m'}\n" + qi,
          "needs each of %Y, %m and %d exactly once");
  refused("attributes:\n  id: {role: identifying, action: mask, keep-first: 1}\n" + qi + secret,
          "no attribute has action: pseudonym or date-shift");
  refused("attributes:\n  id: {role: identifying, action: pseudonym}\n" + qi +
              "identifiers: {secret: {env: X}, person: id}\n",
          "identifiers.person is used by date shifts");
  refused("attributes:\n  id: {role: identifying, action: pseudonym}\n" + qi + "identifiers: {secret: 'abc'}\n",
          "the secret itself never goes into the job");
  refused("attributes:\n  id: {role: identifying, action: pseudonym}\n" + qi +
              "identifiers: {secret: {env: X, file: y}}\n",
          "takes one of 'file' and 'env'");
  refused("attributes:\n  id: {role: identifying, action: mask, keep-first: 1}\n" + qi +
              "output: {path: o.csv, linkage: l.csv}\n",
          "no attribute has action: pseudonym");
}

}  // namespace
