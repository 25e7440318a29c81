#include "deid/job.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "deid/error.h"
#include "privacy/java_random.h"

namespace deid {

const char* to_string(Role role) {
  switch (role) {
    case Role::identifying: return "identifying";
    case Role::quasi_identifying: return "quasi-identifying";
    case Role::sensitive: return "sensitive";
    case Role::insensitive: return "insensitive";
  }
  return "?";
}

const char* to_string(Aggregate a) {
  switch (a) {
    case Aggregate::geometric_mean: return "geometric-mean";
    case Aggregate::arithmetic_mean: return "arithmetic-mean";
    case Aggregate::sum: return "sum";
    case Aggregate::max: return "max";
  }
  return "?";
}

const char* to_string(AggregationFunction f) {
  switch (f) {
    case AggregationFunction::mean: return "mean";
    case AggregationFunction::median: return "median";
    case AggregationFunction::mode: return "mode";
    case AggregationFunction::geometric_mean: return "geometric-mean";
    case AggregationFunction::interval: return "interval";
  }
  return "?";
}

const char* to_string(SearchSpec::Algorithm a) {
  switch (a) {
    case SearchSpec::Algorithm::automatic: return "auto";
    case SearchSpec::Algorithm::exhaustive: return "exhaustive";
    case SearchSpec::Algorithm::optimal: return "optimal";
    case SearchSpec::Algorithm::best_first: return "best-first";
    case SearchSpec::Algorithm::safepub: return "safepub";
  }
  return "?";
}

const char* to_string(PostgresTable::Mode mode) {
  switch (mode) {
    case PostgresTable::Mode::create: return "create";
    case PostgresTable::Mode::replace: return "replace";
    case PostgresTable::Mode::append: return "append";
  }
  return "?";
}

const AttributeSpec* Job::attribute(const std::string& name) const {
  for (const auto& a : attributes)
    if (a.name == name) return &a;
  return nullptr;
}

namespace {

// The message for YAML that yaml-cpp could not load. Its depth guard says
// only "bad file"; a job nested that deep is no job (a few levels are).
std::string yaml_problem(const YAML::Exception& e) {
  if (const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&e))
    return fmt::format("invalid YAML: nested more than {} levels deep (a job file needs a few)", deep->depth() - 1);
  return "invalid YAML: " + e.msg;
}


// The largest count a job may ask for (k, l, max-checks, ...): larger values
// are typos, and casting them to 64-bit integers would overflow.
constexpr double kMaxCount = 1e18;
// The largest population size: a hundred times the world's population. The
// estimators of population uniqueness give no meaningful answer beyond.
constexpr double kMaxPopulation = 1e12;

// Parsing context: the file name for messages.
struct Ctx {
  std::string file;
  std::string base_dir;
  // Hierarchies given beside the job (HierarchyOverride); null: none.
  const std::vector<HierarchyOverride>* given = nullptr;

  const HierarchyOverride* given_hierarchy(const std::string& attribute) const {
    if (given)
      for (const auto& h : *given)
        if (h.attribute == attribute) return &h;
    return nullptr;
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& msg) const {
    const auto m = node.Mark();
    throw JobError(Location{file, m.is_null() ? 0 : static_cast<std::uint64_t>(m.line + 1),
                            m.is_null() ? 0 : static_cast<std::uint64_t>(m.column + 1), {}},
                   msg);
  }

  // Rejects keys of `map` not in `allowed` and keys given twice (yaml-cpp
  // keeps both silently), naming the key and its line.
  void keys(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> allowed) const {
    if (!map.IsMap()) fail(map, fmt::format("{} must be a mapping", where));
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) fail(kv.first, fmt::format("a key of {} must be a name, not a list or mapping", where));
      const std::string key = kv.first.as<std::string>();
      if (!seen.insert(key).second) fail(kv.first, fmt::format("key '{}' is given twice in {}", key, where));
      bool ok = false;
      for (const char* a : allowed) ok = ok || key == a;
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(kv.first, fmt::format("unknown key '{}' in {} (allowed: {})", key, where, list));
      }
    }
  }

  std::string str(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, fmt::format("{} must be a string", what));
    return n.as<std::string>();
  }

  // A decimal number: from_chars, unlike stod, takes no hex, no leading
  // spaces and no locale.
  double num(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, fmt::format("{} must be a number", what));
    const std::string s = n.as<std::string>();
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
      fail(n, fmt::format("{} must be a number, got '{}'", what, s));
    return v;
  }

  // A name used as a key (an attribute, a population): a non-empty string.
  std::string name(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, fmt::format("{} must be a name, not a list or mapping", what));
    const std::string s = n.as<std::string>();
    if (s.empty()) fail(n, fmt::format("{} must not be empty", what));
    return s;
  }

  double fraction(const YAML::Node& n, const std::string& what) const {
    const double v = num(n, what);
    if (v < 0 || v > 1) fail(n, fmt::format("{} must be in [0, 1], got {}", what, v));
    return v;
  }

  std::uint64_t integer(const YAML::Node& n, const std::string& what, std::uint64_t min,
                        double max = kMaxCount) const {
    const double v = num(n, what);
    if (v != std::floor(v) || v < static_cast<double>(min))
      fail(n, fmt::format("{} must be an integer >= {}, got {}", what, min, n.as<std::string>()));
    if (v > max) fail(n, fmt::format("{} must be at most {}, got {}", what, max, n.as<std::string>()));
    return static_cast<std::uint64_t>(v);
  }

  // A hierarchy level (cell suppression): an integer that fits an int.
  int level(const YAML::Node& n, const std::string& what) const {
    return static_cast<int>(integer(n, what, 0, 1e6));
  }

  char delimiter(const YAML::Node& n) const {
    std::string s = str(n, "delimiter");
    if (s == "\\t" || s == "tab") s = "\t";
    if (s.size() != 1 || s == "\"" || s == "\n" || s == "\r")
      fail(n, fmt::format("delimiter must be a single character (or \\t), got '{}'", s));
    return s[0];
  }

  std::string path(const YAML::Node& n, const std::string& what) const {
    const std::string p = str(n, what);
    if (p.empty()) fail(n, fmt::format("{} must not be empty", what));
    std::filesystem::path fp(p);
    if (fp.is_absolute() || base_dir.empty()) return p;
    return (std::filesystem::path(base_dir) / fp).lexically_normal().string();
  }

  template <class E>
  E choice(const YAML::Node& n, const std::string& what, std::initializer_list<std::pair<const char*, E>> options) const {
    const std::string s = str(n, what);
    std::string list;
    for (const auto& [name, value] : options) {
      if (s == name) return value;
      list += (list.empty() ? "" : ", ") + std::string(name);
    }
    fail(n, fmt::format("{} must be one of {}, got '{}'", what, list, s));
  }

  bool boolean(const YAML::Node& n, const std::string& what) const {
    const std::string b = str(n, what);
    if (b != "true" && b != "false") fail(n, fmt::format("{} must be true or false, got '{}'", what, b));
    return b == "true";
  }

  Role role(const YAML::Node& n) const {
    return choice<Role>(n, "role",
                        {{"identifying", Role::identifying},
                         {"quasi-identifying", Role::quasi_identifying},
                         {"sensitive", Role::sensitive},
                         {"insensitive", Role::insensitive}});
  }

  // "60s", "2m", "1h", "500ms" or a plain number of seconds.
  double duration(const YAML::Node& n) const {
    const std::string s = str(n, "time-limit");
    double scale = 1;
    std::string digits = s;
    auto ends = [&](const char* suffix) {
      const std::string suf(suffix);
      return s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
    };
    if (ends("ms")) { scale = 1e-3; digits = s.substr(0, s.size() - 2); }
    else if (ends("s")) { digits = s.substr(0, s.size() - 1); }
    else if (ends("m")) { scale = 60; digits = s.substr(0, s.size() - 1); }
    else if (ends("h")) { scale = 3600; digits = s.substr(0, s.size() - 1); }
    double v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size() || !(v > 0) || !std::isfinite(v))
      fail(n, fmt::format("time-limit must be a positive duration such as 60s, 5m, 1h, 500ms or 90 (seconds), "
                          "got '{}'",
                          s));
    // A year is the most a search is worth waiting for; beyond, the value
    // is a typo (and 1e308h would be infinite).
    if (v * scale > 365.0 * 24 * 3600)
      fail(n, fmt::format("time-limit must be at most a year (8760h), got '{}'", s));
    return v * scale;
  }
};

