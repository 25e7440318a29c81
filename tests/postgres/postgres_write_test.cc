// Writing PostgreSQL tables (docs/databases.md): cell suppression table to
// table, create, replace and append, a failed append, a killed connection.
#include "deid/identifiers.h"
#include "pg_fixture.h"

namespace {

using namespace pg_test;

TEST(Postgres, SuppressFromTableToTable) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("discharge"), out = unique("suppressed");
  db.exec("CREATE TABLE " + q(in) + " (line integer, abstract_id bigint, province text, age_group text, sex text, "
          "diagnosis text, intervention text, los integer, discharge text)");
  std::istringstream file(deid::testing::slurp(deid::testing::example_path("discharge/discharge.csv")));
  std::string line, data;
  std::getline(file, line);  // header
  for (int n = 1; std::getline(file, line); ++n) data += std::to_string(n) + "," + line + "\n";
  db.copy_in("COPY " + q(in) + " FROM STDIN (FORMAT csv)", data);

  const fs::path dir = temp("suppress");
  fs::create_directories(dir);
  deid::Job csv = deid::read_job(deid::testing::example_path("discharge/discharge.yaml"));
  csv.cell_suppression->samples.clear();
  csv.output.path = (dir / "out.csv").string();
  csv.output.result.clear();
  const deid::CellSuppressionRun from_csv = deid::run_cell_suppression(csv);

  deid::Job pg = on_tables(deid::read_job(deid::testing::example_path("discharge/discharge.yaml")),
                           "SELECT abstract_id, province, age_group, sex, diagnosis, intervention, los, discharge "
                           "FROM " + q(in) + " ORDER BY line",
                           out);
  pg.cell_suppression->samples.clear();
  pg.output.result.clear();
  const deid::CellSuppressionRun from_pg = deid::run_cell_suppression(pg);

  EXPECT_EQ(table_rows(db, q(out)), rows_of(deid::testing::slurp((dir / "out.csv").string()), ','));
  EXPECT_EQ(from_pg.result["information_loss"].dump(), from_csv.result["information_loss"].dump());
  nlohmann::json pg_stats = from_pg.result["suppression"], csv_stats = from_csv.result["suppression"];
  pg_stats.erase("time_ms");
  csv_stats.erase("time_ms");
  EXPECT_EQ(pg_stats.dump(), csv_stats.dump());
  EXPECT_EQ(from_pg.result["files"][1]["sha256"], from_csv.result["files"][1]["sha256"]);  // the same bytes sent
  // An existing table (mode create) is refused before any work.
  EXPECT_THROW(deid::run_cell_suppression(pg), deid::DatabaseError);
  fs::remove_all(dir);
}

// --- Modes, transactions ------------------------------------------------------

class Written : public ::testing::TestWithParam<bool> {};  // param: pushdown

// Job for adult from table `in` to table `out`, grouped and written by the
// database when the test's parameter says pushdown.
deid::Job adult_job_for(const std::string& in, const std::string& out, PostgresTable::Mode mode) {
  deid::Job job = adult_job(in, out, mode);
  job.input.postgres->pushdown = Written::GetParam();
  return job;
}

TEST_P(Written, CreateReplaceAppend) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("out");
  load_adult(db, in);
  auto adult_job = adult_job_for;
  const std::string count = "SELECT count(*) FROM " + q(out);

  ASSERT_TRUE(deid::anonymize(adult_job(in, out, PostgresTable::Mode::create)).found);
  EXPECT_EQ(db.value(count), "30162");
  const std::vector<std::string> once = table_rows(db, q(out));

  // create: the table exists; refused before any work, the table untouched.
  try {
    deid::anonymize(adult_job(in, out, PostgresTable::Mode::create));
    ADD_FAILURE() << "mode create wrote over an existing table";
  } catch (const deid::DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("exists already"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.value(count), "30162");

  // append: the rows once more.
  ASSERT_TRUE(deid::anonymize(adult_job(in, out, PostgresTable::Mode::append)).found);
  EXPECT_EQ(db.value(count), "60324");

  // replace: a table with only this run's rows (and text columns again).
  db.exec("ALTER TABLE " + q(out) + " ADD COLUMN extra integer");
  ASSERT_TRUE(deid::anonymize(adult_job(in, out, PostgresTable::Mode::replace)).found);
  EXPECT_EQ(db.value(count), "30162");
  EXPECT_EQ(table_rows(db, q(out)), once);

  // append to a table that does not exist: refused before any work.
  const std::string missing = unique("missing");
  EXPECT_THROW(deid::anonymize(adult_job(in, missing, PostgresTable::Mode::append)), deid::DatabaseError);
  EXPECT_EQ(db.value("SELECT to_regclass('" + q(missing) + "') IS NULL"), "t");
}

