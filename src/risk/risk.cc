// The report of `deid risk` (papers/002, VIII): risk profile, attacker
// models, sample and population uniques, |PU|/|SU| for several populations.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "deid/attack_risk.h"
#include "deid/error.h"
#include "deid/formula_warnings.h"
#include "deid/histogram.h"
#include "deid/output.h"
#include "deid/parquet.h"
#include "deid/pipeline.h"
#include "deid/risk.h"

namespace deid {

RiskOptions risk_options(const Job& job) {
  RiskOptions options;
  if (job.risk.threshold) options.threshold = *job.risk.threshold;
  if (!job.risk.populations.empty()) options.populations = job.risk.populations;
  return options;
}

RiskReport assess_risk(const ClassSizeFrequencies& freq, const RiskOptions& options) {
  RiskReport r;
  r.frequencies = freq;
  r.records = freq.records();
  r.rows = r.records;
  r.sample = sample_risks(freq);
  r.attackers = attacker_risks(freq, options.threshold);
  r.profile = risk_profile(freq);
  r.sample_uniques = freq.of_size(1);
  r.sample_uniques_fraction = r.records ? static_cast<double>(r.sample_uniques) / static_cast<double>(r.records) : 0;
  for (const auto& [name, size] : options.populations) {
    RiskReport::Population p;
    p.name = name;
    p.size = size;
    if (r.records > 0 && size >= static_cast<double>(r.records)) {
      p.zayatz = estimate_zayatz(freq, size);
      p.pitman = estimate_pitman(freq, size, options.solver);
      p.snb = estimate_snb(freq, size, options.solver);
      p.dankar = estimate_dankar(freq, size, options.solver, true);
      if (p.dankar.available()) {
        // Records of the sample expected to be unique in the population:
        // the population's share of uniques times n.
        p.expected_population_uniques = *p.dankar.uniques / size * static_cast<double>(r.records);
        if (r.sample_uniques > 0)
          p.pu_su_ratio = *p.expected_population_uniques / static_cast<double>(r.sample_uniques);
      }
    } else {
      // No estimate for an empty table or a population smaller than it.
      for (auto* e : {&p.zayatz, &p.pitman, &p.snb, &p.dankar}) e->status = UniquenessEstimate::Status::invalid;
      p.zayatz.estimator = UniquenessEstimator::zayatz;
      p.pitman.estimator = UniquenessEstimator::pitman;
      p.snb.estimator = UniquenessEstimator::snb;
    }
    r.populations.push_back(std::move(p));
  }
  return r;
}

namespace {

void require_quasi_identifiers(const Job& job) {
  if (std::none_of(job.attributes.begin(), job.attributes.end(),
                   [](const AttributeSpec& a) { return a.role == Role::quasi_identifying; }))
    throw JobError(Location{job.path, 0, 0, {}}, "the job lists no quasi-identifying attribute to measure risk over");
}

}  // namespace

RiskReport assess_risk(const Job& job, const std::string& input_path, const RiskOptions& options) {
  require_quasi_identifiers(job);
  const bool explicit_input = !input_path.empty();
  const std::string path = explicit_input ? input_path : job.input.path;
  // An output of `deid anonymize` is written with output.delimiter, or the
  // input's.
  CsvOptions csv;
  csv.delimiter = explicit_input && job.output.delimiter ? job.output.delimiter : job.input.delimiter;
  RiskReport r = assess_risk(
      job, explicit_input ? read_table_file(path, table_format_of(path), csv, "input data") : read_input(job), options);
  // The job's input, named or by default (a file name that leads to the
  // input file counts as the input).
  std::error_code ec;
  r.custodian_only = !explicit_input || (!job.input.path.empty() && !job.input.postgres &&
                                         std::filesystem::equivalent(input_path, job.input.path, ec));
  return r;
}

RiskReport assess_risk(const Job& job, const Dataset& data, const RiskOptions& options) {
  require_quasi_identifiers(job);
  std::vector<const AttributeSpec*> qis;
  for (const auto& a : job.attributes)
    if (a.role == Role::quasi_identifying) qis.push_back(&a);
  const std::string& path = data.source;
  std::vector<std::string> warnings = formula_warnings(data, {}, {});

  std::vector<int> columns;
  std::vector<std::string> names;
  for (const AttributeSpec* a : qis) {
    const int c = data.column_index(a->name);
    if (c < 0)
      throw JobError(Location{job.path, a->line, 0, {}},
                     fmt::format("quasi-identifier '{}' {}", a->name, data.not_a_column()));
    columns.push_back(c);
  }
  // Column order of the table, as ARX groups them.
  std::sort(columns.begin(), columns.end());
  for (int c : columns) names.push_back(data.columns[c].name);

  // Per column, the code of "*" (suppressed), if the column has it.
  std::vector<std::int64_t> star;
  for (int c : columns) star.push_back(data.columns[c].dictionary.find("*"));

  const Histogram h = build_histogram(data, columns);
  std::vector<std::uint64_t> sizes;
  std::uint64_t suppressed = 0;
  for (std::size_t e = 0; e < h.size(); ++e) {
    const auto key = h.key(e);
    bool all_star = true;
    for (std::size_t q = 0; q < key.size() && all_star; ++q)
      all_star = star[q] >= 0 && key[q] == static_cast<std::uint32_t>(star[q]);
    // A record with '*' in every quasi-identifier is suppressed: ARX ignores
    // suppressed records in every risk measure.
    if (all_star) {
      suppressed += h.counts[e];
    } else {
      sizes.push_back(h.counts[e]);
    }
  }

  RiskOptions opts = options;
  for (const auto& spec : job.privacy)
    if (const auto* pu = std::get_if<PopulationUniquenessSpec>(&spec)) {
      const bool listed = std::any_of(opts.populations.begin(), opts.populations.end(),
                                      [&](const auto& p) { return p.second == pu->population_size; });
      if (!listed) opts.populations.emplace_back("job", pu->population_size);
    }

  // A population contains the sample: one smaller than the table's records
  // is a mistake in the job or on the command line, not a risk to report.
  const std::uint64_t records = data.records() - suppressed;
  for (const auto& population : opts.populations)
    if (const auto& [name, size] = population; size < static_cast<double>(records)) {
      // (A pair, not the structured binding, in the lambda: clang 14
      // cannot capture bindings.)
      const bool from_job = std::any_of(job.risk.populations.begin(), job.risk.populations.end(),
                                        [&](const auto& p) { return p == population; });
      throw JobError(from_job ? Location{job.path, job.risk.line, 0, {}} : Location{},
                     fmt::format("population '{}' ({}={:g}) is smaller than the {} records of {}: a population "
                                 "contains the table it is sampled from",
                                 name, name, size, records, path));
    }
  RiskReport r = assess_risk(ClassSizeFrequencies::from_class_sizes(sizes), opts);
  r.input = path;
  r.quasi_identifiers = names;
  r.rows = data.records();
  r.suppressed_records = suppressed;
  r.warnings = std::move(warnings);
  return r;
}

namespace {

nlohmann::json estimate_json(const UniquenessEstimate& e, double population) {
  nlohmann::json j = to_json(e);
  j["fraction"] = e.uniques ? nlohmann::json(*e.uniques / population) : nlohmann::json(nullptr);
  return j;
}

std::string percent(double x) { return fmt::format("{:.2f} %", 100.0 * x); }

std::string count_or_status(const UniquenessEstimate& e) {
  if (e.uniques) return fmt::format("{:.0f}", *e.uniques);
  return e.status == UniquenessEstimate::Status::not_converged ? "no root" : "invalid";
}

std::string population_size(double n) {
  if (n >= 1e6) return fmt::format("{:.1f} M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.1f} k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

}  // namespace

nlohmann::json to_json(const UniquenessEstimate& e) {
  nlohmann::json j;
  j["estimator"] = to_string(e.estimator);
  j["uniques"] = e.uniques ? nlohmann::json(*e.uniques) : nlohmann::json(nullptr);
  j["status"] = to_string(e.status);
  j["converged"] = e.status != UniquenessEstimate::Status::not_converged;
  if (e.selected) j["selected"] = to_string(*e.selected);
  if (e.parameters) {
    if (e.estimator == UniquenessEstimator::snb ||
        (e.selected && *e.selected == UniquenessEstimator::snb)) {
      j["parameters"] = {{"alpha", e.parameters->first}, {"beta", e.parameters->second}};
    } else {
      j["parameters"] = {{"theta", e.parameters->first}, {"alpha", e.parameters->second}};
    }
  }
  if (e.iterations) j["iterations"] = e.iterations;
  if (e.exact_sums) j["exact_sums"] = true;
  return j;
}

// Attack-based risk of papers/003 (include/deid/attack_risk.h,
// docs/cell-suppression.md): the targeted attack (attack 3) with the
// table's own class sizes as F_j, and matching every record against a
// registry of each population (attack 2, equation 3: alpha = n/N expected
// correct matches per class).
static nlohmann::json attack_based_json(const RiskReport& r) {
  const double tau = r.attackers.threshold;
  if (!(tau > 0 && tau <= 1)) return nullptr;
  std::vector<std::uint64_t> sizes;
  for (const auto& [size, count] : r.frequencies.sizes) sizes.insert(sizes.end(), count, size);
  const TargetedAttackRisk t = targeted_attack_risk(sizes, {}, tau);
  nlohmann::json j;
  j["threshold"] = tau;
  j["k"] = t.k;
  j["targeted"] = {{"highest_risk", t.highest_risk},
                   {"records_at_risk", t.records_at_risk},
                   {"records_at_risk_fraction", t.records_at_risk_fraction},
                   {"classes_at_risk", t.classes_at_risk},
                   {"meets_threshold", t.meets_threshold()}};
  nlohmann::json reg = nlohmann::json::array();
  for (const auto& p : r.populations) {
    if (!(p.size >= static_cast<double>(r.records)) || r.records == 0) continue;
    const double alpha = static_cast<double>(r.records) / p.size;
    const RegistryMatchingRisk m = registry_matching_bound(alpha, r.frequencies.classes(), r.records);
    reg.push_back({{"population", p.name},
                   {"sampling_fraction", alpha},
                   {"expected_matches", m.expected_matches},
                   {"proportion", m.proportion}});
  }
  j["registry_matching"] = reg;
  return j;
}

nlohmann::json to_json(const RiskReport& r) {
  nlohmann::json j;
  j["input"] = r.input;
  j["custodian_only"] = r.custodian_only;
  j["quasi_identifiers"] = r.quasi_identifiers;
  j["rows"] = r.rows;
  j["suppressed_records"] = r.suppressed_records;
  j["records"] = r.records;
  j["classes"] = r.frequencies.classes();
  j["warnings"] = r.warnings;
  nlohmann::json freq = nlohmann::json::array();
  for (const auto& [size, count] : r.frequencies.sizes) freq.push_back({size, count});
  j["class_size_frequencies"] = freq;
  j["sample_risk"] = {{"highest_risk", r.sample.highest_risk},
                      {"lowest_risk", r.sample.lowest_risk},
                      {"average_risk", r.sample.average_risk},
                      {"records_affected_by_highest_risk", r.sample.records_affected_by_highest_risk},
                      {"fraction_affected_by_highest_risk", r.sample.fraction_affected_by_highest_risk},
                      {"records_affected_by_lowest_risk", r.sample.records_affected_by_lowest_risk},
                      {"fraction_affected_by_lowest_risk", r.sample.fraction_affected_by_lowest_risk}};
  auto model = [](const AttackerRisks::Model& m) {
    return nlohmann::json{{"records_at_risk", m.records_at_risk},
                          {"highest_risk", m.highest_risk},
                          {"success_rate", m.success_rate}};
  };
  j["attacker_models"] = {{"threshold", r.attackers.threshold},
                          {"prosecutor", model(r.attackers.prosecutor)},
                          {"journalist", model(r.attackers.journalist)},
                          {"marketer", {{"success_rate", r.attackers.marketer_success_rate}}}};
  nlohmann::json profile = nlohmann::json::array();
  for (const auto& b : r.profile)
    profile.push_back({{"lower", b.lower}, {"upper", b.upper}, {"records", b.records}, {"cumulative", b.cumulative}});
  j["risk_profile"] = profile;
  j["sample_uniques"] = {{"records", r.sample_uniques}, {"fraction", r.sample_uniques_fraction}};
  nlohmann::json pops = nlohmann::json::array();
  for (const auto& p : r.populations) {
    nlohmann::json pj;
    pj["name"] = p.name;
    pj["size"] = p.size;
    pj["sampling_fraction"] = p.size > 0 ? static_cast<double>(r.records) / p.size : 0.0;
    pj["zayatz"] = estimate_json(p.zayatz, p.size);
    pj["pitman"] = estimate_json(p.pitman, p.size);
    pj["snb"] = estimate_json(p.snb, p.size);
    pj["dankar"] = estimate_json(p.dankar, p.size);
    pj["expected_population_uniques"] =
        p.expected_population_uniques ? nlohmann::json(*p.expected_population_uniques) : nlohmann::json(nullptr);
    pj["pu_su_ratio"] = p.pu_su_ratio ? nlohmann::json(*p.pu_su_ratio) : nlohmann::json(nullptr);
    pops.push_back(pj);
  }
  j["population_uniques"] = pops;
  j["attack_based"] = attack_based_json(r);
  return j;
}

std::string to_text(const RiskReport& r) {
  std::string s;
  std::string qis;
  for (const auto& q : r.quasi_identifiers) qis += (qis.empty() ? "" : ", ") + q;
  if (!r.input.empty())
    s += fmt::format("Risk of {}{}\n", r.input,
                     r.custodian_only ? " (the job's input: custodian only, not for release)" : "");
  for (const auto& w : r.warnings) s += fmt::format("Warning: {}\n", w);
  if (!qis.empty()) s += fmt::format("Quasi-identifiers  {}\n", qis);
  s += fmt::format("Records            {} ({} suppressed and ignored), {} classes\n", r.records, r.suppressed_records,
                   r.frequencies.classes());
  s += fmt::format("Sample uniques     {} ({} of records)\n", r.sample_uniques, percent(r.sample_uniques_fraction));
  s += fmt::format("Prosecutor risk    highest {}, lowest {}, average {}\n", percent(r.sample.highest_risk),
                   percent(r.sample.lowest_risk), percent(r.sample.average_risk));

  s += fmt::format("\nAttacker models (records at risk: risk above {})\n", percent(r.attackers.threshold));
  s += fmt::format("  {:<12}{:>18}{:>15}{:>15}\n", "", "records at risk", "highest risk", "success rate");
  auto row = [&](const char* name, const AttackerRisks::Model& m) {
    s += fmt::format("  {:<12}{:>18}{:>15}{:>15}\n", name, percent(m.records_at_risk), percent(m.highest_risk),
                     percent(m.success_rate));
  };
  row("prosecutor", r.attackers.prosecutor);
  row("journalist", r.attackers.journalist);
  s += fmt::format("  {:<12}{:>18}{:>15}{:>15}\n", "marketer", "-", "-", percent(r.attackers.marketer_success_rate));

  s += "\nRisk profile (prosecutor risk of records; empty bins omitted)\n";
  s += fmt::format("  {:<22}{:>12}{:>14}\n", "risk", "records", "cumulative");
  for (const auto& b : r.profile) {
    if (b.records <= 0) continue;
    s += fmt::format("  {:<22}{:>12}{:>14}\n", fmt::format("({:g}, {:g}]", b.lower, b.upper), percent(b.records),
                     percent(b.cumulative));
  }

  s += "\nPopulation uniques (estimated number in the population)\n";
  s += fmt::format("  {:<14}{:>10}{:>14}{:>14}{:>14}{:>22}{:>12}\n", "population", "N", "Zayatz", "Pitman", "SNB",
                   "Dankar (model)", "|PU|/|SU|");
  for (const auto& p : r.populations) {
    std::string dankar = count_or_status(p.dankar);
    if (p.dankar.selected && p.dankar.uniques) dankar += fmt::format(" ({})", to_string(*p.dankar.selected));
    s += fmt::format("  {:<14}{:>10}{:>14}{:>14}{:>14}{:>22}{:>12}\n", p.name, population_size(p.size),
                     count_or_status(p.zayatz), count_or_status(p.pitman), count_or_status(p.snb), dankar,
                     p.pu_su_ratio ? percent(*p.pu_su_ratio) : std::string("-"));
  }
  s += "  |PU|/|SU|: records expected to be population unique (Dankar) per sample unique.\n";
  if (r.attackers.threshold > 0 && r.attackers.threshold <= 1) {
    std::vector<std::uint64_t> sizes;
    for (const auto& [size, count] : r.frequencies.sizes) sizes.insert(sizes.end(), count, size);
    const TargetedAttackRisk t = targeted_attack_risk(sizes, {}, r.attackers.threshold);
    s += fmt::format("\nAttacks of papers/003 (k = {} for risk {})\n", t.k, percent(r.attackers.threshold));
    s += fmt::format("  targeted (3)  {} records in {} classes below k\n", t.records_at_risk, t.classes_at_risk);
    for (const auto& p : r.populations)
      if (p.size >= static_cast<double>(r.records) && r.records > 0) {
        const double alpha = static_cast<double>(r.records) / p.size;
        s += fmt::format("  registry (2)  {}: {:.1f} expected correct matches of all records\n", p.name,
                         registry_matching_bound(alpha, r.frequencies.classes(), r.records).expected_matches);
      }
  }
  return s;
}

}  // namespace deid
