#include "job/keys.h"

#include <stdexcept>

namespace deid::job_parse {

const std::vector<SectionKeys>& key_table() {
  using S = Section;
  static const std::vector<SectionKeys> table = {
      {S::job, "the job", "Job",
       {"input", "attributes", "default-role", "privacy", "suppression-limit", "quality", "search", "output", "risk",
        "cell-suppression", "utility", "cost-benefit", "subset", "identifiers", "linked", "local-recoding"},
       Doc::headings, "Keys"},
      {S::input, "input", "Job::Input", {"path", "parquet", "delimiter", "postgres", "table"}, Doc::rows, "input"},
      {S::input_postgres, "input.postgres", "PostgresTable",
       {"connection", "schema", "table", "query", "pushdown"}, Doc::text, "input"},
      {S::output, "output", "Job::Output",
       {"path", "parquet", "result", "report", "delimiter", "escape-formulas", "utility", "postgres", "table", "mode",
        "linkage"},
       Doc::rows, "output"},
      {S::output_postgres, "output.postgres", "PostgresTable", {"connection", "schema", "table", "mode"}, Doc::text,
       "output"},
      {S::attribute, "attributes.NAME", "AttributeSpec",
       {"role", "hierarchy", "order", "min-level", "max-level", "weight", "transformation", "function",
        "generalize-before", "action", "length", "keep-first", "keep-last", "symbol", "digits", "letters", "regex",
        "replacement", "format"},
       Doc::rows, "attributes"},
      {S::hierarchy_intervals, "attributes.NAME.hierarchy, type: intervals", "IntervalSpec",
       {"type", "min", "max", "widths", "bottom-coding", "top-coding"}, Doc::rows, "Inline hierarchies", "intervals"},
      {S::hierarchy_masking, "attributes.NAME.hierarchy, type: masking", "MaskingSpec",
       {"type", "levels", "from-left", "mask-char"}, Doc::rows, "Inline hierarchies", "masking"},
      {S::hierarchy_dates, "attributes.NAME.hierarchy, type: dates", "DateSpec", {"type", "month", "year", "decade"},
       Doc::rows, "Inline hierarchies", "dates"},
      {S::hierarchy_grouping, "attributes.NAME.hierarchy, type: grouping", "GroupingSpec", {"type", "order", "sizes"},
       Doc::rows, "Inline hierarchies", "grouping"},
      {S::k_anonymity, "privacy: k-anonymity", "KAnonymitySpec", {"k"}, Doc::rows, "privacy", "k-anonymity"},
      {S::l_diversity, "privacy: l-diversity", "LDiversitySpec", {"attribute", "variant", "l", "c", "estimator"},
       Doc::rows, "privacy", "l-diversity"},
      {S::t_closeness, "privacy: t-closeness", "TClosenessSpec", {"attribute", "distance", "t"}, Doc::rows, "privacy",
       "t-closeness"},
      {S::population_uniqueness, "privacy: population-uniqueness", "PopulationUniquenessSpec",
       {"threshold", "population-size", "estimator"}, Doc::rows, "privacy", "population-uniqueness"},
      {S::average_risk, "privacy: average-risk", "AverageRiskSpec", {"threshold", "highest-risk", "records-at-risk"},
       Doc::rows, "privacy", "average-risk"},
      {S::sample_uniqueness, "privacy: sample-uniqueness", "SampleUniquenessSpec", {"threshold"}, Doc::rows,
       "privacy", "sample-uniqueness"},
      {S::delta_disclosure, "privacy: delta-disclosure", "DeltaDisclosureSpec", {"attribute", "delta"}, Doc::rows,
       "privacy", "delta-disclosure"},
      {S::beta_likeness, "privacy: beta-likeness", "BetaLikenessSpec", {"attribute", "variant", "beta"}, Doc::rows,
       "privacy", "beta-likeness"},
      {S::k_map, "privacy: k-map", "KMapSpec", {"k", "population-size", "significance", "estimator"}, Doc::rows,
       "privacy", "k-map"},
      {S::profitability, "privacy: profitability", "ProfitabilitySpec", {"attacker", "attack"}, Doc::rows, "privacy",
       "profitability"},
      {S::delta_presence, "privacy: delta-presence", "DeltaPresenceSpec", {"min", "max"}, Doc::rows, "privacy",
       "delta-presence"},
      {S::differential_privacy, "privacy: differential-privacy", "DifferentialPrivacySpec",
       {"epsilon", "delta", "search-budget", "steps", "seed", "generalization"}, Doc::rows, "privacy",
       "differential-privacy"},
      {S::cost_benefit, "cost-benefit", "CostBenefitSpec",
       {"publisher-benefit", "publisher-loss", "adversary-gain", "adversary-cost"}, Doc::rows, "cost-benefit"},
      {S::quality, "quality", "QualitySpec",
       {"model", "aggregate", "gs-factor", "monotonic", "response-variables", "attacker"}, Doc::rows, "quality"},
      {S::search, "search", "SearchSpec", {"algorithm", "time-limit", "max-checks", "transformation", "memory", "heuristic-threshold",
        "warm-start", "max-queue", "subpopulation-size", "elite-fraction", "crossover-fraction", "mutation-probability", "immigration-fraction",
        "immigration-interval", "production-fraction", "iterations", "seed"},
       Doc::rows, "search"},
      {S::utility, "utility", "Job::Utility", {"target", "features"}, Doc::rows, "utility"},
      {S::risk, "risk", "Job::Risk", {"threshold", "populations"}, Doc::rows, "risk"},
      {S::subset, "subset", "Job::Subset", {"file", "delimiter", "column", "value"}, Doc::rows, "subset"},
      {S::cell_suppression, "cell-suppression", "Job::CellSuppression",
       {"k", "tau", "marker", "weights", "release-levels", "combinations", "compare-complete", "missingness",
        "samples", "registry"},
       Doc::rows, "cell-suppression"},
      {S::release_levels, "cell-suppression.release-levels.NAME", "Job::CellSuppression::Release",
       {"levels", "names", "known-level", "evaluate", "totally-ordered"}, Doc::text, "cell-suppression"},
      {S::missingness, "cell-suppression.missingness[]", "Job::CellSuppression::Missingness", {"variable", "by"},
       Doc::text, "cell-suppression"},
      {S::samples, "cell-suppression.samples", "Job::CellSuppression (seed, samples)", {"seed", "draws"}, Doc::text,
       "cell-suppression"},
      {S::sample_draw, "cell-suppression.samples.draws[]", "Job::CellSuppression::Sample", {"fraction", "path"},
       Doc::text, "cell-suppression"},
      {S::registry, "cell-suppression.registry", "Job::CellSuppression::Registry",
       {"attributes", "population", "count-column", "sampling-fraction"}, Doc::text, "cell-suppression"},
      {S::identifiers, "identifiers", "IdentifiersSpec", {"secret", "person", "shift-days"}, Doc::rows, "identifiers"},
      {S::identifiers_secret, "identifiers.secret", "IdentifiersSpec (secret)", {"file", "env"}, Doc::text,
       "identifiers"},
      {S::linked, "linked[]", "LinkedTable",
       {"name", "path", "delimiter", "key", "output", "suppressed", "orphans", "columns"}, Doc::rows, "linked"},
      {S::linked_column, "linked[].columns.NAME", "LinkedColumn",
       {"role", "as", "action", "length", "keep-first", "keep-last", "symbol", "digits", "letters", "regex",
        "replacement", "format"},
       Doc::rows, "linked[].columns"},
      {S::local_recoding, "local-recoding", "Job::LocalRecoding",
       {"mode", "gs-factor", "max-iterations", "adaption-factor", "records", "column"}, Doc::rows, "local-recoding"},
  };
  return table;
}

const SectionKeys& keys_of(Section section) {
  const auto& table = key_table();
  const auto i = static_cast<std::size_t>(section);
  if (i >= table.size() || table[i].section != section) throw std::logic_error("job key table out of enum order");
  return table[i];
}

}  // namespace deid::job_parse