// An inline hierarchy definition, `hierarchy: {type: intervals, ...}`, with
// the parameters of `deid hierarchy TYPE` (docs/job-file.md). Its parameters
// are checked here, so a bad definition is reported with its line before
// any data is read; the values are checked when prepare() builds it.
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

HierarchyBuilderSpec parse_hierarchy_builder(const Ctx& ctx, const YAML::Node& h, const std::string& attribute) {
  const std::string where = fmt::format("the hierarchy of attribute '{}'", attribute);
  if (!h["type"])
    ctx.fail(h, fmt::format("{} needs 'type': intervals, masking, dates or grouping (or give the path of a "
                            "hierarchy file)",
                            where));
  enum class Type { intervals, masking, dates, grouping };
  const Type type = ctx.choice<Type>(h["type"], "hierarchy type",
                                     {{"intervals", Type::intervals},
                                      {"masking", Type::masking},
                                      {"dates", Type::dates},
                                      {"grouping", Type::grouping}});
  auto numbers = [&](const YAML::Node& n, const char* what) {
    if (!n.IsSequence() || n.size() == 0) ctx.fail(n, fmt::format("{} must be a non-empty list of numbers", what));
    std::vector<double> out;
    for (const auto& x : n) out.push_back(ctx.num(x, what));
    return out;
  };
  HierarchyBuilderSpec spec;
  switch (type) {
    case Type::intervals: {
      ctx.keys(h, where, {"type", "min", "max", "widths", "bottom-coding", "top-coding"});
      for (const char* k : {"min", "max", "widths"})
        if (!h[k]) ctx.fail(h, fmt::format("an intervals hierarchy needs '{}' (keys: min, max, widths, "
                                           "bottom-coding, top-coding)",
                                           k));
      IntervalSpec s;
      s.min = ctx.num(h["min"], "min");
      s.max = ctx.num(h["max"], "max");
      s.widths = numbers(h["widths"], "widths");
      if (h["bottom-coding"]) s.bottom_coding = ctx.boolean(h["bottom-coding"], "bottom-coding");
      if (h["top-coding"]) s.top_coding = ctx.boolean(h["top-coding"], "top-coding");
      spec = s;
      break;
    }
    case Type::masking: {
      ctx.keys(h, where, {"type", "levels", "from-left", "mask-char"});
      MaskingSpec s;
      if (h["levels"]) s.levels = static_cast<int>(std::min<std::uint64_t>(ctx.integer(h["levels"], "levels", 1), 1000));
      if (h["from-left"]) s.from_left = ctx.boolean(h["from-left"], "from-left");
      if (h["mask-char"]) {
        const std::string c = ctx.str(h["mask-char"], "mask-char");
        if (c.size() != 1) ctx.fail(h["mask-char"], fmt::format("mask-char must be a single character, got '{}'", c));
        s.mask_char = c[0];
      }
      spec = s;
      break;
    }
    case Type::dates: {
      ctx.keys(h, where, {"type", "month", "year", "decade"});
      DateSpec s;
      if (h["month"]) s.month = ctx.boolean(h["month"], "month");
      if (h["year"]) s.year = ctx.boolean(h["year"], "year");
      if (h["decade"]) s.decade = ctx.boolean(h["decade"], "decade");
      spec = s;
      break;
    }
    case Type::grouping: {
      ctx.keys(h, where, {"type", "order", "sizes"});
      for (const char* k : {"order", "sizes"})
        if (!h[k]) ctx.fail(h, fmt::format("a grouping hierarchy needs '{}' (keys: order, sizes)", k));
      GroupingSpec s;
      if (!h["order"].IsSequence()) ctx.fail(h["order"], "order must be a list of categories, in order");
      for (const auto& o : h["order"]) s.order.push_back(ctx.str(o, "category"));
      if (!h["sizes"].IsSequence() || h["sizes"].size() == 0)
        ctx.fail(h["sizes"], "sizes must be a non-empty list of group sizes, e.g. [2, 4]");
      for (const auto& x : h["sizes"]) s.sizes.push_back(static_cast<std::size_t>(ctx.integer(x, "group size", 2)));
      spec = s;
      break;
    }
  }
  try {
    check_parameters(spec);
  } catch (const HierarchyParameterError& e) {
    const YAML::Node at = h[e.parameter()] ? h[e.parameter()] : h;
    ctx.fail(at, fmt::format("attribute '{}': {}", attribute, e.problem()));
  }
  return spec;
}

// Gives attribute `a` the hierarchy `h`, in place of any the job gives it.
// A builder is parsed from its own text, named by h.source in messages.
void give_hierarchy(const HierarchyOverride& h, AttributeSpec& a) {
  a.hierarchy.clear();
  a.hierarchy_builder.reset();
  a.hierarchy_data.reset();
  a.hierarchy_line = a.hierarchy_column = 0;
  a.hierarchy_source.clear();
  if (h.table) {
    a.hierarchy_data = h.table;
    return;
  }
  if (!h.builder.empty()) {
    const Ctx ctx{h.source, {}, nullptr};
    try {
      const YAML::Node node = YAML::Load(h.builder);
      if (!node.IsMap())
        ctx.fail(node, fmt::format("the hierarchy of attribute '{}' must be a mapping such as {{type: masking}}",
                                   a.name));
      a.hierarchy_builder = parse_hierarchy_builder(ctx, node, a.name);
      const auto m = node.Mark();
      a.hierarchy_line = static_cast<std::uint64_t>(m.line + 1);
      a.hierarchy_column = static_cast<std::uint64_t>(m.column + 1);
      a.hierarchy_source = h.source;
    } catch (const YAML::Exception& e) {
      throw JobError(Location{h.source, static_cast<std::uint64_t>(e.mark.line + 1),
                              static_cast<std::uint64_t>(e.mark.column + 1), {}},
                     yaml_problem(e));
    }
    return;
  }
  if (h.path.empty())
    throw JobError(Location{h.source, 0, 0, {}},
                   fmt::format("attribute '{}': the path of its hierarchy must not be empty", a.name));
  a.hierarchy = h.path;
}

