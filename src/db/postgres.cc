// Executes the statements of the PostgreSQL dialect with libpq
// (docs/databases.md): the job's tables checked before any work, the input
// read with COPY out into the encoder, the released table streamed with
// COPY in, one transaction per write. The connection is db/connection.h,
// the pushdown postgres_pushdown.cc.
#include <fmt/format.h>

#include <streambuf>

#include "db/connection.h"

namespace deid {

using db::Connection;
using db::kDialect;

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
  return db::copy_out(c, kDialect.read_input(source), db::input_role(source), describe(source));
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
