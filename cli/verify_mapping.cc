#include "verify_mapping.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "deid/differential_privacy.h"
#include "deid/error.h"
#include "deid/hierarchy_builder.h"
#include "deid/identifiers.h"

namespace deid::cli {

Role role_of(const Job& job, const std::string& column) {
  if (const AttributeSpec* a = job.attribute(column)) return a->role;
  return job.default_role.value_or(Role::insensitive);
}


namespace {

// An identifying column's action as the verifier's.
verify::ReleasedIdentifier released_identifier(const std::string& column, const IdentifierActionSpec& s) {
  verify::ReleasedIdentifier r;
  r.name = column;
  r.action = s.action == IdentifierAction::pseudonym ? verify::ReleasedIdentifier::Action::pseudonym
             : s.action == IdentifierAction::mask    ? verify::ReleasedIdentifier::Action::mask
                                                     : verify::ReleasedIdentifier::Action::date_shift;
  r.length = s.length;
  r.keep_first = s.mask.keep_first;
  r.keep_last = s.mask.keep_last;
  r.symbol = s.mask.symbol;
  r.digits = s.mask.digits;
  r.letters = s.mask.letters;
  r.regex = s.mask.regex;
  r.replacement = s.mask.replacement;
  r.date_format = s.date_format;
  return r;
}

}  // namespace

// The job as verifier options (anonymization).
Mapped map_anonymization(const Job& job, const verify::Table& input, Hierarchies& hierarchies) {
  Mapped m;
  if (job.subset) {
    // The research subset, found again by the verifier's own reader and
    // matching.
    const Job::Subset& s = *job.subset;
    std::vector<char>& in = m.options.subset;
    if (s.file.empty()) {
      const auto c = std::find(input.header.begin(), input.header.end(), s.column);
      if (c == input.header.end())
        throw JobError(Location{job.path, s.line, 0, {}}, fmt::format("subset.column '{}' is not a column of the input", s.column));
      const std::size_t col = static_cast<std::size_t>(c - input.header.begin());
      for (const auto& row : input.rows) in.push_back(row[col] == s.value ? 1 : 0);
    } else {
      const verify::Table subset =
          read_table(s.file, s.delimiter ? *s.delimiter : file_delimiter(s.file, "subset"), true, "subset");
      std::string why;
      const auto matched = verify::match_subset(input, subset, &why);
      if (!matched) throw InputError(Location{s.file, 0, 0, {}}, fmt::format("the subset does not fit the input: {}", why));
      in = *matched;
    }
  }
  verify::Options& o = m.options;
  for (const auto& column : input.header) {
    const Role role = role_of(job, column);
    if (role == Role::identifying) {
      const AttributeSpec* a = job.attribute(column);
      if (!a || a->identifier.action == IdentifierAction::remove) {
        o.identifying.push_back(column);
        continue;
      }
      // Released by its action (docs/identifiers.md): recomputed by the
      // verifier from the input's value.
      o.released_identifiers.push_back(released_identifier(column, a->identifier));
      continue;
    }
    if (role != Role::quasi_identifying) continue;
    const AttributeSpec& a = *job.attribute(column);
    if (a.microaggregation) {
      const bool generalized = a.microaggregation->generalize_before;
      o.microaggregated.push_back(
          {column, to_string(a.microaggregation->function), generalized ? hierarchies.name_of(a) : std::string()});
      m.aggregated_hierarchies.push_back(generalized ? hierarchies.of(a) : verify::Table{});
      continue;
    }
    o.quasi_identifiers.push_back({column, hierarchies.name_of(a), a.min_level.value_or(0), a.max_level});
    m.hierarchies.push_back(hierarchies.of(a));
  }
  // The secret, when a pseudonym or a date shift needs it (masks do not).
  const auto keys = [](const IdentifierActionSpec& s) {
    return s.action == IdentifierAction::pseudonym || s.action == IdentifierAction::date_shift;
  };
  bool keyed = false;
  for (const AttributeSpec& a : job.attributes) keyed = keyed || (a.role == Role::identifying && keys(a.identifier));
  for (const LinkedTable& t : job.linked)
    for (const LinkedColumn& c : t.columns) keyed = keyed || keys(c.identifier);
  if (job.identifiers) {
    if (keyed) o.secret = load_secret(job).bytes;
    o.person = job.identifiers->person;
    o.shift_days = job.identifiers->shift_days;
  }
  o.suppression_limit = job.suppression_limit;
  // Local recoding: records at the levels of their passes (verify.h).
  if (job.local_recoding) {
    o.local_recoding = true;
    o.pass_column = job.local_recoding->column;
  }
  // With differential privacy every model is judged on its sample, which
  // is secret. The released classes hold sampled records only, so what a
  // model judges class by class (l-diversity, k-anonymity, profitability)
  // and the risk models (which read the released classes' sizes and
  // records, ARX's HashGroupifyDistribution) can be checked; t-closeness,
  // delta-disclosure and beta-likeness compare a class with the sample's
  // distribution and cannot (docs/verify.md).
  const bool sampled = std::any_of(job.privacy.begin(), job.privacy.end(), [](const PrivacySpec& p) {
    return std::holds_alternative<DifferentialPrivacySpec>(p);
  });
  const auto unchecked = [&](std::string name) {
    verify::CheckLine l;
    l.name = std::move(name);
    l.status = verify::CheckLine::Status::skipped;
    l.detail = "judged against the distribution of differential privacy's sample, which is secret; the table "
               "cannot show it";
    m.unchecked.push_back(std::move(l));
  };
  for (const auto& spec : job.privacy) {
    std::visit(
        [&](const auto& p) {
          using P = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<P, TClosenessSpec> || std::is_same_v<P, DeltaDisclosureSpec> ||
                        std::is_same_v<P, BetaLikenessSpec>) {
            if (sampled) {
              unchecked(fmt::format("{} ({})",
                                    std::is_same_v<P, TClosenessSpec>        ? "t-closeness"
                                    : std::is_same_v<P, DeltaDisclosureSpec> ? "delta-disclosure privacy"
                                                                             : "beta-likeness",
                                    p.attribute));
              return;
            }
          }
          if constexpr (std::is_same_v<P, KAnonymitySpec>) {
            o.k = std::max(o.k, p.k);
          } else if constexpr (std::is_same_v<P, LDiversitySpec>) {
            switch (p.variant) {
              case LDiversitySpec::Variant::distinct:
                o.class_requirements.push_back(verify::DistinctLDiversity{p.attribute, static_cast<std::uint64_t>(p.l)});
                break;
              case LDiversitySpec::Variant::entropy:
                o.class_requirements.push_back(verify::EntropyLDiversity{
                    p.attribute, p.l, p.estimator == LDiversitySpec::Estimator::grassberger});
                break;
              case LDiversitySpec::Variant::recursive:
                o.class_requirements.push_back(
                    verify::RecursiveCLDiversity{p.attribute, p.c, static_cast<std::uint64_t>(p.l)});
                break;
            }
          } else if constexpr (std::is_same_v<P, TClosenessSpec>) {
            verify::TCloseness t;
            t.attribute = p.attribute;
            t.t = p.t;
            const AttributeSpec* a = job.attribute(p.attribute);
            switch (p.distance) {
              case TClosenessSpec::Distance::equal:
                t.distance = verify::TCloseness::Distance::equal;
                break;
              case TClosenessSpec::Distance::ordered:
                t.distance = verify::TCloseness::Distance::ordered;
                if (a) t.order = a->order;
                break;
              case TClosenessSpec::Distance::hierarchical:
                t.distance = verify::TCloseness::Distance::hierarchical;
                if (a && a->has_hierarchy()) t.hierarchy = hierarchies.of(*a).rows;
                break;
            }
            o.class_requirements.push_back(std::move(t));
          } else if constexpr (std::is_same_v<P, DeltaDisclosureSpec>) {
            o.class_requirements.push_back(verify::DeltaDisclosure{p.attribute, p.delta});
          } else if constexpr (std::is_same_v<P, BetaLikenessSpec>) {
            o.class_requirements.push_back(
                verify::BetaLikeness{p.attribute, p.beta, p.variant == BetaLikenessSpec::Variant::enhanced});
          } else if constexpr (std::is_same_v<P, AverageRiskSpec>) {
            o.average_risk = verify::AverageRisk{p.threshold, p.highest_risk, p.records_at_risk};
          } else if constexpr (std::is_same_v<P, KMapSpec>) {
            if (p.population_size == 0)  // the population table
              o.population_k = std::max(o.population_k, p.k);
            else
              o.k_map = verify::KMap{p.k, p.population_size, p.significance,
                                     p.estimator == KMapSpec::Estimator::zero_truncated_poisson};
          } else if constexpr (std::is_same_v<P, SampleUniquenessSpec>) {
            o.sample_uniqueness = verify::SampleUniqueness{p.threshold};
          } else if constexpr (std::is_same_v<P, DifferentialPrivacySpec>) {
            // Every released record was sampled, and every released class
            // holds at least k sampled records: the released table is
            // k-anonymous for ARX's k (the sample itself is secret, so that
            // is all a table can show; docs/privacy-models.md). Suppression
            // is unlimited.
            o.k = std::max(o.k, job_dp_parameters(p, job.path).k);
            o.suppression_limit = 1;
          } else if constexpr (std::is_same_v<P, ProfitabilitySpec>) {
            // Without attack: k-anonymity with k derived from gain / cost
            // (ARX's ProfitabilityProsecutorNoAttack), derived here again;
            // the journalist's: the class's records in the population (the
            // input) must reach k. With attack: every released class has a
            // positive publisher payout (verify::Profitability).
            if (p.attack) {
              const CostBenefitSpec& cb = p.cost_benefit;
              o.profitability = verify::Profitability{cb.publisher_benefit, cb.publisher_loss, cb.adversary_gain,
                                                      cb.adversary_cost, p.journalist};
            } else {
              const double gain = p.cost_benefit.adversary_gain, cost = p.cost_benefit.adversary_cost;
              std::uint64_t k = 1;
              if (gain > 0) {
                const double ratio = gain / cost;
                k = std::isinf(ratio) ? 2147483647u
                    : ratio == std::floor(ratio) ? static_cast<std::uint64_t>(ratio) + 1
                                                 : static_cast<std::uint64_t>(std::ceil(ratio));
              }
              if (p.journalist)
                o.population_k = std::max(o.population_k, k);
              else
                o.k = std::max(o.k, k);
            }
          } else if constexpr (std::is_same_v<P, DeltaPresenceSpec>) {
            o.delta_presence = verify::DeltaPresence{p.min, p.max, false};
          } else {
            static_assert(std::is_same_v<P, PopulationUniquenessSpec>);
            verify::PopulationUniqueness pu;
            pu.threshold = p.threshold;
            pu.population_size = p.population_size;
            switch (p.estimator) {
              case PopulationUniquenessSpec::Estimator::dankar: pu.estimator = verify::PopulationUniqueness::Estimator::dankar; break;
              case PopulationUniquenessSpec::Estimator::pitman: pu.estimator = verify::PopulationUniqueness::Estimator::pitman; break;
              case PopulationUniquenessSpec::Estimator::zayatz: pu.estimator = verify::PopulationUniqueness::Estimator::zayatz; break;
              case PopulationUniquenessSpec::Estimator::snb: pu.estimator = verify::PopulationUniqueness::Estimator::snb; break;
            }
            o.population_uniqueness = pu;
          }
        },
        spec);
  }
  // ARX judges a class without subset records too small before it asks
  // δ-presence when a model has a minimal class size (docs/privacy-models.md).
  if (o.delta_presence)
    for (const auto& spec : job.privacy)
      o.delta_presence->judged_too_small_first =
          o.delta_presence->judged_too_small_first || std::holds_alternative<KAnonymitySpec>(spec) ||
          std::holds_alternative<LDiversitySpec>(spec) ||
          (std::holds_alternative<KMapSpec>(spec) && std::get<KMapSpec>(spec).population_size > 0) ||
          (std::holds_alternative<ProfitabilitySpec>(spec) && !std::get<ProfitabilitySpec>(spec).attack &&
           !std::get<ProfitabilitySpec>(spec).journalist);
  return m;
}


