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
  // A query may end in a semicolon, as in psql; COPY takes none.
  std::string_view q = s.query;
  while (!q.empty() && (q.back() == ';' || q.back() == ' ' || q.back() == '\n' || q.back() == '\t' || q.back() == '\r'))
    q.remove_suffix(1);
  const std::string what = s.query.empty() ? table_name(s) : fmt::format("({})", q);
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

}  // namespace db
}  // namespace deid
