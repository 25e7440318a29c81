// Executes the statements of the PostgreSQL dialect with libpq
// (docs/databases.md): connections, COPY out into the encoder, COPY in
// from the released table, one transaction per write.
#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <streambuf>

#include "db/dialect.h"
#include "deid/database.h"

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

const db::PostgresDialect kDialect;

using ResultPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

// One connection, closed (and any open transaction rolled back by the
// server) when destroyed.
class Connection {
 public:
  explicit Connection(const std::string& connection) : connection_(connection) {
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
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  [[noreturn]] void fail(const std::string& role, const std::string& message) const {
    throw DatabaseError(connection_label(connection_), role, clean_message(message, connection_));
  }
  [[noreturn]] void fail(const std::string& role) const { fail(role, PQerrorMessage(get())); }

  // Runs `sql` with text parameters; throws DatabaseError naming `role`
  // unless the result has status `expect`.
  ResultPtr exec(const std::string& sql, const std::string& role, const std::vector<std::string>& params = {},
                 ExecStatusType expect = PGRES_COMMAND_OK) {
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

  // After a COPY: the statement's final result must be success.
  void finish_copy(const std::string& role) {
    ResultPtr r(PQgetResult(get()), &PQclear);
    if (!r) fail(role);
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) fail(role, PQresultErrorMessage(r.get()));
    while (PGresult* more = PQgetResult(get())) PQclear(more);
  }

  bool table_exists(const PostgresTable& t, const std::string& role) {
    ResultPtr r = exec(kDialect.table_exists(), role, {kDialect.table_name(t)}, PGRES_TUPLES_OK);
    return PQntuples(r.get()) == 1 && std::strcmp(PQgetvalue(r.get(), 0, 0), "t") == 0;
  }

  PGconn* get() const { return conn_.get(); }
  const std::string& connection() const { return connection_; }

 private:
  std::string connection_;
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_{nullptr, &PQfinish};
};

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
  return fmt::format("postgresql table {} ({})", kDialect.table_name(t), redact_connection(t.connection));
}

void check_databases(const Job& job) {
  if (job.input.postgres) {
    Connection c(job.input.postgres->connection);
    const PostgresTable& in = *job.input.postgres;
    if (!in.table.empty() && !c.table_exists(in, "look up the input table"))
      c.fail("read the input table", fmt::format("table {} does not exist", kDialect.table_name(in)));
  }
  if (job.output.postgres) {
    const PostgresTable& out = *job.output.postgres;
    Connection c(out.connection);
    const bool exists = c.table_exists(out, "look up the output table");
    if (out.mode == PostgresTable::Mode::create && exists)
      c.fail("create the output table", fmt::format("table {} exists already (mode create); choose mode replace or "
                                                     "append, or another name",
                                                     kDialect.table_name(out)));
    if (out.mode == PostgresTable::Mode::append && !exists)
      c.fail("append to the output table",
             fmt::format("table {} does not exist (mode append); choose mode create", kDialect.table_name(out)));
  }
}

Dataset read_postgres(const PostgresTable& source) {
  Connection c(source.connection);
  const std::string role = source.query.empty() ? "read the input table" : "read the input query";
  c.exec(kDialect.read_input(source), role, {}, PGRES_COPY_OUT);
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
    ds = read_dataset_stream(read, describe(source), CsvOptions{','});
  } catch (...) {
    if (row) PQfreemem(row);
    throw;
  }
  if (row) PQfreemem(row);
  ds.sha256 = sha.hex();
  ds.bytes = bytes;
  return ds;
}

// --- PostgresTableWriter -----------------------------------------------------

namespace {

// Sends what is written to it as COPY data, 1 MiB at a time, hashing it.
class CopyBuffer final : public std::streambuf {
 public:
  CopyBuffer(Connection& c, std::string role) : c_(c), role_(std::move(role)), buf_(std::size_t{1} << 20) {
    setp(buf_.data(), buf_.data() + buf_.size());
  }
  void send() {
    const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
    if (n > 0) {
      sha_.update(std::string_view(pbase(), n));
      bytes_ += n;
      if (PQputCopyData(c_.get(), pbase(), static_cast<int>(n)) != 1) c_.fail(role_);
    }
    setp(buf_.data(), buf_.data() + buf_.size());
  }
  std::string digest() { return sha_.hex(); }
  std::uint64_t bytes() const { return bytes_; }

 protected:
  int_type overflow(int_type ch) override {
    send();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override {
    send();
    return 0;
  }

 private:
  Connection& c_;
  std::string role_;
  std::vector<char> buf_;
  Sha256 sha_;
  std::uint64_t bytes_ = 0;
};

}  // namespace

struct PostgresTableWriter::State {
  PostgresTable target;
  Connection conn;
  std::string role;
  std::unique_ptr<CopyBuffer> buffer;
  std::unique_ptr<std::ostream> stream;
  bool finished = false;

  State(const PostgresTable& t) : target(t), conn(t.connection) {}
};

PostgresTableWriter::PostgresTableWriter(const PostgresTable& target, const std::vector<std::string>& columns,
                                         char delimiter)
    : state_(std::make_unique<State>(target)) {
  State& s = *state_;
  s.conn.exec(kDialect.begin(), "begin the output's transaction");
  switch (target.mode) {
    case PostgresTable::Mode::replace:
      s.conn.exec(kDialect.drop_table(target), "drop the output table (mode replace)");
      [[fallthrough]];
    case PostgresTable::Mode::create:
      s.conn.exec(kDialect.create_table(target, columns), "create the output table");
      break;
    case PostgresTable::Mode::append: break;
  }
  s.role = "write the output table";
  s.conn.exec(kDialect.write_rows(target, columns, delimiter), s.role, {}, PGRES_COPY_IN);
  s.buffer = std::make_unique<CopyBuffer>(s.conn, s.role);
  s.stream = std::make_unique<std::ostream>(s.buffer.get());
  // An error of the server leaves the stream by the exception thrown in
  // the buffer (badbit is set and the exception rethrown).
  s.stream->exceptions(std::ios::badbit);
}

PostgresTableWriter::~PostgresTableWriter() = default;  // the connection closes: the server rolls back

std::ostream& PostgresTableWriter::stream() { return *state_->stream; }

FileDigest PostgresTableWriter::finish(const std::string& digest_role) {
  State& s = *state_;
  s.stream->flush();
  s.buffer->send();
  if (PQputCopyEnd(s.conn.get(), nullptr) != 1) s.conn.fail(s.role);
  s.conn.finish_copy(s.role);
  s.finished = true;
  return {digest_role, describe(s.target), s.buffer->digest(), s.buffer->bytes()};
}

void PostgresTableWriter::commit() {
  State& s = *state_;
  if (!s.finished) s.conn.fail("commit the output table", "the table was not finished");
  s.conn.exec(kDialect.commit(), "commit the output table");
}

}  // namespace deid
