#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "deid/database.h"
#include "deid/error.h"
#include "deid/hierarchy_builder.h"
#include "deid/identifiers.h"
#include "deid/parquet.h"
#include "deid/pipeline.h"
#include "pipeline/subset.h"
#include "privacy/differential_privacy.h"
#include "transform/microaggregation.h"
#include "util/elapsed.h"

namespace deid {
namespace {

// Builds an inline hierarchy definition from the column's distinct values
// (in order of first appearance, as `deid hierarchy --input` does, so both
// give the same table). A value the builder cannot place is reported at its
// first line in the data, naming the definition's line in the job file.
HierarchyTable build_inline(const Job& job, const AttributeSpec& a, const Dataset& data, const Column& column) {
  std::vector<std::string> values;
  values.reserve(column.dictionary.size());
  for (std::uint32_t c = 0; c < column.dictionary.size(); ++c) values.push_back(column.dictionary.value(c));
  const std::string& file = a.hierarchy_source.empty() ? job.path : a.hierarchy_source;
  const std::string definition = Location{file, a.hierarchy_line, a.hierarchy_column, {}}.to_string();
  try {
    HierarchyTable t = build_hierarchy(values, *a.hierarchy_builder);
    t.source = fmt::format("{} ({} hierarchy of '{}')", definition.empty() ? "the job" : definition,
                           builder_type(*a.hierarchy_builder), a.name);
    return t;
  } catch (const HierarchyValueError& e) {
    const std::int64_t code = column.dictionary.find(e.value());
    const std::uint64_t line = code >= 0 && static_cast<std::size_t>(code) < column.first_line.size()
                                   ? column.first_line[static_cast<std::size_t>(code)]
                                   : 0;
    const int index = data.column_index(column.name);
    throw JobError(Location{data.source, line, index >= 0 ? static_cast<std::uint64_t>(index) + 1 : 0, column.name},
                   fmt::format("attribute '{}': {} (the hierarchy is defined at {}); widen the definition or "
                               "fix the value",
                               a.name, e.problem(), definition.empty() ? "the job" : definition));
  } catch (const HierarchyParameterError& e) {
    // read_job() checks the parameters; a Job built in code may not have.
    throw JobError(Location{file, a.hierarchy_line, a.hierarchy_column, {}},
                   fmt::format("attribute '{}': {}", a.name, e.problem()));
  }
}

}  // namespace

const char* to_string(Phase phase) {
  switch (phase) {
    case Phase::reading: return "reading";
    case Phase::encoding: return "encoding";
    case Phase::search: return "search";
    case Phase::writing: return "writing";
  }
  return "?";
}

HierarchyTable hierarchy_table(const Job& job, const AttributeSpec& attribute, const Dataset& data) {
  if (attribute.hierarchy_data) return *attribute.hierarchy_data;
  if (attribute.hierarchy_builder) {
    const int c = data.column_index(attribute.name);
    if (c < 0)
      throw JobError(Location{job.path, attribute.line, 0, {}},
                     fmt::format("attribute '{}' {}", attribute.name, data.not_a_column()));
    return build_inline(job, attribute, data, data.columns[static_cast<std::size_t>(c)]);
  }
  return read_hierarchy(attribute.hierarchy);
}

// The job's min-level, max-level and weight of each quasi-identifier, once
// the hierarchies' heights are known.
static void set_constraints(const Job& job, Problem& pr) {
  bool constrained = false, weighted = false;
  double largest = 0;
  std::vector<double> weights;
  for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
    const AttributeSpec* spec = job.attribute(pr.qi_names[q]);
    const int top = pr.hierarchies[q].height() - 1;
    // A bound the job gives, within the hierarchy; `fallback` otherwise.
    const auto bound = [&](const std::optional<int>& level, std::uint64_t line, const char* key, int fallback) {
      if (!level) return fallback;
      if (*level > top)
        throw JobError(Location{job.path, line, 0, {}},
                       fmt::format("attribute '{}': {} {} is above its hierarchy's top level {}", pr.qi_names[q], key,
                                   *level, top));
      return *level;
    };
    const int lo = bound(spec ? spec->min_level : std::nullopt, spec ? spec->min_level_line : 0, "min-level", 0);
    const int hi = bound(spec ? spec->max_level : std::nullopt, spec ? spec->max_level_line : 0, "max-level", top);
    constrained = constrained || lo > 0 || hi < top;
    pr.min_levels.push_back(lo);
    pr.max_levels.push_back(hi);
    // ARX: an attribute without a weight weighs 0.5; all weights are
    // divided by the largest, and all are 1 when the largest is 0
    // (AbstractMetricMultiDimensional.initializeInternal).
    const double w = spec && spec->weight ? *spec->weight : 0.5;
    weighted = weighted || (spec && spec->weight);
    weights.push_back(w);
    largest = std::max(largest, w);
  }
  // Microaggregated attributes that are not generalized are dimensions of
  // the quality models too, weighted like the others (ARX).
  for (const MicroaggregatedAttribute& m : pr.microaggregated) {
    if (m.generalized()) continue;
    const AttributeSpec* spec = job.attribute(m.name);
    const double w = spec && spec->weight ? *spec->weight : 0.5;
    weighted = weighted || (spec && spec->weight);
    weights.push_back(w);
    largest = std::max(largest, w);
  }
  if (!constrained) {
    pr.min_levels.clear();
    pr.max_levels.clear();
  }
  if (weighted && largest > 0) {
    for (double& w : weights) w /= largest;
    if (std::any_of(weights.begin(), weights.end(), [](double w) { return w != 1.0; })) pr.weights = std::move(weights);
  }
}

