// The command line on PostgreSQL (docs/databases.md): hostile identifiers,
// passwords never shown, exit codes, deid verify of tables, the example job.
#include "pg_fixture.h"

namespace {

using namespace pg_test;

TEST(Postgres, HostileIdentifiers) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string schema = unique("S\"; DROP SCHEMA public; --");
  const std::string in = "In \"put\"; DROP TABLE x; -- Größe", out = "Out'; TRUNCATE x; --\" ÄÖÜ";
  db.exec("CREATE SCHEMA " + q(schema));
  const std::string qin = q(schema) + "." + q(in), qout = q(schema) + "." + q(out);
  // Columns: a capital, a space, a quote, a semicolon, non-ASCII, a keyword.
  db.exec("CREATE TABLE " + qin +
          " (\"Age Group\" text, \"zip\"\"code;\" text, \"Größe\" text, \"select\" text, \"Name\" text)");
  std::string data;
  for (int i = 0; i < 40; ++i)
    data += std::to_string(20 + i % 4) + "," + std::to_string(1000 + i % 2) + ",m" + std::to_string(i % 3) + ",x,n" +
            std::to_string(i) + "\n";
  db.copy_in("COPY " + qin + " FROM STDIN (FORMAT csv)", data);

  const fs::path dir = temp("hier");
  fs::create_directories(dir);
  {
    std::ofstream(dir / "age.csv") << "20;20-21;*\n21;20-21;*\n22;22-23;*\n23;22-23;*\n";
    std::ofstream(dir / "zip.csv") << "1000;100*;*\n1001;100*;*\n";
  }
  const std::string job_text = "input:\n  postgres:\n    connection: \"" + conninfo() + "\"\n    schema: '" + schema +
                               "'\n    table: '" + in + "'\n" +
                               "attributes:\n"
                               "  Age Group: {role: quasi-identifying, hierarchy: age.csv}\n"
                               "  'zip\"code;': {role: quasi-identifying, hierarchy: zip.csv}\n"
                               "  Name: {role: identifying}\n"
                               "default-role: insensitive\n"
                               "privacy:\n  - k-anonymity: {k: 5}\n"
                               "output:\n  postgres: {schema: '" + schema + "', table: '" + std::string("Out''; TRUNCATE x; --\" ÄÖÜ") +
                               "', mode: create}\n";
  deid::Job job = deid::parse_job(job_text, "hostile.yaml", dir.string());
  ASSERT_EQ(job.input.postgres->table, in);
  ASSERT_EQ(job.output.postgres->table, out);
  std::vector<std::string> streamed;
  for (const bool pushdown : {false, true}) {
    job.input.postgres->pushdown = pushdown;
    job.output.postgres->mode = pushdown ? PostgresTable::Mode::replace : PostgresTable::Mode::create;
    const deid::Anonymization a = deid::anonymize(job);
    ASSERT_TRUE(a.found);
    const std::vector<std::string> rows = table_rows(db, qout);
    ASSERT_EQ(rows.size(), 41u);
    EXPECT_EQ(rows[0], "Age Group\x1fzip\"code;\x1fGröße\x1fselect");  // Name (identifying) dropped
    if (pushdown) {
      EXPECT_EQ(rows, streamed);
    }
    streamed = rows;
    // Only the two tables: nothing was dropped or truncated by a name.
    EXPECT_EQ(db.value("SELECT count(*) FROM pg_tables WHERE schemaname = '" + std::string(schema) + "'"), "2");
    EXPECT_EQ(db.value("SELECT count(*) FROM " + qin), "40");
  }
  db.exec("DROP SCHEMA " + q(schema) + " CASCADE");
  fs::remove_all(dir);
}

// --- Passwords, errors ----------------------------------------------------------

