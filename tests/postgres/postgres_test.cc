// deid with a real PostgreSQL server (docs/databases.md, "Tests"): the
// cluster is started by tests/postgres/cluster.sh (a ctest fixture) and
// found through the file DEID_PG_STATE names. Each test uses tables of its
// own (named after the test and the process), so tests may run in parallel.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "deid/cell_suppression_job.h"
#include "deid/csv.h"
#include "deid/database.h"
#include "deid/histogram.h"
#include "deid/pipeline.h"
#include "support/histogram.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;
using deid::PostgresTable;

// The socket directory of the test cluster; skips the test when the
// cluster script was told to skip (DEID_SKIP_POSTGRES_TESTS=1), fails it
// when there is no cluster.
std::string cluster_dir() {
  const char* state = std::getenv("DEID_PG_STATE");
  if (!state) return {};
  std::ifstream in(state);
  std::string dir;
  std::getline(in, dir);
  return dir;
}

#define REQUIRE_CLUSTER()                                                                              \
  do {                                                                                                 \
    if (cluster_dir() == "skip") GTEST_SKIP() << "DEID_SKIP_POSTGRES_TESTS=1";                         \
    ASSERT_FALSE(cluster_dir().empty()) << "no test cluster: DEID_PG_STATE is unset or names no file " \
                                           "(run through ctest, which starts tests/postgres/cluster.sh)"; \
  } while (0)

std::string conninfo(const std::string& dbname = "postgres") {
  return "host=" + cluster_dir() + " port=5432 user=deid dbname=" + dbname;
}

// A unique name per test and process.
std::string unique(const std::string& base) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = base + "_" + std::to_string(::getpid()) + "_" + info->name();
  std::replace(name.begin(), name.end(), '/', '_');
  return name.substr(0, 63);
}

// A connection of the test itself (libpq directly: what is checked does
// not go through the code under test).
class Db {
 public:
  explicit Db(const std::string& info = conninfo()) : conn_(PQconnectdb(info.c_str())) {
    if (PQstatus(conn_) != CONNECTION_OK) throw std::runtime_error(PQerrorMessage(conn_));
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
  }
  ~Db() { PQfinish(conn_); }
  void exec(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const auto st = PQresultStatus(r);
    const std::string err = PQresultErrorMessage(r);
    PQclear(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) throw std::runtime_error(sql + ": " + err);
  }
  std::string value(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    std::string v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "<none>";
    PQclear(r);
    return v;
  }
  void copy_in(const std::string& sql, const std::string& data) {
    PGresult* r = PQexec(conn_, sql.c_str());
    if (PQresultStatus(r) != PGRES_COPY_IN) throw std::runtime_error(sql + ": " + PQresultErrorMessage(r));
    PQclear(r);
    PQputCopyData(conn_, data.data(), static_cast<int>(data.size()));
    PQputCopyEnd(conn_, nullptr);
    r = PQgetResult(conn_);
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    const std::string err = PQresultErrorMessage(r);
    PQclear(r);
    while (PGresult* more = PQgetResult(conn_)) PQclear(more);
    if (!ok) throw std::runtime_error(sql + ": " + err);
  }
  std::string copy_out(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    if (PQresultStatus(r) != PGRES_COPY_OUT) throw std::runtime_error(sql + ": " + PQresultErrorMessage(r));
    PQclear(r);
    std::string out;
    char* buf = nullptr;
    int n;
    while ((n = PQgetCopyData(conn_, &buf, 0)) > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      PQfreemem(buf);
    }
    while (PGresult* more = PQgetResult(conn_)) PQclear(more);
    return out;
  }

 private:
  PGconn* conn_;
};

std::string q(const std::string& name) { return deid::quote_ident(name); }