// What a research subset cannot be combined with yet: an input grouped in
// its database (pushdown).
// Every quality model and every privacy model but differential privacy
// (which draws its own subset, below) takes a research subset, as in ARX:
// t-closeness, δ-disclosure and β-likeness compare a class with the
// subset's distribution (DataManager.getDistribution counts the subset's
// rows), the risk-based models judge the subset's class sizes
// (HashGroupifyDistribution reads each class's count, skipping classes
// without subset records); the quality models read what
// docs/quality-models.md lists. A microaggregated attribute is aggregated
// over the subset's records of a class (HashGroupify.addFromBuffer adds
// only their values to the class's distributions, which
// performMicroaggregation and MetricMDNMLoss read).
static void check_subset_job(const Job& job, const Dataset& ds) {
  const Location at{job.path, job.subset->line, 0, {}};
  if (ds.grouped())
    throw JobError(at, "a research subset needs the input's records one by one, which a table grouped in its "
                       "database does not hold: with a PostgreSQL input set pushdown: false (a release written to a "
                       "file streams the rows anyway)");
}

// Differential privacy (privacy/differential_privacy.h): its sample is the
// research subset, drawn once per run from the job's seed (one draw per row
// in input order, as ARX's EDDifferentialPrivacy.initialize); empty without
// the model.
static std::vector<std::uint8_t> differential_privacy_sample(const Job& job, const Dataset& ds) {
  for (const PrivacySpec& p : job.privacy) {
    const auto* spec = std::get_if<DifferentialPrivacySpec>(&p);
    if (!spec) continue;
    const Location at{job.path, spec->line, spec->column, {}};
    // ARX: "Combining differential privacy with a research subset is not
    // supported" (ARXConfiguration.addPrivacyModel).
    if (job.subset)
      throw JobError(at, "differential-privacy draws its own sample, the research subset of its release; it cannot be "
                         "combined with the job's 'subset' (ARX refuses it too)");
    if (ds.grouped())
      throw JobError(at, "differential privacy samples the input's rows, which a table grouped in its database does "
                         "not hold: with a PostgreSQL input set pushdown: false");
    const DpParameters parameters = job_dp_parameters(*spec, job.path);
    DpRandom random(spec->seed);
    return dp_sample(ds.records(), parameters.beta, random);
  }
  return {};
}