// The password of a connection string is in no message, result, report or
// file; a missing table and an unreachable server are DatabaseErrors (exit 2
// in the CLI) before any work.
TEST(Postgres, PasswordNeverShown) {
  REQUIRE_CLUSTER();
  const std::string secret = "Pw-7c1e9b-SECRET";
  Db db;
  const std::string in = unique("adult"), out = unique("out");
  load_adult(db, in);
  deid::Job job = adult_job(in, out, PostgresTable::Mode::create);
  // The test cluster trusts its socket: the password is accepted and ignored.
  job.input.postgres->connection = job.output.postgres->connection = conninfo() + " password=" + secret;
  const fs::path result = temp("result.json"), report = temp("report.html");
  job.output.result = result.string();
  job.output.report = report.string();
  const deid::Anonymization a = deid::anonymize(job);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.result.dump().find(secret), std::string::npos);
  const std::string written = deid::testing::slurp(result.string()) + deid::testing::slurp(report.string());
  ASSERT_NE(written.find("dbname=postgres"), std::string::npos);  // the connection is named...
  ASSERT_NE(written.find(out), std::string::npos);                // ...and the output table...
  EXPECT_EQ(written.find(secret), std::string::npos);             // ...the password not

  auto error_of = [&](const deid::Job& j) {
    try {
      deid::anonymize(j);
    } catch (const deid::DatabaseError& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "no DatabaseError";
    return std::string();
  };
  deid::Job missing = job;
  missing.input.postgres->query.clear();
  missing.input.postgres->table = "no such table";
  missing.output.postgres->table = unique("out2");
  const std::string m1 = error_of(missing);
  EXPECT_NE(m1.find("no such table"), std::string::npos) << m1;
  EXPECT_EQ(m1.find(secret), std::string::npos) << m1;

  deid::Job unreachable = job;
  unreachable.input.postgres->connection = "host=" + cluster_dir() + "/nowhere port=5432 user=deid password=" + secret;
  fs::remove(result);
  const std::string m2 = error_of(unreachable);
  EXPECT_NE(m2.find("cannot connect"), std::string::npos) << m2;
  EXPECT_EQ(m2.find(secret), std::string::npos) << m2;
  EXPECT_FALSE(fs::exists(result));  // failed before any work

  // A URI with the password, wrong user: the server's refusal, no password.
  deid::Job refused = job;
  refused.input.postgres->connection =
      "postgresql://nobody-here:" + secret + "@/postgres?host=" + cluster_dir() + "&port=5432";
  const std::string m3 = error_of(refused);
  EXPECT_EQ(m3.find(secret), std::string::npos) << m3;
  EXPECT_NE(m3.find("nobody-here"), std::string::npos) << m3;
  fs::remove(report);
}

// The command line: exit 0 from table to table, exit 2 (before any work)
// when the server cannot be reached.
TEST(Postgres, CommandLineExitCodes) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("out");
  load_adult(db, in);
  const fs::path dir = temp("cli");
  fs::create_directories(dir);
  const std::string hierarchies = deid::testing::example_path("adult/hierarchies");
  auto write_job = [&](const std::string& connection) {
    std::ofstream f(dir / "job.yaml");
    f << "input:\n  postgres:\n    connection: \"" << connection << "\"\n    query: 'SELECT " << kAdultColumns
      << " FROM " << q(in) << " ORDER BY line'\n"
      << "attributes:\n";
    for (const char* a : {"age", "education", "marital-status", "native-country", "race", "salary-class", "sex",
                          "workclass", "occupation"})
      f << "  " << a << ": {role: quasi-identifying, hierarchy: " << hierarchies << "/" << a << ".csv}\n";
    f << "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: 5}\nsuppression-limit: 0.05\n"
      << "output:\n  postgres: {table: " << out << "}\n  result: result.json\n";
  };
  auto run = [&](std::string* err, const std::string& command = "anonymize") {
    const std::string err_path = (dir / "err.txt").string();
    const int code = deid::testing::run_deid(command + " --quiet '" + (dir / "job.yaml").string() + "'",
                                             (dir / "out.txt").string(), err_path);
    *err = deid::testing::slurp(err_path);
    return code;
  };
  std::string err;
  write_job(conninfo() + " password=cli-Secret-42");
  EXPECT_EQ(run(&err), 0) << err;
  EXPECT_EQ(db.value("SELECT count(*) FROM " + q(out)), "30162");
  EXPECT_TRUE(fs::exists(dir / "result.json"));
  fs::remove(dir / "result.json");
  // deid verify reads both tables (VerifyTables below has more).
  EXPECT_EQ(run(&err, "verify"), 0) << err;
  EXPECT_EQ(err.find("cli-Secret-42"), std::string::npos) << err;

  write_job("host=" + cluster_dir() + "/nowhere user=deid password=cli-Secret-42");
  EXPECT_EQ(run(&err), 2) << err;
  EXPECT_NE(err.find("cannot connect"), std::string::npos) << err;
  EXPECT_EQ(err.find("cli-Secret-42"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "result.json"));
  EXPECT_EQ(run(&err, "verify"), 2) << err;
  EXPECT_NE(err.find("cannot connect"), std::string::npos) << err;
  EXPECT_EQ(err.find("cli-Secret-42"), std::string::npos) << err;
  fs::remove_all(dir);
}

