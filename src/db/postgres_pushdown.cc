// The pushdown of docs/databases.md ("Pushdown"): the input grouped by the
// server into a grouped Dataset, and the release written by the server
// with one INSERT ... SELECT from the input joined with the maps and
// suppressed classes sent as temporary tables, in one REPEATABLE READ
// transaction.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "db/connection.h"
#include "deid/formulas.h"

namespace deid {

using db::Connection;
using db::copy_out;
using db::input_role;
using db::kDialect;
using db::ResultPtr;

namespace {

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

}  // namespace deid
