#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "job/sections.h"

namespace deid::job_parse {
namespace {

// `cell-suppression:` (docs/cell-suppression.md). Names of attributes and
// released columns are checked against the data when the job runs.
Job::CellSuppression cell_suppression(const Ctx& ctx, const Job& job, const YAML::Node& cs) {
  ctx.keys(cs, "cell-suppression",
           Section::cell_suppression);
  Job::CellSuppression out;
  out.line = static_cast<std::uint64_t>(cs.Mark().line + 1);
  if (cs["k"] && cs["tau"]) ctx.fail(cs["tau"], "give either k or tau (k = ceil(1/tau)), not both");
  if (cs["k"]) out.k = ctx.integer(cs["k"], "k", 1);
  if (cs["tau"]) {
    out.tau = ctx.num(cs["tau"], "tau");
    if (!(*out.tau > 0 && *out.tau <= 1)) ctx.fail(cs["tau"], fmt::format("tau must be in (0, 1], got {}", *out.tau));
    // k = ceil(1/tau) must stay a count (at most 1e18, as k itself).
    if (*out.tau < 1 / kMaxCount)
      ctx.fail(cs["tau"], fmt::format("tau must be at least {} (k = ceil(1/tau) at most {}), got {}", 1 / kMaxCount,
                                      kMaxCount, cs["tau"].as<std::string>()));
  }
  if (!out.k && !out.tau) ctx.fail(cs, "cell-suppression needs 'k' or 'tau' (the risk threshold, k = ceil(1/tau))");
  if (cs["marker"]) out.marker = ctx.str(cs["marker"], "marker");

  auto quasi_identifier = [&](const YAML::Node& n, const std::string& what) {
    const std::string name = ctx.name(n, what);
    const AttributeSpec* a = job.attribute(name);
    if (!a || a->role != Role::quasi_identifying)
      ctx.fail(n, fmt::format("{} '{}' must be listed under 'attributes' with role: quasi-identifying", what, name));
    return name;
  };
  // A non-empty list of distinct levels in ascending order.
  auto levels = [&](const YAML::Node& n, const std::string& what) {
    if (!n.IsSequence() || n.size() == 0)
      ctx.fail(n, fmt::format("{} must be a non-empty list of levels, e.g. [0, 1, 2]", what));
    std::vector<int> out_levels;
    for (const auto& l : n) {
      out_levels.push_back(ctx.level(l, what));
      if (out_levels.size() > 1 && out_levels.back() <= out_levels[out_levels.size() - 2])
        ctx.fail(l, fmt::format("{} must be ascending and distinct, got level {} after {}", what, out_levels.back(),
                                out_levels[out_levels.size() - 2]));
    }
    return out_levels;
  };
  // A map keyed by quasi-identifiers names each once (yaml-cpp keeps both).
  auto once = [&](std::set<std::string>& seen, const YAML::Node& key, const std::string& name,
                  const std::string& where) {
    if (!seen.insert(name).second) ctx.fail(key, fmt::format("'{}' is given twice in {}", name, where));
  };

  if (cs["weights"]) {
    const auto& w = cs["weights"];
    if (!w.IsMap()) ctx.fail(w, "weights must map quasi-identifiers to weights in [0, 1]");
    std::set<std::string> seen;
    for (const auto& kv : w) {
      out.weights.emplace_back(quasi_identifier(kv.first, "weight for"), ctx.fraction(kv.second, "weight"));
      once(seen, kv.first, out.weights.back().first, "weights");
    }
  }
  if (cs["release-levels"]) {
    const auto& rl = cs["release-levels"];
    if (!rl.IsMap()) ctx.fail(rl, "release-levels must map quasi-identifiers to {levels: [...]}");
    std::set<std::string> seen;
    for (const auto& kv : rl) {
      Job::CellSuppression::Release r;
      r.attribute = quasi_identifier(kv.first, "release-levels for");
      once(seen, kv.first, r.attribute, "release-levels");
      r.line = static_cast<std::uint64_t>(kv.first.Mark().line + 1);
      const auto& v = kv.second;
      const std::string where = fmt::format("release-levels of '{}'", r.attribute);
      ctx.keys(v, where, Section::release_levels);
      if (!v["levels"]) ctx.fail(v, fmt::format("{} needs 'levels'", where));
      r.levels = levels(v["levels"], "levels");
      if (!job.attribute(r.attribute)->has_hierarchy() && (r.levels.size() != 1 || r.levels[0] != 0))
        ctx.fail(v["levels"], fmt::format("attribute '{}' has no hierarchy: only level 0 can be released",
                                          r.attribute));
      if (v["names"]) {
        if (!v["names"].IsSequence()) ctx.fail(v["names"], "names must be a list of column names");
        std::set<std::string> seen_names;
        for (const auto& n : v["names"]) {
          r.names.push_back(ctx.name(n, "a released column's name"));
          if (!seen_names.insert(r.names.back()).second)
            ctx.fail(n, fmt::format("{}: column name '{}' is given twice", where, r.names.back()));
        }
        if (r.names.size() != r.levels.size())
          ctx.fail(v["names"], fmt::format("{} names for {} levels", r.names.size(), r.levels.size()));
      }
      auto released = [&](const YAML::Node& n, int l, const char* what) {
        if (std::find(r.levels.begin(), r.levels.end(), l) == r.levels.end())
          ctx.fail(n, fmt::format("{}: {} {} is not one of the released levels", where, what, l));
      };
      if (v["known-level"]) {
        r.known_level = ctx.level(v["known-level"], "known-level");
        released(v["known-level"], *r.known_level, "known-level");
      }
      if (v["evaluate"]) {
        r.evaluate = levels(v["evaluate"], "evaluate");
        std::size_t i = 0;
        for (const auto& e : v["evaluate"]) released(e, r.evaluate[i++], "evaluated level");
      }
      if (v["totally-ordered"]) {
        const std::string b = ctx.str(v["totally-ordered"], "totally-ordered");
        if (b != "true" && b != "false") ctx.fail(v["totally-ordered"], "totally-ordered must be true or false");
        r.totally_ordered = b == "true";
      }
      out.release_levels.push_back(std::move(r));
    }
  }
  if (cs["combinations"]) {
    const auto& cb = cs["combinations"];
    if (!cb.IsSequence() || cb.size() == 0)
      ctx.fail(cb, "combinations must be a list of lists, e.g. [[age, sex, diagnosis], [age, sex, intervention]]");
    for (const auto& combo : cb) {
      if (!combo.IsSequence() || combo.size() == 0)
        ctx.fail(combo, "each combination must be a non-empty list of quasi-identifiers or released columns");
      std::vector<std::string> names;
      for (const auto& e : combo) {
        names.push_back(ctx.name(e, "a combination entry"));
        if (std::count(names.begin(), names.end(), names.back()) > 1)
          ctx.fail(e, fmt::format("combination entry '{}' is given twice in one combination", names.back()));
      }
      out.combinations.push_back(std::move(names));
    }
  }
  if (cs["compare-complete"]) {
    const std::string b = ctx.str(cs["compare-complete"], "compare-complete");
    if (b != "true" && b != "false") ctx.fail(cs["compare-complete"], "compare-complete must be true or false");
    out.compare_complete = b == "true";
  }
  if (cs["missingness"]) {
    const auto& ms = cs["missingness"];
    if (!ms.IsSequence()) ctx.fail(ms, "missingness must be a list of {variable: COLUMN, by: COLUMN}");
    for (const auto& m : ms) {
      ctx.keys(m, "a missingness entry", Section::missingness);
      if (!m["variable"] || !m["by"]) ctx.fail(m, "a missingness entry needs 'variable' and 'by'");
      out.missingness.push_back({ctx.name(m["variable"], "variable"), ctx.name(m["by"], "by")});
      if (out.missingness.back().variable == out.missingness.back().by)
        ctx.fail(m["by"], fmt::format("missingness of '{}' by itself: 'by' must be another column",
                                      m["by"].as<std::string>()));
    }
  }
  if (cs["samples"]) {
    const auto& sm = cs["samples"];
    ctx.keys(sm, "samples", Section::samples);
    if (sm["seed"]) out.seed = ctx.integer(sm["seed"], "seed", 0);
    if (!sm["draws"] || !sm["draws"].IsSequence() || sm["draws"].size() == 0)
      ctx.fail(sm, "samples needs 'draws': a list of {fraction: 0.1, path: sample.csv}");
    double total = 0;
    for (const auto& d : sm["draws"]) {
      ctx.keys(d, "a sample draw", Section::sample_draw);
      if (!d["fraction"] || !d["path"]) ctx.fail(d, "a sample draw needs 'fraction' and 'path'");
      Job::CellSuppression::Sample s{ctx.fraction(d["fraction"], "fraction"), ctx.path(d["path"], "sample path")};
      if (!(s.fraction > 0)) ctx.fail(d["fraction"], "fraction must be in (0, 1], got 0: a sample needs rows");
      for (const auto& other : out.samples)
        if (other.path == s.path) ctx.fail(d["path"], fmt::format("two samples are written to {}", s.path));
      total += s.fraction;
      if (total > 1 + 1e-9) ctx.fail(d["fraction"], "the sample fractions add up to more than 1");
      if (s.path == job.input.path) ctx.fail(d["path"], "a sample would overwrite the input file");
      out.samples.push_back(std::move(s));
    }
  }
  if (cs["registry"]) {
    const auto& rg = cs["registry"];
    ctx.keys(rg, "registry", Section::registry);
    Job::CellSuppression::Registry r;
    if (!rg["attributes"] || !rg["attributes"].IsSequence() || rg["attributes"].size() == 0)
      ctx.fail(rg, "registry needs 'attributes': the quasi-identifiers found in public registries");
    for (const auto& a : rg["attributes"]) {
      r.attributes.push_back(quasi_identifier(a, "registry attribute"));
      if (std::count(r.attributes.begin(), r.attributes.end(), r.attributes.back()) > 1)
        ctx.fail(a, fmt::format("registry attribute '{}' is given twice", r.attributes.back()));
    }
    if (rg["population"]) r.population = ctx.path(rg["population"], "registry.population");
    if (rg["count-column"]) r.count_column = ctx.name(rg["count-column"], "count-column");
    if (rg["sampling-fraction"]) {
      r.sampling_fraction = ctx.num(rg["sampling-fraction"], "sampling-fraction");
      if (!(*r.sampling_fraction > 0 && *r.sampling_fraction <= 1))
        ctx.fail(rg["sampling-fraction"], "sampling-fraction must be in (0, 1]");
    }
    out.registry = std::move(r);
  }
  return out;
}

}  // namespace

void parse_cell_suppression(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (root["cell-suppression"]) job.cell_suppression = cell_suppression(ctx, job, root["cell-suppression"]);
}

}  // namespace deid::job_parse
