// One libpq connection and what every use of it shares (docs/databases.md):
// messages that name the connection with its passwords masked, statements
// whose failure throws DatabaseError, and the COPY of a table or query out
// into the CSV encoder. Internal to src/db/.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <vector>

#include "db/dialect.h"
#include "deid/database.h"
#include "deid/dataset.h"

namespace deid::db {

inline const PostgresDialect kDialect;

using ResultPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

// One connection, closed (and any open transaction rolled back by the
// server) when destroyed.
class Connection {
 public:
  explicit Connection(const std::string& connection);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  [[noreturn]] void fail(const std::string& role, const std::string& message) const;
  [[noreturn]] void fail(const std::string& role) const { fail(role, PQerrorMessage(get())); }

  // Runs `sql` with text parameters; throws DatabaseError naming `role`
  // unless the result has status `expect`.
  ResultPtr exec(const std::string& sql, const std::string& role, const std::vector<std::string>& params = {},
                 ExecStatusType expect = PGRES_COMMAND_OK);
  // After a COPY: the statement's final result must be success.
  void finish_copy(const std::string& role);
  bool table_exists(const PostgresTable& t, const std::string& role);

  PGconn* get() const { return conn_.get(); }
  const std::string& connection() const { return connection_; }

 private:
  std::string connection_;
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_{nullptr, &PQfinish};
};

// Runs a COPY ... TO STDOUT (FORMAT csv, HEADER) and encodes what it sends
// as read_dataset_stream does, block by block; `sha256` and `bytes` are
// those of the CSV text received.
Dataset copy_out(Connection& c, const std::string& sql, const std::string& role, const std::string& name);

// What messages call reading `source`: its table or its query.
std::string input_role(const PostgresTable& source);

}  // namespace deid::db