// --- deid verify on tables ---------------------------------------------------

// A run of the command line in `dir`: the exit code, standard output and
// standard error.
struct Cli {
  int code = -1;
  std::string out, err;
};
Cli run_cli(const fs::path& dir, const std::string& args) {
  const std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
  const int code = deid::testing::run_deid(args, out, err);
  return {code, deid::testing::slurp(out), deid::testing::slurp(err)};
}

// The checks of a `deid verify --json` file, without the digests (whose
// names differ between a file and a table): "check|status|detail" each.
std::vector<std::string> verdict(const fs::path& json) {
  const nlohmann::json v = nlohmann::json::parse(deid::testing::slurp(json.string()));
  std::vector<std::string> out;
  for (const auto& c : v["checks"]) {
    const std::string name = c["check"];
    if (name.rfind("sha256", 0) == 0) continue;
    out.push_back(name + "|" + c["status"].get<std::string>() + "|" + c["detail"].get<std::string>());
  }
  return out;
}

// A job on the adult table with a row number (`line`, identifying), an
// inline hierarchy, a sensitive and insensitive (copied) columns; `input`
// and `output` are its YAML sections' bodies.
void write_verify_job(const fs::path& path, const std::string& input, const std::string& output) {
  const std::string h = deid::testing::example_path("adult/hierarchies");
  std::ofstream f(path);
  f << "input:\n" << input << "attributes:\n"
    << "  line: {role: identifying}\n"
    << "  age: {role: quasi-identifying, min-level: 1,\n"
    << "        hierarchy: {type: intervals, min: 0, max: 120, widths: [10, 20, 40]}}\n"
    << "  sex: {role: quasi-identifying, hierarchy: " << h << "/sex.csv}\n"
    << "  education: {role: quasi-identifying, hierarchy: " << h << "/education.csv}\n"
    << "  race: {role: sensitive}\n"
    << "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: 5}\n  - l-diversity: {attribute: race, l: 2}\n"
    << "suppression-limit: 0.05\noutput:\n" << output << "  result: result.json\n";
}

