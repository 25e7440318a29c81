// Linked tables (docs/identifiers.md, "Linked tables"): each row joined to
// its person in the job's table through the person column, released with
// that person's suppression, the same pseudonyms and date offsets, and its
// quasi-identifying columns at the levels the search chose.
#include "deid/linked.h"

#include <fmt/format.h>

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/formula_warnings.h"
#include "deid/formulas.h"
#include "deid/hierarchy_builder.h"
#include "deid/identifiers.h"
#include "deid/pipeline.h"

namespace deid {
namespace {

Location data_at(const Dataset& data, std::size_t c, std::uint32_t code) {
  const Column& col = data.columns[c];
  return Location{data.source, first_line_of(col, code), 0, col.name};
}

}  // namespace

LinkedRelease::LinkedRelease(const PreparedJob& p, const LinkedTable& spec) : p_(p), spec_(spec) {
  const Job& job = p.job;
  const Location at{job.path, spec.line, 0, {}};
  const std::string table = fmt::format("linked table '{}'", spec.name);
  if (!job.identifiers || job.identifiers->person.empty())
    throw std::logic_error("LinkedRelease: the parser requires identifiers.person");
  if (p.data.grouped())
    throw JobError(at, fmt::format("{} is joined to the rows of the job's table, which an input grouped in its "
                                   "database does not hold",
                                   table));
  data_ = read_dataset(spec.path, CsvOptions{spec.delimiter});

  // The person column of the job's table: one row per person, released so
  // that the key can be joined with it.
  const std::string& person = job.identifiers->person;
  const int pc = p.data.column_index(person);
  if (pc < 0)
    throw JobError(Location{job.path, job.identifiers->line, 0, {}},
                   fmt::format("identifiers.person '{}' {}", person, p.data.not_a_column()));
  person_column_ = static_cast<std::size_t>(pc);
  const Role role = p.roles[person_column_];
  const AttributeSpec* pa = job.attribute(person);
  const IdentifierAction action = pa ? pa->identifier.action : IdentifierAction::remove;
  if (role == Role::identifying && (action == IdentifierAction::remove || action == IdentifierAction::date_shift))
    throw JobError(at, fmt::format("{} is joined to the release by identifiers.person '{}', which the release {}: "
                                   "give '{}' action: pseudonym (or role insensitive, to release it as it is) so "
                                   "that the linked rows can be joined to their people",
                                   table, person, action == IdentifierAction::remove ? "removes" : "shifts as a date",
                                   person));
  if (role != Role::identifying && role != Role::insensitive)
    throw JobError(at, fmt::format("{} is joined by identifiers.person '{}', which is {} in the job's table: the "
                                   "person column is identifying (released as a pseudonym) or insensitive",
                                   table, person, to_string(role)));
  const Column& pcol = p.data.columns[person_column_];
  std::vector<std::int64_t> row_of(pcol.dictionary.size(), -1);
  for (std::uint64_t r = 0; r < p.data.rows; ++r) {
    const std::uint32_t code = pcol.codes[r];
    if (pcol.dictionary.value(code).empty()) continue;  // nobody to join (a key is never empty)
    if (row_of[code] >= 0)
      throw InputError(data_at(p.data, person_column_, code),
                       fmt::format("the person column '{}' holds this line's value again in data row {}: {} is "
                                   "joined to one row per person",
                                   person, r + 1, table));
    row_of[code] = static_cast<std::int64_t>(r);
  }

  // The key, and a role for every other column.
  const int k = data_.column_index(spec.key);
  if (k < 0) throw JobError(at, fmt::format("{}: key '{}' {}", table, spec.key, data_.not_a_column()));
  key_ = static_cast<std::size_t>(k);
  std::vector<const LinkedColumn*> column_spec(data_.columns.size(), nullptr);
  for (const LinkedColumn& c : spec.columns) {
    const int i = data_.column_index(c.name);
    if (i < 0)
      throw JobError(Location{job.path, c.line, 0, {}},
                     fmt::format("{}: column '{}' {}", table, c.name, data_.not_a_column()));
    column_spec[static_cast<std::size_t>(i)] = &c;
  }
  std::vector<std::string> unlisted;
  for (std::size_t c = 0; c < data_.columns.size(); ++c)
    if (c != key_ && !column_spec[c]) unlisted.push_back("'" + data_.columns[c].name + "'");
  if (!unlisted.empty())
    throw JobError(at, fmt::format("{}: the columns {} have no role: give each a role in columns (identifying, "
                                   "quasi-identifying or insensitive)",
                                   table, fmt::join(unlisted, ", ")));

  // Every key names a person (in code order: the first one that does not
  // is the one on the earliest line).
  const Column& kcol = data_.columns[key_];
  person_.assign(kcol.dictionary.size(), -1);
  for (std::uint32_t code = 0; code < kcol.dictionary.size(); ++code) {
    const std::int64_t pcode = pcol.dictionary.find(kcol.dictionary.value(code));
    if (pcode >= 0 && !kcol.dictionary.value(code).empty()) person_[code] = row_of[static_cast<std::size_t>(pcode)];
    if (person_[code] < 0 && spec.orphans == LinkedTable::Orphans::error)
      throw InputError(data_at(data_, key_, code),
                       fmt::format("{}: the key here names no person of the job's table (column '{}' of {}): set "
                                   "orphans: drop to leave such rows out of the release",
                                   table, person, p.data.source));
  }

  // What each column is released as.
  plan_.assign(data_.columns.size(), Plan::copied);
  qi_.assign(data_.columns.size(), 0);
  leaf_.resize(data_.columns.size());
  levels_.assign(data_.columns.size(), -1);
  released_job_.path = job.path;
  released_job_.identifiers = job.identifiers;
  released_job_.identifiers->person = spec.key;
  if (role == Role::identifying) {
    AttributeSpec a;
    a.name = spec.key;
    a.role = Role::identifying;
    a.identifier = pa->identifier;
    released_job_.attributes.push_back(a);
  }
  plan_[key_] = Plan::key;
  for (std::size_t c = 0; c < data_.columns.size(); ++c) {
    const LinkedColumn* s = column_spec[c];
    if (!s) continue;
    switch (s->role) {
      case Role::identifying:
        if (s->identifier.action == IdentifierAction::remove) {
          plan_[c] = Plan::removed;
        } else {
          plan_[c] = Plan::released;
          AttributeSpec a;
          a.name = s->name;
          a.role = Role::identifying;
          a.identifier = s->identifier;
          released_job_.attributes.push_back(a);
        }
        break;
      case Role::quasi_identifying: {
        const auto& names = p.problem.qi_names;
        const auto it = std::find(names.begin(), names.end(), s->as);
        if (it == names.end())
          throw JobError(Location{job.path, s->line, 0, {}},
                         fmt::format("{}: column '{}' is generalized like '{}', which is not a generalized "
                                     "quasi-identifier of the job",
                                     table, s->name, s->as));
        plan_[c] = Plan::generalized;
        qi_[c] = static_cast<std::size_t>(it - names.begin());
        const Generalization& h = p.problem.hierarchies[qi_[c]];
        absl::flat_hash_map<std::string_view, std::uint32_t> leaves;
        leaves.reserve(h.domain_size(0));
        for (std::uint32_t v = 0; v < h.domain_size(0); ++v) leaves.emplace(h.label(0, v), v);
        const Column& col = data_.columns[c];
        leaf_[c].resize(col.dictionary.size());
        std::vector<std::uint32_t> missing;
        for (std::uint32_t code = 0; code < col.dictionary.size(); ++code) {
          const auto found = leaves.find(col.dictionary.value(code));
          if (found == leaves.end()) missing.push_back(code);
          else leaf_[c][code] = found->second;
        }
        if (!missing.empty()) place_missing(c, *s, missing);
        break;
      }
      default: break;  // insensitive: copied
    }
  }
  if (!released_job_.attributes.empty())
    released_ = std::make_unique<IdentifierRelease>(released_job_, data_,
                                                    p.identifiers ? &p.identifiers->secret() : nullptr);
}

LinkedRelease::~LinkedRelease() = default;

void LinkedRelease::place_missing(std::size_t c, const LinkedColumn& s, const std::vector<std::uint32_t>& codes) {
  // Values the job's table does not have: an inline hierarchy of intervals
  // or dates places each value by itself (its row depends on nothing else),
  // so the builder gives their rows; any other hierarchy must list them.
  const Column& col = data_.columns[c];
  const AttributeSpec* a = p_.job.attribute(s.as);
  const Generalization& h = p_.problem.hierarchies[qi_[c]];
  const bool by_itself = a && !a->hierarchy_data && a->hierarchy.empty() && a->hierarchy_builder &&
                         (std::holds_alternative<IntervalSpec>(*a->hierarchy_builder) ||
                          std::holds_alternative<DateSpec>(*a->hierarchy_builder));
  const std::string table = fmt::format("linked table '{}'", spec_.name);
  if (!by_itself)
    throw InputError(data_at(data_, c, codes[0]),
                     fmt::format("{}: '{}' is not a value of the hierarchy of '{}', which generalizes column '{}': "
                                 "give '{}' a hierarchy that lists it (or an inline hierarchy of intervals or dates, "
                                 "which places any value)",
                                 table, col.dictionary.value(codes[0]), s.as, s.name, s.as));
  for (std::uint32_t code : codes) {
    HierarchyTable built;
    try {
      built = build_hierarchy({col.dictionary.value(code)}, *a->hierarchy_builder);
    } catch (const std::exception& e) {
      throw InputError(data_at(data_, c, code), fmt::format("{}: column '{}' is generalized like '{}': {}", table,
                                                            s.name, s.as, e.what()));
    }
    if (built.rows.size() != 1 || built.rows[0].size() != static_cast<std::size_t>(h.height()))
      throw std::logic_error("LinkedRelease: an inline hierarchy built a row of another height");
    leaf_[c][code] = kPlaced | static_cast<std::uint32_t>(placed_.size());
    placed_.push_back(std::move(built.rows[0]));
  }
}

const std::string& LinkedRelease::label(std::size_t c, int level, std::uint32_t code) const {
  const std::uint32_t leaf = leaf_[c][code];
  if (leaf & kPlaced) return placed_[leaf & ~kPlaced][static_cast<std::size_t>(level)];
  const Generalization& h = p_.problem.hierarchies[qi_[c]];
  return h.label(level, h.map(level)[leaf]);
}

FileDigest LinkedRelease::input_digest() const {
  return {"linked input", spec_.path, data_.sha256, data_.bytes, {}, 0};
}

void LinkedRelease::write(const Transformation& t, const Classes& classes, std::ostream& out) {
  const char delim = p_.job.output.delimiter.value_or(data_.delimiter);
  const bool escape = p_.job.output.escape_formulas;
  std::string line;
  bool first = true;
  for (std::size_t c = 0; c < data_.columns.size(); ++c) {
    if (plan_[c] == Plan::removed) continue;
    if (!first) line.push_back(delim);
    first = false;
    append_csv_field(line, data_.columns[c].name, delim);
    if (plan_[c] == Plan::generalized) levels_[c] = t[qi_[c]];
  }
  line.push_back('\n');
  out << line;
  written_ = suppressed_kept_ = suppressed_dropped_ = orphans_ = 0;
  const Column& kcol = data_.columns[key_];
  const bool key_released = released_ && released_->released(key_);
  for (std::uint64_t r = 0; r < data_.rows; ++r) {
    const std::int64_t who = person_[kcol.codes[r]];
    if (who < 0) {
      ++orphans_;
      continue;
    }
    const bool suppressed = row_suppressed(p_, classes, static_cast<std::uint64_t>(who));
    if (suppressed && spec_.suppressed == LinkedTable::Suppressed::drop) {
      ++suppressed_dropped_;
      continue;
    }
    suppressed_kept_ += suppressed ? 1 : 0;
    ++written_;
    line.clear();
    first = true;
    for (std::size_t c = 0; c < data_.columns.size(); ++c) {
      if (plan_[c] == Plan::removed) continue;
      if (!first) line.push_back(delim);
      first = false;
      const Column& col = data_.columns[c];
      switch (plan_[c]) {
        case Plan::generalized: {
          if (suppressed) {
            line.push_back('*');
            break;
          }
          append_output_field(line, label(c, t[qi_[c]], col.codes[r]), delim, escape);
          break;
        }
        case Plan::released: append_output_field(line, released_->value(c, r), delim, escape); break;
        case Plan::key:
          append_output_field(line, key_released ? released_->value(c, r) : col.dictionary.value(col.codes[r]), delim,
                              escape);
          break;
        default: append_output_field(line, col.dictionary.value(col.codes[r]), delim, escape); break;
      }
    }
    line.push_back('\n');
    out << line;
  }
}

nlohmann::json LinkedRelease::summary() const {
  nlohmann::json cols = nlohmann::json::array();
  for (std::size_t c = 0; c < data_.columns.size(); ++c) {
    nlohmann::json col = {{"name", data_.columns[c].name}};
    switch (plan_[c]) {
      case Plan::key: col["released_as"] = "key"; break;
      case Plan::copied: col["released_as"] = "as is"; break;
      case Plan::removed: col["released_as"] = "removed"; break;
      case Plan::released: {
        const LinkedColumn* s = nullptr;
        for (const LinkedColumn& l : spec_.columns)
          if (l.name == data_.columns[c].name) s = &l;
        col["released_as"] = to_string(s->identifier.action);
        break;
      }
      case Plan::generalized:
        col["released_as"] = "generalized";
        col["as"] = p_.problem.qi_names[qi_[c]];
        col["level"] = levels_[c];
        break;
    }
    cols.push_back(std::move(col));
  }
  return {{"name", spec_.name},
          {"input", spec_.path},
          {"output", spec_.output},
          {"key", spec_.key},
          {"rows", data_.rows},
          {"released_rows", written_},
          {"suppressed_rows", suppressed_kept_},
          {"dropped_rows", {{"suppressed", suppressed_dropped_}, {"orphans", orphans_}}},
          {"suppressed", to_string(spec_.suppressed)},
          {"orphans", to_string(spec_.orphans)},
          {"columns", std::move(cols)}};
}

std::vector<std::string> LinkedRelease::warnings() const {
  if (p_.job.output.escape_formulas) return {};
  std::vector<bool> written(data_.columns.size());
  std::vector<const std::vector<std::string>*> shown(data_.columns.size(), nullptr);
  // Generalized labels are the job table's (checked there); shifted dates
  // are never formulas; pseudonyms and masks are checked as released.
  static const std::vector<std::string> kNone;
  for (std::size_t c = 0; c < data_.columns.size(); ++c) {
    written[c] = plan_[c] != Plan::removed;
    if (plan_[c] == Plan::generalized) shown[c] = &kNone;
    if (released_ && released_->released(c)) {
      const std::vector<std::string>* v = released_->distinct_values(c);
      shown[c] = v ? v : &kNone;
    }
  }
  return formula_warnings(data_, written, shown);
}

}  // namespace deid