// The rows of a CSV text (header first, then the data rows sorted: a table
// has no row order), fields joined by a unit separator.
std::vector<std::string> rows_of(const std::string& text, char delimiter) {
  std::vector<std::string> rows;
  deid::read_csv_text(text, "rows", deid::CsvOptions{delimiter}, [&](const deid::CsvRecord& r) {
    std::string row;
    for (std::size_t i = 0; i < r.fields.size(); ++i) {
      if (i) row += '\x1f';
      row += r.fields[i];
    }
    rows.push_back(std::move(row));
  });
  if (rows.size() > 1) std::sort(rows.begin() + 1, rows.end());
  return rows;
}

std::vector<std::string> table_rows(Db& db, const std::string& qualified) {
  return rows_of(db.copy_out("COPY " + qualified + " TO STDOUT (FORMAT csv, HEADER true)"), ',');
}

// examples/adult/adult.csv as table `name` with a column `line` (the
// record's number in the file) and `age` an integer.
void load_adult(Db& db, const std::string& name) {
  db.exec("CREATE TABLE " + q(name) +
          " (line integer, sex text, age integer, race text, \"marital-status\" text, education text, "
          "\"native-country\" text, workclass text, occupation text, \"salary-class\" text)");
  std::istringstream in(deid::testing::slurp(deid::testing::example_path("adult/adult.csv")));
  std::string line, data;
  std::getline(in, line);  // header
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    data += std::to_string(n) + ";" + line + "\n";
  }
  db.copy_in("COPY " + q(name) + " FROM STDIN (FORMAT csv, DELIMITER ';')", data);
}

const char* const kAdultColumns =
    "sex, age, race, \"marital-status\", education, \"native-country\", workclass, occupation, \"salary-class\"";

// A new, empty database of this test (for objects whose names are fixed,
// or that act on every table of their database).
std::string fresh_database(const std::string& base) {
  const std::string name = unique(base);
  Db admin;
  admin.exec("DROP DATABASE IF EXISTS " + q(name));
  admin.exec("CREATE DATABASE " + q(name));
  return name;
}

fs::path temp(const std::string& name) { return fs::path(::testing::TempDir()) / unique(name); }

// The result without what differs between any two runs (times, memory)
// and between a file and a table (the inputs' and outputs' names and
// digests, and the utility analysis, which pushdown skips: checked apart).
nlohmann::json comparable(nlohmann::json r) {
  r.erase("utility");
  r.erase("time_ms");
  r.erase("peak_rss_bytes");
  r.erase("files");
  r["search"].erase("time_to_best_ms");
  return r;
}

// --- The same results as the CSV path ----------------------------------------

// `job` reading the rows of `query` and writing the table `out`, both on the
// test cluster, instead of files.
deid::Job on_tables(deid::Job job, const std::string& query, const std::string& out) {
  job.input.path.clear();
  job.input.delimiter.reset();
  job.input.postgres = PostgresTable{};
  job.input.postgres->connection = conninfo();
  job.input.postgres->query = query;
  job.output.path.clear();
  job.output.postgres = PostgresTable{};
  job.output.postgres->connection = conninfo();
  job.output.postgres->table = out;
  return job;
}

// The adult table `in` (loaded by load_adult) in its file's line order.
std::string adult_query(const std::string& in) {
  return std::string("SELECT ") + kAdultColumns + " FROM " + q(in) + " ORDER BY line";
}

class ReferenceFromTable : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

