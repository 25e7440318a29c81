// The fixture of the PostgreSQL tests (docs/databases.md, "Tests"): the
// cluster started by tests/postgres/cluster.sh (a ctest fixture) and found
// through the file DEID_PG_STATE names, a connection to it, tables of each
// test's own (named after the test and the process, so tests may run in
// parallel), adult loaded into them. Shared by tests/postgres/*_test.cc.
#pragma once

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

namespace pg_test {

namespace fs = std::filesystem;
using deid::PostgresTable;

// The socket directory of the test cluster; skips the test when the
// cluster script was told to skip (DEID_SKIP_POSTGRES_TESTS=1), fails it
// when there is no cluster.
inline std::string cluster_dir() {
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

inline std::string conninfo(const std::string& dbname = "postgres") {
  return "host=" + cluster_dir() + " port=5432 user=deid dbname=" + dbname;
}

// A unique name per test and process.
inline std::string unique(const std::string& base) {
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

inline std::string q(const std::string& name) { return deid::quote_ident(name); }

// The rows of a CSV text (header first, then the data rows sorted: a table
// has no row order), fields joined by a unit separator.
inline std::vector<std::string> rows_of(const std::string& text, char delimiter) {
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

inline std::vector<std::string> table_rows(Db& db, const std::string& qualified) {
  return rows_of(db.copy_out("COPY " + qualified + " TO STDOUT (FORMAT csv, HEADER true)"), ',');
}

// examples/adult/adult.csv as table `name` with a column `line` (the
// record's number in the file) and `age` an integer.
inline void load_adult(Db& db, const std::string& name) {
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

inline const char* const kAdultColumns =
    "sex, age, race, \"marital-status\", education, \"native-country\", workclass, occupation, \"salary-class\"";

// A new, empty database of this test (for objects whose names are fixed,
// or that act on every table of their database).
inline std::string fresh_database(const std::string& base) {
  const std::string name = unique(base);
  Db admin;
  admin.exec("DROP DATABASE IF EXISTS " + q(name));
  admin.exec("CREATE DATABASE " + q(name));
  return name;
}

inline fs::path temp(const std::string& name) { return fs::path(::testing::TempDir()) / unique(name); }

// The result without what differs between any two runs (times, memory)
// and between a file and a table (the inputs' and outputs' names and
// digests, and the utility analysis, which pushdown skips: checked apart).
inline nlohmann::json comparable(nlohmann::json r) {
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
inline deid::Job on_tables(deid::Job job, const std::string& query, const std::string& out) {
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
inline std::string adult_query(const std::string& in) {
  return std::string("SELECT ") + kAdultColumns + " FROM " + q(in) + " ORDER BY line";
}

// The job of examples/adult.yaml from the adult table `in` to the table
// `out`, written with `mode`, no result or report.
inline deid::Job adult_job(const std::string& in, const std::string& out, PostgresTable::Mode mode) {
  deid::Job job = on_tables(deid::read_job(deid::testing::example_path("adult.yaml")), adult_query(in), out);
  job.output.result.clear();
  job.output.report.clear();
  job.output.postgres->mode = mode;
  return job;
}

}  // namespace pg_test