// The attribute of l-diversity or t-closeness must be listed with role:
// sensitive (the models protect the distribution of a sensitive attribute).
const AttributeSpec& sensitive_attribute(const Ctx& ctx, const Job& job, const YAML::Node& node,
                                         const std::string& model) {
  const std::string name = ctx.str(node, "attribute");
  const AttributeSpec* a = job.attribute(name);
  if (!a)
    ctx.fail(node, fmt::format("{} on '{}': the attribute must be listed under 'attributes' with role: sensitive",
                               model, name));
  if (a->role != Role::sensitive)
    ctx.fail(node, fmt::format("{} on '{}': the attribute has role {} (line {}); it must have role: sensitive", model,
                               name, to_string(a->role), a->line));
  return *a;
}

PrivacySpec parse_privacy(const Ctx& ctx, const Job& job, const YAML::Node& item) {
  if (!item.IsMap() || item.size() != 1)
    ctx.fail(item, "each entry of 'privacy' must be a mapping with one model, e.g. '- k-anonymity: {k: 5}'");
  const auto kv = *item.begin();
  const std::string model = kv.first.as<std::string>();
  const YAML::Node& p = kv.second;
  if (model == "k-anonymity") {
    ctx.keys(p, "k-anonymity", {"k"});
    if (!p["k"]) ctx.fail(p, "k-anonymity needs 'k'");
    return KAnonymitySpec{ctx.integer(p["k"], "k", 1)};
  }
  if (model == "l-diversity") {
    ctx.keys(p, "l-diversity", {"attribute", "variant", "l", "c", "estimator"});
    LDiversitySpec s;
    if (!p["attribute"]) ctx.fail(p, "l-diversity needs 'attribute' (a sensitive attribute)");
    if (!p["l"]) ctx.fail(p, "l-diversity needs 'l'");
    s.attribute = sensitive_attribute(ctx, job, p["attribute"], model).name;
    if (p["variant"])
      s.variant = ctx.choice<LDiversitySpec::Variant>(p["variant"], "variant",
                                                      {{"distinct", LDiversitySpec::Variant::distinct},
                                                       {"entropy", LDiversitySpec::Variant::entropy},
                                                       {"recursive", LDiversitySpec::Variant::recursive}});
    s.l = ctx.num(p["l"], "l");
    if (s.l < 1) ctx.fail(p["l"], fmt::format("l must be >= 1, got {}", p["l"].as<std::string>()));
    if (s.l > kMaxCount)
      ctx.fail(p["l"], fmt::format("l must be at most {}, got {}", kMaxCount, p["l"].as<std::string>()));
    // ARX's distinct and recursive (c,l)-diversity take an integer l (the
    // number of distinct values that must occur); entropy-l may be real.
    if (s.variant != LDiversitySpec::Variant::entropy && s.l != std::floor(s.l))
      ctx.fail(p["l"], fmt::format("l must be an integer for variant {}, got {}",
                                   s.variant == LDiversitySpec::Variant::distinct ? "distinct" : "recursive",
                                   p["l"].as<std::string>()));
    if (p["c"]) {
      if (s.variant != LDiversitySpec::Variant::recursive) ctx.fail(p["c"], "'c' applies only to variant: recursive");
      s.c = ctx.num(p["c"], "c");
      if (!(s.c > 0)) ctx.fail(p["c"], "c must be > 0");
    } else if (s.variant == LDiversitySpec::Variant::recursive) {
      ctx.fail(p, "recursive (c,l)-diversity needs 'c'");
    }
    if (p["estimator"]) {
      if (s.variant != LDiversitySpec::Variant::entropy)
        ctx.fail(p["estimator"], "'estimator' applies only to variant: entropy");
      s.estimator = ctx.choice<LDiversitySpec::Estimator>(p["estimator"], "estimator",
                                                          {{"shannon", LDiversitySpec::Estimator::shannon},
                                                           {"grassberger", LDiversitySpec::Estimator::grassberger}});
    }
    return s;
  }
  if (model == "t-closeness") {
    ctx.keys(p, "t-closeness", {"attribute", "distance", "t"});
    TClosenessSpec s;
    if (!p["attribute"]) ctx.fail(p, "t-closeness needs 'attribute' (a sensitive attribute)");
    if (!p["t"]) ctx.fail(p, "t-closeness needs 't'");
    const AttributeSpec& a = sensitive_attribute(ctx, job, p["attribute"], model);
    s.attribute = a.name;
    if (p["distance"])
      s.distance = ctx.choice<TClosenessSpec::Distance>(p["distance"], "distance",
                                                        {{"equal", TClosenessSpec::Distance::equal},
                                                         {"hierarchical", TClosenessSpec::Distance::hierarchical},
                                                         {"ordered", TClosenessSpec::Distance::ordered}});
    if (s.distance == TClosenessSpec::Distance::hierarchical && !a.has_hierarchy())
      ctx.fail(p["distance"], fmt::format("t-closeness with distance: hierarchical needs a 'hierarchy' for "
                                          "attribute '{}' (line {})",
                                          a.name, a.line));
    s.t = ctx.fraction(p["t"], "t");
    return s;
  }
  if (model == "population-uniqueness") {
    ctx.keys(p, "population-uniqueness", {"threshold", "population-size", "estimator"});
    PopulationUniquenessSpec s;
    if (!p["threshold"]) ctx.fail(p, "population-uniqueness needs 'threshold'");
    if (!p["population-size"]) ctx.fail(p, "population-uniqueness needs 'population-size'");
    s.threshold = ctx.fraction(p["threshold"], "threshold");
    s.population_size = ctx.num(p["population-size"], "population-size");
    if (!(s.population_size >= 1)) ctx.fail(p["population-size"], "population-size must be >= 1");
    if (s.population_size > kMaxPopulation)
      ctx.fail(p["population-size"], fmt::format("population-size must be at most {}, got {}", kMaxPopulation,
                                                 p["population-size"].as<std::string>()));
    if (p["estimator"])
      s.estimator = ctx.choice<PopulationUniquenessSpec::Estimator>(
          p["estimator"], "estimator",
          {{"dankar", PopulationUniquenessSpec::Estimator::dankar},
           {"pitman", PopulationUniquenessSpec::Estimator::pitman},
           {"zayatz", PopulationUniquenessSpec::Estimator::zayatz},
           {"snb", PopulationUniquenessSpec::Estimator::snb}});
    return s;
  }
  if (model == "average-risk") {
    ctx.keys(p, "average-risk", {"threshold", "highest-risk", "records-at-risk"});
    AverageRiskSpec s;
    if (!p["threshold"]) ctx.fail(p, "average-risk needs 'threshold' (the highest average risk, e.g. 0.05)");
    s.threshold = ctx.fraction(p["threshold"], "threshold");
    if (p["highest-risk"]) {
      s.highest_risk = ctx.fraction(p["highest-risk"], "highest-risk");
      if (*s.highest_risk == 0) ctx.fail(p["highest-risk"], "highest-risk must be > 0 (a risk of 1/class size)");
    }
    if (p["records-at-risk"]) {
      if (!s.highest_risk)
        ctx.fail(p["records-at-risk"], "'records-at-risk' needs 'highest-risk' (the risk above which a record is "
                                       "at risk)");
      s.records_at_risk = ctx.fraction(p["records-at-risk"], "records-at-risk");
    }
    return s;
  }
  if (model == "sample-uniqueness") {
    ctx.keys(p, "sample-uniqueness", {"threshold"});
    if (!p["threshold"]) ctx.fail(p, "sample-uniqueness needs 'threshold' (the highest share of sample uniques)");
    return SampleUniquenessSpec{ctx.fraction(p["threshold"], "threshold")};
  }
  if (model == "delta-disclosure") {
    ctx.keys(p, "delta-disclosure", {"attribute", "delta"});
    DeltaDisclosureSpec s;
    if (!p["attribute"]) ctx.fail(p, "delta-disclosure needs 'attribute' (a sensitive attribute)");
    if (!p["delta"]) ctx.fail(p, "delta-disclosure needs 'delta'");
    s.attribute = sensitive_attribute(ctx, job, p["attribute"], model).name;
    s.delta = ctx.num(p["delta"], "delta");
    if (!(s.delta > 0)) ctx.fail(p["delta"], fmt::format("delta must be > 0, got {}", p["delta"].as<std::string>()));
    return s;
  }
  if (model == "beta-likeness") {
    ctx.keys(p, "beta-likeness", {"attribute", "variant", "beta"});
    BetaLikenessSpec s;
    if (!p["attribute"]) ctx.fail(p, "beta-likeness needs 'attribute' (a sensitive attribute)");
    if (!p["beta"]) ctx.fail(p, "beta-likeness needs 'beta'");
    s.attribute = sensitive_attribute(ctx, job, p["attribute"], model).name;
    if (p["variant"])
      s.variant = ctx.choice<BetaLikenessSpec::Variant>(p["variant"], "variant",
                                                        {{"basic", BetaLikenessSpec::Variant::basic},
                                                         {"enhanced", BetaLikenessSpec::Variant::enhanced}});
    s.beta = ctx.num(p["beta"], "beta");
    if (!(s.beta > 0)) ctx.fail(p["beta"], fmt::format("beta must be > 0, got {}", p["beta"].as<std::string>()));
    return s;
  }
  if (model == "k-map") {
    ctx.keys(p, "k-map", {"k", "population-size", "significance", "estimator"});
    KMapSpec s;
    if (!p["k"]) ctx.fail(p, "k-map needs 'k'");
    s.k = ctx.integer(p["k"], "k", 1, 2147483647.0);
    if (!p["population-size"]) {
      // ARX's KMap(k, subset): the data are the population table.
      if (p["significance"] || p["estimator"])
        ctx.fail(p["significance"] ? p["significance"] : p["estimator"],
                 "k-map's significance and estimator go with 'population-size'; without it the data are the "
                 "population and the research subset the sample");
      return s;
    }
    s.population_size = ctx.num(p["population-size"], "population-size");
    if (!(s.population_size >= 1) || s.population_size != std::floor(s.population_size))
      ctx.fail(p["population-size"], "population-size must be a whole number >= 1");
    if (s.population_size > kMaxPopulation)
      ctx.fail(p["population-size"], fmt::format("population-size must be at most {}, got {}", kMaxPopulation,
                                                 p["population-size"].as<std::string>()));
    if (p["significance"]) s.significance = ctx.fraction(p["significance"], "significance");
    if (p["estimator"])
      s.estimator = ctx.choice<KMapSpec::Estimator>(
          p["estimator"], "estimator",
          {{"poisson", KMapSpec::Estimator::poisson},
           {"zero-truncated-poisson", KMapSpec::Estimator::zero_truncated_poisson}});
    return s;
  }
  if (model == "profitability") {
    ctx.keys(p, "profitability", {"attacker", "attack"});
    ProfitabilitySpec s;
    if (p["attacker"]) {
      const std::string attacker = ctx.str(p["attacker"], "attacker");
      if (attacker != "prosecutor" && attacker != "journalist")
        ctx.fail(p["attacker"], fmt::format("attacker must be prosecutor or journalist, got '{}'", attacker));
      s.journalist = attacker == "journalist";
    }
    if (p["attack"]) s.attack = ctx.boolean(p["attack"], "attack");
    return s;
  }
  if (model == "delta-presence") {
    ctx.keys(p, "delta-presence", {"min", "max"});
    DeltaPresenceSpec s;
    if (!p["min"] || !p["max"]) ctx.fail(p, "delta-presence needs 'min' and 'max' (the bounds of each class's share "
                                            "of its population records in the research subset)");
    s.min = ctx.fraction(p["min"], "min");
    s.max = ctx.fraction(p["max"], "max");
    if (s.min > s.max) ctx.fail(p["max"], fmt::format("delta-presence: max ({}) is below min ({})", s.max, s.min));
    return s;
  }
  if (model == "differential-privacy") {
    ctx.keys(p, "differential-privacy", {"epsilon", "delta", "search-budget", "steps", "seed", "generalization"});
    DifferentialPrivacySpec s;
    s.line = static_cast<std::uint64_t>(item.Mark().line + 1);
    s.column = static_cast<std::uint64_t>(item.Mark().column + 1);
    if (!p["epsilon"]) ctx.fail(p, "differential-privacy needs 'epsilon' (the privacy budget, e.g. 2)");
    if (!p["delta"]) ctx.fail(p, "differential-privacy needs 'delta' (e.g. 1e-6)");
    s.epsilon = ctx.num(p["epsilon"], "epsilon");
    if (!(s.epsilon > 0)) ctx.fail(p["epsilon"], fmt::format("epsilon must be > 0, got {}", p["epsilon"].as<std::string>()));
    s.delta = ctx.num(p["delta"], "delta");
    if (!(s.delta > 0 && s.delta < 1))
      ctx.fail(p["delta"], fmt::format("delta must be in (0, 1), got {}", p["delta"].as<std::string>()));
    if (const auto& g = p["generalization"]) {
      // Data-independent: the transformation is fixed before the data are seen.
      for (const char* key : {"search-budget", "steps"})
        if (p[key])
          ctx.fail(p[key], fmt::format("'{}' applies only to the data-dependent variant (without 'generalization')",
                                       key));
      if (!g.IsMap() || g.size() == 0)
        ctx.fail(g, "generalization must map each quasi-identifier to a level, e.g. {age: 2, sex: 0}");
      std::set<std::string> seen;
      for (const auto& kv2 : g) {
        const std::string name = ctx.name(kv2.first, "a quasi-identifier of generalization");
        if (!seen.insert(name).second) ctx.fail(kv2.first, fmt::format("generalization gives '{}' twice", name));
        const AttributeSpec* a = job.attribute(name);
        if (!a || a->role != Role::quasi_identifying)
          ctx.fail(kv2.first, fmt::format("generalization names '{}', which is not a quasi-identifying attribute of "
                                          "the job",
                                          name));
        s.generalization.emplace_back(name, static_cast<int>(ctx.integer(kv2.second, "a level", 0, 255)));
      }
    } else {
      if (p["search-budget"]) {
        s.search_budget = ctx.num(p["search-budget"], "search-budget");
        if (!(s.search_budget > 0))
          ctx.fail(p["search-budget"], fmt::format("search-budget must be > 0, got {}",
                                                   p["search-budget"].as<std::string>()));
      }
      // ARX: the search's budget is part of epsilon, and less than all of it.
      if (!(s.search_budget < s.epsilon))
        ctx.fail(p["search-budget"] ? p["search-budget"] : p["epsilon"],
                 fmt::format("search-budget ({}) must be smaller than epsilon ({}): the search spends it out of "
                             "epsilon",
                             s.search_budget, s.epsilon));
      if (p["steps"]) s.steps = ctx.integer(p["steps"], "steps", 0, 1e6);
    }
    if (const auto& seed = p["seed"]) {
      const std::string text = ctx.str(seed, "seed");
      if (text == "arx") {
        s.seed = kArxDeterministicSeed;
      } else {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size())
          ctx.fail(seed, fmt::format("seed must be an integer (a 64-bit seed of java.util.Random) or 'arx' (ARX's "
                                     "deterministic seed), got '{}'",
                                     text));
        s.seed = v;
      }
    }
    return s;
  }
  ctx.fail(kv.first, fmt::format("unknown privacy model '{}' (known: k-anonymity, l-diversity, t-closeness, "
                                 "population-uniqueness, average-risk, sample-uniqueness, delta-disclosure, "
                                 "beta-likeness, k-map, profitability, delta-presence, differential-privacy)",
                                 model));
}