// Every ARX reference run of adult, read from a table (in the file's order)
// and written to a table, gives the result and the released rows of the
// run on adult.csv: grouped and written by the database (pushdown), and
// streamed through deid.
TEST_P(ReferenceFromTable, SameResultAndRowsAsTheCsvFile) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("released");
  load_adult(db, in);
  const bool pushdown = std::get<1>(GetParam());

  const nlohmann::json& run = deid::testing::arx_adult_run(std::get<0>(GetParam()));
  deid::Job csv_job = deid::testing::arx_adult_job(run);
  const fs::path csv_out = temp("released.csv");
  csv_job.output.path = csv_out.string();
  const deid::Anonymization from_csv = deid::anonymize(csv_job);

  deid::Job pg_job = on_tables(deid::testing::arx_adult_job(run), adult_query(in), out);
  pg_job.input.postgres->pushdown = pushdown;
  ASSERT_EQ(deid::uses_pushdown(pg_job), pushdown);
  const deid::Anonymization from_pg = deid::anonymize(pg_job);

  EXPECT_EQ(comparable(from_pg.result).dump(2), comparable(from_csv.result).dump(2));
  ASSERT_EQ(from_pg.found, from_csv.found);
  if (from_csv.found && pushdown) {
    EXPECT_TRUE(from_pg.result["utility"].contains("skipped")) << from_pg.result["utility"].dump();
  } else if (from_csv.found) {
    EXPECT_EQ(from_pg.result["utility"].dump(), from_csv.result["utility"].dump());
  }
  // Same CSV bytes sent to the server as written to the file (delimiters aside).
  ASSERT_EQ(from_pg.result["files"].size(), from_csv.result["files"].size());
  if (from_csv.found) {
    EXPECT_EQ(table_rows(db, q(out)), rows_of(deid::testing::slurp(csv_out.string()), ';'));
    EXPECT_EQ(from_pg.result["files"][1]["path"], deid::describe(*pg_job.output.postgres));
    if (pushdown) {
      EXPECT_EQ(from_pg.result["files"][1]["pushdown"], "database");
      EXPECT_EQ(from_pg.result["files"][1]["rows"], 30162);
      EXPECT_EQ(from_pg.result["files"][0]["pushdown"], "histogram");
    } else {
      EXPECT_FALSE(from_pg.result["files"][1].contains("pushdown"));
    }
  } else {
    EXPECT_EQ(db.value("SELECT to_regclass('" + q(out) + "') IS NULL"), "t");
  }
  EXPECT_EQ(from_pg.result["files"][0]["path"], deid::describe(*pg_job.input.postgres));
  fs::remove(csv_out);
}

// `job` reading the adult table `in` of the test cluster (in its file's
// line order) and writing the table `out` there, with pushdown.
deid::Job adult_table_job(deid::Job job, const std::string& in, const std::string& out) {
  return on_tables(std::move(job), adult_query(in), out);
}

