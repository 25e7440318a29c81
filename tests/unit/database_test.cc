// The parts of the PostgreSQL support that need no server
// (docs/databases.md): identifier and literal quoting, redacted connection
// strings, the dialect's statements and the job-file keys. The tests with a
// real server are tests/postgres.
#include <gtest/gtest.h>

#include <string>

#include "db/dialect.h"
#include "deid/database.h"
#include "deid/pipeline.h"
#include "deid/job.h"

namespace {

using deid::PostgresTable;

TEST(QuoteIdent, AlwaysQuotesAndDoublesQuotes) {
  EXPECT_EQ(deid::quote_ident("adult"), "\"adult\"");
  EXPECT_EQ(deid::quote_ident("Adult"), "\"Adult\"");  // capitals kept, not folded
  EXPECT_EQ(deid::quote_ident("select"), "\"select\"");
  EXPECT_EQ(deid::quote_ident("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(deid::quote_ident("\"; DROP TABLE x; --"), "\"\"\"; DROP TABLE x; --\"");
  EXPECT_EQ(deid::quote_ident("größe ü"), "\"größe ü\"");
  EXPECT_EQ(deid::quote_ident(""), "\"\"");
  EXPECT_THROW(deid::quote_ident(std::string("a\0b", 3)), deid::JobError);
}

TEST(QuoteLiteral, DoublesQuotesAndMarksBackslashes) {
  EXPECT_EQ(deid::quote_literal(";"), "';'");
  EXPECT_EQ(deid::quote_literal("'"), "''''");
  EXPECT_EQ(deid::quote_literal("a\\b"), "E'a\\\\b'");
  EXPECT_THROW(deid::quote_literal(std::string("\0", 1)), deid::JobError);
}

TEST(RedactConnection, NeverShowsThePassword) {
  const std::string kv = deid::redact_connection("host=db.example dbname=health user=ana password=s3cr3t-pw");
  EXPECT_EQ(kv.find("s3cr3t-pw"), std::string::npos) << kv;
  EXPECT_NE(kv.find("host=db.example"), std::string::npos) << kv;
  EXPECT_NE(kv.find("dbname=health"), std::string::npos) << kv;
  EXPECT_NE(kv.find("user=ana"), std::string::npos) << kv;

  const std::string uri = deid::redact_connection("postgresql://ana:s3cr3t-pw@db.example:5433/health?sslmode=disable");
  EXPECT_EQ(uri.find("s3cr3t-pw"), std::string::npos) << uri;
  EXPECT_NE(uri.find("port=5433"), std::string::npos) << uri;

  const std::string quoted = deid::redact_connection("dbname='my db' password='a b'");
  EXPECT_EQ(quoted, "dbname='my db'");

  // Unparsable: the text is not shown at all (it may hold the password).
  const std::string bad = deid::redact_connection("host=x password='s3cr3t-pw");
  EXPECT_EQ(bad.find("s3cr3t-pw"), std::string::npos) << bad;
  EXPECT_NE(bad.find("cannot parse"), std::string::npos) << bad;

  EXPECT_NE(deid::redact_connection("").find("PG* environment"), std::string::npos);
}

TEST(DatabaseError, IsAnInputErrorNamingTheRoleAndTheServersMessage) {
  const deid::DatabaseError e("postgresql (dbname=x)", "read the input table", "relation \"t\" does not exist");
  const deid::InputError& base = e;  // exit code 2 in the CLI
  EXPECT_STREQ(base.what(), "postgresql (dbname=x): cannot read the input table: relation \"t\" does not exist");
  EXPECT_EQ(e.role(), "read the input table");
  EXPECT_EQ(e.server_message(), "relation \"t\" does not exist");
}

TEST(PostgresDialect, QuotesEveryIdentifierItWrites) {
  const deid::db::PostgresDialect d;
  PostgresTable t;
  t.schema = "My Schema";
  t.table = "t\"; DROP TABLE x; --";
  EXPECT_EQ(d.table_name(t), "\"My Schema\".\"t\"\"; DROP TABLE x; --\"");
  EXPECT_EQ(d.create_table(t, {"A b", "c\"d"}),
            "CREATE TABLE \"My Schema\".\"t\"\"; DROP TABLE x; --\" (\"A b\" text, \"c\"\"d\" text)");
  EXPECT_EQ(d.write_rows(t, {"x"}, ';'),
            "COPY \"My Schema\".\"t\"\"; DROP TABLE x; --\" (\"x\") FROM STDIN (FORMAT csv, HEADER true, DELIMITER ';')");
  EXPECT_EQ(d.drop_table(t), "DROP TABLE IF EXISTS \"My Schema\".\"t\"\"; DROP TABLE x; --\"");
  EXPECT_EQ(d.read_input(t), "COPY \"My Schema\".\"t\"\"; DROP TABLE x; --\" TO STDOUT (FORMAT csv, HEADER true)");
  PostgresTable q;
  q.query = "SELECT a FROM b ORDER BY a;\n";
  EXPECT_EQ(d.read_input(q), "COPY (SELECT a FROM b ORDER BY a) TO STDOUT (FORMAT csv, HEADER true)");
  // The name travels as a parameter, not in the text.
  EXPECT_EQ(d.table_exists().find("My Schema"), std::string::npos);
}

// The pushdown's statements: every name quoted, values compared as their
// text byte for byte, the histogram in order of first appearance, the
// release joined with the temporary tables.
TEST(PostgresDialect, PushdownStatements) {
  const deid::db::PostgresDialect d;
  PostgresTable t;
  t.schema = "s";
  t.table = "T\"x";
  const std::vector<deid::db::SourceColumn> cols = {{"Age", false}, {"zip;code", true}, {"name", true}};
  EXPECT_EQ(d.describe_input(t), "SELECT * FROM \"s\".\"T\"\"x\" AS src LIMIT 0");
  EXPECT_EQ(d.group_input(t, cols, {0, 1}, false),
            "COPY (SELECT k0, k1, count(*) FROM (SELECT format('%s', src.\"Age\") COLLATE \"C\" AS k0, "
            "COALESCE(src.\"zip;code\"::text, '') COLLATE \"C\" AS k1, row_number() OVER () AS rn FROM "
            "\"s\".\"T\"\"x\" AS src) AS s GROUP BY k0, k1 ORDER BY min(rn)) TO STDOUT (FORMAT csv, HEADER true)");
  // A heap table: read ONLY (as COPY reads it), ordered by the rows' addresses.
  const std::string heap = d.group_input(t, cols, {1}, true);
  EXPECT_NE(heap.find("src.ctid AS rn FROM ONLY \"s\".\"T\"\"x\" AS src"), std::string::npos) << heap;
  EXPECT_EQ(heap.find("row_number"), std::string::npos) << heap;
  PostgresTable q;
  q.query = "SELECT 1 AS a;";
  EXPECT_EQ(d.describe_input(q), "SELECT * FROM (SELECT 1 AS a) AS src LIMIT 0");
  const std::string f = d.formula_candidates(q, cols, {2}, false);
  EXPECT_NE(f.find("CROSS JOIN LATERAL (VALUES (0, s.k0)) AS x(i, v)"), std::string::npos) << f;
  EXPECT_NE(f.find("ORDER BY x.i, min(s.rn)"), std::string::npos) << f;
  EXPECT_EQ(f.find('\\'), std::string::npos) << "a backslash would depend on standard_conforming_strings";

  PostgresTable out;
  out.table = "Out";
  std::vector<deid::db::ReleasedColumn> released(2);
  released[0].source = 0;
  released[0].generalized = 0;
  released[1].source = 1;
  released[1].escape = true;
  released[1].cast = "integer";
  EXPECT_EQ(d.insert_release(out, {"Age", "zip;code"}, t, cols, released, 1, true, false),
            "INSERT INTO \"Out\" (\"Age\", \"zip;code\") SELECT CASE WHEN x.c0 IS NULL THEN NULLIF(m0.g, '') ELSE "
            "'*' END, CAST(NULLIF(CASE WHEN s.k1 IN (SELECT e.v FROM pg_temp.deid_escape_1 AS e) THEN '''' || s.k1 "
            "ELSE s.k1 END, '') AS integer) FROM (SELECT format('%s', src.\"Age\") COLLATE \"C\" AS k0, "
            "COALESCE(src.\"zip;code\"::text, '') COLLATE \"C\" AS k1 FROM \"s\".\"T\"\"x\" AS src) AS s LEFT "
            "JOIN pg_temp.deid_map_0 AS m0 ON m0.v = s.k0 LEFT JOIN pg_temp.deid_suppressed AS x ON x.c0 = m0.c");
  EXPECT_NE(d.insert_release(out, {"Age"}, t, cols, {released[0]}, 1, false, true).find("FROM ONLY \"s\""),
            std::string::npos);
  EXPECT_EQ(d.create_suppressed(2), "CREATE TEMPORARY TABLE pg_temp.deid_suppressed (c0 integer NOT NULL, c1 integer "
                                    "NOT NULL) ON COMMIT DROP");
}

deid::Job job(const std::string& text) { return deid::parse_job(text, "job.yaml", "/base"); }

const char* const kRest = R"(
attributes:
  age: {role: quasi-identifying, hierarchy: age.csv}
default-role: insensitive
privacy:
  - k-anonymity: {k: 2}
)";

