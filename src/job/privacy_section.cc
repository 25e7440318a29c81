#include <fmt/format.h>

#include <set>

#include "job/sections.h"

namespace deid::job_parse {
namespace {

// The privacy models are the sections from k_anonymity to
// differential_privacy of the key table; a model's name is its doc group.
constexpr Section kFirstModel = Section::k_anonymity;
constexpr Section kLastModel = Section::differential_privacy;

PrivacySpec parse_model(const Ctx& ctx, const Job& job, const YAML::Node& item) {
  if (!item.IsMap() || item.size() != 1)
    ctx.fail(item, "each entry of 'privacy' must be a mapping with one model, e.g. '- k-anonymity: {k: 5}'");
  const auto kv = *item.begin();
  const std::string model = kv.first.as<std::string>();
  const YAML::Node& p = kv.second;
  std::string known;
  for (auto s = static_cast<int>(kFirstModel); s <= static_cast<int>(kLastModel); ++s) {
    const SectionKeys& entry = keys_of(static_cast<Section>(s));
    if (!known.empty()) known += ", ";
    known += entry.group;
    if (model != entry.group) continue;
    ctx.keys(p, model, entry.section);
    switch (entry.section) {
      case Section::k_anonymity: return parse_k_anonymity(ctx, p);
      case Section::l_diversity: return parse_l_diversity(ctx, job, p);
      case Section::t_closeness: return parse_t_closeness(ctx, job, p);
      case Section::population_uniqueness: return parse_population_uniqueness(ctx, p);
      case Section::average_risk: return parse_average_risk(ctx, p);
      case Section::sample_uniqueness: return parse_sample_uniqueness(ctx, p);
      case Section::delta_disclosure: return parse_delta_disclosure(ctx, job, p);
      case Section::beta_likeness: return parse_beta_likeness(ctx, job, p);
      case Section::k_map: return parse_k_map(ctx, p);
      case Section::profitability: return parse_profitability(ctx, p);
      case Section::delta_presence: return parse_delta_presence(ctx, p);
      case Section::differential_privacy: return parse_differential_privacy(ctx, job, item, p);
      default: break;
    }
  }
  ctx.fail(kv.first, fmt::format("unknown privacy model '{}' (known: {})", model, known));
}

}  // namespace

void parse_privacy(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (root["privacy"]) {
    const auto& pr = root["privacy"];
    if (!pr.IsSequence()) ctx.fail(pr, "privacy must be a list of models, e.g. '- k-anonymity: {k: 5}'");
    // A model given twice (for the same attribute) is a mistake: the
    // stricter one alone would decide.
    std::set<std::string> models;
    for (const auto& item : pr) {
      job.privacy.push_back(parse_model(ctx, job, item));
      job.privacy_lines.push_back(line_of(item));
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
}

}  // namespace deid::job_parse
