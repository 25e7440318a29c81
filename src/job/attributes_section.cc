#include <fmt/format.h>

#include <set>

#include "deid/error.h"
#include "job/sections.h"

namespace deid::job_parse {
namespace {

// An attribute's `transformation`, `function` and `generalize-before`
// (docs/job-file.md, "Microaggregation").
void parse_microaggregation(const Ctx& ctx, const YAML::Node& v, const YAML::Node& root, AttributeSpec& a) {
  const bool micro = v["transformation"] && ctx.str(v["transformation"], "transformation") == "microaggregation";
  if (v["transformation"] && !micro && ctx.str(v["transformation"], "transformation") != "generalization")
    ctx.fail(v["transformation"], fmt::format("attribute '{}': unknown transformation '{}' (known: generalization, "
                                              "microaggregation)",
                                              a.name, ctx.str(v["transformation"], "transformation")));
  for (const char* key : {"function", "generalize-before"})
    if (v[key] && !micro)
      ctx.fail(v[key], fmt::format("attribute '{}': '{}' is used only with transformation: microaggregation", a.name,
                                   key));
  if (!micro) return;
  if (a.role != Role::quasi_identifying)
    ctx.fail(v["transformation"], fmt::format("attribute '{}': microaggregation is for quasi-identifying attributes; "
                                              "this one has role {}",
                                              a.name, to_string(a.role)));
  if (root["cell-suppression"])
    ctx.fail(v["transformation"], fmt::format("attribute '{}': microaggregation is applied by the lattice search "
                                              "(deid anonymize), not by cell suppression",
                                              a.name));
  MicroaggregationSpec m;
  m.line = static_cast<std::uint64_t>(v["transformation"].Mark().line + 1);
  if (v["function"]) {
    const std::string f = ctx.str(v["function"], "function");
    bool known = false;
    for (auto candidate : {AggregationFunction::mean, AggregationFunction::median, AggregationFunction::mode,
                           AggregationFunction::geometric_mean, AggregationFunction::interval})
      if (f == to_string(candidate)) {
        m.function = candidate;
        known = true;
      }
    if (!known)
      ctx.fail(v["function"], fmt::format("attribute '{}': unknown microaggregation function '{}' (known: mean, "
                                          "median, mode, geometric-mean, interval)",
                                          a.name, f));
  }
  if (v["generalize-before"]) m.generalize_before = ctx.boolean(v["generalize-before"], "generalize-before");
  if (!m.generalize_before) {
    // Not generalized: a hierarchy or generalization constraints would be
    // silently unused.
    for (const char* key : {"hierarchy", "min-level", "max-level"})
      if (v[key])
        ctx.fail(v[key], fmt::format("attribute '{}': '{}' is used only when the attribute is generalized; set "
                                     "generalize-before: true or remove it",
                                     a.name, key));
  }
  a.microaggregation = m;
}

}  // namespace

void parse_attributes(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (root["attributes"]) {
    const auto& attrs = root["attributes"];
    if (!attrs.IsMap()) ctx.fail(attrs, "attributes must be a mapping from column name to {role: ...}");
    for (const auto& kv : attrs) {
      AttributeSpec a;
      a.name = ctx.name(kv.first, "an attribute's name (a column of the input)");
      a.line = static_cast<std::uint64_t>(kv.first.Mark().line + 1);
      const auto& v = kv.second;
      ctx.keys(v, fmt::format("attribute '{}'", a.name), Section::attribute);
      if (!v["role"]) ctx.fail(v, fmt::format("attribute '{}' needs a 'role'", a.name));
      a.role = ctx.role(v["role"]);
      const bool has_role_for_hierarchy = a.role == Role::quasi_identifying || a.role == Role::sensitive;
      if (v["hierarchy"] && !has_role_for_hierarchy)
        ctx.fail(v["hierarchy"], fmt::format("attribute '{}': a hierarchy is only used for quasi-identifying "
                                             "and sensitive attributes",
                                             a.name));
      if (const HierarchyOverride* given = ctx.given_hierarchy(a.name)) {
        // The hierarchy given beside the job replaces the job's, unread.
        if (!has_role_for_hierarchy)
          ctx.fail(v["role"], fmt::format("attribute '{}': {} gives it a hierarchy, which is only used for "
                                          "quasi-identifying and sensitive attributes; its role is {}",
                                          a.name, given->source, to_string(a.role)));
        give_hierarchy(*given, a);
      } else if (v["hierarchy"]) {
        if (v["hierarchy"].IsMap()) {
          a.hierarchy_builder = parse_hierarchy_builder(ctx, v["hierarchy"], a.name);
          const auto m = v["hierarchy"].Mark();
          a.hierarchy_line = static_cast<std::uint64_t>(m.line + 1);
          a.hierarchy_column = static_cast<std::uint64_t>(m.column + 1);
        } else {
          a.hierarchy = ctx.path(v["hierarchy"], "hierarchy");
        }
      }
      if (v["order"]) {
        // The order ranks a sensitive attribute's values for t-closeness
        // with ordered distance; elsewhere it would be ignored.
        if (a.role != Role::sensitive)
          ctx.fail(v["order"], fmt::format("attribute '{}': 'order' is only used for sensitive attributes (t-closeness "
                                           "with distance: ordered); this one has role {}",
                                           a.name, to_string(a.role)));
        if (!v["order"].IsSequence() || v["order"].size() == 0)
          ctx.fail(v["order"], fmt::format("attribute '{}': order must be a list of values, at least one", a.name));
        std::set<std::string> seen;
        for (const auto& o : v["order"]) {
          a.order.push_back(ctx.str(o, "order value"));
          if (!seen.insert(a.order.back()).second)
            ctx.fail(o, fmt::format("attribute '{}': value '{}' is listed twice in 'order'", a.name, a.order.back()));
        }
      }
      // Generalization constraints and the quality models' weight belong to
      // the lattice search of quasi-identifiers. Whether a level exists in
      // the hierarchy is known when it is read (prepare()).
      for (const char* key : {"min-level", "max-level", "weight"}) {
        if (!v[key]) continue;
        if (a.role != Role::quasi_identifying)
          ctx.fail(v[key], fmt::format("attribute '{}': '{}' is only used for quasi-identifying attributes; this one "
                                       "has role {}",
                                       a.name, key, to_string(a.role)));
        if (root["cell-suppression"])
          ctx.fail(v[key], fmt::format("attribute '{}': '{}' is used by the lattice search (deid anonymize), not by "
                                       "cell suppression",
                                       a.name, key));
      }
      if (v["min-level"]) {
        a.min_level = ctx.level(v["min-level"], "min-level");
        a.min_level_line = static_cast<std::uint64_t>(v["min-level"].Mark().line + 1);
      }
      if (v["max-level"]) {
        a.max_level = ctx.level(v["max-level"], "max-level");
        a.max_level_line = static_cast<std::uint64_t>(v["max-level"].Mark().line + 1);
      }
      if (a.min_level && a.max_level && *a.min_level > *a.max_level)
        ctx.fail(v["max-level"], fmt::format("attribute '{}': max-level {} is below min-level {}", a.name,
                                             *a.max_level, *a.min_level));
      if (v["weight"]) a.weight = ctx.fraction(v["weight"], "weight");
      parse_microaggregation(ctx, v, root, a);
      // Cell suppression (deid suppress) releases a quasi-identifier without
      // a hierarchy as it is; the lattice search needs one.
      if (a.generalized() && !a.has_hierarchy() && !root["cell-suppression"])
        ctx.fail(v, fmt::format("quasi-identifying attribute '{}' needs a 'hierarchy'{}", a.name,
                                a.microaggregation ? " (it is generalized before microaggregation)" : ""));
      if (job.attribute(a.name)) ctx.fail(kv.first, fmt::format("attribute '{}' is listed twice", a.name));
      job.attributes.push_back(std::move(a));
    }
  }
  // A hierarchy given for an attribute the job does not list makes it a
  // quasi-identifier.
  if (ctx.given)
    for (const auto& h : *ctx.given) {
      if (h.attribute.empty())
        throw JobError(Location{h.source, 0, 0, {}}, "an attribute's name must not be empty");
      if (job.attribute(h.attribute)) continue;
      AttributeSpec a;
      a.name = h.attribute;
      a.role = Role::quasi_identifying;
      give_hierarchy(h, a);
      job.attributes.push_back(std::move(a));
    }
  if (root["default-role"]) {
    job.default_role = ctx.role(root["default-role"]);
    if (*job.default_role == Role::quasi_identifying)
      ctx.fail(root["default-role"], "default-role cannot be quasi-identifying (a quasi-identifier needs a hierarchy)");
  }
}

}  // namespace deid::job_parse
