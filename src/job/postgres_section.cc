#include <fmt/format.h>

#include "job/sections.h"

namespace deid::job_parse {
namespace {

// PostgreSQL's identifiers hold at most 63 bytes (NAMEDATALEN - 1); a longer
// name would be truncated by the server, silently naming another table.
void check_identifier(const Ctx& ctx, const YAML::Node& n, const std::string& what, const std::string& name) {
  if (name.size() > 63)
    ctx.fail(n, fmt::format("{} '{}' is {} bytes long; PostgreSQL names hold at most 63", what, name, name.size()));
  if (name.find('\0') != std::string::npos) ctx.fail(n, fmt::format("{} must not contain a NUL byte", what));
}

}  // namespace

// input.postgres or output.postgres (docs/databases.md).
PostgresTable parse_postgres(const Ctx& ctx, const YAML::Node& n, bool input) {
  const std::string where = input ? "input.postgres" : "output.postgres";
  if (input)
    ctx.keys(n, where, Section::input_postgres);
  else
    ctx.keys(n, where, Section::output_postgres);
  PostgresTable t;
  t.line = static_cast<std::uint64_t>(n.Mark().line + 1);
  if (n["connection"]) t.connection = ctx.str(n["connection"], where + ".connection");
  if (n["schema"]) {
    t.schema = ctx.name(n["schema"], where + ".schema");
    check_identifier(ctx, n["schema"], where + ".schema", t.schema);
  }
  if (n["table"]) {
    t.table = ctx.name(n["table"], where + ".table");
    check_identifier(ctx, n["table"], where + ".table", t.table);
  }
  if (input) {
    if (n["query"]) t.query = ctx.name(n["query"], "input.postgres.query");
    if (t.table.empty() == t.query.empty())
      ctx.fail(n, "input.postgres needs exactly one of 'table' and 'query'");
    if (!t.query.empty() && n["schema"]) ctx.fail(n["schema"], "input.postgres.schema goes with 'table', not 'query'");
    if (n["pushdown"]) t.pushdown = ctx.boolean(n["pushdown"], "input.postgres.pushdown");
  } else {
    if (t.table.empty()) ctx.fail(n, "output.postgres needs 'table'");
    if (n["mode"]) {
      const std::string m = ctx.str(n["mode"], "output.postgres.mode");
      if (m == "create")
        t.mode = PostgresTable::Mode::create;
      else if (m == "replace")
        t.mode = PostgresTable::Mode::replace;
      else if (m == "append")
        t.mode = PostgresTable::Mode::append;
      else
        ctx.fail(n["mode"], fmt::format("output.postgres.mode must be create, replace or append, got '{}'", m));
    }
  }
  return t;
}

}  // namespace deid::job_parse
