// The SQL deid sends to a database, in one place per SQL engine
// (docs/databases.md, "Dialects"). src/db/postgres.cc executes these
// statements with libpq; another engine is another Dialect (and an
// executor for its client library). Every identifier a statement holds is
// quoted by the dialect; values travel as parameters ($1), never in the text.
#pragma once

#include <string>
#include <vector>

#include "deid/job.h"

namespace deid::db {

class Dialect {
 public:
  virtual ~Dialect() = default;
  // Fixes how values are rendered as text, so that a table reads the same
  // on any server configuration: encoding, dates, intervals, time zone,
  // floating-point digits.
  virtual std::string session_settings() const = 0;
  // The table's name, schema-qualified when the job names a schema.
  virtual std::string table_name(const PostgresTable& t) const = 0;
  // Streams the input (table or query) as CSV with a header row, ','
  // delimited, NULL as an empty unquoted field.
  virtual std::string read_input(const PostgresTable& source) const = 0;
  // One parameter ($1: the quoted, qualified name); one row, one boolean.
  virtual std::string table_exists() const = 0;
  virtual std::string begin() const = 0;
  virtual std::string commit() const = 0;
  virtual std::string drop_table(const PostgresTable& t) const = 0;
  // A table with a text column per name.
  virtual std::string create_table(const PostgresTable& t, const std::vector<std::string>& columns) const = 0;
  // Receives CSV with a header row and `delimiter` into `columns` of `t`;
  // an empty unquoted field is NULL.
  virtual std::string write_rows(const PostgresTable& t, const std::vector<std::string>& columns,
                                 char delimiter) const = 0;
};

// PostgreSQL 15 (and later).
class PostgresDialect final : public Dialect {
 public:
  std::string session_settings() const override;
  std::string table_name(const PostgresTable& t) const override;
  std::string read_input(const PostgresTable& source) const override;
  std::string table_exists() const override;
  std::string begin() const override;
  std::string commit() const override;
  std::string drop_table(const PostgresTable& t) const override;
  std::string create_table(const PostgresTable& t, const std::vector<std::string>& columns) const override;
  std::string write_rows(const PostgresTable& t, const std::vector<std::string>& columns,
                         char delimiter) const override;
};

}  // namespace deid::db