// KL divergence sums over the records in input order (ARX's bits): with
// pushdown the job is refused before any table is written, naming the way
// out; streamed, it gives the CSV path's result.
TEST(Postgres, KlDivergenceNeedsTheRows) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("released");
  load_adult(db, in);
  deid::Job csv_job = deid::testing::arx_adult_job(deid::testing::arx_adult_run("adult_k5_loss"));
  csv_job.quality.model = "kl-divergence";
  csv_job.quality.aggregate.reset();
  csv_job.search.max_checks = 40;
  const deid::Anonymization from_csv = deid::anonymize(csv_job);

  deid::Job pg_job = adult_table_job(csv_job, in, out);
  try {
    deid::anonymize(pg_job);
    ADD_FAILURE() << "kl-divergence with pushdown was accepted";
  } catch (const deid::JobError& e) {
    EXPECT_NE(std::string(e.what()).find("kl-divergence"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("pushdown: false"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.value("SELECT to_regclass('" + q(out) + "') IS NULL"), "t");

  pg_job.input.postgres->pushdown = false;
  const deid::Anonymization from_pg = deid::anonymize(pg_job);
  EXPECT_EQ(from_pg.result["information_loss"], from_csv.result["information_loss"]);
  EXPECT_EQ(from_pg.result["transformation"], from_csv.result["transformation"]);
}

// A research subset (docs/privacy-models.md) needs the rows: read from a
// table and streamed, the release (to a table) is the CSV path's; with
// pushdown the job is refused at its `subset` line, naming the way out.
TEST(Postgres, ResearchSubsetStreamsTheRows) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("released");
  load_adult(db, in);
  const nlohmann::json& run = deid::testing::arx_adult_run("adult_k5_loss");
  deid::Job csv_job = deid::testing::arx_adult_job(run);
  csv_job.subset = deid::Job::Subset{};
  csv_job.subset->column = "marital-status";
  csv_job.subset->value = "Never-married";
  csv_job.subset->line = 1;
  const fs::path csv_out = temp("subset.csv");
  csv_job.output.path = csv_out.string();
  const deid::Anonymization from_csv = deid::anonymize(csv_job);
  ASSERT_TRUE(from_csv.found);
  ASSERT_TRUE(from_csv.result.contains("subset"));

  deid::Job pg_job = adult_table_job(csv_job, in, out);
  try {
    deid::anonymize(pg_job);
    ADD_FAILURE() << "a subset with pushdown was accepted";
  } catch (const deid::JobError& e) {
    EXPECT_NE(std::string(e.what()).find("pushdown: false"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.value("SELECT to_regclass('" + q(out) + "') IS NULL"), "t");

  pg_job.input.postgres->pushdown = false;
  const deid::Anonymization from_pg = deid::anonymize(pg_job);
  EXPECT_EQ(comparable(from_pg.result).dump(2), comparable(from_csv.result).dump(2));
  EXPECT_EQ(table_rows(db, q(out)), rows_of(deid::testing::slurp(csv_out.string()), ';'));
  fs::remove(csv_out);
}

std::vector<std::string> reference_runs() {
  std::vector<std::string> names;
  for (const auto& run : deid::testing::arx_adult_runs()) names.push_back(run["name"].get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Postgres, ReferenceFromTable,
                         ::testing::Combine(::testing::ValuesIn(reference_runs()), ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_pushdown" : "_streamed");
                         });

// A table read as a table (no ORDER BY: the server's order) gives the
// Dataset, the result and the rows of the CSV that COPY ... TO exports
// from it.
TEST(Postgres, TableGivesWhatItsCsvExportGives) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult");
  load_adult(db, in);
  db.exec("ALTER TABLE " + q(in) + " DROP COLUMN line");
  const fs::path exported = temp("export.csv");
  {
    std::ofstream f(exported, std::ios::binary);
    f << db.copy_out("COPY " + q(in) + " TO STDOUT (FORMAT csv, HEADER true)");
  }
  PostgresTable src;
  src.connection = conninfo();
  src.table = in;
  const deid::Dataset a = deid::read_postgres(src);
  const deid::Dataset b = deid::read_dataset(exported.string(), deid::CsvOptions{','});
  ASSERT_EQ(a.rows, 30162u);
  ASSERT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (std::size_t c = 0; c < a.columns.size(); ++c) {
    EXPECT_EQ(a.columns[c].name, b.columns[c].name);
    ASSERT_EQ(a.columns[c].dictionary.size(), b.columns[c].dictionary.size());
    for (std::uint32_t v = 0; v < a.columns[c].dictionary.size(); ++v)
      EXPECT_EQ(a.columns[c].dictionary.value(v), b.columns[c].dictionary.value(v));
    EXPECT_EQ(a.columns[c].codes.to_vector(), b.columns[c].codes.to_vector());
  }
  EXPECT_EQ(a.sha256, b.sha256);  // the very bytes of the export
  EXPECT_EQ(a.bytes, b.bytes);

  deid::Job job = deid::read_job(deid::testing::example_path("adult.yaml"));
  job.input.path = exported.string();
  job.input.delimiter = ',';
  job.output.result.clear();
  const fs::path csv_out = temp("out.csv");
  job.output.path = csv_out.string();
  const deid::Anonymization from_csv = deid::anonymize(job);
  job.input.path.clear();
  job.input.postgres = src;
  const deid::Anonymization from_pg = deid::anonymize(job);  // still a CSV output
  ASSERT_TRUE(from_pg.found);
  EXPECT_EQ(comparable(from_pg.result).dump(2), comparable(from_csv.result).dump(2));
  EXPECT_EQ(from_pg.result["files"][1]["sha256"], from_csv.result["files"][1]["sha256"]);  // the same bytes
  fs::remove(exported);
  fs::remove(csv_out);
}

// Types: what the server's text output makes of them, the CSV path's value.
TEST(Postgres, TypesAndNullsReadAsTheirText) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string t = unique("types");
  db.exec("CREATE TABLE " + q(t) +
          " (i integer, b bigint, n numeric(8,2), r double precision, d date, ts timestamptz, f boolean, s text)");
  db.exec("INSERT INTO " + q(t) +
          " VALUES (-7, 9007199254740993, 1.5, 0.1, '2024-02-29', '2024-02-29 12:00:00+01', true, "
          "'a \"quoted\"; text\nwith a line break'), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, ''), "
          "(0, 0, 0, 1e300, '0001-01-01', '2000-01-01 00:00:00+00', false, NULL)");
  PostgresTable src;
  src.connection = conninfo();
  src.query = "SELECT * FROM " + q(t) + " ORDER BY i NULLS LAST";
  const deid::Dataset ds = deid::read_postgres(src);
  ASSERT_EQ(ds.rows, 3u);
  auto cell = [&](std::size_t c, std::size_t r) { return ds.columns[c].dictionary.value(ds.columns[c].codes[r]); };
  const std::vector<std::vector<std::string>> expected = {
      {"-7", "9007199254740993", "1.50", "0.1", "2024-02-29", "2024-02-29 11:00:00+00", "t",
       "a \"quoted\"; text\nwith a line break"},
      {"0", "0", "0.00", "1e+300", "0001-01-01", "2000-01-01 00:00:00+00", "f", ""},
      {"", "", "", "", "", "", "", ""}};
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t c = 0; c < 8; ++c) EXPECT_EQ(cell(c, r), expected[r][c]) << "row " << r << ", column " << c;
}

// --- Pushdown ------------------------------------------------------------------

// The histogram grouped by the server is the one deid builds from the rows
// it streams: the same dictionaries (values in the same order), entries,
// counts and sensitive distributions, for values of every type, NULLs, the
// empty string and padded char(n), with far fewer rows.
TEST(Postgres, PushdownGroupsAsTheRowsDo) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string t = unique("types");
  db.exec("CREATE TABLE " + q(t) +
          " (i integer, n numeric(8,2), d date, f boolean, c char(3), s text, v varchar(9), r double precision)");
  db.exec("INSERT INTO " + q(t) +
          " SELECT CASE WHEN g % 7 = 0 THEN NULL ELSE g % 5 END, (g % 3) / 2.0, DATE '2024-02-29' + g % 4, g % 2 = 0, "
          "CASE WHEN g % 6 = 0 THEN 'a' ELSE 'a b' END, CASE g % 5 WHEN 0 THEN NULL WHEN 1 THEN '' ELSE 'x\"' || g % 3 "
          "END, 'v' || g % 2, g % 3 * 0.1 FROM generate_series(1, 3000) AS g");
  PostgresTable src;
  src.connection = conninfo();
  src.query = "SELECT * FROM " + q(t) + " ORDER BY md5(i::text || n::text || d::text || r::text), f, c, s, v";
  const deid::Dataset rows = deid::read_postgres(src);
  deid::PostgresPushdown pd(src);
  ASSERT_EQ(pd.columns().size(), 8u);
  // Every column grouped except r, which is copied.
  std::vector<bool> grouped(8, true), copied(8, false);
  grouped[7] = false;
  copied[7] = true;
  const deid::Dataset g = pd.read(grouped, copied);
  ASSERT_TRUE(g.grouped());
  EXPECT_EQ(g.records(), 3000u);
  EXPECT_LT(g.rows, 400u);
  for (std::size_t c = 0; c < 7; ++c) {
    ASSERT_EQ(g.columns[c].name, rows.columns[c].name);
    ASSERT_EQ(g.columns[c].dictionary.size(), rows.columns[c].dictionary.size()) << g.columns[c].name;
    for (std::uint32_t v = 0; v < g.columns[c].dictionary.size(); ++v)
      EXPECT_EQ(g.columns[c].dictionary.value(v), rows.columns[c].dictionary.value(v)) << g.columns[c].name;
  }
  EXPECT_EQ(g.columns[7].dictionary.size(), 0u);  // no formula-like value
  EXPECT_TRUE(g.columns[7].codes.empty());
  const std::vector<int> qis = {0, 1, 2, 3, 4}, sensitive = {5, 6};
  deid::testing::expect_same_histogram(deid::build_histogram(rows, qis, sensitive),
                                       deid::build_histogram(g, qis, sensitive));
}

