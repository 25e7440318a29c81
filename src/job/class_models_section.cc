#include <fmt/format.h>

#include <cmath>

#include "job/sections.h"

namespace deid::job_parse {
namespace {

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

}  // namespace

PrivacySpec parse_k_anonymity(const Ctx& ctx, const YAML::Node& p) {
  if (!p["k"]) ctx.fail(p, "k-anonymity needs 'k'");
  return KAnonymitySpec{ctx.integer(p["k"], "k", 1)};
}

PrivacySpec parse_l_diversity(const Ctx& ctx, const Job& job, const YAML::Node& p) {
  LDiversitySpec s;
  if (!p["attribute"]) ctx.fail(p, "l-diversity needs 'attribute' (a sensitive attribute)");
  if (!p["l"]) ctx.fail(p, "l-diversity needs 'l'");
  s.attribute = sensitive_attribute(ctx, job, p["attribute"], "l-diversity").name;
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

PrivacySpec parse_t_closeness(const Ctx& ctx, const Job& job, const YAML::Node& p) {
  TClosenessSpec s;
  if (!p["attribute"]) ctx.fail(p, "t-closeness needs 'attribute' (a sensitive attribute)");
  if (!p["t"]) ctx.fail(p, "t-closeness needs 't'");
  const AttributeSpec& a = sensitive_attribute(ctx, job, p["attribute"], "t-closeness");
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

PrivacySpec parse_delta_disclosure(const Ctx& ctx, const Job& job, const YAML::Node& p) {
  DeltaDisclosureSpec s;
  if (!p["attribute"]) ctx.fail(p, "delta-disclosure needs 'attribute' (a sensitive attribute)");
  if (!p["delta"]) ctx.fail(p, "delta-disclosure needs 'delta'");
  s.attribute = sensitive_attribute(ctx, job, p["attribute"], "delta-disclosure").name;
  s.delta = ctx.num(p["delta"], "delta");
  if (!(s.delta > 0)) ctx.fail(p["delta"], fmt::format("delta must be > 0, got {}", p["delta"].as<std::string>()));
  return s;
}

PrivacySpec parse_beta_likeness(const Ctx& ctx, const Job& job, const YAML::Node& p) {
  BetaLikenessSpec s;
  if (!p["attribute"]) ctx.fail(p, "beta-likeness needs 'attribute' (a sensitive attribute)");
  if (!p["beta"]) ctx.fail(p, "beta-likeness needs 'beta'");
  s.attribute = sensitive_attribute(ctx, job, p["attribute"], "beta-likeness").name;
  if (p["variant"])
    s.variant = ctx.choice<BetaLikenessSpec::Variant>(p["variant"], "variant",
                                                      {{"basic", BetaLikenessSpec::Variant::basic},
                                                       {"enhanced", BetaLikenessSpec::Variant::enhanced}});
  s.beta = ctx.num(p["beta"], "beta");
  if (!(s.beta > 0)) ctx.fail(p["beta"], fmt::format("beta must be > 0, got {}", p["beta"].as<std::string>()));
  return s;
}

}  // namespace deid::job_parse
