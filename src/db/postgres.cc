// Executes the statements of the PostgreSQL dialect with libpq
// (docs/databases.md): connections, COPY out into the encoder, COPY in
// from the released table, one transaction per write.
#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <streambuf>

#include "db/dialect.h"
#include "deid/database.h"
#include "deid/formulas.h"

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

namespace {

// Runs a COPY ... TO STDOUT (FORMAT csv, HEADER) and encodes what it sends
// as read_dataset_stream does, block by block; `sha256` and `bytes` are
// those of the CSV text received.
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

// Sends `text` with COPY ... FROM STDIN, 1 MiB at a time.
void copy_in(Connection& c, const std::string& sql, const std::string& role, std::string_view text) {
  c.exec(sql, role, {}, PGRES_COPY_IN);
  for (std::size_t at = 0; at < text.size(); at += std::size_t{1} << 20) {
    const std::size_t n = std::min(text.size() - at, std::size_t{1} << 20);
    if (PQputCopyData(c.get(), text.data() + at, static_cast<int>(n)) != 1) c.fail(role);
  }
  if (PQputCopyEnd(c.get(), nullptr) != 1) c.fail(role);
  c.finish_copy(role);
}

// A CSV field that COPY reads back as exactly `v`: always quoted, so that
// the empty string stays a string (an unquoted empty field is NULL).
void append_quoted(std::string& out, std::string_view v) {
  out.push_back('"');
  for (const char ch : v) {
    if (ch == '"') out.push_back('"');
    out.push_back(ch);
  }
  out.push_back('"');
}

}  // namespace

Dataset read_postgres(const PostgresTable& source) {
  Connection c(source.connection);
  return copy_out(c, kDialect.read_input(source), input_role(source), describe(source));
}

std::string read_postgres_text(const PostgresTable& source, const std::string& role) {
  Connection c(source.connection);
  c.exec(kDialect.read_input(source), role, {}, PGRES_COPY_OUT);
  std::string text;
  for (;;) {
    char* row = nullptr;
    const int len = PQgetCopyData(c.get(), &row, 0);
    if (len == -1) break;
    if (len < 0) c.fail(role);
    text.append(row, static_cast<std::size_t>(len));
    PQfreemem(row);
  }
  c.finish_copy(role);
  return text;
}

// --- PostgresPushdown --------------------------------------------------------

struct PostgresPushdown::State {
  PostgresTable source;
  Connection conn;
  std::vector<db::SourceColumn> columns;
  std::vector<std::string> names;
  bool heap = false;  // a table with rows of its own (relation_kind 'r' or 'm')
  bool written = false;

  explicit State(const PostgresTable& s) : source(s), conn(s.connection) {}
};

PostgresPushdown::PostgresPushdown(const PostgresTable& source) : state_(std::make_unique<State>(source)) {
  State& s = *state_;
  const std::string role = input_role(source);
  s.conn.exec(kDialect.begin_snapshot(), "begin the pushdown's transaction");
  if (source.query.empty()) {
    ResultPtr k = s.conn.exec(kDialect.relation_kind(), "look up the input table", {kDialect.table_name(source)},
                              PGRES_TUPLES_OK);
    const std::string kind = PQntuples(k.get()) == 1 ? PQgetvalue(k.get(), 0, 0) : "";
    s.heap = kind == "r" || kind == "m";
  }
  if (!s.heap) s.conn.exec(kDialect.pushdown_settings(), "set the pushdown's settings");
  ResultPtr r = s.conn.exec(kDialect.describe_input(source), role, {}, PGRES_TUPLES_OK);
  for (int i = 0; i < PQnfields(r.get()); ++i) {
    const Oid type = PQftype(r.get(), i);
    // text and varchar: their value is their text (OIDs of pg_type.h).
    s.columns.push_back({PQfname(r.get(), i), type == 25 || type == 1043});
    s.names.push_back(s.columns.back().name);
  }
}

