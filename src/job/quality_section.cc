#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "job/sections.h"

namespace deid::job_parse {

void parse_cost_benefit(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (const auto& cb = root["cost-benefit"]) {
    ctx.keys(cb, "cost-benefit", Section::cost_benefit);
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
}

void parse_quality(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (root["quality"]) {
    const auto& q = root["quality"];
    ctx.keys(q, "quality", Section::quality);
    if (q["model"]) {
      job.quality.model = ctx.str(q["model"], "quality.model");
      static constexpr const char* known[] = {"loss",           "entropy", "precision",          "height",
                                              "discernability", "aecs",    "normalized-entropy", "ambiguity",
                                              "kl-divergence", "classification", "publisher-payout"};
      if (std::find(std::begin(known), std::end(known), job.quality.model) == std::end(known))
        ctx.fail(q["model"], fmt::format("quality.model must be one of {}; got '{}'", fmt::join(known, ", "),
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
      if (!has_gs_factor(job.quality.model))
        ctx.fail(q["gs-factor"], fmt::format("gs-factor applies only to model: loss, entropy, precision, aecs, classification "
                                             "and publisher-payout (model is '{}')",
                                             job.quality.model));
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
}

// The profitability model and the publisher payout read `cost-benefit`.
void share_cost_benefit(const Ctx& ctx, const YAML::Node& root, Job& job) {
  for (PrivacySpec& p : job.privacy)
    if (auto* s = std::get_if<ProfitabilitySpec>(&p)) s->cost_benefit = job.cost_benefit;
  job.quality.cost_benefit = job.cost_benefit;
  if (root["cost-benefit"] && job.quality.model != "publisher-payout" &&
      std::none_of(job.privacy.begin(), job.privacy.end(),
                   [](const PrivacySpec& p) { return std::holds_alternative<ProfitabilitySpec>(p); }))
    ctx.fail(root["cost-benefit"], "cost-benefit is read only by the profitability privacy model and the "
                                   "publisher-payout quality model, and the job has neither");
}

}  // namespace deid::job_parse
