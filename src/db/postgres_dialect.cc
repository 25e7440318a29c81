#include <fmt/format.h>

#include "db/dialect.h"
#include "deid/database.h"
#include "deid/error.h"

namespace deid {

std::string quote_ident(std::string_view name) {
  if (name.find('\0') != std::string_view::npos)
    throw JobError(Location{}, "a PostgreSQL name cannot contain a NUL byte");
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string quote_literal(std::string_view value) {
  if (value.find('\0') != std::string_view::npos)
    throw JobError(Location{}, "a PostgreSQL string cannot contain a NUL byte");
  std::string out;
  if (value.find('\\') != std::string_view::npos) out.push_back('E');
  out.push_back('\'');
  for (const char c : value) {
    if (c == '\'' || c == '\\') out.push_back(c);
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

namespace db {
namespace {

std::string column_list(const std::vector<std::string>& columns, const char* suffix) {
  std::string out;
  for (const std::string& c : columns) {
    if (!out.empty()) out += ", ";
    out += quote_ident(c);
    out += suffix;
  }
  return out;
}

// A query may end in a semicolon, as in psql; a subquery takes none.
std::string_view trimmed_query(const PostgresTable& s) {
  std::string_view q = s.query;
  while (!q.empty() && (q.back() == ';' || q.back() == ' ' || q.back() == '\n' || q.back() == '\t' || q.back() == '\r'))
    q.remove_suffix(1);
  return q;
}

// The input as a FROM item named src. A table with rows of its own (heap)
// is read ONLY, without the rows of tables that inherit from it, as COPY
// reads it.
std::string source_relation(const PostgresDialect& d, const PostgresTable& s, bool heap = false) {
  if (s.query.empty()) return (heap ? "ONLY " : "") + d.table_name(s) + " AS src";
  return fmt::format("({}) AS src", trimmed_query(s));
}

// Each row's position in the scan: its physical address in a heap table
// (ordered, and aggregated by parallel workers too), else its number in an
// unsplit scan.
const char* position(bool heap) { return heap ? "src.ctid" : "row_number() OVER ()"; }

// A column's value as the text COPY would send for it (its type's output
// function: format's %s), NULL as the empty string, compared byte for byte.
std::string value_text(const SourceColumn& c) {
  if (c.text) return fmt::format("COALESCE(src.{}::text, '') COLLATE \"C\"", quote_ident(c.name));
  return fmt::format("format('%s', src.{}) COLLATE \"C\"", quote_ident(c.name));
}

}  // namespace

std::string PostgresDialect::session_settings() const {
  return "SET client_encoding = 'UTF8'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; "
         "SET TimeZone = 'UTC'; SET extra_float_digits = 1; SET bytea_output = 'hex'; "
         "SET synchronize_seqscans = off";
}

std::string PostgresDialect::table_name(const PostgresTable& t) const {
  if (t.schema.empty()) return quote_ident(t.table);
  return fmt::format("{}.{}", quote_ident(t.schema), quote_ident(t.table));
}

std::string PostgresDialect::read_input(const PostgresTable& s) const {
  const std::string what = s.query.empty() ? table_name(s) : fmt::format("({})", trimmed_query(s));
  return fmt::format("COPY {} TO STDOUT (FORMAT csv, HEADER true)", what);
}

std::string PostgresDialect::table_exists() const { return "SELECT to_regclass($1) IS NOT NULL"; }
std::string PostgresDialect::begin() const { return "BEGIN"; }
std::string PostgresDialect::commit() const { return "COMMIT"; }

std::string PostgresDialect::drop_table(const PostgresTable& t) const {
  return fmt::format("DROP TABLE IF EXISTS {}", table_name(t));
}

std::string PostgresDialect::create_table(const PostgresTable& t, const std::vector<std::string>& columns) const {
  return fmt::format("CREATE TABLE {} ({})", table_name(t), column_list(columns, " text"));
}

std::string PostgresDialect::write_rows(const PostgresTable& t, const std::vector<std::string>& columns,
                                        char delimiter) const {
  return fmt::format("COPY {} ({}) FROM STDIN (FORMAT csv, HEADER true, DELIMITER {})", table_name(t),
                     column_list(columns, ""), quote_literal(std::string_view(&delimiter, 1)));
}

// --- Pushdown -------------------------------------------------------------------

std::string PostgresDialect::begin_snapshot() const { return "BEGIN ISOLATION LEVEL REPEATABLE READ"; }

std::string PostgresDialect::release_settings() const {
  return "RESET max_parallel_workers_per_gather; SET LOCAL enable_nestloop = off; SET LOCAL enable_mergejoin = off";
}

std::string PostgresDialect::pushdown_settings() const { return "SET LOCAL max_parallel_workers_per_gather = 0"; }

std::string PostgresDialect::describe_input(const PostgresTable& s) const {
  return fmt::format("SELECT * FROM {} LIMIT 0", source_relation(*this, s));
}

std::string PostgresDialect::relation_kind() const {
  return "SELECT c.relkind FROM pg_class AS c WHERE c.oid = to_regclass($1)";
}

std::string PostgresDialect::group_input(const PostgresTable& s, const std::vector<SourceColumn>& columns,
                                         const std::vector<std::size_t>& grouped, bool heap) const {
  std::string values, keys;
  for (std::size_t i = 0; i < grouped.size(); ++i) {
    values += fmt::format("{} AS k{}, ", value_text(columns[grouped[i]]), i);
    keys += fmt::format("{}k{}", i ? ", " : "", i);
  }
  return fmt::format(
      "COPY (SELECT {0}, count(*) FROM (SELECT {1}{3} AS rn FROM {2}) AS s GROUP BY {0} "
      "ORDER BY min(rn)) TO STDOUT (FORMAT csv, HEADER true)",
      keys, values, source_relation(*this, s, heap), position(heap));
}

std::string PostgresDialect::formula_candidates(const PostgresTable& s, const std::vector<SourceColumn>& columns,
                                                const std::vector<std::size_t>& copied, bool heap) const {
  std::string values, pairs;
  for (std::size_t i = 0; i < copied.size(); ++i) {
    values += fmt::format("{} AS k{}, ", value_text(columns[copied[i]]), i);
    pairs += fmt::format("{}({}, s.k{})", i ? ", " : "", i, i);
  }
  // Leaves out what is certainly a plain number (a sign, at most 23
  // digits or points, a two-digit exponent: never out of double's range);
  // looks_like_formula (output.h) decides the rest.
  return fmt::format(
      "SELECT x.i, x.v FROM (SELECT {}{} AS rn FROM {}) AS s CROSS JOIN LATERAL (VALUES {}) AS "
      "x(i, v) WHERE x.v ~ '^[-=+@]' AND NOT (length(x.v) <= 24 AND x.v ~ "
      "'^[-+]([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]{{1,2}})?$') GROUP BY x.i, x.v ORDER BY x.i, min(s.rn)",
      values, position(heap), source_relation(*this, s, heap), pairs);
}

std::string PostgresDialect::column_types() const {
  return "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute AS a WHERE a.attrelid = "
         "to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum";
}

std::string PostgresDialect::map_table(std::size_t g) const { return fmt::format("pg_temp.deid_map_{}", g); }
std::string PostgresDialect::suppressed_table() const { return "pg_temp.deid_suppressed"; }
std::string PostgresDialect::escape_table(std::size_t c) const { return fmt::format("pg_temp.deid_escape_{}", c); }

std::string PostgresDialect::create_map(std::size_t g) const {
  return fmt::format(
      "CREATE TEMPORARY TABLE {} (v text COLLATE \"C\" NOT NULL, c integer NOT NULL, g text NOT NULL) ON COMMIT DROP",
      map_table(g));
}

std::string PostgresDialect::create_suppressed(std::size_t generalized) const {
  std::string columns;
  for (std::size_t g = 0; g < generalized; ++g) columns += fmt::format("{}c{} integer NOT NULL", g ? ", " : "", g);
  return fmt::format("CREATE TEMPORARY TABLE {} ({}) ON COMMIT DROP", suppressed_table(), columns);
}

std::string PostgresDialect::create_escape(std::size_t c) const {
  return fmt::format("CREATE TEMPORARY TABLE {} (v text COLLATE \"C\" NOT NULL) ON COMMIT DROP", escape_table(c));
}

std::string PostgresDialect::load_temporary(const std::string& table) const {
  return fmt::format("COPY {} FROM STDIN (FORMAT csv)", table);
}

std::string PostgresDialect::analyze(const std::vector<std::string>& tables) const {
  std::string list;
  for (const std::string& t : tables) list += (list.empty() ? "" : ", ") + t;
  return "ANALYZE " + list;
}

std::string PostgresDialect::insert_release(const PostgresTable& target, const std::vector<std::string>& target_columns,
                                            const PostgresTable& source, const std::vector<SourceColumn>& columns,
                                            const std::vector<ReleasedColumn>& released, std::size_t generalized,
                                            bool any_suppressed, bool heap) const {
  std::string values, joins, outputs;
  std::vector<std::size_t> map_source(generalized);
  for (const ReleasedColumn& r : released) {
    values += fmt::format("{}{} AS k{}", values.empty() ? "" : ", ", value_text(columns[r.source]), r.source);
    std::string e;
    if (r.generalized >= 0) {
      const auto g = static_cast<std::size_t>(r.generalized);
      map_source[g] = r.source;
      e = fmt::format("NULLIF(m{}.g, '')", g);
      if (any_suppressed) e = fmt::format("CASE WHEN x.c0 IS NULL THEN {} ELSE '*' END", e);
    } else if (r.escape) {
      e = fmt::format("NULLIF(CASE WHEN s.k{0} IN (SELECT e.v FROM {1} AS e) THEN '''' || s.k{0} ELSE s.k{0} END, '')",
                      r.source, escape_table(r.source));
    } else {
      e = fmt::format("NULLIF(s.k{}, '')", r.source);
    }
    if (!r.cast.empty()) e = fmt::format("CAST({} AS {})", e, r.cast);
    outputs += (outputs.empty() ? "" : ", ") + e;
  }
  // LEFT JOINs: the planner then never estimates fewer rows than the
  // input's (it has no statistics for the value expressions, and inner
  // joins on them compound its default selectivity down to one row, which
  // made it pick nested loops: 1.2 M rows × 20 k suppressed classes).
  // Every value is in its map (the maps come from the GROUP BY of the same
  // snapshot).
  for (std::size_t g = 0; g < generalized; ++g)
    joins += fmt::format(" LEFT JOIN {} AS m{} ON m{}.v = s.k{}", map_table(g), g, g, map_source[g]);
  if (any_suppressed) {
    joins += fmt::format(" LEFT JOIN {} AS x ON ", suppressed_table());
    for (std::size_t g = 0; g < generalized; ++g) joins += fmt::format("{}x.c{} = m{}.c", g ? " AND " : "", g, g);
  }
  return fmt::format("INSERT INTO {} ({}) SELECT {} FROM (SELECT {} FROM {}) AS s{}", table_name(target),
                     column_list(target_columns, ""), outputs, values, source_relation(*this, source, heap), joins);
}

}  // namespace db
}  // namespace deid