PostgresPushdown::~PostgresPushdown() = default;  // the connection closes: the server rolls back

const std::vector<std::string>& PostgresPushdown::columns() const { return state_->names; }

Dataset PostgresPushdown::read(const std::vector<bool>& grouped, const std::vector<bool>& copied) {
  State& s = *state_;
  const std::string role = input_role(s.source);
  std::vector<std::size_t> group, copy;
  for (std::size_t c = 0; c < s.columns.size(); ++c) {
    if (c < grouped.size() && grouped[c]) group.push_back(c);
    else if (c < copied.size() && copied[c]) copy.push_back(c);
  }
  if (group.empty()) {
    // Nothing to group: the names alone let prepare() say what the job
    // lacks (an attribute that is not a column, no quasi-identifier).
    Dataset d;
    d.source = describe(s.source);
    for (const db::SourceColumn& c : s.columns) d.columns.emplace_back().name = c.name;
    return d;
  }
  Dataset g = copy_out(s.conn, kDialect.group_input(s.source, s.columns, group, s.heap), role + " (grouped)",
                       describe(s.source));
  // The last column is each row's count.
  Column& counts = g.columns.back();
  std::vector<std::uint64_t> count_of(counts.dictionary.size());
  for (std::uint32_t v = 0; v < counts.dictionary.size(); ++v) {
    const std::string& text = counts.dictionary.value(v);
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count_of[v]);
    if (ec != std::errc() || end != text.data() + text.size() || count_of[v] == 0)
      s.conn.fail(role + " (grouped)", fmt::format("a count '{}' that is not a positive integer", text));
  }
  Dataset d;
  d.source = g.source;
  d.delimiter = ',';
  d.rows = g.rows;
  d.sha256 = g.sha256;
  d.bytes = g.bytes;
  d.weights.resize(g.rows);
  counts.codes.visit([&](auto codes) {
    for (std::uint64_t r = 0; r < g.rows; ++r) d.grouped_records += d.weights[r] = count_of[codes[r]];
  });
  d.columns.resize(s.columns.size());
  for (std::size_t c = 0; c < s.columns.size(); ++c) d.columns[c].name = s.columns[c].name;
  for (std::size_t i = 0; i < group.size(); ++i) {
    Column& col = d.columns[group[i]];
    col.dictionary = std::move(g.columns[i].dictionary);
    col.codes = std::move(g.columns[i].codes);
    col.first_line.clear();  // lines of the grouped text, not of the input
  }
  if (!copy.empty()) {
    ResultPtr r = s.conn.exec(kDialect.formula_candidates(s.source, s.columns, copy, s.heap), role + " (formula check)", {},
                              PGRES_TUPLES_OK);
    for (int row = 0; row < PQntuples(r.get()); ++row) {
      const std::size_t i = std::strtoul(PQgetvalue(r.get(), row, 0), nullptr, 10);
      const std::string_view v(PQgetvalue(r.get(), row, 1), static_cast<std::size_t>(PQgetlength(r.get(), row, 1)));
      if (i < copy.size() && looks_like_formula(v)) d.columns[copy[i]].dictionary.intern(v);
    }
  }
  return d;
}