// A table (not a query) is grouped by its rows' positions (in parallel on
// large tables): the same dictionaries and histogram as COPY of the table
// gives, after updates moved rows around, and without the rows of a table
// that inherits from it (COPY reads the table ONLY).
TEST(Postgres, PushdownOfATableReadsWhatCopyReads) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string t = unique("heap"), child = unique("child");
  db.exec("CREATE TABLE " + q(t) + " (a integer, b text, c text)");
  db.exec("INSERT INTO " + q(t) + " SELECT g % 13, 'b' || g % 7, 'c' || g % 5 FROM generate_series(1, 20000) AS g");
  db.exec("UPDATE " + q(t) + " SET b = 'moved' WHERE a = 3");  // new row versions at the end of the table
  db.exec("DELETE FROM " + q(t) + " WHERE a = 5 AND b = 'b1'");
  db.exec("CREATE TABLE " + q(child) + " () INHERITS (" + q(t) + ")");
  db.exec("INSERT INTO " + q(child) + " VALUES (99, 'only in the child', 'x')");
  PostgresTable src;
  src.connection = conninfo();
  src.table = t;
  const deid::Dataset rows = deid::read_postgres(src);
  deid::PostgresPushdown pd(src);
  deid::Dataset g = pd.read({true, true, true}, {false, false, false});
  ASSERT_TRUE(g.grouped());
  EXPECT_EQ(g.records(), rows.rows);
  for (std::size_t c = 0; c < 3; ++c) {
    ASSERT_EQ(g.columns[c].dictionary.size(), rows.columns[c].dictionary.size()) << c;
    for (std::uint32_t v = 0; v < g.columns[c].dictionary.size(); ++v)
      EXPECT_EQ(g.columns[c].dictionary.value(v), rows.columns[c].dictionary.value(v)) << c;
  }
  EXPECT_EQ(rows.columns[0].dictionary.find("99"), -1);
  const deid::Histogram want = deid::build_histogram(rows, {0, 1, 2});
  deid::testing::expect_same_histogram(want, deid::build_histogram(g, {0, 1, 2}));
  // As prepare takes it: the grouped rows, row for entry.
  const std::optional<deid::Histogram> taken = deid::take_grouped_histogram(g, {0, 1, 2});
  ASSERT_TRUE(taken.has_value());
  deid::testing::expect_same_histogram(want, *taken);
}

