// The SQL deid sends to a database, in one place per SQL engine
// (docs/databases.md, "Dialects"). The rest of src/db/ executes these
// statements with libpq; another engine is another Dialect (and an
// executor for its client library). Every identifier a statement holds is
// quoted by the dialect; values travel as parameters ($1), never in the text.
#pragma once

#include <string>
#include <vector>

#include "deid/job.h"

namespace deid::db {

// A column of the input (table or query).
struct SourceColumn {
  std::string name;
  bool text = false;  // of a text type whose value is its own text (text, varchar)
};

// A column of the released table, as the database computes it.
struct ReleasedColumn {
  std::size_t source = 0;  // index into the input's columns
  int generalized = -1;    // ≥ 0: through map_table(generalized); -1: copied
  bool escape = false;     // copied: values listed in escape_table(source) get a leading '
  std::string cast;        // empty: text; else the target column's type (mode append)
};

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
  // --- Pushdown (docs/databases.md, "Pushdown") --------------------------------
  // The histogram and the release are computed in the database, in one
  // transaction whose snapshot both see.
  virtual std::string begin_snapshot() const = 0;
  // Statement-local settings of the pushdown's reads (row numbers in scan
  // order need a scan that is not split across workers).
  virtual std::string pushdown_settings() const = 0;
  // Settings of the release's INSERT: hash joins (the maps are small, the
  // input large; a merge join sorted the input on the suppressed classes'
  // codes), and the parallel scans the histogram's row numbers turned off
  // allowed again.
  virtual std::string release_settings() const = 0;
  // The input's columns, without rows.
  virtual std::string describe_input(const PostgresTable& source) const = 0;
  // One parameter ($1: the quoted, qualified name); one row: the kind of
  // relation ('r' a table, 'm' a materialized view: heap tables whose rows
  // have a position; 'v', 'p', 'f', ...: others), none when not found.
  virtual std::string relation_kind() const = 0;
  // Streams, as CSV with a header row, one row per distinct combination of
  // the `grouped` columns' values (each a value_text()) with its count as
  // the last field, in order of each combination's first row in the scan.
  // `heap`: the input is a heap table (relation_kind), read ONLY (as COPY
  // reads it), whose rows' positions order the scan in parallel too;
  // otherwise rows are numbered in an unsplit scan (pushdown_settings()).
  virtual std::string group_input(const PostgresTable& source, const std::vector<SourceColumn>& columns,
                                  const std::vector<std::size_t>& grouped, bool heap) const = 0;
  // Rows (i, v): the distinct values v of column copied[i] that start
  // with =, +, - or @ and are not plainly a number, by i and then in order
  // of first appearance (the candidates for formula escaping).
  virtual std::string formula_candidates(const PostgresTable& source, const std::vector<SourceColumn>& columns,
                                         const std::vector<std::size_t>& copied, bool heap) const = 0;
  // The target's columns with their types: one parameter ($1: the quoted,
  // qualified name), rows (name, type).
  virtual std::string column_types() const = 0;
  // Temporary tables of the release, dropped at commit: a map per
  // generalized column (original value text → class code, released label),
  // the suppressed classes (one code per generalized column), and a list
  // per escaped column (values to prefix with ').
  virtual std::string map_table(std::size_t g) const = 0;
  virtual std::string suppressed_table() const = 0;
  virtual std::string escape_table(std::size_t c) const = 0;
  virtual std::string create_map(std::size_t g) const = 0;
  virtual std::string create_suppressed(std::size_t generalized) const = 0;
  virtual std::string create_escape(std::size_t c) const = 0;
  // Receives CSV rows (every field quoted) into a temporary table.
  virtual std::string load_temporary(const std::string& table) const = 0;
  virtual std::string analyze(const std::vector<std::string>& tables) const = 0;
  // Inserts the release: one row per input row, `released` in order.
  virtual std::string insert_release(const PostgresTable& target, const std::vector<std::string>& target_columns,
                                     const PostgresTable& source, const std::vector<SourceColumn>& columns,
                                     const std::vector<ReleasedColumn>& released, std::size_t generalized,
                                     bool any_suppressed, bool heap) const = 0;

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
  std::string begin_snapshot() const override;
  std::string pushdown_settings() const override;
  std::string release_settings() const override;
  std::string describe_input(const PostgresTable& source) const override;
  std::string relation_kind() const override;
  std::string group_input(const PostgresTable& source, const std::vector<SourceColumn>& columns,
                          const std::vector<std::size_t>& grouped, bool heap) const override;
  std::string formula_candidates(const PostgresTable& source, const std::vector<SourceColumn>& columns,
                                 const std::vector<std::size_t>& copied, bool heap) const override;
  std::string column_types() const override;
  std::string map_table(std::size_t g) const override;
  std::string suppressed_table() const override;
  std::string escape_table(std::size_t c) const override;
  std::string create_map(std::size_t g) const override;
  std::string create_suppressed(std::size_t generalized) const override;
  std::string create_escape(std::size_t c) const override;
  std::string load_temporary(const std::string& table) const override;
  std::string analyze(const std::vector<std::string>& tables) const override;
  std::string insert_release(const PostgresTable& target, const std::vector<std::string>& target_columns,
                             const PostgresTable& source, const std::vector<SourceColumn>& columns,
                             const std::vector<ReleasedColumn>& released, std::size_t generalized,
                             bool any_suppressed, bool heap) const override;
};

}  // namespace deid::db
