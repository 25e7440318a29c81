#include <fmt/format.h>

#include <algorithm>

#include "job/sections.h"

namespace deid::job_parse {

void parse_utility(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (const auto& u = root["utility"]) {
    ctx.keys(u, "utility", Section::utility);
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
}

// `deid risk` settings (docs/risk-models.md).
void parse_risk(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (root["risk"]) {
    const auto& r = root["risk"];
    job.risk.line = static_cast<std::uint64_t>(r.Mark().line + 1);
    ctx.keys(r, "risk", Section::risk);
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
}

}  // namespace deid::job_parse