// The job's `cell-suppression` section as checker options
// (docs/cell-suppression.md): released columns named as documented (the
// first released level under the attribute's name, the others NAME_L<level>,
// unless `names` is given); every combination expanded to every choice of
// released levels from the known one up.
MappedCells map_cell_suppression(const Job& job, const verify::Table& input, Hierarchies& hierarchies) {
  const Job::CellSuppression& cs = *job.cell_suppression;
  MappedCells m;
  verify::CellOptions& o = m.options;
  if (cs.k) {
    o.k = *cs.k;
  } else {
    // k = ceil(1/tau); the margin keeps 1/0.2 = 5.000000000000001 at 5.
    o.k = static_cast<std::uint64_t>(std::ceil(1.0 / cs.tau.value_or(1.0) - 1e-9));
  }
  o.marker = cs.marker;
  std::map<std::string, std::vector<std::size_t>> known_columns;  // attribute -> released columns from the known level
  std::set<std::string> released_names;
  std::vector<std::string> qis;
  for (const auto& column : input.header) {
    const Role role = role_of(job, column);
    if (role == Role::identifying) o.removed.push_back(column);
    if (role == Role::quasi_identifying) qis.push_back(column);
  }
  for (const auto& attribute : qis) {
    const AttributeSpec& a = *job.attribute(attribute);
    const auto release = std::find_if(cs.release_levels.begin(), cs.release_levels.end(),
                                      [&](const auto& r) { return r.attribute == attribute; });
    std::vector<int> levels = {0};
    std::vector<std::string> names;
    std::optional<int> known;
    if (release != cs.release_levels.end()) {
      if (!release->levels.empty()) levels = release->levels;
      names = release->names;
      known = release->known_level;
      if (!known && !release->evaluate.empty()) known = *std::min_element(release->evaluate.begin(), release->evaluate.end());
    }
    const int known_level = known.value_or(*std::min_element(levels.begin(), levels.end()));
    std::optional<verify::Table> table;
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const std::string name =
          i < names.size() ? names[i] : (i == 0 ? attribute : fmt::format("{}_L{}", attribute, levels[i]));
      o.released.push_back({name, attribute, levels[i], a.has_hierarchy() ? hierarchies.name_of(a) : std::string()});
      if (levels[i] > 0 && !table) table = hierarchies.of(a);
      m.hierarchies.push_back(levels[i] > 0 ? *table : verify::Table{});
      released_names.insert(name);
      if (levels[i] >= known_level) known_columns[attribute].push_back(o.released.size() - 1);
    }
  }
  std::vector<std::vector<std::string>> combinations = cs.combinations;
  if (combinations.empty()) combinations.push_back(qis);
  std::set<std::vector<std::string>> seen;
  for (const auto& combination : combinations) {
    // Each member: the released columns it stands for.
    std::vector<std::vector<std::string>> choices;
    for (const auto& member : combination) {
      if (known_columns.count(member)) {
        std::vector<std::string> columns;
        for (std::size_t i : known_columns.at(member)) columns.push_back(o.released[i].output_column);
        choices.push_back(columns);
      } else if (released_names.count(member)) {
        choices.push_back({member});
      } else {
        throw JobError(Location{job.path, cs.line, 0, {}},
                       fmt::format("cell-suppression: the combination member '{}' is neither a quasi-identifier nor "
                                   "a released column",
                                   member));
      }
    }
    // The cartesian product of the choices.
    std::vector<std::vector<std::string>> product = {{}};
    for (const auto& choice : choices) {
      std::vector<std::vector<std::string>> next;
      for (const auto& partial : product)
        for (const auto& column : choice) {
          next.push_back(partial);
          next.back().push_back(column);
        }
      product = std::move(next);
    }
    for (auto& c : product)
      if (seen.insert(c).second) o.combinations.push_back(std::move(c));
  }
  return m;
}

