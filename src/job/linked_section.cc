// `linked` (docs/identifiers.md, "Linked tables"): further tables of the
// job's people, each with its file, key column, output and the role of
// every other column.
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "deid/error.h"
#include "job/sections.h"

namespace deid::job_parse {
namespace {

LinkedColumn parse_linked_column(const Ctx& ctx, const YAML::Node& root, const Job& job, const std::string& table,
                                 const std::string& name, const YAML::Node& v) {
  const std::string what = fmt::format("linked table '{}', column '{}'", table, name);
  if (!v.IsMap()) ctx.fail(v, fmt::format("{} must be a mapping {{role: ..., ...}}", what));
  ctx.keys(v, what, Section::linked_column);
  LinkedColumn c;
  c.name = name;
  c.line = line_of(v);
  if (!v["role"]) ctx.fail(v, fmt::format("{} needs a 'role' (identifying, quasi-identifying or insensitive)", what));
  c.role = ctx.role(v["role"]);
  if (c.role == Role::sensitive)
    ctx.fail(v["role"], fmt::format("{}: the privacy models judge the job's table only, so a linked table has no "
                                    "sensitive attributes: a value released as it is has role insensitive (and is "
                                    "not protected by the privacy model); to protect it, aggregate it into the "
                                    "job's table",
                                    what));
  if (v["as"] && c.role != Role::quasi_identifying)
    ctx.fail(v["as"], fmt::format("{}: 'as' names the quasi-identifier of the job's table whose hierarchy and level "
                                  "apply, for a quasi-identifying column; this one has role {}",
                                  what, to_string(c.role)));
  if (c.role == Role::quasi_identifying) {
    c.as = v["as"] ? ctx.name(v["as"], "as") : name;
    const AttributeSpec* a = job.attribute(c.as);
    const YAML::Node& at = v["as"] ? v["as"] : v["role"];
    if (!a || a->role != Role::quasi_identifying)
      ctx.fail(at, fmt::format("{} is generalized like the quasi-identifier '{}' of the job's table, which the job "
                               "does not have{}",
                               what, c.as, v["as"] ? "" : " (name it with 'as')"));
    if (a->microaggregation)
      ctx.fail(at, fmt::format("{}: '{}' is microaggregated, so its released value is its class's aggregate, which "
                               "a linked row does not have: link a generalized quasi-identifier",
                               what, c.as));
  }
  parse_action(ctx, v, root, what, c.role, c.identifier);
  return c;
}

}  // namespace

void parse_linked(const Ctx& ctx, const YAML::Node& root, Job& job) {
  const YAML::Node& n = root["linked"];
  if (!n) return;
  if (!n.IsSequence() || n.size() == 0)
    ctx.fail(n, "linked must be a list of tables: - {path: FILE, key: COLUMN, output: FILE, columns: {...}}");
  if (root["cell-suppression"])
    ctx.fail(n, "linked tables are released by deid anonymize, not by cell suppression");
  std::set<std::string> names;
  for (const YAML::Node& t : n) {
    if (!t.IsMap()) ctx.fail(t, "an entry of linked must be a mapping {path: FILE, key: COLUMN, output: FILE, ...}");
    ctx.keys(t, "linked table", Section::linked);
    LinkedTable l;
    l.line = line_of(t);
    for (const char* key : {"path", "key", "output", "columns"})
      if (!t[key]) ctx.fail(t, fmt::format("a linked table needs '{}'", key));
    l.path = ctx.path(t["path"], "linked.path");
    l.name = t["name"] ? ctx.name(t["name"], "linked.name") : std::filesystem::path(l.path).stem().string();
    if (!names.insert(l.name).second)
      ctx.fail(t["name"] ? t["name"] : t["path"],
               fmt::format("two linked tables are named '{}': give each its own 'name'", l.name));
    if (t["delimiter"]) l.delimiter = ctx.delimiter(t["delimiter"]);
    l.key = ctx.name(t["key"], "linked.key");
    l.output = ctx.path(t["output"], "linked.output");
    if (t["suppressed"])
      l.suppressed = ctx.choice<LinkedTable::Suppressed>(
          t["suppressed"], "linked.suppressed",
          {{"keep", LinkedTable::Suppressed::keep}, {"drop", LinkedTable::Suppressed::drop}});
    if (t["orphans"])
      l.orphans = ctx.choice<LinkedTable::Orphans>(t["orphans"], "linked.orphans",
                                                    {{"error", LinkedTable::Orphans::error},
                                                     {"drop", LinkedTable::Orphans::drop}});
    const YAML::Node& cols = t["columns"];
    if (!cols.IsMap())
      ctx.fail(cols, fmt::format("linked table '{}': columns must be a mapping of each column (but the key) to its "
                                 "role",
                                 l.name));
    std::set<std::string> seen;
    for (const auto& kv : cols) {
      const std::string name = ctx.name(kv.first, "a column name");
      if (!seen.insert(name).second)
        ctx.fail(kv.first, fmt::format("linked table '{}': column '{}' is listed twice", l.name, name));
      if (name == l.key)
        ctx.fail(kv.first, fmt::format("linked table '{}': '{}' is its key, released as the job's table releases "
                                       "identifiers.person: leave it out of columns",
                                       l.name, name));
      l.columns.push_back(parse_linked_column(ctx, root, job, l.name, name, kv.second));
    }
    job.linked.push_back(std::move(l));
  }
}

}  // namespace deid::job_parse
