// `deid inspect --table` / `--query` (docs/inspect.md, docs/databases.md):
// a table is inspected exactly as the CSV it exports to, and the starter
// job names the table so that `deid anonymize` runs it as it is.
#include "pg_fixture.h"

namespace {

using namespace pg_test;

struct CliRun {
  int code = -1;
  std::string out, err;
};
CliRun run_cli(const fs::path& dir, const std::string& args) {
  const std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
  const int code = deid::testing::run_deid(args, out, err);
  return {code, deid::testing::slurp(out), deid::testing::slurp(err)};
}

// A shell word.
std::string sh(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(deid::testing::slurp(p.string())); }

// The inspection of `source` (a table or query) and of the CSV text
// read_postgres receives from it, written to a file: the same JSON but the
// source's name.
void expect_same_as_its_csv(const fs::path& dir, const PostgresTable& source, const std::string& options) {
  const fs::path csv = dir / "exported.csv";
  {
    std::ofstream(csv, std::ios::binary) << deid::read_postgres_text(source, "export the table");
  }
  const CliRun from_csv = run_cli(dir, "inspect " + sh(csv.string()) + " --json " + sh((dir / "csv.json").string()));
  ASSERT_EQ(from_csv.code, 0) << from_csv.err;
  const CliRun from_table = run_cli(dir, "inspect " + options + " --json " + sh((dir / "table.json").string()));
  ASSERT_EQ(from_table.code, 0) << from_table.err;
  nlohmann::json a = read_json(dir / "csv.json"), b = read_json(dir / "table.json");
  EXPECT_EQ(a["source"], csv.string());
  EXPECT_EQ(b["source"], deid::describe(source));
  a.erase("source");
  b.erase("source");
  EXPECT_EQ(a.dump(2), b.dump(2));
  // The printed summary too, but for the line naming the JSON file.
  const auto summary = [](const std::string& out) { return out.substr(0, out.find("\nJSON ")); };
  EXPECT_NE(summary(from_csv.out).find("Suggested roles"), std::string::npos) << from_csv.out;
  EXPECT_EQ(summary(from_csv.out), summary(from_table.out));
}

TEST(PostgresInspect, AdultTableIsInspectedAsItsCsvAndItsStarterJobRuns) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult");
  load_adult(db, in);
  const fs::path dir = temp("inspect");
  fs::create_directories(dir);
  PostgresTable t;
  t.connection = conninfo();
  t.table = in;
  expect_same_as_its_csv(dir, t, "--connection " + sh(conninfo()) + " --table " + sh(in));
  const nlohmann::json j = read_json(dir / "table.json");
  EXPECT_EQ(j["records"], 30162);
  EXPECT_EQ(j["columns"][2]["name"], "age");
  EXPECT_EQ(j["columns"][2]["type"], "integer");

  // The starter job names the table; `deid anonymize` runs it unchanged.
  const fs::path job = dir / "job.yaml";
  const CliRun r = run_cli(dir, "inspect -q --connection " + sh(conninfo()) + " --table " + sh(in) +
                                 " --max-combination-size 2 --job " + sh(job.string()));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = deid::testing::slurp(job.string());
  const deid::Job parsed = deid::parse_job(text, job.string(), dir.string());
  ASSERT_TRUE(parsed.input.postgres.has_value()) << text;
  EXPECT_EQ(parsed.input.postgres->table, in);
  EXPECT_EQ(parsed.input.postgres->connection, deid::redact_connection(conninfo()));
  EXPECT_TRUE(parsed.input.path.empty());
  const CliRun a = run_cli(dir, "anonymize -q " + sh(job.string()));
  ASSERT_EQ(a.code, 0) << a.err << "\n" << text;
  const std::string stem = in;
  const nlohmann::json result = read_json(dir / (stem + "-deid.json"));
  EXPECT_TRUE(result["solution_found"].get<bool>());
  std::ifstream released(dir / (stem + "-deid.csv"));
  std::size_t lines = 0;
  for (std::string line; std::getline(released, line);) ++lines;
  EXPECT_EQ(lines, 30163u);  // header and every record (suppressed ones masked, not dropped)
  db.exec("DROP TABLE " + q(in));
  fs::remove_all(dir);
}

