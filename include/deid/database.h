// Tables in a PostgreSQL database as a job's input and output
// (docs/databases.md): the input read with COPY ... TO STDOUT straight into
// the encoder, the released table written with COPY ... FROM STDIN in one
// transaction. The SQL itself is generated in one dialect module
// (src/db/postgres_dialect.h); this is what the pipeline uses.
//
// Safety: every identifier is quoted by quote_ident's rules, and a
// connection's password never appears in a message, a result or a report
// (describe() and every error name the connection redacted).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/output.h"

namespace deid {

// The database refused a connection or a statement. Exit code 2, like
// every InputError. The message names the connection (redacted), what the
// statement was for (its role: "read the input table", "create the output
// table", ...) and the server's own message.
class DatabaseError : public InputError {
 public:
  DatabaseError(const std::string& connection, const std::string& role, const std::string& server_message);
  const std::string& role() const { return role_; }
  const std::string& server_message() const { return server_message_; }

 private:
  std::string role_, server_message_;
};

// `name` as a PostgreSQL identifier, by quote_ident's rules: always in
// double quotes, a double quote doubled. (Always quoted, so that capitals
// are kept and keywords are names.) Throws JobError for a NUL byte.
std::string quote_ident(std::string_view name);
// `value` as a string literal: in single quotes, a single quote doubled,
// prefixed by E only when it holds a backslash (whose meaning then is
// fixed: doubled). Throws JobError for a NUL byte.
std::string quote_literal(std::string_view value);

// The connection string (libpq conninfo or URI) without its password, as
// messages show it: "host=/run/x dbname=health user=ana" (libpq's keywords
// in libpq's order, only those given). "the default connection (PG*
// environment variables)" when empty; "a connection string that libpq
// cannot parse" when it cannot be parsed (the text itself is never shown:
// it may hold a password).
std::string redact_connection(const std::string& connection);

// What messages, results and reports call `t`:
//   postgresql table "public"."adult" (host=... dbname=...)
//   postgresql query (host=...)
std::string describe(const PostgresTable& t);

// Before any work: connects to the input's and the output's servers and
// checks that the output can be written (mode create: the table does not
// exist; append: it does). Throws DatabaseError (an unreachable server, a
// refused login, the table's state).
void check_databases(const Job& job);

// Reads the input table (or query) into a Dataset, exactly as read_dataset
// would read the CSV that `COPY ... TO STDOUT (FORMAT csv, HEADER)` writes
// with the session settings of docs/databases.md (DateStyle ISO, UTC, ...):
// NULL and the empty string are both the empty value. `sha256` and `bytes`
// are those of that CSV text. Throws DatabaseError, or InputError for a
// result without rows or with duplicate or empty column names.
Dataset read_postgres(const PostgresTable& source);

// The CSV text of a table (or query) exactly as read_postgres() receives
// it, for a reader of its own: `deid verify` parses the input and the
// released table with the verifier's reader (docs/verify.md). `role` is
// what the read is for, in messages ("read the released table"). The whole
// text is returned in memory. Throws DatabaseError.
std::string read_postgres_text(const PostgresTable& source, const std::string& role);

// Pushdown (docs/databases.md, "Pushdown"): the input grouped where it
// lives and the release written there, so that rows never pass through
// deid. One connection to the input's server holds one REPEATABLE READ
// transaction from the histogram's query to the release's INSERT, so both
// see the same rows whatever other sessions change meanwhile. The
// destructor (an exception, no solution) rolls back.
class PostgresPushdown {
 public:
  // Connects, begins the transaction and reads the input's column names.
  // Throws DatabaseError.
  explicit PostgresPushdown(const PostgresTable& source);
  ~PostgresPushdown();
  PostgresPushdown(const PostgresPushdown&) = delete;
  PostgresPushdown& operator=(const PostgresPushdown&) = delete;

  // The input's column names, in order.
  const std::vector<std::string>& columns() const;

  // The input as a grouped Dataset (Dataset::weights): one row per distinct
  // combination of the `grouped` columns' values (per column of columns()),
  // in order of each combination's first row in the scan, so that codes
  // and histogram entries are numbered as read_postgres() would number
  // them. The other columns have a name only; of those flagged `copied`,
  // the dictionary holds the values looks_like_formula (output.h) accepts,
  // in order of first appearance. `sha256` and `bytes` are those of the
  // grouped CSV text received.
  Dataset read(const std::vector<bool>& grouped, const std::vector<bool>& copied);

  // What the database computes for the released table.
  struct Release {
    struct Map {  // one per generalized column: its values and what each becomes
      std::vector<std::string> values, labels;  // label: already escaped when it must be
      std::vector<std::uint32_t> codes;         // the value's generalized code (its class key part)
    };
    struct Column {
      std::size_t source = 0;           // index into columns()
      int generalized = -1;             // index into maps, or -1: copied
      std::vector<std::string> escape;  // copied: values written with a leading '
    };
    std::vector<Column> columns;          // of the released table, in order
    std::vector<Map> maps;
    std::vector<std::uint32_t> suppressed;  // maps.size() codes per suppressed class
    std::uint64_t records = 0;              // rows the input has (and the release must have)
  };
  // Writes the release into `target` (on the input's connection) in the
  // transaction: creates (create, replace: after dropping) the table with
  // a text column per released column, or appends (values cast to the
  // existing columns' types), by one INSERT ... SELECT. Throws
  // DatabaseError, also when the INSERT's row count is not
  // `release.records`. Returns the digest (path describe(target), rows).
  FileDigest write(const PostgresTable& target, const std::vector<std::string>& names, const Release& release,
                   const std::string& digest_role);
  // Commits the transaction. REQUIRES: write() returned.
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The released table, written to the database in one transaction:
// connects, begins, creates (create, replace: after dropping it) the table
// with a text column per released column, and streams stream() into it
// with COPY ... FROM STDIN. finish() ends the COPY, commit() commits; the
// destructor (an exception, an early return) rolls everything back, so the
// table appears whole or not at all.
class PostgresTableWriter {
 public:
  // `columns`: the released table's header; `delimiter`: of the CSV written
  // to stream().
  PostgresTableWriter(const PostgresTable& target, const std::vector<std::string>& columns, char delimiter);
  ~PostgresTableWriter();
  PostgresTableWriter(const PostgresTableWriter&) = delete;
  PostgresTableWriter& operator=(const PostgresTableWriter&) = delete;

  // The released table as CSV with a header row (write_output's format).
  // An error of the server is thrown from the write that meets it.
  std::ostream& stream();
  // Ends the COPY; returns the digest of the CSV sent (path: describe()).
  FileDigest finish(const std::string& digest_role);
  // Commits the transaction. REQUIRES: finish() returned.
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace deid