std::vector<verify::CheckLine> check_linked_tables(const Job& job, const Mapped& m, const verify::Table& input,
                                                  const verify::Table& released) {
  std::vector<verify::CheckLine> lines;
  for (const LinkedTable& t : job.linked) {
    verify::LinkedTableOptions l;
    l.name = t.name;
    l.key = t.key;
    l.drop_suppressed = t.suppressed == LinkedTable::Suppressed::drop;
    l.drop_orphans = t.orphans == LinkedTable::Orphans::drop;
    l.key_as_is = job.identifiers && role_of(job, job.identifiers->person) != Role::identifying;
    const char delimiter = t.delimiter ? *t.delimiter : file_delimiter(t.path, "linked table");
    const verify::Table table = read_table(t.path, delimiter, true, "linked table");
    const verify::Table release = read_table(t.output, job.output.delimiter.value_or(delimiter), true,
                                             "release of a linked table");
    std::vector<verify::Table> hierarchies = m.hierarchies;
    for (const LinkedColumn& c : t.columns) {
      verify::LinkedColumn v;
      v.name = c.name;
      if (c.role == Role::insensitive) {
        v.kind = verify::LinkedColumn::Kind::copied;
      } else if (c.role == Role::quasi_identifying) {
        v.kind = verify::LinkedColumn::Kind::generalized;
        v.quasi_identifier = c.as;
        // An inline hierarchy of intervals or dates places a value the
        // input does not have by itself: its row, built by the library's
        // builder like every inline hierarchy verify reads.
        const AttributeSpec* a = job.attribute(c.as);
        const auto q = std::find_if(m.options.quasi_identifiers.begin(), m.options.quasi_identifiers.end(),
                                    [&](const verify::QuasiIdentifier& x) { return x.name == c.as; });
        const auto col = std::find(table.header.begin(), table.header.end(), c.name);
        if (a && a->hierarchy_builder && !a->hierarchy_data && q != m.options.quasi_identifiers.end() &&
            col != table.header.end() &&
            (std::holds_alternative<IntervalSpec>(*a->hierarchy_builder) ||
             std::holds_alternative<DateSpec>(*a->hierarchy_builder))) {
          verify::Table& h = hierarchies[static_cast<std::size_t>(q - m.options.quasi_identifiers.begin())];
          std::set<std::string> listed;
          for (const auto& row : h.rows)
            if (!row.empty()) listed.insert(row[0]);
          std::vector<std::string> missing;
          for (const auto& row : table.rows) {
            const std::string& v2 = row[static_cast<std::size_t>(col - table.header.begin())];
            if (listed.insert(v2).second) missing.push_back(v2);
          }
          if (!missing.empty())
            for (auto& row : build_hierarchy(missing, *a->hierarchy_builder).rows) h.rows.push_back(std::move(row));
        }
      } else if (c.identifier.action == IdentifierAction::remove) {
        v.kind = verify::LinkedColumn::Kind::removed;
      } else {
        v.kind = verify::LinkedColumn::Kind::released;
        v.released = released_identifier(c.name, c.identifier);
      }
      l.columns.push_back(std::move(v));
    }
    auto more = verify::check_linked(m.options, input, released, hierarchies, l, table, release);
    lines.insert(lines.end(), more.begin(), more.end());
  }
  return lines;
}