// The data-independent variant's transformation as the only one of the
// lattice: min-level = max-level = its level, for every quasi-identifier.
static void fix_differential_privacy_levels(const Job& job, Problem& pr) {
  for (const PrivacySpec& p : job.privacy) {
    const auto* spec = std::get_if<DifferentialPrivacySpec>(&p);
    if (!spec || spec->data_dependent()) continue;
    const Location at{job.path, spec->line, spec->column, {}};
    std::vector<int> levels(pr.qi_names.size(), -1);
    for (const auto& [name, level] : spec->generalization) {
      const auto it = std::find(pr.qi_names.begin(), pr.qi_names.end(), name);
      if (it == pr.qi_names.end())
        throw JobError(at, fmt::format("differential-privacy: generalization names '{}', which is not a "
                                       "quasi-identifier of the data",
                                       name));
      const auto q = static_cast<std::size_t>(it - pr.qi_names.begin());
      const int top = pr.hierarchies[q].height() - 1;
      if (level > top)
        throw JobError(at, fmt::format("differential-privacy: generalization gives '{}' level {}, above its "
                                       "hierarchy's top level {}",
                                       name, level, top));
      levels[q] = level;
    }
    std::string missing;
    for (std::size_t q = 0; q < levels.size(); ++q)
      if (levels[q] < 0) missing += (missing.empty() ? "'" : ", '") + pr.qi_names[q] + "'";
    if (!missing.empty())
      throw JobError(at, fmt::format("differential-privacy: generalization gives no level for {}: give one for every "
                                     "quasi-identifier",
                                     missing));
    pr.min_levels = levels;
    pr.max_levels = levels;
  }
}

Dataset read_input(const Job& job) {
  if (job.input.postgres) return read_postgres(*job.input.postgres);
  return read_table_file(job.input.path, job.input.format, CsvOptions{job.input.delimiter}, "input data");
}

std::string input_name(const Job& job) { return job.input.postgres ? describe(*job.input.postgres) : job.input.path; }
std::string output_name(const Job& job) {
  return job.output.postgres ? describe(*job.output.postgres) : job.output.path;
}

std::unique_ptr<PreparedJob> prepare(const Job& job, Timings* timings, const PhaseFn& phase) {
  const auto t0 = std::chrono::steady_clock::now();
  if (phase) phase(Phase::reading);
  Dataset data = read_input(job);
  if (timings) timings->read = ms_since(t0);
  return prepare(job, std::move(data), timings, phase);
}

