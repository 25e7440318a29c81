// The parsers of the sections of a job file (internal to src/job/), one
// file each; job.cc calls them in the order that decides which of several
// errors a job reports first. Each reads its section of `root` into `job`
// and throws JobError at the first problem; the checks that need several
// sections run once those are read (check_*).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "deid/job.h"
#include "job/context.h"

namespace deid::job_parse {

// input_output_section.cc: `input` and `output` (files or tables).
void parse_input(const Ctx& ctx, const YAML::Node& root, Job& job);
void parse_output(const Ctx& ctx, const YAML::Node& root, Job& job);

// postgres_section.cc: `input.postgres` (input true) or `output.postgres`.
PostgresTable parse_postgres(const Ctx& ctx, const YAML::Node& n, bool input);

// attributes_section.cc: `attributes`, the hierarchies given beside the job
// (Ctx::given) and `default-role`.
void parse_attributes(const Ctx& ctx, const YAML::Node& root, Job& job);

// hierarchy_section.cc: an inline `hierarchy: {type: ...}`, checked before
// any data is read; and a hierarchy given beside the job.
HierarchyBuilderSpec parse_hierarchy_builder(const Ctx& ctx, const YAML::Node& h, const std::string& attribute);
void give_hierarchy(const HierarchyOverride& h, AttributeSpec& a);

// privacy_section.cc: the `privacy` list, each entry dispatched by its
// model's name (keys.h) to one of the model parsers below.
void parse_privacy(const Ctx& ctx, const YAML::Node& root, Job& job);

// class_models_section.cc: the models that judge each class on its own.
PrivacySpec parse_k_anonymity(const Ctx& ctx, const YAML::Node& p);
PrivacySpec parse_l_diversity(const Ctx& ctx, const Job& job, const YAML::Node& p);
PrivacySpec parse_t_closeness(const Ctx& ctx, const Job& job, const YAML::Node& p);
PrivacySpec parse_delta_disclosure(const Ctx& ctx, const Job& job, const YAML::Node& p);
PrivacySpec parse_beta_likeness(const Ctx& ctx, const Job& job, const YAML::Node& p);

// risk_models_section.cc: the models of re-identification risk against a
// population (uniqueness, average risk, k-map, profitability, δ-presence).
PrivacySpec parse_population_uniqueness(const Ctx& ctx, const YAML::Node& p);
PrivacySpec parse_average_risk(const Ctx& ctx, const YAML::Node& p);
PrivacySpec parse_sample_uniqueness(const Ctx& ctx, const YAML::Node& p);
PrivacySpec parse_k_map(const Ctx& ctx, const YAML::Node& p);
PrivacySpec parse_profitability(const Ctx& ctx, const YAML::Node& p);
PrivacySpec parse_delta_presence(const Ctx& ctx, const YAML::Node& p);

// dp_section.cc: (epsilon, delta)-differential privacy (`item` is its entry
// of the list, for its line), and what it cannot be combined with.
PrivacySpec parse_differential_privacy(const Ctx& ctx, const Job& job, const YAML::Node& item, const YAML::Node& p);
void check_differential_privacy(const Ctx& ctx, const YAML::Node& root, Job& job);

// quality_section.cc: `cost-benefit` and `quality`; then hands the costs
// and benefits to the models that read them.
void parse_cost_benefit(const Ctx& ctx, const YAML::Node& root, Job& job);
void parse_quality(const Ctx& ctx, const YAML::Node& root, Job& job);
void share_cost_benefit(const Ctx& ctx, const YAML::Node& root, Job& job);

// search_section.cc: `search`.
void parse_search(const Ctx& ctx, const YAML::Node& root, Job& job);

// risk_utility_section.cc: `utility` (the utility analysis) and `risk`
// (deid risk).
void parse_utility(const Ctx& ctx, const YAML::Node& root, Job& job);
void parse_risk(const Ctx& ctx, const YAML::Node& root, Job& job);

// local_recoding_section.cc: `local-recoding`, and what it cannot be
// combined with; after every other section.
void parse_local_recoding(const Ctx& ctx, const YAML::Node& root, Job& job);

// subset_section.cc: `subset`, and the models that need one.
void parse_subset(const Ctx& ctx, const YAML::Node& root, Job& job);
void check_research_subset(const Ctx& ctx, const YAML::Node& root, const Job& job);

// identifiers_section.cc: the `action` of identifying attributes and the
// `identifiers` section they need (docs/identifiers.md); after `attributes`
// and `output`.
void parse_identifiers(const Ctx& ctx, const YAML::Node& root, Job& job);
// An identifying column's `action` and its parameters (`what` names the
// column in messages: "attribute 'mrn'").
void parse_action(const Ctx& ctx, const YAML::Node& v, const YAML::Node& root, const std::string& what, Role role,
                  IdentifierActionSpec& s);

// linked_section.cc: `linked`, the tables linked to the job's by the person
// column; after `attributes` and before `identifiers`.
void parse_linked(const Ctx& ctx, const YAML::Node& root, Job& job);

// cell_suppression_section.cc: `cell-suppression` (deid suppress).
void parse_cell_suppression(const Ctx& ctx, const YAML::Node& root, Job& job);

}  // namespace deid::job_parse