std::vector<std::pair<std::string, std::string>> identifying_values(const Job& job, const verify::Table& input) {
  std::vector<std::pair<std::string, std::string>> values;
  std::set<std::string> released;  // values of columns released as they are or generalized
  auto add_table = [&](const verify::Table& t, const std::function<int(const std::string&)>& kind) {
    // kind: 1 identifying (looked for), 0 released, -1 neither (dates)
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      const int k = kind(t.header[c]);
      for (const auto& row : t.rows) {
        if (row[c].empty()) continue;
        if (k > 0) values.emplace_back(t.header[c], row[c]);
        if (k == 0) released.insert(row[c]);
      }
    }
  };
  const auto shifted = [&](const std::string& column) {
    const AttributeSpec* a = job.attribute(column);
    return a && a->identifier.action == IdentifierAction::date_shift;
  };
  add_table(input, [&](const std::string& column) {
    if (role_of(job, column) != Role::identifying) return 0;
    return shifted(column) ? -1 : 1;
  });
  for (const LinkedTable& t : job.linked) {
    const char delimiter = t.delimiter ? *t.delimiter : file_delimiter(t.path, "linked table");
    const verify::Table table = read_table(t.path, delimiter, true, "linked table");
    const bool key_identifying = job.identifiers && role_of(job, job.identifiers->person) == Role::identifying;
    add_table(table, [&](const std::string& column) {
      if (column == t.key) return key_identifying ? 1 : 0;
      for (const LinkedColumn& c : t.columns)
        if (c.name == column) {
          if (c.role != Role::identifying) return 0;
          return c.identifier.action == IdentifierAction::date_shift ? -1 : 1;
        }
      return 0;
    });
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::erase_if(values, [&](const auto& v) { return released.count(v.second) > 0; });
  return values;
}

}  // namespace deid::cli