// Types whose text the server writes (dates, timestamps, numerics, NULL,
// quotes and line breaks in text), a schema, and a query: the same JSON as
// the CSV, lines included; the job of a query names the query. A password
// in the connection is in no file written.
TEST(PostgresInspect, TypedColumnsQueriesAndSchemas) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string schema = unique("Insp Schema"), in = "Visits \"2024\"";
  db.exec("CREATE SCHEMA " + q(schema));
  const std::string qin = q(schema) + "." + q(in);
  db.exec("CREATE TABLE " + qin +
          " (id integer, visit date, seen timestamptz, amount numeric(8,2), score double precision, zip text, "
          "note text, \"E-mail\" text)");
  std::string data;
  for (int i = 0; i < 60; ++i) {
    const std::string note = i % 7 == 0 ? "\"two\nlines, quoted \"\"x\"\"\"" : i % 5 == 0 ? "" : "plain";
    data += fmt::format("{},2024-0{}-{:02},2024-03-0{} 1{}:00:00+02,{}.5,{},{},{},{}\n", i, 1 + i % 9, 1 + i % 28,
                        1 + i % 9, i % 10, i * 3, i % 3 == 0 ? "0.1" : "1e+300", fmt::format("{:05}", 2100 + i % 6),
                        note, i % 4 == 0 ? "" : fmt::format("p{}@example.org", i));
  }
  db.copy_in("COPY " + qin + " FROM STDIN (FORMAT csv)", data);
  const fs::path dir = temp("inspect_typed");
  fs::create_directories(dir);
  const std::string secret = "Pw-inspect-SECRET";
  PostgresTable t;
  t.connection = conninfo() + " password=" + secret;
  t.schema = schema;
  t.table = in;
  expect_same_as_its_csv(dir, t,
                         "--connection " + sh(t.connection) + " --schema " + sh(schema) + " --table " + sh(in));
  const nlohmann::json j = read_json(dir / "table.json");
  EXPECT_EQ(j["columns"][1]["type"], "date");
  EXPECT_EQ(j["columns"][6]["non_conforming_examples"].size(), 0u);

  PostgresTable query;
  query.connection = conninfo();
  query.query = "SELECT id, visit, amount, zip FROM " + qin + " WHERE id % 2 = 0 ORDER BY id DESC";
  expect_same_as_its_csv(dir, query, "--connection " + sh(conninfo()) + " --query " + sh(query.query));

  // The starter jobs: of a table with its schema, of a query; no password.
  const CliRun r = run_cli(dir, "inspect -q --connection " + sh(t.connection) + " --schema " + sh(schema) +
                                 " --table " + sh(in) + " --job " + sh((dir / "table.yaml").string()));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string table_job = deid::testing::slurp((dir / "table.yaml").string());
  EXPECT_EQ(table_job.find(secret), std::string::npos) << table_job;
  EXPECT_EQ(r.out.find(secret), std::string::npos);
  deid::Job parsed = deid::parse_job(table_job, "table.yaml", dir.string());
  ASSERT_TRUE(parsed.input.postgres.has_value());
  EXPECT_EQ(parsed.input.postgres->schema, schema);
  EXPECT_EQ(parsed.input.postgres->table, in);
  EXPECT_EQ(parsed.output.path, (dir / "Visits__2024_-deid.csv").string());
  const CliRun a = run_cli(dir, "anonymize -q " + sh((dir / "table.yaml").string()));
  EXPECT_EQ(a.code, 0) << a.err << "\n" << table_job;

  ASSERT_EQ(run_cli(dir, "inspect -q --connection " + sh(conninfo()) + " --query " + sh(query.query) + " --job " +
                             sh((dir / "query.yaml").string()))
                .code,
            0);
  const std::string query_job = deid::testing::slurp((dir / "query.yaml").string());
  parsed = deid::parse_job(query_job, "query.yaml", dir.string());
  ASSERT_TRUE(parsed.input.postgres.has_value());
  EXPECT_EQ(parsed.input.postgres->query, query.query);
  EXPECT_EQ(parsed.output.path, (dir / "query-deid.csv").string());
  const CliRun b = run_cli(dir, "anonymize -q " + sh((dir / "query.yaml").string()));
  EXPECT_EQ(b.code, 0) << b.err << "\n" << query_job;

  // A table that is not there: exit 2, the connection named without its password.
  const CliRun missing =
      run_cli(dir, "inspect --connection " + sh(t.connection) + " --table " + sh(unique("no_such_table")));
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no_such_table"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.err.find(secret), std::string::npos) << missing.err;
  db.exec("DROP SCHEMA " + q(schema) + " CASCADE");
  fs::remove_all(dir);
}

}  // namespace