deid::Job adult_job(const std::string& in, const std::string& out, PostgresTable::Mode mode);

// Rows added to and deleted from the input while deid searches are not
// in the release: the histogram and the release see one snapshot, so the
// released table has exactly the records the search protected.
TEST(Postgres, PushdownWritesTheRowsItGrouped) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("out");
  load_adult(db, in);
  deid::Job job = adult_job(in, out, PostgresTable::Mode::create);
  ASSERT_TRUE(deid::uses_pushdown(job));
  deid::RunOptions options;
  bool changed = false;
  options.phase = [&](deid::Phase p) {
    if (p != deid::Phase::search || changed) return;
    Db other;
    // A unique record, which k = 5 would have to suppress, and 100 fewer records.
    other.exec("INSERT INTO " + q(in) + " SELECT 0, 'Female', 17, 'Other', 'Widowed', 'Doctorate', 'Vietnam', "
               "'Without-pay', 'Armed-Forces', '>50K' FROM generate_series(1, 3)");
    other.exec("DELETE FROM " + q(in) + " WHERE line <= 100");
    changed = true;
  };
  const deid::Anonymization a = deid::anonymize(job, options);
  ASSERT_TRUE(changed);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.result["records"], 30162);
  EXPECT_EQ(db.value("SELECT count(*) FROM " + q(out)), "30162");
  EXPECT_EQ(db.value("SELECT count(*) FROM " + q(out) + " WHERE education = 'Doctorate' AND sex = 'Female' AND "
                     "\"native-country\" = 'Vietnam'"),
            "0");
}

