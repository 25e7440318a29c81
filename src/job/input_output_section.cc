#include <fmt/format.h>

#include <utility>
#include <vector>

#include "job/sections.h"

namespace deid::job_parse {

void parse_input(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (!root["input"]) ctx.fail(root, "the job needs 'input' with a 'path'");
  const auto& in = root["input"];
  ctx.keys(in, "input", Section::input);
  if (in["table"]) {
    if (in["path"] || in["postgres"])
      ctx.fail(in["table"], "input has one of 'path' (a CSV file), 'postgres' or 'table' (a Spark table), not two");
    job.input.table = ctx.str(in["table"], "input.table");
    if (job.input.table.empty()) ctx.fail(in["table"], "input.table must name a table");
  } else if (in["postgres"]) {
    if (in["path"] || in["delimiter"])
      ctx.fail(in["postgres"], "input has either 'path' (a CSV file) or 'postgres' (a table), not both");
    job.input.postgres = parse_postgres(ctx, in["postgres"], true);
  } else {
    if (!in["path"]) ctx.fail(in, "input needs 'path' (a CSV file), 'postgres' or 'table' (a Spark table)");
    job.input.path = ctx.path(in["path"], "input.path");
    if (in["delimiter"]) job.input.delimiter = ctx.delimiter(in["delimiter"]);
  }
}

void parse_output(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (root["output"]) {
    const auto& o = root["output"];
    ctx.keys(o, "output", Section::output);
    if (o["postgres"]) {
      if (o["path"] || o["delimiter"])
        ctx.fail(o["postgres"], "output has either 'path' (a CSV file) or 'postgres' (a table), not both");
      PostgresTable t = parse_postgres(ctx, o["postgres"], false);
      // Without its own connection the output goes to the input's database.
      if (!o["postgres"]["connection"] && job.input.postgres) t.connection = job.input.postgres->connection;
      // Never over the input table (a query's tables cannot be known here).
      const PostgresTable* src = job.input.postgres ? &*job.input.postgres : nullptr;
      if (src && !src->table.empty() && src->table == t.table && src->schema == t.schema &&
          src->connection == t.connection)
        ctx.fail(o["postgres"], fmt::format("output.postgres.table '{}' is the input table; it would be overwritten",
                                            t.table));
      job.output.postgres = std::move(t);
    }
    if (o["table"]) {
      if (o["path"] || o["postgres"] || o["delimiter"])
        ctx.fail(o["table"], "output has one of 'path' (a CSV file), 'postgres' or 'table' (a Spark table), not two");
      job.output.table = ctx.str(o["table"], "output.table");
      if (job.output.table.empty()) ctx.fail(o["table"], "output.table must name a table");
      if (job.output.table == job.input.table)
        ctx.fail(o["table"], fmt::format("output.table '{}' is the input table; it would be overwritten",
                                         job.output.table));
    }
    if (o["mode"]) {
      if (!o["table"]) ctx.fail(o["mode"], "output.mode goes with output.table (a Spark table)");
      job.output.table_mode = ctx.choice<std::string>(o["mode"], "output.mode",
                                                      {{"create", "create"}, {"replace", "replace"}, {"append", "append"}});
    }
    if (o["path"]) job.output.path = ctx.path(o["path"], "output.path");
    if (o["result"]) job.output.result = ctx.path(o["result"], "output.result");
    if (o["report"]) job.output.report = ctx.path(o["report"], "output.report");
    if (o["delimiter"]) job.output.delimiter = ctx.delimiter(o["delimiter"]);
    if (o["escape-formulas"]) job.output.escape_formulas = ctx.boolean(o["escape-formulas"], "output.escape-formulas");
    if (o["utility"]) job.output.utility = ctx.boolean(o["utility"], "output.utility");
    // Each output goes to its own file, never over the input.
    std::vector<std::pair<std::string, std::string>> written;  // key, resolved path
    for (const char* key : {"path", "result", "report"}) {
      if (!o[key]) continue;
      const std::string p = ctx.path(o[key], key);
      if (p == job.input.path)
        ctx.fail(o[key], fmt::format("output.{} is the input file {}; it would be overwritten", key, p));
      for (const auto& [other, q] : written)
        if (p == q) ctx.fail(o[key], fmt::format("output.{} is the same file as output.{}", key, other));
      written.emplace_back(key, p);
    }
  }
}

}  // namespace deid::job_parse