// `cell-suppression:` (docs/cell-suppression.md). Names of attributes and
// released columns are checked against the data when the job runs.
Job::CellSuppression parse_cell_suppression(const Ctx& ctx, const Job& job, const YAML::Node& cs) {
  ctx.keys(cs, "cell-suppression",
           {"k", "tau", "marker", "weights", "release-levels", "combinations", "compare-complete", "missingness",
            "samples", "registry"});
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
      ctx.keys(v, where, {"levels", "names", "known-level", "evaluate", "totally-ordered"});
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
      ctx.keys(m, "a missingness entry", {"variable", "by"});
      if (!m["variable"] || !m["by"]) ctx.fail(m, "a missingness entry needs 'variable' and 'by'");
      out.missingness.push_back({ctx.name(m["variable"], "variable"), ctx.name(m["by"], "by")});
      if (out.missingness.back().variable == out.missingness.back().by)
        ctx.fail(m["by"], fmt::format("missingness of '{}' by itself: 'by' must be another column",
                                      m["by"].as<std::string>()));
    }
  }
  if (cs["samples"]) {
    const auto& sm = cs["samples"];
    ctx.keys(sm, "samples", {"seed", "draws"});
    if (sm["seed"]) out.seed = ctx.integer(sm["seed"], "seed", 0);
    if (!sm["draws"] || !sm["draws"].IsSequence() || sm["draws"].size() == 0)
      ctx.fail(sm, "samples needs 'draws': a list of {fraction: 0.1, path: sample.csv}");
    double total = 0;
    for (const auto& d : sm["draws"]) {
      ctx.keys(d, "a sample draw", {"fraction", "path"});
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
    ctx.keys(rg, "registry", {"attributes", "population", "count-column", "sampling-fraction"});
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

// PostgreSQL's identifiers hold at most 63 bytes (NAMEDATALEN - 1); a longer
// name would be truncated by the server, silently naming another table.
void check_identifier(const Ctx& ctx, const YAML::Node& n, const std::string& what, const std::string& name) {
  if (name.size() > 63)
    ctx.fail(n, fmt::format("{} '{}' is {} bytes long; PostgreSQL names hold at most 63", what, name, name.size()));
  if (name.find('\0') != std::string::npos) ctx.fail(n, fmt::format("{} must not contain a NUL byte", what));
}

// input.postgres or output.postgres (docs/databases.md).
PostgresTable parse_postgres(const Ctx& ctx, const YAML::Node& n, bool input) {
  const std::string where = input ? "input.postgres" : "output.postgres";
  if (input)
    ctx.keys(n, where, {"connection", "schema", "table", "query", "pushdown"});
  else
    ctx.keys(n, where, {"connection", "schema", "table", "mode"});
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

// What (epsilon, delta)-differential privacy cannot be combined with: what
// ARX refuses (ARXAnonymizer.checkBeforeAnonymizing,
// ARXConfiguration.addPrivacyModel: a model with a research subset of its own (delta-presence, k-map with the
// population table, the journalist's profitability), microaggregation, a
// quality model without a score function, an optimal search) and what deid
// does not support with it (a suppression limit: the model suppresses every
// class with fewer than k sampled records). Every other privacy model is
// judged on the sample, as ARX judges it (its research subset).
void check_differential_privacy(const Ctx& ctx, const YAML::Node& root, Job& job) {
  const DifferentialPrivacySpec* dp = nullptr;
  std::size_t index = 0;
  for (std::size_t i = 0; i < job.privacy.size(); ++i)
    if (const auto* s = std::get_if<DifferentialPrivacySpec>(&job.privacy[i])) {
      dp = s;
      index = i;
    }
  const auto& search = root["search"];
  if (!dp) {
    if (job.search.algorithm == SearchSpec::Algorithm::safepub)
      ctx.fail(search["algorithm"], "search.algorithm: safepub needs the differential-privacy privacy model "
                                    "(data-dependent: without 'generalization')");
    return;
  }
  const auto& entry = root["privacy"][index];
  for (std::size_t i = 0; i < job.privacy.size(); ++i) {
    const PrivacySpec& p = job.privacy[i];
    const auto& other = root["privacy"][i];
    // ARX: "Combining differential privacy with a research subset is not
    // supported" (ARXConfiguration.addPrivacyModel).
    const char* with_subset = nullptr;
    if (std::holds_alternative<DeltaPresenceSpec>(p))
      with_subset = "delta-presence";
    else if (const auto* km = std::get_if<KMapSpec>(&p); km && km->population_size == 0)
      with_subset = "k-map with the population table";
    else if (const auto* pr = std::get_if<ProfitabilitySpec>(&p); pr && pr->journalist)
      with_subset = "the journalist's profitability";
    if (with_subset)
      ctx.fail(other, fmt::format("{} needs a research subset, and differential privacy's sample is its release's "
                                  "research subset: they cannot be combined (ARX refuses it too)",
                                  with_subset));
  }
  if (root["suppression-limit"] && job.suppression_limit != 1)
    ctx.fail(root["suppression-limit"], "differential-privacy sets the suppression limit to 1 (ARX: 100 %): it "
                                        "suppresses every class with fewer than k sampled records and every record "
                                        "outside the sample; remove suppression-limit");
  job.suppression_limit = 1;
  for (const AttributeSpec& a : job.attributes)
    if (a.microaggregation)
      throw JobError(Location{job.path, a.line, 0, {}},
                     fmt::format("attribute '{}': differential privacy cannot be combined with microaggregation "
                                 "(ARX refuses it too)",
                                 a.name));
  if (search && search["transformation"])
    ctx.fail(search["transformation"], dp->data_dependent()
                                           ? "differential-privacy picks the transformation itself (SafePub); give "
                                             "a fixed one as the model's 'generalization' (data-independent)"
                                           : "differential-privacy's 'generalization' is the transformation; remove "
                                             "search.transformation");
  for (const char* key : {"time-limit", "max-checks"})
    if (search && search[key])
      ctx.fail(search[key], fmt::format("search.{} does not apply to differential privacy: its search runs the "
                                        "model's 'steps' (a limit on time would make its result depend on the "
                                        "machine)",
                                        key));
  if (dp->data_dependent()) {
    if (job.search.algorithm != SearchSpec::Algorithm::automatic &&
        job.search.algorithm != SearchSpec::Algorithm::safepub)
      ctx.fail(search["algorithm"], fmt::format("search.algorithm: {} cannot search under differential privacy: "
                                                "its guarantee needs the SafePub search (ARX supports no optimal "
                                                "search for it); use auto or safepub",
                                                to_string(job.search.algorithm)));
    const std::string& m = job.quality.model;
    const bool scored = m == "loss" || m == "precision" || m == "entropy" || m == "normalized-entropy" ||
                        m == "discernability" || m == "aecs" || m == "classification";
    if (!scored) {
      const auto& q = root["quality"];
      const std::string why = "ARX has no score function for it";
      if (q && q["model"])
        ctx.fail(q["model"], fmt::format("quality model '{}' cannot guide the differential-privacy search ({}); "
                                         "use loss, precision, entropy, normalized-entropy, discernability, aecs "
                                         "or classification",
                                         m, why));
      ctx.fail(entry, fmt::format("quality model '{}' cannot guide the differential-privacy search ({})", m, why));
    }
  } else {
    if (job.search.algorithm != SearchSpec::Algorithm::automatic)
      ctx.fail(search["algorithm"], "differential-privacy with 'generalization' releases that transformation; "
                                    "search.algorithm does not apply");
    for (const AttributeSpec& a : job.attributes)
      if (a.min_level || a.max_level)
        throw JobError(Location{job.path, a.min_level ? a.min_level_line : a.max_level_line, 0, {}},
                       fmt::format("attribute '{}': min-level and max-level do not apply with differential "
                                   "privacy's 'generalization' (it fixes every level)",
                                   a.name));
  }
}

Job parse(const Ctx& ctx, const YAML::Node& root) {
  Job job;
  job.path = ctx.file;
  job.base_dir = ctx.base_dir;
  if (!root || root.IsNull()) throw JobError(Location{ctx.file, 0, 0, {}}, "the job file is empty");
  ctx.keys(root, "the job", {"input", "attributes", "default-role", "privacy", "suppression-limit", "quality",
                             "search", "output", "risk", "cell-suppression", "utility", "cost-benefit",
                             "subset"});

  if (!root["input"]) ctx.fail(root, "the job needs 'input' with a 'path'");
  const auto& in = root["input"];
  ctx.keys(in, "input", {"path", "delimiter", "postgres"});
  if (in["postgres"]) {
    if (in["path"] || in["delimiter"])
      ctx.fail(in["postgres"], "input has either 'path' (a CSV file) or 'postgres' (a table), not both");
    job.input.postgres = parse_postgres(ctx, in["postgres"], true);
  } else {
    if (!in["path"]) ctx.fail(in, "input needs 'path' (a CSV file) or 'postgres' (a table)");
    job.input.path = ctx.path(in["path"], "input.path");
    if (in["delimiter"]) job.input.delimiter = ctx.delimiter(in["delimiter"]);
  }

  if (root["attributes"]) {
    const auto& attrs = root["attributes"];
    if (!attrs.IsMap()) ctx.fail(attrs, "attributes must be a mapping from column name to {role: ...}");
    for (const auto& kv : attrs) {
      AttributeSpec a;
      a.name = ctx.name(kv.first, "an attribute's name (a column of the input)");
      a.line = static_cast<std::uint64_t>(kv.first.Mark().line + 1);
      const auto& v = kv.second;
      ctx.keys(v, fmt::format("attribute '{}'", a.name),
               {"role", "hierarchy", "order", "min-level", "max-level", "weight", "transformation", "function",
                "generalize-before"});
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

  if (root["privacy"]) {
    const auto& pr = root["privacy"];
    if (!pr.IsSequence()) ctx.fail(pr, "privacy must be a list of models, e.g. '- k-anonymity: {k: 5}'");
    // A model given twice (for the same attribute) is a mistake: the
    // stricter one alone would decide.
    std::set<std::string> models;
    for (const auto& item : pr) {
      job.privacy.push_back(parse_privacy(ctx, job, item));
      job.privacy_lines.push_back(static_cast<std::uint64_t>(item.Mark().line + 1));
      const auto& spec = job.privacy.back();
      std::string key = item.begin()->first.as<std::string>();
      if (auto* l = std::get_if<LDiversitySpec>(&spec)) key += " on '" + l->attribute + "'";
      if (auto* t = std::get_if<TClosenessSpec>(&spec)) key += " on '" + t->attribute + "'";
      if (auto* d = std::get_if<DeltaDisclosureSpec>(&spec)) key += " on '" + d->attribute + "'";
      if (auto* b = std::get_if<BetaLikenessSpec>(&spec)) key += " on '" + b->attribute + "'";
      if (!models.insert(key).second) ctx.fail(item, fmt::format("privacy model {} is listed twice", key));
    }
  }
  if (job.privacy.empty() && !root["cell-suppression"])
    ctx.fail(root, "the job needs at least one privacy model under 'privacy' (or a 'cell-suppression' section)");
  // Every command works on the quasi-identifiers; default-role cannot be
  // quasi-identifying, so they are those listed.
  if (std::none_of(job.attributes.begin(), job.attributes.end(),
                   [](const AttributeSpec& a) { return a.role == Role::quasi_identifying; })) {
    YAML::Node at = root;  // the key 'attributes' when there is one
    // reset(), not operator=: assigning to a Node writes into the node it
    // shares with root and rewrote root while it was iterated (a
    // heap-use-after-free found by fuzz_job).
    for (const auto& kv : root)
      if (kv.first.as<std::string>() == "attributes") at.reset(kv.first);
    ctx.fail(at, "the job has no quasi-identifying attribute: list at least one under 'attributes' with role: "
                 "quasi-identifying (and a hierarchy)");
  }

  if (root["suppression-limit"]) job.suppression_limit = ctx.fraction(root["suppression-limit"], "suppression-limit");

  if (const auto& cb = root["cost-benefit"]) {
    ctx.keys(cb, "cost-benefit", {"publisher-benefit", "publisher-loss", "adversary-gain", "adversary-cost"});
    const auto amount = [&](const char* key, double& out) {
      if (!cb[key]) return;
      out = ctx.num(cb[key], key);
      if (!(out >= 0) || !std::isfinite(out))
        ctx.fail(cb[key], fmt::format("{} must be a finite number >= 0, got {}", key, cb[key].as<std::string>()));
    };
    amount("publisher-benefit", job.cost_benefit.publisher_benefit);
    amount("publisher-loss", job.cost_benefit.publisher_loss);
    amount("adversary-gain", job.cost_benefit.adversary_gain);
    amount("adversary-cost", job.cost_benefit.adversary_cost);
    if (job.cost_benefit.publisher_benefit == 0)
      ctx.fail(cb["publisher-benefit"], "publisher-benefit must be > 0 (the payout of a record released whole)");
  }

  if (root["quality"]) {
    const auto& q = root["quality"];
    ctx.keys(q, "quality", {"model", "aggregate", "gs-factor", "monotonic", "response-variables", "attacker"});
    if (q["model"]) {
      job.quality.model = ctx.str(q["model"], "quality.model");
      static const std::set<std::string> known = {"loss",           "entropy", "precision",          "height",
                                                  "discernability", "aecs",    "normalized-entropy", "ambiguity",
                                                  "kl-divergence", "classification", "publisher-payout"};
      if (!known.contains(job.quality.model))
        ctx.fail(q["model"], fmt::format("quality.model must be one of loss, entropy, precision, height, "
                                         "discernability, aecs, normalized-entropy, ambiguity, kl-divergence, "
                                         "classification, publisher-payout; got '{}'",
                                         job.quality.model));
    }
    if (q["monotonic"]) {
      job.quality.monotonic = ctx.boolean(q["monotonic"], "monotonic");
      if (job.quality.model != "entropy" && job.quality.model != "discernability")
        ctx.fail(q["monotonic"], fmt::format("monotonic applies to model: entropy and model: discernability (ARX's "
                                             "monotonic variants), not to '{}'",
                                             job.quality.model));
    }
    if (q["aggregate"])
      job.quality.aggregate = ctx.choice<Aggregate>(q["aggregate"], "aggregate",
                                                    {{"geometric-mean", Aggregate::geometric_mean},
                                                     {"arithmetic-mean", Aggregate::arithmetic_mean},
                                                     {"sum", Aggregate::sum},
                                                     {"max", Aggregate::max}});
    // Discernability and AECS give one value for the whole table (ARX's
    // Metric.createDiscernabilityMetric / createAECSMetric): nothing to aggregate.
    if (q["aggregate"] && (job.quality.model == "discernability" || job.quality.model == "aecs" ||
                           job.quality.model == "ambiguity" || job.quality.model == "kl-divergence" ||
                           job.quality.model == "classification" || job.quality.model == "publisher-payout"))
      ctx.fail(q["aggregate"], fmt::format("aggregate does not apply to model: {} (one value for the whole table, "
                                           "not one per attribute); remove it",
                                           job.quality.model));
    if (q["gs-factor"]) {
      if (job.quality.model != "loss" && job.quality.model != "classification" &&
          job.quality.model != "publisher-payout")
        ctx.fail(q["gs-factor"], "gs-factor applies only to model: loss, classification and publisher-payout");
      job.quality.gs_factor = ctx.fraction(q["gs-factor"], "gs-factor");
    }
    if (q["attacker"]) {
      if (job.quality.model != "publisher-payout")
        ctx.fail(q["attacker"], "attacker applies only to model: publisher-payout");
      const std::string attacker = ctx.str(q["attacker"], "attacker");
      if (attacker != "prosecutor" && attacker != "journalist")
        ctx.fail(q["attacker"], fmt::format("attacker must be prosecutor or journalist, got '{}'", attacker));
      job.quality.journalist = attacker == "journalist";
    }
    if (const auto& r = q["response-variables"]) {
      if (job.quality.model != "classification")
        ctx.fail(r, fmt::format("response-variables applies only to model: classification, not to '{}'",
                                job.quality.model));
      job.quality.responses_line = static_cast<std::uint64_t>(r.Mark().line + 1);
      if (r.IsSequence()) {
        for (const auto& n : r) job.quality.responses.push_back(ctx.str(n, "response-variables"));
      } else {
        job.quality.responses.push_back(ctx.str(r, "response-variables"));
      }
      if (job.quality.responses.empty())
        ctx.fail(r, "response-variables is empty: name at least one attribute whose value the released data "
                    "should predict");
      for (std::size_t i = 0; i < job.quality.responses.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (job.quality.responses[i] == job.quality.responses[j])
            ctx.fail(r, fmt::format("response-variables names '{}' twice", job.quality.responses[i]));
    } else if (job.quality.model == "classification") {
      ctx.fail(q, "model: classification needs response-variables: the attribute (or list of attributes) whose "
                  "value the released data should predict");
    }
  }

  if (const auto& u = root["utility"]) {
    ctx.keys(u, "utility", {"target", "features"});
    job.utility.line = static_cast<std::uint64_t>(u.Mark().line + 1);
    // One name or a list of names.
    const auto names = [&](const YAML::Node& n, const char* what) {
      std::vector<std::string> out;
      if (n.IsSequence()) {
        if (n.size() == 0) ctx.fail(n, fmt::format("utility.{} must name at least one attribute", what));
        for (const auto& x : n) {
          out.push_back(ctx.name(x, fmt::format("an attribute of utility.{}", what)));
          if (std::count(out.begin(), out.end(), out.back()) > 1)
            ctx.fail(x, fmt::format("utility.{} names '{}' twice", what, out.back()));
        }
      } else {
        out.push_back(ctx.name(n, fmt::format("utility.{}", what)));
      }
      return out;
    };
    if (u["target"]) job.utility.targets = names(u["target"], "target");
    if (u["features"]) job.utility.features = names(u["features"], "features");
  }

  if (root["search"]) {
    const auto& s = root["search"];
    ctx.keys(s, "search", {"algorithm", "time-limit", "max-checks", "transformation", "memory"});
    if (s["algorithm"])
      job.search.algorithm = ctx.choice<SearchSpec::Algorithm>(s["algorithm"], "search.algorithm",
                                                               {{"auto", SearchSpec::Algorithm::automatic},
                                                                {"exhaustive", SearchSpec::Algorithm::exhaustive},
                                                                {"optimal", SearchSpec::Algorithm::optimal},
                                                                {"best-first", SearchSpec::Algorithm::best_first},
                                                                {"safepub", SearchSpec::Algorithm::safepub}});
    if (s["time-limit"]) job.search.time_limit_seconds = ctx.duration(s["time-limit"]);
    if (s["max-checks"]) job.search.max_checks = ctx.integer(s["max-checks"], "max-checks", 1);
    if (s["memory"])
      job.search.memory = ctx.choice<SearchSpec::Memory>(s["memory"], "search.memory",
                                                         {{"auto", SearchSpec::Memory::automatic},
                                                          {"bounded", SearchSpec::Memory::bounded},
                                                          {"fast", SearchSpec::Memory::fast}});
    if (const auto& t = s["transformation"]) {
      if (!t.IsMap() || t.size() == 0)
        ctx.fail(t, "search.transformation must map each quasi-identifier to a level, e.g. {age: 2, sex: 0}");
      std::set<std::string> seen;
      for (const auto& kv : t) {
        const std::string name = ctx.name(kv.first, "a quasi-identifier of search.transformation");
        if (!seen.insert(name).second)
          ctx.fail(kv.first, fmt::format("search.transformation gives '{}' twice", name));
        job.search.transformation.emplace_back(name, static_cast<int>(ctx.integer(kv.second, "a level", 0, 255)));
      }
      job.search.transformation_source = job.path;
      job.search.transformation_line = static_cast<std::uint64_t>(t.Mark().line + 1);
    }
  }

  if (root["output"]) {
    const auto& o = root["output"];
    ctx.keys(o, "output", {"path", "result", "report", "delimiter", "escape-formulas", "utility", "postgres"});
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

  // `deid risk` settings (docs/risk-models.md).
  if (root["risk"]) {
    const auto& r = root["risk"];
    job.risk.line = static_cast<std::uint64_t>(r.Mark().line + 1);
    ctx.keys(r, "risk", {"threshold", "populations"});
    if (r["threshold"]) {
      // In (0, 1]; the attacks use k = ceil(1/threshold), which must stay a
      // count (at most 1e18).
      job.risk.threshold = ctx.fraction(r["threshold"], "risk.threshold");
      if (*job.risk.threshold < 1 / kMaxCount)
        ctx.fail(r["threshold"], fmt::format("risk.threshold must be in (0, 1] and at least {}, got {}", 1 / kMaxCount,
                                             r["threshold"].as<std::string>()));
    }
    if (r["populations"]) {
      const auto& pops = r["populations"];
      if (!pops.IsMap() || pops.size() == 0)
        ctx.fail(pops, "risk.populations must map names to population sizes, e.g. {USA: 318.9e6}");
      for (const auto& kv : pops) {
        const std::string name = ctx.name(kv.first, "a population's name");
        for (const auto& [other, size] : job.risk.populations)
          if (other == name) ctx.fail(kv.first, fmt::format("population '{}' is given twice", name));
        const double size = ctx.num(kv.second, "population size");
        if (!(size >= 1 && size <= kMaxPopulation))
          ctx.fail(kv.second, fmt::format("population '{}': size must be >= 1 and at most {}, got {}", name,
                                          kMaxPopulation, kv.second.as<std::string>()));
        job.risk.populations.emplace_back(name, size);
      }
    }
  }

  if (root["cell-suppression"]) job.cell_suppression = parse_cell_suppression(ctx, job, root["cell-suppression"]);
  if (const auto& sub = root["subset"]) {
    ctx.keys(sub, "subset", {"file", "delimiter", "column", "value"});
    Job::Subset s;
    s.line = static_cast<std::uint64_t>(sub.Mark().line + 1);
    if (sub["file"]) {
      if (sub["column"] || sub["value"])
        ctx.fail(sub, "subset has either 'file' (a table of the subset's records) or 'column' and 'value', not both");
      s.file = ctx.path(sub["file"], "subset.file");
      if (sub["delimiter"]) s.delimiter = ctx.delimiter(sub["delimiter"]);
    } else {
      if (!sub["column"] || !sub["value"])
        ctx.fail(sub, "subset needs 'file' (a table of the subset's records) or 'column' and 'value' (the records "
                      "whose column holds the value)");
      if (sub["delimiter"]) ctx.fail(sub["delimiter"], "subset.delimiter goes with subset.file");
      s.column = ctx.name(sub["column"], "subset.column");
      s.value = ctx.str(sub["value"], "subset.value");
    }
    job.subset = std::move(s);
  }
  // (First: differential privacy refuses those models whatever the subset.)
  check_differential_privacy(ctx, root, job);
  // The models that compare the research subset with its population need
  // one.
  if (!job.subset) {
    for (std::size_t i = 0; i < job.privacy.size(); ++i) {
      const PrivacySpec& p = job.privacy[i];
      const char* needs = nullptr;
      if (std::holds_alternative<DeltaPresenceSpec>(p)) needs = "delta-presence";
      if (const auto* k = std::get_if<KMapSpec>(&p); k && k->population_size == 0)
        needs = "k-map without population-size";
      if (const auto* f = std::get_if<ProfitabilitySpec>(&p); f && f->journalist)
        needs = "profitability with attacker: journalist";
      if (needs)
        throw JobError(Location{ctx.file, job.privacy_lines[i], 0, {}},
                       fmt::format("{} compares a research subset with the data (its population): give the job a "
                                   "'subset' section",
                                   needs));
    }
    if (job.quality.journalist)
      ctx.fail(root["quality"]["attacker"], "publisher-payout with attacker: journalist needs a research subset: "
                                            "give the job a 'subset' section");
  }
  // The profitability model and the publisher payout read `cost-benefit`.
  for (PrivacySpec& p : job.privacy)
    if (auto* s = std::get_if<ProfitabilitySpec>(&p)) s->cost_benefit = job.cost_benefit;
  job.quality.cost_benefit = job.cost_benefit;
  if (root["cost-benefit"] && job.quality.model != "publisher-payout" &&
      std::none_of(job.privacy.begin(), job.privacy.end(),
                   [](const PrivacySpec& p) { return std::holds_alternative<ProfitabilitySpec>(p); }))
    ctx.fail(root["cost-benefit"], "cost-benefit is read only by the profitability privacy model and the "
                                   "publisher-payout quality model, and the job has neither");
  return job;
}

}  // namespace

std::vector<std::pair<std::string, int>> parse_transformation(const std::string& text, const std::string& source) {
  const auto trim = [](std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
  };
  const auto fail = [&](const std::string& problem) { throw JobError(Location{source, 0, 0, {}}, problem); };
  std::vector<std::pair<std::string, int>> out;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      fail(fmt::format("'{}' is not quasi-identifier=level (a transformation is written age=2,sex=0,...)", item));
    const std::string name(trim(item.substr(0, eq)));
    const std::string_view level = trim(item.substr(eq + 1));
    int v = -1;
    const auto [end, ec] = std::from_chars(level.data(), level.data() + level.size(), v);
    if (name.empty()) fail(fmt::format("'{}' names no quasi-identifier", item));
    if (ec != std::errc() || end != level.data() + level.size() || v < 0 || v > 255)
      fail(fmt::format("the level of '{}' must be an integer in [0, 255], got '{}'", name, level));
    for (const auto& [n, l] : out)
      if (n == name) fail(fmt::format("'{}' is given twice", name));
    out.emplace_back(name, v);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

Job parse_job(const std::string& text, const std::string& name, const std::string& base_dir,
              const std::vector<HierarchyOverride>& hierarchies) {
  Ctx ctx{name, base_dir, &hierarchies};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw JobError(Location{name, static_cast<std::uint64_t>(e.mark.line + 1),
                            static_cast<std::uint64_t>(e.mark.column + 1), {}},
                   yaml_problem(e));
  }
  try {
    return parse(ctx, root);
  } catch (const YAML::Exception& e) {
    throw JobError(Location{name, static_cast<std::uint64_t>(e.mark.line + 1), 0, {}}, "invalid job: " + e.msg);
  }
}

Job read_job(const std::string& path, const std::vector<HierarchyOverride>& hierarchies) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(Location{path, 0, 0, {}}, "cannot open the job file");
  // Read in pieces up to a bound: a job is a few kilobytes, and a path such
  // as /dev/zero must end in an error, not in reading until memory runs out.
  constexpr std::size_t kMaxJobBytes = std::size_t{8} << 20;
  std::string text;
  char piece[65536];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    const std::string_view got(piece, static_cast<std::size_t>(in.gcount()));
    if (const std::size_t nul = got.find('\0'); nul != std::string_view::npos)
      throw JobError(Location{path, static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n') +
                                                               std::count(got.begin(), got.begin() + nul, '\n') + 1),
                              0, {}},
                     "the job file is not text (a NUL byte): a job is a YAML file");
    text.append(got);
    if (text.size() > kMaxJobBytes)
      throw JobError(Location{path, 0, 0, {}},
                     fmt::format("the job file is larger than {} MiB: a job is a YAML file of a few kilobytes",
                                 kMaxJobBytes >> 20));
  }
  if (in.bad()) throw IoError(Location{path, 0, 0, {}}, "cannot read the job file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_job(text, path, dir, hierarchies);
}

}  // namespace deid
