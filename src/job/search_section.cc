#include <fmt/format.h>

#include <charconv>
#include <set>
#include <string_view>

#include "deid/error.h"
#include "job/sections.h"

namespace deid::job_parse {

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