FileDigest PostgresPushdown::write(const PostgresTable& target, const std::vector<std::string>& names,
                                   const Release& release, const std::string& digest_role) {
  State& s = *state_;
  Connection& c = s.conn;
  const std::string role = "write the output table";
  // The temporary tables first: the target is created (or dropped) only
  // when everything it is made from is in place.
  std::vector<std::string> temporary;
  std::string text;
  for (std::size_t g = 0; g < release.maps.size(); ++g) {
    const Release::Map& m = release.maps[g];
    c.exec(kDialect.create_map(g), "create a temporary table of the release");
    text.clear();
    for (std::size_t v = 0; v < m.values.size(); ++v) {
      append_quoted(text, m.values[v]);
      text += fmt::format(",{},", m.codes[v]);
      append_quoted(text, m.labels[v]);
      text.push_back('\n');
    }
    copy_in(c, kDialect.load_temporary(kDialect.map_table(g)), "load a temporary table of the release", text);
    temporary.push_back(kDialect.map_table(g));
  }
  const bool any_suppressed = !release.suppressed.empty();
  if (any_suppressed) {
    const std::size_t w = release.maps.size();
    c.exec(kDialect.create_suppressed(w), "create a temporary table of the release");
    text.clear();
    for (std::size_t i = 0; i < release.suppressed.size(); ++i)
      text += fmt::format("{}{}", release.suppressed[i], (i + 1) % w == 0 ? "\n" : ",");
    copy_in(c, kDialect.load_temporary(kDialect.suppressed_table()), "load a temporary table of the release", text);
    temporary.push_back(kDialect.suppressed_table());
  }
  std::vector<db::ReleasedColumn> released;
  for (const Release::Column& col : release.columns) {
    db::ReleasedColumn r;
    r.source = col.source;
    r.generalized = col.generalized;
    if (!col.escape.empty()) {
      r.escape = true;
      c.exec(kDialect.create_escape(col.source), "create a temporary table of the release");
      text.clear();
      for (const std::string& v : col.escape) {
        append_quoted(text, v);
        text.push_back('\n');
      }
      copy_in(c, kDialect.load_temporary(kDialect.escape_table(col.source)), "load a temporary table of the release",
              text);
      temporary.push_back(kDialect.escape_table(col.source));
    }
    released.push_back(std::move(r));
  }
  c.exec(kDialect.analyze(temporary), "analyze the temporary tables of the release");
  c.exec(kDialect.release_settings(), "set the release's settings");

  switch (target.mode) {
    case PostgresTable::Mode::replace:
      c.exec(kDialect.drop_table(target), "drop the output table (mode replace)");
      [[fallthrough]];
    case PostgresTable::Mode::create:
      c.exec(kDialect.create_table(target, names), "create the output table");
      break;
    case PostgresTable::Mode::append: {
      // COPY converts text with each column's input function; INSERT needs
      // the casts said.
      ResultPtr r = c.exec(kDialect.column_types(), "look up the output table's columns", {kDialect.table_name(target)},
                           PGRES_TUPLES_OK);
      for (std::size_t i = 0; i < released.size(); ++i) {
        bool found = false;
        for (int row = 0; row < PQntuples(r.get()); ++row) {
          if (names[i] != PQgetvalue(r.get(), row, 0)) continue;
          found = true;
          const std::string type = PQgetvalue(r.get(), row, 1);
          if (type != "text") released[i].cast = type;
        }
        if (!found)
          c.fail("append to the output table",
                 fmt::format("table {} has no column {}", kDialect.table_name(target), quote_ident(names[i])));
      }
      break;
    }
  }
  ResultPtr r = c.exec(kDialect.insert_release(target, names, s.source, s.columns, released, release.maps.size(),
                                               any_suppressed, s.heap),
                       role);
  const char* tuples = PQcmdTuples(r.get());
  const std::uint64_t rows = std::strtoull(tuples, nullptr, 10);
  if (rows != release.records)
    c.fail(role, fmt::format("the release has {} rows, the input {} records; nothing was written", rows,
                             release.records));
  s.written = true;
  FileDigest f{digest_role, describe(target), "", 0, "database", 0};

  f.rows = rows;
  return f;
}

void PostgresPushdown::commit() {
  State& s = *state_;
  if (!s.written) s.conn.fail("commit the output table", "the table was not written");
  s.conn.exec(kDialect.commit(), "commit the output table");
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
  return {digest_role, describe(s.target), s.buffer->digest(), s.buffer->bytes(), {}, 0};
}

void PostgresTableWriter::commit() {
  State& s = *state_;
  if (!s.finished) s.conn.fail("commit the output table", "the table was not finished");
  s.conn.exec(kDialect.commit(), "commit the output table");
}

}  // namespace deid