// Formula-like values of copied columns are found by the server and
// decided by deid: the warnings and, with escape-formulas, the escaped
// cells are those of the streamed run.
TEST(Postgres, PushdownEscapesFormulasAsTheStreamDoes) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("formulas");
  db.exec("CREATE TABLE " + q(in) + " (line integer, zip text, note text, amount text)");
  std::string data;
  const std::vector<std::string> notes = {"=cmd()", "-5", "+1e999", "@x", "-", "", "plain", "+1.5e3", "-.5", "=1+2"};
  for (int i = 0; i < 200; ++i) {
    data += fmt::format("{},{},\"{}\",", i, 1000 + i % 2, notes[static_cast<std::size_t>(i) % notes.size()]);
    data += i % 3 ? fmt::format("-{}\n", i) : std::string("=SUM(A1)\n");
  }
  db.copy_in("COPY " + q(in) + " FROM STDIN (FORMAT csv)", data);
  const fs::path dir = temp("formula");
  fs::create_directories(dir);
  std::ofstream(dir / "zip.csv") << "1000;100*;*\n1001;100*;*\n";
  for (const bool escape : {false, true}) {
    std::vector<std::vector<std::string>> tables;
    std::vector<nlohmann::json> results;
    for (const bool pushdown : {false, true}) {
      const std::string out = unique(escape ? (pushdown ? "out_ep" : "out_e") : (pushdown ? "out_p" : "out"));
      const std::string text = "input:\n  postgres:\n    connection: \"" + conninfo() + "\"\n    query: 'SELECT zip, "
                               "note, amount FROM " + q(in) + " ORDER BY line'\n    pushdown: " +
                               (pushdown ? "true" : "false") +
                               "\nattributes:\n  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
                               "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: 5}\noutput:\n  postgres: "
                               "{table: " + out + "}\n  escape-formulas: " + (escape ? "true" : "false") + "\n";
      const deid::Job job = deid::parse_job(text, "formula.yaml", dir.string());
      ASSERT_EQ(deid::uses_pushdown(job), pushdown);
      const deid::Anonymization a = deid::anonymize(job);
      ASSERT_TRUE(a.found);
      tables.push_back(table_rows(db, q(out)));
      results.push_back(comparable(a.result));
    }
    EXPECT_EQ(tables[0], tables[1]) << "escape " << escape;
    EXPECT_EQ(results[0].dump(2), results[1].dump(2)) << "escape " << escape;
    EXPECT_EQ(results[1]["warnings"].size(), escape ? 0u : 2u) << results[1]["warnings"].dump();
    if (escape) {
      EXPECT_NE(std::find(tables[1].begin(), tables[1].end(), "1000\x1f'=cmd()\x1f'=SUM(A1)"), tables[1].end());
    }
  }
  fs::remove_all(dir);
}

// deid suppress reads a table and writes its release (computed row by row)
// to a table: the rows of the run from the CSV file to a file, and the same
// result.
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

deid::Job adult_job(const std::string& in, const std::string& out, PostgresTable::Mode mode) {
  deid::Job job = on_tables(deid::read_job(deid::testing::example_path("adult.yaml")), adult_query(in), out);
  job.output.result.clear();
  job.output.report.clear();
  job.output.postgres->mode = mode;
  return job;
}

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
