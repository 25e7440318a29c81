#include <fmt/format.h>

#include "deid/error.h"
#include "job/sections.h"

namespace deid::job_parse {

void parse_subset(const Ctx& ctx, const YAML::Node& root, Job& job) {
  if (const auto& sub = root["subset"]) {
    ctx.keys(sub, "subset", Section::subset);
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
}

// The models that compare the research subset with its population need
// one.
void check_research_subset(const Ctx& ctx, const YAML::Node& root, const Job& job) {
  if (job.subset) return;
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

}  // namespace deid::job_parse
