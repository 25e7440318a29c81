// The parts of a cell-suppression job's JSON result (cell_suppression_bound.h):
// information loss, the algorithm's statistics, the attacks' risks, and the
// registry's attacks 1 and 2 with population counts when given.
#include <fmt/format.h>

#include <charconv>
#include <map>

#include "deid/csv.h"
#include "deid/error.h"
#include "transform/cell_suppression_bound.h"

namespace deid::detail {

nlohmann::json loss_json(const InformationLoss& l) {
  nlohmann::json j;
  j["records"] = l.records;
  j["quasi_identifier_cells"] = l.cells;
  j["suppressed_cells"] = l.suppressed_cells;
  j["suppressed_cells_fraction"] = l.suppressed_cells_fraction;
  j["records_with_suppression"] = l.records_with_suppression;
  j["records_with_suppression_fraction"] = l.records_with_suppression_fraction;
  j["entropy"] = l.entropy;
  nlohmann::json cols = nlohmann::json::object();
  for (const auto& c : l.columns)
    cols[c.name] = {{"suppressed_records", c.suppressed}, {"fraction", c.fraction}, {"entropy", c.entropy}};
  j["columns"] = cols;
  return j;
}

nlohmann::json stats_json(const CellSuppressionStats& s, const CellSuppressionSpec& spec, const CellTable& t) {
  nlohmann::json j;
  j["phase1_cells"] = s.phase1_cells;
  j["phase2_cells"] = s.phase2_cells;
  j["propagated_cells"] = s.propagated_cells;
  j["phase2_passes"] = s.phase2_passes;
  j["rounds"] = s.rounds;
  nlohmann::json moles = nlohmann::json::array();
  for (std::size_t b = 0; b < spec.combinations.size(); ++b) {
    std::vector<std::string> names;
    for (std::size_t c : spec.combinations[b]) names.push_back(t.names[c]);
    moles.push_back({{"combination", names}, {"moles", s.moles_after_phase1.at(b)}});
  }
  j["moles_after_phase1"] = moles;
  j["time_ms"] = {{"phase1", s.phase1_ms}, {"phase2", s.phase2_ms}};
  return j;
}

nlohmann::json targeted_json(const TargetedAttackRisk& r) {
  return {{"k", r.k},
          {"records", r.records},
          {"classes", r.classes},
          {"highest_risk", r.highest_risk},
          {"average_risk", r.average_risk},
          {"records_at_risk", r.records_at_risk},
          {"records_at_risk_fraction", r.records_at_risk_fraction},
          {"classes_at_risk", r.classes_at_risk},
          {"population_sizes", r.population_sizes},
          {"meets_threshold", r.meets_threshold()}};
}

// Class sizes of `rows` (all when null) within the classes of `cls`;
// exempt classes (every cell suppressed) count 0.
std::vector<std::uint64_t> sizes_of(const CombinationClasses& cls, const std::vector<std::uint64_t>* rows) {
  std::vector<std::uint64_t> f(cls.sizes.size(), 0);
  if (!rows) {
    f = cls.sizes;
  } else {
    for (std::uint64_t r : *rows) ++f[cls.row_class[r]];
  }
  for (std::size_t j = 0; j < f.size(); ++j)
    if (cls.exempt[j]) f[j] = 0;
  return f;
}

// Attacks 1 and 2 over the registry's attributes (their finest released
// columns), with population counts when given.
nlohmann::json registry_json(const Job& job, const Bound& b, const CellTable& t, double tau,
                             const std::vector<std::vector<std::uint64_t>>& samples) {
  const auto& reg = *job.cell_suppression->registry;
  std::vector<std::size_t> cols;
  std::vector<std::string> names;
  for (const auto& name : reg.attributes) {
    std::size_t qi = 0;
    while (b.attributes[qi].name != name) ++qi;
    for (std::size_t c = 0; c < t.columns(); ++c)
      if (b.plan.column_attribute[c] == qi) {
        cols.push_back(c);
        names.push_back(t.names[c]);
        break;
      }
  }
  nlohmann::json j;
  j["attributes"] = names;
  const CombinationClasses cls = combination_classes(t, cols);
  std::uint64_t classes = 0;
  for (std::size_t m = 0; m < cls.sizes.size(); ++m) classes += cls.exempt[m] ? 0 : 1;
  j["classes"] = classes;

  if (!reg.population.empty()) {
    const Dataset pop = read_dataset(reg.population, CsvOptions{});
    std::vector<const Column*> pcols;
    for (const auto& n : names) {
      const int c = pop.column_index(n);
      if (c < 0)
        throw InputError(Location{reg.population, 1, 0, {}},
                         fmt::format("the population file needs a column '{}' (a released column of the registry)", n));
      pcols.push_back(&pop.columns[static_cast<std::size_t>(c)]);
    }
    const int cc = pop.column_index(reg.count_column);
    if (cc < 0)
      throw InputError(Location{reg.population, 1, 0, {}}, fmt::format("no count column '{}'", reg.count_column));
    const Column& count_col = pop.columns[static_cast<std::size_t>(cc)];
    // Population classes: the rows of the file summed per combination of
    // the registry's released values (a census by province gives classes
    // by region when the region is what is released).
    std::map<std::vector<std::uint32_t>, std::uint64_t> classes_of;
    for (std::uint64_t r = 0; r < pop.rows; ++r) {
      const std::string& s = count_col.dictionary.value(count_col.codes[r]);
      std::uint64_t v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size())
        throw InputError(Location{reg.population, r + 2, static_cast<std::uint64_t>(cc) + 1, reg.count_column},
                         fmt::format("count '{}' is not a non-negative integer", s));
      std::vector<std::uint32_t> key;
      for (const Column* pc : pcols) key.push_back(pc->codes[r]);
      classes_of[key] += v;
    }
    std::vector<std::uint64_t> C;
    std::vector<std::uint32_t> group;
    std::vector<std::vector<std::uint32_t>> keys;
    for (const auto& [key, count] : classes_of) {
      keys.push_back(key);
      C.push_back(count);
      group.push_back(key[0]);
    }
    // Attack 1 (equation 1), overall and per value of the first attribute.
    const RegistryPersonRisk all = registry_person_risk(C, tau);
    const auto by = registry_person_risk_by_group(C, group, pcols[0]->dictionary.size(), tau);
    nlohmann::json per = nlohmann::json::object();
    for (std::uint32_t g = 0; g < by.size(); ++g)
      per[pcols[0]->dictionary.value(g)] = {{"population", by[g].population}, {"proportion", by[g].proportion}};
    j["attack1"] = {{"k", all.k},
                    {"population", all.population},
                    {"population_at_risk", all.population_at_risk},
                    {"proportion", all.proportion},
                    {"by_" + names[0], per}};

    // Attack 2 (equation 2): F of a released class = the population of the
    // registry classes it is consistent with (a marker matches any value).
    std::vector<std::uint64_t> F(cls.sizes.size(), 0);
    std::vector<std::uint64_t> rep(cls.sizes.size(), 0);
    std::vector<bool> has(cls.sizes.size(), false);
    for (std::uint64_t r = 0; r < t.rows; ++r)
      if (!has[cls.row_class[r]]) {
        has[cls.row_class[r]] = true;
        rep[cls.row_class[r]] = r;
      }
    for (std::size_t m = 0; m < cls.sizes.size(); ++m) {
      if (cls.exempt[m]) continue;
      for (std::size_t pc = 0; pc < keys.size(); ++pc) {
        bool match = true;
        for (std::size_t i = 0; i < cols.size() && match; ++i) {
          const std::uint32_t code = t.codes[cols[i]][rep[m]];
          match = code == kSuppressedCell || pcols[i]->dictionary.value(keys[pc][i]) == label(b, cols[i], code);
        }
        if (match) F[m] += C[pc];
      }
    }
    auto attack2 = [&](const std::vector<std::uint64_t>* rows) {
      const auto f = sizes_of(cls, rows);
      for (std::size_t m = 0; m < f.size(); ++m)
        if (f[m] > F[m])
          throw InputError(Location{reg.population, 0, 0, {}},
                           fmt::format("the population counts are smaller than the data: a class of {} released "
                                       "records has a population of {}",
                                       f[m], F[m]));
      const RegistryMatchingRisk r = registry_matching_risk(f, F);
      return nlohmann::json{{"records", r.records}, {"expected_matches", r.expected_matches},
                            {"proportion", r.proportion}};
    };
    j["attack2"] = attack2(nullptr);
    nlohmann::json per_sample = nlohmann::json::array();
    for (const auto& s : samples) per_sample.push_back(attack2(&s));
    if (!samples.empty()) j["attack2_samples"] = per_sample;
  } else if (reg.sampling_fraction) {
    // Equation 3 without population counts.
    const RegistryMatchingRisk r = registry_matching_bound(*reg.sampling_fraction, classes, t.rows);
    j["attack2"] = {{"records", r.records}, {"expected_matches", r.expected_matches}, {"proportion", r.proportion},
                    {"sampling_fraction", *reg.sampling_fraction}, {"bound", true}};
  }
  return j;
}

}  // namespace deid::detail