TEST(JobFilePostgres, ReadsInputAndOutputTables) {
  const deid::Job j = job(std::string(R"(input:
  postgres: {table: Adult, schema: health, connection: "dbname=x"}
output:
  postgres: {table: "adult released", mode: replace}
  result: r.json
)") + kRest);
  ASSERT_TRUE(j.input.postgres);
  EXPECT_TRUE(j.input.path.empty());
  EXPECT_EQ(j.input.postgres->table, "Adult");
  EXPECT_EQ(j.input.postgres->schema, "health");
  EXPECT_EQ(j.input.postgres->connection, "dbname=x");
  ASSERT_TRUE(j.output.postgres);
  EXPECT_EQ(j.output.postgres->table, "adult released");
  EXPECT_EQ(j.output.postgres->mode, PostgresTable::Mode::replace);
  EXPECT_EQ(j.output.postgres->connection, "dbname=x");  // the input's by default
  EXPECT_TRUE(j.output.path.empty());
  EXPECT_EQ(j.output.result, "/base/r.json");

  EXPECT_TRUE(j.input.postgres->pushdown);  // the default

  const deid::Job q = job(std::string("input:\n  postgres: {query: \"SELECT * FROM a\", pushdown: false}\n") + kRest);
  EXPECT_EQ(q.input.postgres->query, "SELECT * FROM a");
  EXPECT_EQ(q.input.postgres->connection, "");
  EXPECT_FALSE(q.input.postgres->pushdown);
}

// Pushdown needs the rows to stay in the database: a CSV output or a table
// on another connection streams them instead.
TEST(JobFilePostgres, PushdownOnlyWhereTheReleaseStaysInTheDatabase) {
  const std::string in = "input:\n  postgres: {table: a, connection: \"dbname=x\"}\n";
  EXPECT_TRUE(deid::uses_pushdown(job(in + kRest)));
  EXPECT_TRUE(deid::uses_pushdown(job(in + "output:\n  postgres: {table: b}\n" + kRest)));
  EXPECT_TRUE(deid::uses_pushdown(job(in + "output:\n  postgres: {table: b, connection: \"dbname=x\"}\n" + kRest)));
  EXPECT_FALSE(deid::uses_pushdown(job(in + "output:\n  postgres: {table: b, connection: \"dbname=y\"}\n" + kRest)));
  EXPECT_FALSE(deid::uses_pushdown(job(in + "output:\n  path: b.csv\n" + kRest)));
  EXPECT_FALSE(deid::uses_pushdown(
      job(std::string("input:\n  postgres: {table: a, pushdown: false}\noutput:\n  postgres: {table: b}\n") + kRest)));
  EXPECT_FALSE(deid::uses_pushdown(job(std::string("input:\n  path: a.csv\n") + kRest)));
}

TEST(JobFilePostgres, RejectsWhatCannotWork) {
  auto fails = [](const std::string& input_output, const std::string& says) {
    try {
      job(input_output + kRest);
      ADD_FAILURE() << "accepted: " << input_output;
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  fails("input:\n  path: a.csv\n  postgres: {table: a}\n", "input has one of");
  fails("input:\n  postgres: {table: a, query: SELECT 1}\n", "exactly one of 'table' and 'query'");
  fails("input:\n  postgres: {connection: x}\n", "exactly one of 'table' and 'query'");
  fails("input:\n  postgres: {table: a, mode: create}\n", "unknown key 'mode'");
  fails("input:\n  postgres: {table: a}\noutput:\n  postgres: {table: b, mode: upsert}\n", "create, replace or append");
  fails("input:\n  postgres: {table: a}\noutput:\n  postgres: {table: a}\n", "is the input table");
  fails("input:\n  postgres: {table: a}\noutput:\n  path: b.csv\n  postgres: {table: b}\n", "output has one of");
  fails("input:\n  postgres: {table: a}\noutput:\n  postgres: {mode: append}\n", "needs 'table'");
  fails("input:\n  postgres: {table: " + std::string(64, 'x') + "}\n", "at most 63");
  fails("input:\n  postgres: {table: a, pushdown: sometimes}\n", "pushdown");
  fails("input:\n  postgres: {table: a}\noutput:\n  postgres: {table: b, pushdown: true}\n", "unknown key 'pushdown'");
}

}  // namespace