// Table to table (pushdown and streamed), table to CSV and CSV to table:
// deid verify reads the tables and finds what it finds on the CSV run of
// the same job, check by check; the digest of a streamed table input is
// compared.
TEST(Postgres, VerifyTables) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult");
  load_adult(db, in);
  const fs::path dir = temp("verify");
  fs::create_directories(dir);
  {
    std::ofstream csv(dir / "adult.csv");
    csv << db.copy_out("COPY (SELECT * FROM " + q(in) + " ORDER BY line) TO STDOUT (FORMAT csv, HEADER true)");
  }
  const std::string query = "  postgres:\n    connection: \"" + conninfo() + "\"\n    query: 'SELECT * FROM " + q(in) +
                            " ORDER BY line'\n";
  write_verify_job(dir / "csv.yaml", "  path: adult.csv\n", "  path: released.csv\n");
  ASSERT_EQ(run_cli(dir, "anonymize -q " + (dir / "csv.yaml").string()).code, 0);
  const Cli on_csv = run_cli(dir, "verify " + (dir / "csv.yaml").string() + " --result " +
                                      (dir / "result.json").string() + " --json " + (dir / "csv.json").string());
  ASSERT_EQ(on_csv.code, 0) << on_csv.out << on_csv.err;
  const std::vector<std::string> expected = verdict(dir / "csv.json");

  struct Case {
    std::string name, input, output, digest;  // digest: the sha256 input line's status
  };
  const std::string table_out = "  postgres: {connection: \"" + conninfo() + "\", table: " + unique("released") +
                                ", mode: replace}\n";
  const std::vector<Case> cases = {
      {"table to table, pushdown", query, table_out, "skipped"},
      {"table to table, streamed", query + "    pushdown: false\n", table_out, "ok"},
      {"table to csv", query, "  path: released.csv\n", "ok"},
      {"csv to table", "  path: adult.csv\n", table_out, "ok"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    write_verify_job(dir / "job.yaml", c.input, c.output);
    const Cli a = run_cli(dir, "anonymize -q " + (dir / "job.yaml").string());
    ASSERT_EQ(a.code, 0) << a.err;
    const Cli v = run_cli(dir, "verify " + (dir / "job.yaml").string() + " --result " +
                                   (dir / "result.json").string() + " --json " + (dir / "v.json").string());
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    EXPECT_EQ(verdict(dir / "v.json"), expected) << v.out;
    const nlohmann::json j = nlohmann::json::parse(deid::testing::slurp((dir / "v.json").string()));
    for (const auto& line : j["checks"])
      if (line["check"] == "sha256 input") {
        EXPECT_EQ(line["status"], c.digest) << line.dump();
      }
  }
  fs::remove_all(dir);
}

