// What the utility analysis compares (deid/utility.h, UtilityInput): the
// released attributes of a job and which records the release suppressed,
// from the transformation the search chose, or read back from a released
// table and its input.
#include <fmt/format.h>

#include <algorithm>

#include "deid/error.h"
#include "deid/formulas.h"
#include "deid/utility.h"

namespace deid {
namespace {

// Whether the released value `value` is `label` as the writer wrote it
// (with output.escape-formulas, a leading "'" before a formula-like label).
bool same_release(std::string_view value, std::string_view label, bool escape) {
  if (value == label) return true;
  return escape && looks_like_formula(label) && value.size() == label.size() + 1 && value.front() == '\'' &&
         value.substr(1) == label;
}

// The attributes of `p`'s output columns, quasi-identifiers at `levels`.
// Columns the analysis leaves out: identifying ones (not released) and
// microaggregated ones, whose released value depends on the record's class,
// not on its value alone (docs/utility.md).
bool left_out(const PreparedJob& p, std::size_t c) {
  if (p.roles[c] == Role::identifying) return true;
  const auto& m = p.problem.microaggregated;
  return std::any_of(m.begin(), m.end(), [&](const MicroaggregatedAttribute& a) { return a.column == static_cast<int>(c); });
}

std::vector<UtilityAttribute> released_attributes(const PreparedJob& p, const std::vector<int>& levels) {
  std::vector<UtilityAttribute> attrs;
  const Problem& pr = p.problem;
  for (std::size_t c = 0; c < p.data.columns.size(); ++c) {
    if (left_out(p, c)) continue;
    UtilityAttribute a;
    a.name = p.data.columns[c].name;
    a.role = p.roles[c];
    a.column = &p.data.columns[c];
    const auto qi = std::find(pr.qi_columns.begin(), pr.qi_columns.end(), static_cast<int>(c));
    if (qi != pr.qi_columns.end()) {
      const auto q = static_cast<std::size_t>(qi - pr.qi_columns.begin());
      const Generalization& h = pr.hierarchies[q];
      a.level = levels[q];
      a.to_released = h.map(a.level);
      for (std::uint32_t v = 0; v < h.domain_size(a.level); ++v) a.labels.push_back(h.label(a.level, v));
    }
    attrs.push_back(std::move(a));
  }
  return attrs;
}

// The job's utility.target and utility.features as indices of `in`'s
// attributes. Throws JobError, at the section's line, for a name that is not
// a released column.
void set_classification(const Job& job, UtilityInput& in) {
  const auto index = [&](const std::string& name, const char* what) {
    for (std::size_t i = 0; i < in.attributes.size(); ++i)
      if (in.attributes[i].name == name) return i;
    std::string released;
    for (const UtilityAttribute& a : in.attributes) released += (released.empty() ? "'" : ", '") + a.name + "'";
    throw JobError(Location{job.path, job.utility.line, 0, {}},
                   fmt::format("utility.{} names '{}', which is not a released column (released: {})", what, name,
                               released));
  };
  for (const std::string& n : job.utility.targets) in.targets.push_back(index(n, "target"));
  for (const std::string& n : job.utility.features) in.features.push_back(index(n, "features"));
}

}  // namespace

UtilityInput utility_input(const PreparedJob& p, const Transformation& t, const Classes& classes) {
  const Problem& pr = p.problem;
  const Histogram& hist = pr.histogram;
  if (classes.entry_class.size() != hist.size())
    throw Error("utility analysis: the classes of the transformation were not grouped from the histogram");
  UtilityInput in;
  in.rows = p.data.rows;
  in.attributes = released_attributes(p, std::vector<int>(t.begin(), t.end()));
  // Per histogram entry: suppressed, and some quasi-identifier would not be
  // '*' at its level (else the release cannot tell, and neither do we: the
  // rule of the read-back input below).
  std::vector<std::uint8_t> entry_suppressed(hist.size(), 0);
  for (std::size_t e = 0; e < hist.size(); ++e) {
    if (!classes.suppressed[classes.entry_class[e]]) continue;
    for (std::size_t q = 0; q < pr.qi_columns.size() && !entry_suppressed[e]; ++q)
      entry_suppressed[e] = pr.hierarchies[q].label(t[q], pr.hierarchies[q].map(t[q])[hist.key(e)[q]]) != "*";
  }
  in.suppressed.resize(in.rows);
  for (std::uint64_t r = 0; r < in.rows; ++r)
    in.suppressed[r] = entry_suppressed[hist.row_entry[r]] || (!pr.subset.empty() && !pr.subset[r]);
  set_classification(p.job, in);
  return in;
}

UtilityInput utility_input(const PreparedJob& p, const Dataset& released) {
  const Problem& pr = p.problem;
  const bool escape = p.job.output.escape_formulas;
  if (released.rows != p.data.rows)
    throw InputError(Location{released.source, 0, 0, {}},
                     fmt::format("the released table has {} records, the input {}; deid utility compares a table "
                                 "written by deid anonymize with its input",
                                 released.rows, p.data.rows));
  // Per output column: the released column, and per input code the released
  // code of its first record and whether a record of it is '*'.
  struct Seen {
    const Column* column = nullptr;
    std::vector<std::int64_t> first;    // released code, -1: none (every record '*')
    std::vector<std::uint64_t> line;    // data line of the first record (header is line 1)
    std::int64_t star = -1;             // released code of '*'
  };
  auto where = [&](const Column& col, std::uint64_t row) {
    return Location{released.source, row + 2, 0, col.name};
  };
  std::vector<Seen> seen;
  for (std::size_t c = 0; c < p.data.columns.size(); ++c) {
    if (left_out(p, c)) continue;
    const Column& in = p.data.columns[c];
    const int rc = released.column_index(in.name);
    if (rc < 0)
      throw InputError(Location{released.source, 1, 0, {}},
                       fmt::format("the released table has no column '{}'", in.name));
    Seen s;
    s.column = &released.columns[static_cast<std::size_t>(rc)];
    s.star = s.column->dictionary.find("*");
    const bool qi = std::find(pr.qi_columns.begin(), pr.qi_columns.end(), static_cast<int>(c)) != pr.qi_columns.end();
    s.first.assign(in.dictionary.size(), -1);
    s.line.assign(in.dictionary.size(), 0);
    for (std::uint64_t r = 0; r < p.data.rows; ++r) {
      const std::uint32_t code = in.codes[r];
      const std::uint32_t out = s.column->codes[r];
      if (qi && static_cast<std::int64_t>(out) == s.star) continue;
      if (s.first[code] < 0) {
        s.first[code] = out;
        s.line[code] = r;
      } else if (s.first[code] != static_cast<std::int64_t>(out)) {
        throw InputError(where(*s.column, r),
                         fmt::format("value '{}' where the record at line {} with the same input value '{}' has '{}': "
                                     "not a generalization deid anonymize writes",
                                     s.column->dictionary.value(out), s.line[code] + 2, in.dictionary.value(code),
                                     s.column->dictionary.value(static_cast<std::uint32_t>(s.first[code]))));
      }
    }
    seen.push_back(std::move(s));
  }

  // Each quasi-identifier's level: the lowest whose labels are the released values.
  std::vector<int> levels(pr.qi_columns.size(), 0);
  for (std::size_t q = 0; q < pr.qi_columns.size(); ++q) {
    const auto c = static_cast<std::size_t>(pr.qi_columns[q]);
    if (left_out(p, c)) continue;
    std::size_t k = 0;  // index in `seen`
    for (std::size_t i = 0; i < c; ++i) k += !left_out(p, i);
    const Seen& s = seen[k];
    const Generalization& h = pr.hierarchies[q];
    // Input values released only as '*' fit every level; of the levels that
    // fit, the one where the fewest of them are not '*' by generalization
    // (whose records must then have been suppressed), the lowest on a tie.
    int level = -1;
    std::uint64_t fewest = 0;
    for (int l = 0; l < h.height(); ++l) {
      bool fits = true;
      std::uint64_t only_star = 0;
      for (std::uint32_t code = 0; code < s.first.size() && fits; ++code) {
        const std::string& label = h.label(l, h.map(l)[code]);
        if (s.first[code] >= 0)
          fits = same_release(s.column->dictionary.value(static_cast<std::uint32_t>(s.first[code])), label, escape);
        else
          only_star += label != "*";
      }
      if (fits && (level < 0 || only_star < fewest)) {
        level = l;
        fewest = only_star;
      }
    }
    if (level < 0)
      throw InputError(Location{released.source, 1, 0, s.column->name},
                       fmt::format("the values of quasi-identifier '{}' are not its input values generalized to one "
                                   "level of its hierarchy",
                                   s.column->name));
    levels[q] = level;
  }

  UtilityInput in;
  in.rows = p.data.rows;
  in.attributes = released_attributes(p, levels);
  for (std::size_t k = 0; k < in.attributes.size(); ++k) {
    const UtilityAttribute& a = in.attributes[k];
    if (a.role == Role::quasi_identifying) continue;
    const Seen& s = seen[k];
    for (std::uint32_t code = 0; code < s.first.size(); ++code)
      if (s.first[code] >= 0 &&
          !same_release(s.column->dictionary.value(static_cast<std::uint32_t>(s.first[code])),
                        a.column->dictionary.value(code), escape))
        throw InputError(where(*s.column, s.line[code]),
                         fmt::format("value '{}' where the input has '{}': a copied column must equal the input",
                                     s.column->dictionary.value(static_cast<std::uint32_t>(s.first[code])),
                                     a.column->dictionary.value(code)));
  }

  // Suppressed records: every quasi-identifier '*', and one of them not '*'
  // by generalization alone. A '*' elsewhere is a suppressed cell, which
  // deid anonymize does not write.
  std::vector<std::vector<std::uint8_t>> star_label(in.attributes.size());  // per category: its label is '*'
  for (std::size_t k = 0; k < in.attributes.size(); ++k)
    for (const std::string& label : in.attributes[k].labels) star_label[k].push_back(label == "*");
  in.suppressed.assign(in.rows, 0);
  for (std::uint64_t r = 0; r < in.rows; ++r) {
    bool all_star = true, any_generalized_not_star = false;
    std::size_t star_not_generalized = SIZE_MAX;
    for (std::size_t k = 0; k < in.attributes.size(); ++k) {
      const UtilityAttribute& a = in.attributes[k];
      if (a.role != Role::quasi_identifying) continue;
      const bool star = static_cast<std::int64_t>(seen[k].column->codes[r]) == seen[k].star;
      const bool label_star = star_label[k][a.to_released[a.column->codes[r]]] != 0;
      all_star = all_star && star;
      if (!label_star) any_generalized_not_star = true;
      if (star && !label_star) star_not_generalized = k;
    }
    if (all_star && any_generalized_not_star) {
      in.suppressed[r] = 1;
    } else if (star_not_generalized != SIZE_MAX) {
      const UtilityAttribute& a = in.attributes[star_not_generalized];
      throw InputError(where(*seen[star_not_generalized].column, r),
                       fmt::format("'*' where level {} gives '{}' and the record's other quasi-identifiers are not "
                                   "suppressed: a suppressed cell, which deid anonymize does not write",
                                   a.level, a.labels[a.to_released[a.column->codes[r]]]));
    }
  }
  set_classification(p.job, in);
  return in;
}

}  // namespace deid
