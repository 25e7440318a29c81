#include <fmt/format.h>

#include <charconv>
#include <set>
#include <string_view>

#include "deid/error.h"
#include "job/sections.h"

namespace deid::job_parse {

namespace {

// The genetic algorithm's settings (ARXConfiguration's geneticAlgorithm*),
// only with `algorithm: genetic`.
void parse_genetic(const Ctx& ctx, const YAML::Node& s, SearchSpec& spec) {
  static const char* const kKeys[] = {"subpopulation-size",   "elite-fraction",       "crossover-fraction",
                                      "mutation-probability", "immigration-fraction", "immigration-interval",
                                      "production-fraction",  "iterations",           "seed"};
  for (const char* key : kKeys)
    if (s[key] && spec.algorithm != SearchSpec::Algorithm::genetic)
      ctx.fail(s[key], fmt::format("search.{} is a setting of the genetic algorithm: it needs 'algorithm: genetic', "
                                   "got 'algorithm: {}'",
                                   key, to_string(spec.algorithm)));
  GeneticSpec& g = spec.genetic;
  if (s["subpopulation-size"]) g.subpopulation_size = ctx.integer(s["subpopulation-size"], "subpopulation-size", 1, 1e6);
  if (s["elite-fraction"]) g.elite_fraction = ctx.fraction(s["elite-fraction"], "elite-fraction");
  if (s["crossover-fraction"]) g.crossover_fraction = ctx.fraction(s["crossover-fraction"], "crossover-fraction");
  if (s["mutation-probability"])
    g.mutation_probability = ctx.fraction(s["mutation-probability"], "mutation-probability");
  if (s["immigration-fraction"])
    g.immigration_fraction = ctx.fraction(s["immigration-fraction"], "immigration-fraction");
  if (s["immigration-interval"])
    g.immigration_interval = ctx.integer(s["immigration-interval"], "immigration-interval", 1, 1e9);
  if (s["production-fraction"]) {
    g.production_fraction = ctx.fraction(s["production-fraction"], "production-fraction");
    // The parents are drawn among the fittest ceil(production-fraction × k).
    if (g.production_fraction <= 0)
      ctx.fail(s["production-fraction"], "production-fraction must be > 0 (parents are drawn among that share of "
                                         "the fittest), got 0");
  }
  if (s["iterations"]) g.iterations = ctx.integer(s["iterations"], "iterations", 0, 1e9);
  if (const auto& seed = s["seed"]) {
    const std::string text = ctx.str(seed, "seed");
    if (text == "arx") {
      g.seed = kArxDeterministicSeed;
    } else {
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size())
        ctx.fail(seed, fmt::format("search.seed must be an integer (a 64-bit seed of java.util.Random) or 'arx' "
                                   "(ARX's deterministic seed), got '{}'",
                                   text));
      g.seed = v;
    }
  }
}

}  // namespace

void parse_search(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (root["search"]) {
    const auto& s = root["search"];
    ctx.keys(s, "search", Section::search);
    if (s["algorithm"])
      job.search.algorithm = ctx.choice<SearchSpec::Algorithm>(s["algorithm"], "search.algorithm",
                                                               {{"auto", SearchSpec::Algorithm::automatic},
                                                                {"exhaustive", SearchSpec::Algorithm::exhaustive},
                                                                {"optimal", SearchSpec::Algorithm::optimal},
                                                                {"best-first", SearchSpec::Algorithm::best_first},
                                                                {"safepub", SearchSpec::Algorithm::safepub},
                                                                {"bottom-up", SearchSpec::Algorithm::bottom_up},
                                                                {"top-down", SearchSpec::Algorithm::top_down},
                                                                {"genetic", SearchSpec::Algorithm::genetic}});
    if (s["time-limit"]) job.search.time_limit_seconds = ctx.duration(s["time-limit"]);
    if (s["max-checks"]) job.search.max_checks = ctx.integer(s["max-checks"], "max-checks", 1);
    if (s["heuristic-threshold"])
      job.search.heuristic_threshold = ctx.integer(s["heuristic-threshold"], "heuristic-threshold", 1);
    // Best-first's settings, also for auto (when it runs best-first).
    const auto best_first_only = [&](const YAML::Node& n, const char* key) {
      if (job.search.algorithm != SearchSpec::Algorithm::best_first &&
          job.search.algorithm != SearchSpec::Algorithm::automatic)
        ctx.fail(n, fmt::format("search.{} is a setting of best-first: it needs 'algorithm: best-first' or "
                                "'algorithm: auto', got 'algorithm: {}'",
                                key, to_string(job.search.algorithm)));
    };
    if (const auto& w = s["warm-start"]) {
      best_first_only(w, "warm-start");
      job.search.warm_start = ctx.boolean(w, "search.warm-start");
    }
    if (const auto& q = s["max-queue"]) {
      best_first_only(q, "max-queue");
      job.search.max_queue = ctx.integer(q, "max-queue", 2);
    }
    parse_genetic(ctx, s, job.search);
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
}

}  // namespace deid::job_parse

namespace deid {

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

}  // namespace deid
