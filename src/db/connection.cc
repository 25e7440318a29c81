#include "db/connection.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "deid/digest.h"

namespace deid {

namespace {

// Messages say "postgresql (...)" followed by the redacted connection.
std::string connection_label(const std::string& connection) {
  return fmt::format("postgresql ({})", redact_connection(connection));
}

// The passwords a message must never show: the connection's own and the
// PGPASSWORD environment variable's.
std::vector<std::string> secrets(const std::string& connection) {
  std::vector<std::string> out;
  if (const char* env = std::getenv("PGPASSWORD"); env && *env) out.emplace_back(env);
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(connection.c_str(), &err);
  if (err) PQfreemem(err);
  if (opts) {
    for (PQconninfoOption* o = opts; o->keyword; ++o)
      if (o->val && *o->val && (std::strcmp(o->keyword, "password") == 0 || std::strcmp(o->keyword, "sslpassword") == 0))
        out.emplace_back(o->val);
    PQconninfoFree(opts);
  }
  return out;
}

// A server or libpq message on one line, with any password masked.
std::string clean_message(std::string m, const std::string& connection) {
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  std::replace(m.begin(), m.end(), '\n', ' ');
  for (const std::string& s : secrets(connection)) {
    for (std::size_t at = m.find(s); at != std::string::npos; at = m.find(s, at + 8)) m.replace(at, s.size(), "********");
  }
  return m.empty() ? "no message from the server" : m;
}

// libpq's quoting of a conninfo value: in single quotes when it holds a
// space, a quote or a backslash (escaped) or is empty.
std::string conninfo_value(const std::string& v) {
  if (!v.empty() && v.find_first_of(" '\\") == std::string::npos) return v;
  std::string out = "'";
  for (const char c : v) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

}  // namespace

namespace db {

Connection::Connection(const std::string& connection) : connection_(connection) {
  const char* keys[] = {"dbname", "fallback_application_name", nullptr};
  const char* values[] = {connection.c_str(), "deid", nullptr};
  // Owned at once: a constructor that throws runs no destructor, but
  // its members' (libpq's PGconn is freed even when the connection failed).
  conn_.reset(PQconnectdbParams(keys, values, 1));
  if (!conn_) fail("connect", "out of memory");
  if (PQstatus(get()) != CONNECTION_OK) fail("connect", PQerrorMessage(get()));
  // The library never prints: libpq's default would print the server's
  // notices ("table ... does not exist, skipping") on standard error.
  PQsetNoticeProcessor(get(), [](void*, const char*) {}, nullptr);
  exec(kDialect.session_settings(), "set the session's formats");
}

void Connection::fail(const std::string& role, const std::string& message) const {
  throw DatabaseError(connection_label(connection_), role, clean_message(message, connection_));
}

ResultPtr Connection::exec(const std::string& sql, const std::string& role, const std::vector<std::string>& params,
                           ExecStatusType expect) {
  std::vector<const char*> p;
  for (const std::string& s : params) p.push_back(s.c_str());
  ResultPtr r(params.empty() ? PQexec(get(), sql.c_str())
                             : PQexecParams(get(), sql.c_str(), static_cast<int>(p.size()), nullptr, p.data(),
                                            nullptr, nullptr, 0),
              &PQclear);
  if (!r) fail(role);
  const ExecStatusType st = PQresultStatus(r.get());
  if (st != expect)
    fail(role, st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR ? PQresultErrorMessage(r.get())
                                                                     : fmt::format("unexpected {}", PQresStatus(st)));
  return r;
}

void Connection::finish_copy(const std::string& role) {
  ResultPtr r(PQgetResult(get()), &PQclear);
  if (!r) fail(role);
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) fail(role, PQresultErrorMessage(r.get()));
  while (PGresult* more = PQgetResult(get())) PQclear(more);
}

bool Connection::table_exists(const PostgresTable& t, const std::string& role) {
  ResultPtr r = exec(kDialect.table_exists(), role, {kDialect.table_name(t)}, PGRES_TUPLES_OK);
  return PQntuples(r.get()) == 1 && std::strcmp(PQgetvalue(r.get(), 0, 0), "t") == 0;
}

Dataset copy_out(Connection& c, const std::string& sql, const std::string& role, const std::string& name) {
  c.exec(sql, role, {}, PGRES_COPY_OUT);
  Sha256 sha;
  std::uint64_t bytes = 0;
  // A row at a time from libpq; what does not fit the reader's buffer
  // waits in `pending`.
  char* row = nullptr;
  std::size_t row_size = 0, row_at = 0;
  bool done = false;
  auto read = [&](char* dst, std::size_t n) -> std::size_t {
    std::size_t got = 0;
    while (got < n && !done) {
      if (row_at == row_size) {
        if (row) PQfreemem(row);
        row = nullptr;
        row_size = row_at = 0;
        const int len = PQgetCopyData(c.get(), &row, 0);
        if (len == -1) {
          done = true;
          c.finish_copy(role);
          break;
        }
        if (len < 0) c.fail(role);
        row_size = static_cast<std::size_t>(len);
        sha.update(std::string_view(row, row_size));
        bytes += row_size;
      }
      const std::size_t k = std::min(n - got, row_size - row_at);
      std::memcpy(dst + got, row + row_at, k);
      got += k;
      row_at += k;
    }
    return got;
  };
  Dataset ds;
  try {
    ds = read_dataset_stream(read, name, CsvOptions{','});
  } catch (...) {
    if (row) PQfreemem(row);
    throw;
  }
  if (row) PQfreemem(row);
  ds.sha256 = sha.hex();
  ds.bytes = bytes;
  return ds;
}

std::string input_role(const PostgresTable& source) {
  return source.query.empty() ? "read the input table" : "read the input query";
}

}  // namespace db

DatabaseError::DatabaseError(const std::string& connection, const std::string& role, const std::string& server_message)
    : InputError(Location{connection, 0, 0, {}}, fmt::format("cannot {}: {}", role, server_message)),
      role_(role),
      server_message_(server_message) {}

std::string redact_connection(const std::string& connection) {
  if (connection.empty()) return "the default connection: PG* environment variables";
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(connection.c_str(), &err);
  if (err) PQfreemem(err);
  if (!opts) return "a connection string that libpq cannot parse";
  std::string out;
  for (PQconninfoOption* o = opts; o->keyword; ++o) {
    if (!o->val || std::strcmp(o->keyword, "password") == 0 || std::strcmp(o->keyword, "sslpassword") == 0) continue;
    if (!out.empty()) out.push_back(' ');
    out += fmt::format("{}={}", o->keyword, conninfo_value(o->val));
  }
  PQconninfoFree(opts);
  return out.empty() ? "the default connection: PG* environment variables" : out;
}

std::string describe(const PostgresTable& t) {
  if (!t.query.empty()) return fmt::format("postgresql query ({})", redact_connection(t.connection));
  return fmt::format("postgresql table {} ({})", db::kDialect.table_name(t), redact_connection(t.connection));
}

}  // namespace deid