// Appending rows the table's types refuse ('*' into an integer column)
// fails in the COPY: nothing is appended, and the error names its role.
TEST_P(Written, FailedAppendAddsNothing) {
  REQUIRE_CLUSTER();
  auto adult_job = adult_job_for;
  Db db;
  const std::string in = unique("adult"), out = unique("typed");
  load_adult(db, in);
  db.exec("CREATE TABLE " + q(out) + " AS SELECT " + kAdultColumns + " FROM " + q(in) + " LIMIT 5");
  try {
    deid::anonymize(adult_job(in, out, PostgresTable::Mode::append));
    ADD_FAILURE() << "appended '20-39' to an integer column";
  } catch (const deid::DatabaseError& e) {
    EXPECT_EQ(e.role(), "write the output table");
    EXPECT_NE(e.server_message().find("integer"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.value("SELECT count(*) FROM " + q(out)), "5");
}

INSTANTIATE_TEST_SUITE_P(Postgres, Written, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "pushdown" : "streamed"; });

// Appending to typed columns: the text of each released value is converted
// by the column's type, as COPY converts it (pushdown casts it).
TEST_P(Written, AppendConvertsToTheColumnsTypes) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("typed");
  load_adult(db, in);
  db.exec("CREATE TABLE " + q(out) + " (note text, \"salary-class\" varchar(5), sex char(6), age text, race text, "
          "\"marital-status\" text, education text, \"native-country\" text, workclass text, occupation text)");
  ASSERT_TRUE(deid::anonymize(adult_job_for(in, out, PostgresTable::Mode::append)).found);
  EXPECT_EQ(db.value("SELECT count(*) FROM " + q(out) + " WHERE note IS NULL AND sex IN ('Male  ', 'Female', '*')"),
            "30162");
  EXPECT_EQ(db.value("SELECT count(*) FROM " + q(out) + " WHERE \"salary-class\" IN ('<=50K', '>50K', '*')"), "30162");
}

// The connection is killed by the server in the middle of the COPY (a
// trigger, added by an event trigger to every table created in a database
// of its own, terminates the backend at the 10,000th row): mode create
// leaves no table, mode replace leaves the old one whole.
TEST(Postgres, KilledConnectionMidWriteLeavesNoTable) {
  REQUIRE_CLUSTER();
  const std::string dbname = fresh_database("killdb");
  Db db(conninfo(dbname));
  load_adult(db, "adult");
  db.exec("CREATE TABLE old AS SELECT 1 AS kept");
  db.exec(R"(CREATE FUNCTION kill_at_10000() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('rows_seen') = 10000 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
      RETURN NEW;
    END $$)");
  db.exec("CREATE SEQUENCE rows_seen");
  db.exec(R"(CREATE FUNCTION add_killer() RETURNS event_trigger LANGUAGE plpgsql AS $$
    DECLARE obj record;
    BEGIN
      FOR obj IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' LOOP
        EXECUTE format('CREATE TRIGGER killer BEFORE INSERT ON %s FOR EACH ROW EXECUTE FUNCTION kill_at_10000()',
                       obj.object_identity);
      END LOOP;
    END $$)");
  db.exec("CREATE EVENT TRIGGER add_killer ON ddl_command_end WHEN TAG IN ('CREATE TABLE') "
          "EXECUTE FUNCTION add_killer()");

  auto run = [&](const std::string& out, PostgresTable::Mode mode, bool pushdown) {
    deid::Job job = adult_job("adult", out, mode);
    job.input.postgres->connection = job.output.postgres->connection = conninfo(dbname);
    job.input.postgres->pushdown = pushdown;
    const fs::path result = temp("result.json");
    job.output.result = result.string();
    try {
      deid::anonymize(job);
      ADD_FAILURE() << "the write survived a killed connection";
    } catch (const deid::DatabaseError& e) {
      EXPECT_EQ(e.role(), "write the output table") << e.what();
    }
    EXPECT_FALSE(fs::exists(result)) << "the result was published for a table that was not written";
    db.exec("SELECT setval('rows_seen', 1)");
  };
  // Streamed (COPY FROM STDIN) and by the database (INSERT ... SELECT).
  for (const bool pushdown : {false, true}) {
    run("new", PostgresTable::Mode::create, pushdown);
    EXPECT_EQ(db.value("SELECT to_regclass('new') IS NULL"), "t");
    run("old", PostgresTable::Mode::replace, pushdown);
    EXPECT_EQ(db.value("SELECT string_agg(kept::text, ',') FROM old"), "1");
  }
}

// --- Hostile names ------------------------------------------------------------

}  // namespace

namespace {

// Pseudonyms of a table (docs/identifiers.md): a job with an identifier
// action reads the rows even with pushdown on, and the table written holds
// each record's pseudonym.
TEST(Postgres, PseudonymsAreComputedFromTheStreamedRows) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("out");
  load_adult(db, in);
  ::setenv("DEID_PG_TEST_SECRET", "a secret of the PostgreSQL tests", 1);
  deid::Job job = adult_job(in, out, PostgresTable::Mode::create);
  job.input.postgres->query = "SELECT 'P' || line AS mrn, " + std::string(kAdultColumns) + " FROM " + q(in) + " ORDER BY line";
  job.input.postgres->pushdown = true;
  deid::AttributeSpec mrn;
  mrn.name = "mrn";
  mrn.role = deid::Role::identifying;
  mrn.identifier.action = deid::IdentifierAction::pseudonym;
  job.attributes.push_back(mrn);
  job.identifiers = deid::IdentifiersSpec{};
  job.identifiers->secret_env = "DEID_PG_TEST_SECRET";
  EXPECT_FALSE(deid::uses_pushdown(job));
  const deid::Anonymization a = deid::anonymize(job);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.result["files"][0].count("pushdown"), 0u);
  EXPECT_EQ(a.result["identifiers"]["columns"][0]["name"], "mrn");
  std::vector<std::string> got;
  for (const std::string& row : table_rows(db, q(out))) got.push_back(row.substr(0, row.find('\x1f')));  // rows_of joins cells with 0x1F
  ASSERT_EQ(got.size(), 30163u);  // the header, then every record
  EXPECT_EQ(got[0], "mrn");
  got.erase(got.begin());
  std::vector<std::string> want;
  for (int n = 1; n <= 30162; ++n) {
    std::string value = "P";
    value += std::to_string(n);
    want.push_back(deid::pseudonym("a secret of the PostgreSQL tests", value, 16));
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

}  // namespace