std::unique_ptr<PreparedJob> prepare(const Job& job, Dataset data, Timings* timings, const PhaseFn& phase) {
  if (phase) phase(Phase::encoding);
  const auto t0 = std::chrono::steady_clock::now();
  auto p = std::make_unique<PreparedJob>();
  p->job = job;
  p->data = std::move(data);
  const Dataset& ds = p->data;

  for (const auto& a : job.attributes)
    if (ds.column_index(a.name) < 0)
      throw JobError(Location{job.path, a.line, 0, {}},
                     fmt::format("attribute '{}' {}", a.name, ds.not_a_column()));

  std::vector<std::string> unassigned;
  Problem& pr = p->problem;
  std::vector<int> sensitive_columns;
  for (std::size_t c = 0; c < ds.columns.size(); ++c) {
    const Column& col = ds.columns[c];
    const AttributeSpec* spec = job.attribute(col.name);
    Role role;
    if (spec) {
      role = spec->role;
    } else if (job.default_role) {
      role = *job.default_role;
    } else {
      unassigned.push_back(col.name);
      continue;
    }
    p->roles.push_back(role);
    const bool generalized = role == Role::quasi_identifying && (!spec || spec->generalized());
    if (generalized && !(spec && spec->has_hierarchy()))
      // read_job() rejects this; a Job built in code may not have.
      throw JobError(Location{job.path, spec ? spec->line : 0, 0, {}},
                     fmt::format("quasi-identifying attribute '{}' needs a 'hierarchy'", col.name));
    if (role == Role::quasi_identifying && spec && spec->microaggregation) {
      MicroaggregatedAttribute m;
      m.name = col.name;
      m.column = static_cast<int>(c);
      m.data = &col;
      m.function = spec->microaggregation->function;
      m.qi = generalized ? static_cast<int>(pr.qi_names.size()) : -1;
      pr.microaggregated.push_back(std::move(m));
    }
    if (generalized) {
      pr.qi_names.push_back(col.name);
      pr.qi_columns.push_back(static_cast<int>(c));
      p->qi_tables.push_back(hierarchy_table(job, *spec, ds));
    } else if (role == Role::sensitive) {
      sensitive_columns.push_back(static_cast<int>(c));
      p->sensitive_tables.push_back(spec && spec->has_hierarchy() ? hierarchy_table(job, *spec, ds)
                                                                   : HierarchyTable{});
    }
  }
  if (!unassigned.empty()) {
    std::string list;
    for (const auto& n : unassigned) list += (list.empty() ? "'" : ", '") + n + "'";
    throw JobError(Location{job.path, 0, 0, {}},
                   fmt::format("column{} {} of {} ha{} no role: list {} under 'attributes' or set 'default-role'",
                               unassigned.size() == 1 ? "" : "s", list, ds.source,
                               unassigned.size() == 1 ? "s" : "ve", unassigned.size() == 1 ? "it" : "them"));
  }

  // The utility analysis's targets and features are released columns
  // (checked here, before the search, not when the analysis runs).
  for (const auto* names : {&job.utility.targets, &job.utility.features})
    for (const std::string& n : *names) {
      const int c = ds.column_index(n);
      const AttributeSpec* spec = job.attribute(n);
      if (spec && spec->microaggregation)
        throw JobError(Location{job.path, job.utility.line, 0, {}},
                       fmt::format("utility.{} names '{}', which is microaggregated: the utility analysis leaves "
                                   "microaggregated attributes out",
                                   names == &job.utility.targets ? "target" : "features", n));
      if (c < 0 || p->roles[static_cast<std::size_t>(c)] == Role::identifying)
        throw JobError(Location{job.path, job.utility.line, 0, {}},
                       fmt::format("utility.{} names '{}', which is {}", names == &job.utility.targets ? "target" : "features",
                                   n, c < 0 ? fmt::format("not a column of {}", ds.source)
                                            : std::string("identifying (not released)")));
    }

  if (pr.qi_columns.empty() && !pr.microaggregated.empty())
    throw JobError(Location{job.path, job.attribute(pr.microaggregated[0].name)->line, 0, {}},
                   "every quasi-identifier is microaggregated without generalization, so nothing forms the "
                   "equivalence classes: generalize at least one (a hierarchy, or generalize-before: true)");
  // KL divergence sums over the records one by one, in input order (ARX's
  // order, and so its bits), which a grouped table does not hold.
  if (job.quality.model == "kl-divergence" && ds.grouped())
    throw JobError(Location{job.path, 0, 0, {}},
                   "quality model kl-divergence sums over the input's records one by one, which a table grouped in "
                   "its database does not hold: with a PostgreSQL input set pushdown: false");
  if (!pr.microaggregated.empty() && ds.grouped())
    throw JobError(Location{job.path, job.attribute(pr.microaggregated[0].name)->line, 0, {}},
                   fmt::format("attribute '{}' is microaggregated, which needs the input's rows: with a PostgreSQL "
                               "input set pushdown: false",
                               pr.microaggregated[0].name));
  if (pr.qi_columns.empty())
    throw JobError(Location{job.path, 0, 0, {}},
                   fmt::format("the job has no quasi-identifying attribute among the columns of {}: list at least one "
                               "under 'attributes' with role: quasi-identifying (and a hierarchy)",
                               ds.source));

  for (std::size_t q = 0; q < pr.qi_columns.size(); ++q)
    pr.hierarchies.push_back(Generalization::build(p->qi_tables[q], ds.columns[pr.qi_columns[q]], ds.source));
  set_constraints(job, pr);
  for (std::size_t s = 0; s < sensitive_columns.size(); ++s) {
    SensitiveAttribute sa;
    sa.column = sensitive_columns[s];
    sa.data = &ds.columns[sa.column];
    sa.name = sa.data->name;
    sa.hierarchy = p->sensitive_tables[s].rows.empty() ? nullptr : &p->sensitive_tables[s];
    if (const AttributeSpec* spec = job.attribute(sa.name)) sa.order = spec->order;
    pr.sensitive.push_back(std::move(sa));
  }

  // The classification model's response variables (ARX's order: by
  // column). An insensitive one gets its distribution per histogram entry
  // after the sensitive ones'.
  std::vector<int> distribution_columns = sensitive_columns;
  for (std::size_t c = 0; c < ds.columns.size(); ++c) {
    const std::string& name = ds.columns[c].name;
    if (std::find(job.quality.responses.begin(), job.quality.responses.end(), name) == job.quality.responses.end())
      continue;
    const Location at{job.path, job.quality.responses_line, 0, {}};
    const AttributeSpec* spec = job.attribute(name);
    const Role role = p->roles[c];
    if (role == Role::identifying)
      throw JobError(at, fmt::format("quality.response-variables names '{}', which is identifying (not released)",
                                     name));
    if (spec && spec->microaggregation)
      throw JobError(at, fmt::format("quality.response-variables names '{}', which is microaggregated: the "
                                     "classification model reads generalized or original values",
                                     name));
    ResponseVariable r;
    r.name = name;
    const auto qi = std::find(pr.qi_columns.begin(), pr.qi_columns.end(), static_cast<int>(c));
    const auto sens = std::find(sensitive_columns.begin(), sensitive_columns.end(), static_cast<int>(c));
    r.domain = static_cast<std::uint32_t>(ds.columns[c].dictionary.size());
    if (qi != pr.qi_columns.end()) {
      r.qi = static_cast<int>(qi - pr.qi_columns.begin());
    } else if (sens != sensitive_columns.end()) {
      r.distribution = static_cast<int>(sens - sensitive_columns.begin());
    } else {
      if (ds.grouped())
        throw JobError(at, fmt::format("quality.response-variables names '{}', an insensitive column, which the "
                                       "grouped input does not hold: with a PostgreSQL input set pushdown: false",
                                       name));
      r.distribution = static_cast<int>(distribution_columns.size());
      distribution_columns.push_back(static_cast<int>(c));
    }
    pr.responses.push_back(std::move(r));
  }
  for (const std::string& name : job.quality.responses)
    if (ds.column_index(name) < 0)
      throw JobError(Location{job.path, job.quality.responses_line, 0, {}},
                     fmt::format("quality.response-variables names '{}', which is not a column of {}", name,
                                 ds.source));

  // Linked tables are joined to the rows (LinkedRelease, deid anonymize).
  if (!job.linked.empty() && ds.grouped())
    throw JobError(Location{job.path, job.linked.front().line, 0, {}},
                   "linked tables are joined to the input's rows, which a table grouped where it lives does not "
                   "hold: release them with deid anonymize");
  if (job.subset) {
    check_subset_job(job, ds);
    pr.subset = research_subset(job, ds);
  }
  // Differential privacy's sample is the research subset (ARX's
  // EDDifferentialPrivacy.getDataSubset): counts are its records, and every
  // record outside it is suppressed in the release.
  if (std::vector<std::uint8_t> sample = differential_privacy_sample(job, ds); !sample.empty())
    pr.subset = std::move(sample);
  // A table grouped in its database gives its rows to the histogram: taken
  // when grouped by exactly the quasi-identifiers, else freed once it is
  // built; nothing reads them afterwards (docs/databases.md, "Memory").
  std::optional<Histogram> taken;
  if (distribution_columns.empty() && pr.subset.empty()) taken = take_grouped_histogram(p->data, pr.qi_columns);
  pr.histogram = taken ? std::move(*taken)
                       : build_histogram(ds, pr.qi_columns, distribution_columns, pr.subset.empty() ? nullptr : &pr.subset);
  p->data.release_grouped_rows();
  for (MicroaggregatedAttribute& m : pr.microaggregated) {
    microaggregation::check_values(m, ds);
    if (!m.generalized()) microaggregation::index_entries(m, pr.histogram, pr.subset);
  }
  pr.population_rows = ds.records();
  pr.rows = ds.records();
  if (!pr.subset.empty()) {
    // The population counts ride along as one more distribution (one code)
    // so that every check rolls them up with the others.
    Histogram::Sensitive population;
    population.offsets.resize(pr.histogram.size() + 1);
    for (std::size_t e = 0; e <= pr.histogram.size(); ++e) population.offsets[e] = e;
    population.codes.assign(pr.histogram.size(), 0);
    population.counts = pr.histogram.population;
    pr.population_distribution = static_cast<int>(pr.histogram.sensitive.size());
    pr.histogram.sensitive.push_back(std::move(population));
    pr.rows = static_cast<std::uint64_t>(std::count(pr.subset.begin(), pr.subset.end(), 1));
  }
  pr.bounded_memory = job.search.memory == SearchSpec::Memory::bounded ||
                     (job.search.memory == SearchSpec::Memory::automatic &&
                      pr.histogram.bytes() > kBoundedMemoryHistogramBytes);
  // ARX: at most floor(limit * rows) records may be suppressed.
  pr.max_suppressed = static_cast<std::uint64_t>(job.suppression_limit * static_cast<double>(pr.rows) + 1e-9);
  pr.quality = make_quality_model(job.quality);
  if (job.quality.model == "publisher-payout" && pr.aggregated_dimensions() > 0)
    throw JobError(Location{job.path, job.attribute(pr.microaggregated[0].name)->line, 0, {}},
                   "the publisher-payout quality model cannot be combined yet with an attribute microaggregated "
                   "without generalization; set generalize-before: true on it");
  for (std::size_t i = 0; i < job.privacy.size(); ++i) {
    if (std::holds_alternative<PopulationUniquenessSpec>(job.privacy[i]) && pr.aggregated_dimensions() > 0)
      // Its risk-based suppression orders classes by their loss, which
      // would need each class's distinct values of the aggregated attribute.
      throw JobError(Location{job.path, i < job.privacy_lines.size() ? job.privacy_lines[i] : 0, 0, {}},
                     "population uniqueness cannot be combined yet with an attribute microaggregated without "
                     "generalization; set generalize-before: true on it");
    try {
      pr.privacy.push_back(make_privacy_model(job.privacy[i], pr));
    } catch (const InputError& e) {
      // The models know neither file: a data line names the data file,
      // anything else the model's entry in the job file. (A sensitive
      // attribute's hierarchy that lacks a value of the data is an
      // InputError of the data, the others JobErrors.)
      const Location& at = e.where();
      if (!at.file.empty()) throw;
      const bool job_error = dynamic_cast<const JobError*>(&e) != nullptr;
      if (at.line != 0) {
        const Location data_at{ds.source, at.line, at.column, at.column_name};
        if (job_error) throw JobError(data_at, e.problem());
        throw InputError(data_at, e.problem());
      }
      if (i >= job.privacy_lines.size() || job.privacy_lines[i] == 0) throw;
      throw JobError(Location{job.path, job.privacy_lines[i], 0, {}}, e.problem());
    }
  }
  fix_differential_privacy_levels(job, pr);
  if (timings) timings->encode = ms_since(t0);
  return p;
}

bool PreparedJob::written(std::size_t c) const {
  return roles[c] != Role::identifying || (identifiers && identifiers->released(c));
}

void release_identifiers(PreparedJob& p) {
  if (!releases_identifiers(p.job)) return;
  if (p.data.grouped())
    throw JobError(Location{p.job.path, 0, 0, {}},
                   "the identifiers' actions (pseudonym, mask, date-shift) are computed from the rows, which an "
                   "input grouped in its database does not hold: with a PostgreSQL input set pushdown: false");
  p.identifiers = std::make_shared<const IdentifierRelease>(p.job, p.data);
}

void release_counted_identifiers(PreparedJob& p, const Secret& secret, const std::vector<CountedIdentifier>& counted) {
  if (!releases_identifiers(p.job)) return;
  p.identifiers = std::make_shared<const IdentifierRelease>(p.job, p.data, secret, counted);
}

}  // namespace deid