// A released table changed after the run fails, with the check and the
// cell named: one cell un-generalized by an UPDATE, one row deleted.
TEST(Postgres, VerifyFindsATamperedTable) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("released");
  load_adult(db, in);
  const fs::path dir = temp("tamper");
  fs::create_directories(dir);
  write_verify_job(dir / "job.yaml",
                   "  postgres: {connection: \"" + conninfo() + "\", table: " + in + "}\n",
                   "  postgres: {connection: \"" + conninfo() + "\", table: " + out + "}\n");
  ASSERT_EQ(run_cli(dir, "anonymize -q " + (dir / "job.yaml").string()).code, 0);
  const std::string verify = "verify -q " + (dir / "job.yaml").string() + " --result " + (dir / "result.json").string();
  ASSERT_EQ(run_cli(dir, verify).code, 0);
  db.exec("CREATE TABLE " + q(out + "_copy") + " AS TABLE " + q(out));

  // One age back to an original value: the record is no longer generalized.
  ASSERT_EQ(db.value("SELECT count(*) FROM " + q(out) + " WHERE age = '39'"), "0");  // age is generalized
  db.exec("UPDATE " + q(out) + " SET age = '39' WHERE ctid = (SELECT ctid FROM " + q(out) +
          " WHERE age <> '*' LIMIT 1)");
  Cli v = run_cli(dir, verify);
  EXPECT_EQ(v.code, 1) << v.out << v.err;
  EXPECT_NE(v.err.find("deid: verify: generalization failed at postgresql table"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("column 'age'"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("output '39'"), std::string::npos) << v.err;

  // One row deleted.
  db.exec("DROP TABLE " + q(out));
  db.exec("ALTER TABLE " + q(out + "_copy") + " RENAME TO " + q(out));
  ASSERT_EQ(run_cli(dir, verify).code, 0);
  db.exec("DELETE FROM " + q(out) + " WHERE ctid = (SELECT ctid FROM " + q(out) + " LIMIT 1 OFFSET 100)");
  v = run_cli(dir, verify);
  EXPECT_EQ(v.code, 1) << v.out << v.err;
  EXPECT_NE(v.err.find("deid: verify: rows failed"), std::string::npos) << v.err;
  EXPECT_NE(v.out.find("the output has 30161 rows, the input 30162"), std::string::npos) << v.out;
  fs::remove_all(dir);
}

// deid verify names tables without their password, also when the server
// cannot be reached (exit 2) or a table is missing (exit 2).
TEST(Postgres, VerifyNeverShowsThePassword) {
  REQUIRE_CLUSTER();
  const std::string secret = "Verify-Pw-51f2";
  Db db;
  const std::string in = unique("adult"), out = unique("released");
  load_adult(db, in);
  const fs::path dir = temp("verifypw");
  fs::create_directories(dir);
  auto job = [&](const std::string& connection, const std::string& output) {
    write_verify_job(dir / "job.yaml", "  postgres: {connection: \"" + connection + "\", table: " + in + "}\n",
                     "  postgres: {connection: \"" + connection + "\", table: " + output + "}\n");
  };
  job(conninfo() + " password=" + secret, out);
  ASSERT_EQ(run_cli(dir, "anonymize -q " + (dir / "job.yaml").string()).code, 0);
  const std::string verify = "verify " + (dir / "job.yaml").string() + " --result " + (dir / "result.json").string() +
                             " --json " + (dir / "v.json").string();
  Cli v = run_cli(dir, verify);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  const std::string json = deid::testing::slurp((dir / "v.json").string());
  EXPECT_NE(json.find("dbname=postgres"), std::string::npos) << json;
  for (const std::string* text : {&std::as_const(v.out), &std::as_const(v.err), &json}) EXPECT_EQ(text->find(secret), std::string::npos) << *text;

  job(conninfo() + " password=" + secret, unique("missing"));
  v = run_cli(dir, verify);
  EXPECT_EQ(v.code, 2) << v.out << v.err;
  EXPECT_NE(v.err.find("cannot read the released table"), std::string::npos) << v.err;
  EXPECT_EQ(v.err.find(secret), std::string::npos) << v.err;

  job("host=" + cluster_dir() + "/nowhere user=deid password=" + secret, out);
  v = run_cli(dir, verify);
  EXPECT_EQ(v.code, 2) << v.out << v.err;
  EXPECT_NE(v.err.find("cannot connect"), std::string::npos) << v.err;
  EXPECT_EQ(v.err.find(secret), std::string::npos) << v.err;
  EXPECT_EQ(v.out.find(secret), std::string::npos) << v.out;
  fs::remove_all(dir);
}

// examples/adult-postgres.yaml, loaded as its comment says, gives the
// result of examples/adult.yaml.
TEST(Postgres, ExampleJobGivesTheCsvExamplesResult) {
  REQUIRE_CLUSTER();
  const std::string dbname = fresh_database("exampledb");
  Db db(conninfo(dbname));
  load_adult(db, "adult");
  deid::Job job = deid::read_job(deid::testing::example_path("adult-postgres.yaml"));
  ASSERT_TRUE(job.input.postgres && job.output.postgres);
  job.input.postgres->connection = job.output.postgres->connection = conninfo(dbname);
  job.output.result.clear();
  job.output.report.clear();
  const deid::Anonymization from_pg = deid::anonymize(job);
  deid::Job csv = deid::read_job(deid::testing::example_path("adult.yaml"));
  const fs::path out = temp("example.csv");
  csv.output.path = out.string();
  csv.output.result.clear();
  const deid::Anonymization from_csv = deid::anonymize(csv);
  EXPECT_EQ(comparable(from_pg.result).dump(2), comparable(from_csv.result).dump(2));
  EXPECT_EQ(table_rows(db, "adult_deid"), rows_of(deid::testing::slurp(out.string()), ';'));
  fs::remove(out);
}

}  // namespace
