#include <fmt/format.h>

#include <utility>
#include <vector>

#include "job/sections.h"

namespace deid::job_parse {

void parse_input(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (!root["input"]) ctx.fail(root, "the job needs 'input' with a 'path'");
  const auto& in = root["input"];
  ctx.keys(in, "input", Section::input);
  int sources = 0;
  for (const char* key : {"path", "parquet", "postgres", "table"}) sources += in[key] ? 1 : 0;
  if (sources > 1)
    ctx.fail(in, "input has one of 'path' (a CSV file), 'parquet' (a Parquet file), 'postgres' (a table) or 'table' "
                 "(a Spark table)");
  if (in["table"]) {
    if (in["delimiter"]) ctx.fail(in["delimiter"], "input.delimiter is of a CSV file ('path'), not of a table");
    job.input.table = ctx.str(in["table"], "input.table");
    if (job.input.table.empty()) ctx.fail(in["table"], "input.table must name a table");
  } else if (in["postgres"]) {
    if (in["delimiter"]) ctx.fail(in["delimiter"], "input.delimiter is of a CSV file ('path'), not of a table");
    job.input.postgres = parse_postgres(ctx, in["postgres"], true);
  } else if (in["parquet"]) {
    if (in["delimiter"]) ctx.fail(in["delimiter"], "input.delimiter is of a CSV file ('path'), not of a Parquet file");
    job.input.path = ctx.location(in["parquet"], "input.parquet");
    job.input.format = TableFormat::parquet;
  } else {
    if (!in["path"])
      ctx.fail(in, "input needs 'path' (a CSV file), 'parquet' (a Parquet file), 'postgres' (a table) or 'table' (a "
                   "Spark table)");
    job.input.path = ctx.location(in["path"], "input.path");
    if (in["delimiter"]) job.input.delimiter = ctx.delimiter(in["delimiter"]);
  }
}

void parse_output(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (root["output"]) {
    const auto& o = root["output"];
    ctx.keys(o, "output", Section::output);
    int tables = 0;
    for (const char* key : {"path", "parquet", "postgres"}) tables += o[key] ? 1 : 0;
    if (tables > 1)
      ctx.fail(o, "output has one of 'path' (a CSV file), 'parquet' (a Parquet file) or 'postgres' (a table)");
    if (o["delimiter"] && !o["path"] && (o["parquet"] || o["postgres"]))
      ctx.fail(o["delimiter"], fmt::format("output.delimiter is of a CSV file ('path'), not of {}",
                                           o["parquet"] ? "a Parquet file" : "a table"));
    if (o["postgres"]) {
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
      if (o["path"] || o["parquet"] || o["postgres"] || o["delimiter"])
        ctx.fail(o["table"], "output has one of 'path' (a CSV file), 'parquet', 'postgres' or 'table' (a Spark table), "
                             "not two");
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
    if (o["path"]) job.output.path = ctx.location(o["path"], "output.path");
    if (o["parquet"]) {
      job.output.path = ctx.location(o["parquet"], "output.parquet");
      job.output.format = TableFormat::parquet;
    }
    if (o["result"]) job.output.result = ctx.path(o["result"], "output.result");
    if (o["report"]) job.output.report = ctx.path(o["report"], "output.report");
    if (o["linkage"]) job.output.linkage = ctx.path(o["linkage"], "output.linkage");
    if (o["delimiter"]) job.output.delimiter = ctx.delimiter(o["delimiter"]);
    if (o["escape-formulas"]) job.output.escape_formulas = ctx.boolean(o["escape-formulas"], "output.escape-formulas");
    if (o["utility"]) job.output.utility = ctx.boolean(o["utility"], "output.utility");
    // Each output goes to its own file, never over the input.
    std::vector<std::pair<std::string, std::string>> written;  // key, resolved path
    for (const char* key : {"path", "parquet", "result", "report", "linkage"}) {
      if (!o[key]) continue;
      const std::string p = std::string_view(key) == "path" || std::string_view(key) == "parquet"
                                ? ctx.location(o[key], key)
                                : ctx.path(o[key], key);
      if (p == job.input.path)
        ctx.fail(o[key], fmt::format("output.{} is the input file {}; it would be overwritten", key, p));
      for (const auto& [other, q] : written)
        if (p == q) ctx.fail(o[key], fmt::format("output.{} is the same file as output.{}", key, other));
      written.emplace_back(key, p);
    }
  }
}

}  // namespace deid::job_parse
