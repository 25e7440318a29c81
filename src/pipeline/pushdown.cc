// Pushdown (docs/databases.md, "Pushdown"): the input grouped in its
// database, the release written there. This file decides which columns the
// database groups and turns the chosen transformation into what the
// database writes; src/db/postgres.cc sends the SQL.
#include "deid/database.h"
#include "deid/formulas.h"
#include "deid/output.h"
#include "deid/identifiers.h"
#include "deid/pipeline.h"

namespace deid {

bool uses_pushdown(const Job& job) {
  if (!job.input.postgres || !job.input.postgres->pushdown || !job.output.path.empty()) return false;
  // Pseudonyms, masks and date shifts are computed from the rows, and
  // linked tables are joined to them.
  if (releases_identifiers(job) || !job.linked.empty()) return false;
  return !job.output.postgres || job.output.postgres->connection == job.input.postgres->connection;
}

Dataset read_grouped(const Job& job, PostgresPushdown& source) {
  const std::vector<std::string>& names = source.columns();
  std::vector<bool> grouped(names.size(), false), copied(names.size(), false);
  for (std::size_t c = 0; c < names.size(); ++c) {
    const AttributeSpec* spec = job.attribute(names[c]);
    const std::optional<Role> role = spec ? std::optional<Role>(spec->role) : job.default_role;
    if (!role) continue;  // prepare() names the columns without a role
    grouped[c] = *role == Role::quasi_identifying || *role == Role::sensitive;
    copied[c] = *role == Role::insensitive;
  }
  return source.read(grouped, copied);
}

FileDigest write_pushdown(PostgresPushdown& target_db, const PreparedJob& p, const Transformation& t,
                          const Classes& classes) {
  const Dataset& ds = p.data;
  const Problem& pr = p.problem;
  const bool escape = p.job.output.escape_formulas;
  auto escaped = [&](const std::string& v) { return escape && looks_like_formula(v) ? "'" + v : v; };

  PostgresPushdown::Release release;
  release.records = pr.rows;
  release.maps.resize(pr.qi_columns.size());
  for (std::size_t q = 0; q < pr.qi_columns.size(); ++q) {
    const Column& col = ds.columns[static_cast<std::size_t>(pr.qi_columns[q])];
    const Generalization& h = pr.hierarchies[q];
    const std::vector<std::uint32_t>& map = h.map(t[q]);
    PostgresPushdown::Release::Map& m = release.maps[q];
    for (std::uint32_t v = 0; v < col.dictionary.size(); ++v) {
      m.values.push_back(col.dictionary.value(v));
      m.codes.push_back(map[v]);
      m.labels.push_back(escaped(h.label(t[q], map[v])));
    }
  }
  const std::uint32_t w = classes.width;
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (classes.suppressed[c])
      for (std::uint32_t q = 0; q < w; ++q) release.suppressed.push_back(classes.keys[c * w + q]);

  std::vector<std::string> names;
  for (std::size_t c = 0; c < ds.columns.size(); ++c) {
    if (p.roles[c] == Role::identifying) continue;
    PostgresPushdown::Release::Column col;
    col.source = c;
    for (std::size_t q = 0; q < pr.qi_columns.size(); ++q)
      if (pr.qi_columns[q] == static_cast<int>(c)) col.generalized = static_cast<int>(q);
    if (col.generalized < 0 && escape) {
      // A copied column's dictionary holds its formula-like values
      // (PostgresPushdown::read); a sensitive column's holds all of them.
      const Dictionary& d = ds.columns[c].dictionary;
      for (std::uint32_t v = 0; v < d.size(); ++v)
        if (looks_like_formula(d.value(v))) col.escape.push_back(d.value(v));
    }
    names.push_back(ds.columns[c].name);
    release.columns.push_back(std::move(col));
  }
  return target_db.write(*p.job.output.postgres, names, release, "output");
}

}  // namespace deid
