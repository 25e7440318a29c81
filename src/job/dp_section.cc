#include <fmt/format.h>

#include <charconv>
#include <set>

#include "deid/error.h"
#include "job/sections.h"

namespace deid::job_parse {

PrivacySpec parse_differential_privacy(const Ctx& ctx, const Job& job, const YAML::Node& item, const YAML::Node& p) {
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

}  // namespace deid::job_parse
