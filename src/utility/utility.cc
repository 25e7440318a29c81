#include "deid/formulas.h"
#include "deid/utility.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "deid/error.h"
#include "deid/output.h"
#include "utility/classification.h"
#include "utility/statistics.h"

namespace deid {
namespace {

using utility::Cell;

bool is_qi(const UtilityAttribute& a) { return a.role == Role::quasi_identifying; }

// The released categories of an attribute: a quasi-identifier's labels plus
// '*' (for suppressed cells) when '*' is not one of them; a copied
// attribute's input values.
struct Categories {
  std::uint32_t count = 0;  // number of categories
  std::uint32_t star = 0;   // category of a suppressed cell (quasi-identifiers)
};

Categories categories_of(const UtilityAttribute& a) {
  if (!is_qi(a)) return {a.column->dictionary.size(), 0};
  const auto n = static_cast<std::uint32_t>(a.labels.size());
  const auto it = std::find(a.labels.begin(), a.labels.end(), "*");
  if (it != a.labels.end()) return {n, static_cast<std::uint32_t>(it - a.labels.begin())};
  return {n + 1, n};
}

const std::string& category_label(const UtilityAttribute& a, std::uint32_t cat) {
  static const std::string star = "*";
  if (!is_qi(a)) return a.column->dictionary.value(cat);
  return cat < a.labels.size() ? a.labels[cat] : star;
}

// Released category of input code `code` in a record that is (`suppressed`)
// or is not suppressed.
std::uint32_t released(const UtilityAttribute& a, const Categories& cats, std::uint32_t code, bool suppressed) {
  if (!is_qi(a)) return code;
  return suppressed ? cats.star : a.to_released[code];
}

// Records per input code, in records kept [0] and suppressed [1].
std::array<std::vector<std::uint64_t>, 2> code_counts(const UtilityAttribute& a, std::span<const std::uint8_t> sup) {
  std::array<std::vector<std::uint64_t>, 2> n;
  n[0].assign(a.column->dictionary.size(), 0);
  n[1].assign(a.column->dictionary.size(), 0);
  a.column->codes.visit([&](auto codes) {
    for (std::size_t r = 0; r < codes.size(); ++r) ++n[sup[r] != 0][codes[r]];
  });
  return n;
}

void summarize_numbers(const UtilityAttribute& a, const Categories& cats, const std::array<std::vector<std::uint64_t>, 2>& n,
                       const std::vector<std::uint64_t>& after, AttributeUtility& out) {
  const Dictionary& dict = a.column->dictionary;
  // Numeric when every non-empty input value is a number, or every one a date.
  bool numbers = true, dates = true, any = false;
  for (std::uint32_t c = 0; c < dict.size() && (numbers || dates); ++c) {
    const std::string& v = dict.value(c);
    if (v.empty()) continue;
    any = true;
    numbers = numbers && utility::read_number(v).has_value();
    dates = dates && utility::read_date(v).has_value();
  }
  if (!any || !(numbers || dates)) return;
  const bool date = !numbers;
  out.numeric_kind = date ? "date" : "number";

  std::vector<std::pair<double, std::uint64_t>> values;
  std::uint64_t missing = 0;
  for (std::uint32_t c = 0; c < dict.size(); ++c) {
    const std::uint64_t w = n[0][c] + n[1][c];
    if (w == 0) continue;
    const auto x = date ? utility::read_date(dict.value(c)) : utility::read_number(dict.value(c));
    if (x) values.emplace_back(*x, w); else missing += w;
  }
  out.numeric_before = utility::summarize(values, missing);

  values.clear();
  missing = 0;
  for (std::uint32_t cat = 0; cat < cats.count; ++cat) {
    if (after[cat] == 0) continue;
    const auto x = utility::read_back(category_label(a, cat), date);
    if (x) values.emplace_back(*x, after[cat]); else missing += after[cat];
  }
  out.numeric_after = utility::summarize(std::move(values), missing);
}

AttributeUtility analyze_attribute(const UtilityAttribute& a, std::span<const std::uint8_t> sup) {
  AttributeUtility out;
  out.name = a.name;
  out.role = a.role;
  out.level = a.level;
  const Categories cats = categories_of(a);
  const auto n = code_counts(a, sup);
  std::vector<std::uint64_t> before(cats.count, 0), after(cats.count, 0);
  std::vector<std::uint8_t> kept(cats.count, 0);  // a record not suppressed has the category
  for (std::uint32_t c = 0; c < n[0].size(); ++c) {
    const std::uint64_t all = n[0][c] + n[1][c];
    if (all == 0) continue;
    ++out.distinct_before;
    before[released(a, cats, c, false)] += all;
    after[released(a, cats, c, false)] += n[0][c];
    after[released(a, cats, c, true)] += n[1][c];
    // A cell '*' by generalization is not changed by suppression.
    if (released(a, cats, c, false) != released(a, cats, c, true)) out.suppressed += n[1][c];
    if (n[0][c] > 0) kept[released(a, cats, c, false)] = 1;
  }
  out.categories_kept = static_cast<std::uint64_t>(std::count(kept.begin(), kept.end(), 1));
  out.total_variation = utility::total_variation(before, after);
  out.jensen_shannon = utility::jensen_shannon(before, after);
  for (std::uint32_t cat = 0; cat < cats.count; ++cat) {
    if (before[cat] == 0 && after[cat] == 0) continue;
    out.categories.push_back(category_label(a, cat));
    out.before.push_back(before[cat]);
    out.after.push_back(after[cat]);
  }
  summarize_numbers(a, cats, n, after, out);
  return out;
}

// The contingency table of input codes of `a` and `b`, split by suppression:
// one pass over the rows into a dense table when it is small, else a hash
// table. Returns the cells of kept [0] and suppressed [1] records.
std::array<std::vector<Cell>, 2> pair_cells(const UtilityAttribute& a, const UtilityAttribute& b,
                                            std::span<const std::uint8_t> sup) {
  const std::uint64_t ra = a.column->dictionary.size(), rb = b.column->dictionary.size();
  std::array<std::vector<Cell>, 2> cells;
  auto cell = [&](std::uint64_t key) {
    return Cell{static_cast<std::uint32_t>(key / rb), static_cast<std::uint32_t>(key % rb), 0};
  };
  constexpr std::uint64_t kDenseCells = std::uint64_t{1} << 22;
  a.column->codes.visit([&](auto ca) {
    b.column->codes.visit([&](auto cb) {
      if (ra * rb <= kDenseCells) {
        std::vector<std::uint32_t> dense(2 * ra * rb, 0);
        for (std::size_t r = 0; r < ca.size(); ++r)
          ++dense[(sup[r] != 0) * ra * rb + std::uint64_t{ca[r]} * rb + cb[r]];
        for (int s = 0; s < 2; ++s)
          for (std::uint64_t k = 0; k < ra * rb; ++k)
            if (const std::uint32_t v = dense[s * ra * rb + k]) {
              cells[s].push_back(cell(k));
              cells[s].back().count = v;
            }
      } else {
        std::array<absl::flat_hash_map<std::uint64_t, std::uint64_t>, 2> sparse;
        for (std::size_t r = 0; r < ca.size(); ++r) ++sparse[sup[r] != 0][std::uint64_t{ca[r]} * rb + cb[r]];
        // The order of a hash table's cells may vary; cramers_v() sorts them.
        for (int s = 0; s < 2; ++s)
          for (const auto& [k, v] : sparse[s]) {
            cells[s].push_back(cell(k));
            cells[s].back().count = v;
          }
      }
    });
  });
  return cells;
}

void analyze_pair(const UtilityAttribute& a, const UtilityAttribute& b, std::span<const std::uint8_t> sup,
                  std::optional<double>& before, std::optional<double>& after) {
  const auto cells = pair_cells(a, b, sup);
  std::vector<Cell> all = cells[0];
  all.insert(all.end(), cells[1].begin(), cells[1].end());
  before = utility::cramers_v(std::move(all), a.column->dictionary.size(), b.column->dictionary.size());
  // After: the released categories of the records a pair's analysis can
  // use. A suppressed record's '*' is missing, not a category (counted as
  // one, the 5 % suppressed records of adult, '*' in every
  // quasi-identifier, would make every pair look associated); records
  // with both attributes copied keep their values.
  const Categories ca = categories_of(a), cb = categories_of(b);
  std::vector<Cell> rel;
  rel.reserve(cells[0].size() + cells[1].size());
  for (const Cell& c : cells[0]) rel.push_back({released(a, ca, c.row, false), released(b, cb, c.col, false), c.count});
  if (!is_qi(a) && !is_qi(b)) rel.insert(rel.end(), cells[1].begin(), cells[1].end());
  after = utility::cramers_v(std::move(rel), ca.count, cb.count);
}

// Whether the released value `value` is `label` as the writer wrote it
// (with output.escape-formulas, a leading "'" before a formula-like label).
bool same_release(std::string_view value, std::string_view label, bool escape) {
  if (value == label) return true;
  return escape && looks_like_formula(label) && value.size() == label.size() + 1 && value.front() == '\'' &&
         value.substr(1) == label;
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json to_json(const NumericSummary& s) {
  return {{"count", s.count},
          {"missing", s.missing},
          {"mean", optional_json(s.mean)},
          {"sd", optional_json(s.sd)},
          {"min", optional_json(s.min)},
          {"q1", optional_json(s.q1)},
          {"median", optional_json(s.median)},
          {"q3", optional_json(s.q3)},
          {"max", optional_json(s.max)},
          {"skewness", optional_json(s.skewness)},
          {"kurtosis", optional_json(s.kurtosis)}};
}

nlohmann::json deviation_json(const NumericSummary& before, const NumericSummary& after) {
  nlohmann::json d = nlohmann::json::object();
  const std::pair<const char*, std::optional<double> NumericSummary::*> fields[] = {
      {"mean", &NumericSummary::mean}, {"sd", &NumericSummary::sd},         {"min", &NumericSummary::min},
      {"q1", &NumericSummary::q1},     {"median", &NumericSummary::median}, {"q3", &NumericSummary::q3},
      {"max", &NumericSummary::max},   {"skewness", &NumericSummary::skewness}, {"kurtosis", &NumericSummary::kurtosis}};
  for (const auto& [name, field] : fields) {
    const auto& x = before.*field;
    const auto& y = after.*field;
    d[name] = x && y ? nlohmann::json(*y - *x) : nlohmann::json(nullptr);
  }
  return d;
}

nlohmann::json matrix_json(const std::vector<std::vector<std::optional<double>>>& m) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : m) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& v : row) r.push_back(optional_json(v));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

UtilityAnalysis analyze_utility(const UtilityInput& in) {
  UtilityAnalysis out;
  out.records = in.rows;
  for (std::uint8_t s : in.suppressed) out.suppressed_records += s != 0;
  const std::span<const std::uint8_t> sup(in.suppressed);

  out.attributes.resize(in.attributes.size());
  tbb::parallel_for(std::size_t{0}, in.attributes.size(),
                    [&](std::size_t i) { out.attributes[i] = analyze_attribute(in.attributes[i], sup); });

  std::vector<std::size_t> dep;  // attributes in the dependency matrices
  for (std::size_t i = 0; i < in.attributes.size(); ++i)
    if (in.attributes[i].role == Role::quasi_identifying || in.attributes[i].role == Role::sensitive) {
      dep.push_back(i);
      out.dependency_attributes.push_back(in.attributes[i].name);
    }
  const std::size_t d = dep.size();
  out.cramers_v_before.assign(d, std::vector<std::optional<double>>(d));
  out.cramers_v_after.assign(d, std::vector<std::optional<double>>(d));
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < d; ++i) {
    // An attribute with itself: 1 when it has two categories or more.
    const AttributeUtility& u = out.attributes[dep[i]];
    if (u.distinct_before >= 2) out.cramers_v_before[i][i] = 1.0;
    if (u.categories_kept >= 2) out.cramers_v_after[i][i] = 1.0;
    for (std::size_t j = i + 1; j < d; ++j) pairs.emplace_back(i, j);
  }
  // Each pair into its own cells: the same numbers for any thread count.
  tbb::parallel_for(std::size_t{0}, pairs.size(), [&](std::size_t p) {
    const auto [i, j] = pairs[p];
    analyze_pair(in.attributes[dep[i]], in.attributes[dep[j]], sup, out.cramers_v_before[i][j],
                 out.cramers_v_after[i][j]);
    out.cramers_v_before[j][i] = out.cramers_v_before[i][j];
    out.cramers_v_after[j][i] = out.cramers_v_after[i][j];
  });
  out.classification = utility::classify(in);
  return out;
}

namespace {

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
    if (is_qi(a)) continue;
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
      if (!is_qi(a)) continue;
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

nlohmann::json to_json(const UtilityAnalysis& u) {
  nlohmann::json attrs = nlohmann::json::array();
  for (const AttributeUtility& a : u.attributes) {
    nlohmann::json j = {{"name", a.name},
                        {"role", to_string(a.role)},
                        {"distinct_before", a.distinct_before},
                        {"categories_after", a.categories.size()},
                        {"suppressed_cells", a.suppressed},
                        {"suppressed_share", u.records ? static_cast<double>(a.suppressed) / static_cast<double>(u.records) : 0.0},
                        {"total_variation", a.total_variation},
                        {"jensen_shannon", a.jensen_shannon}};
    j["level"] = a.level >= 0 ? nlohmann::json(a.level) : nlohmann::json(nullptr);
    // What travels with a release shows no input value the release
    // generalized or suppressed (docs/reliability.md). A quasi-identifier
    // whose release changed some value ("changed") therefore lists no
    // category that only suppressed records had at level 0 (the category is
    // an input value no released record shows: "distribution_withheld"
    // counts them and their input records, which stay in the distances),
    // and gives none of
    // the input's order statistics (each is one record's value, or between
    // two) nor, with a single value, its mean.
    const bool changed = a.role == Role::quasi_identifying && (a.level != 0 || a.suppressed > 0);
    // Large domains (identifiers, free text) are cut to the first categories.
    constexpr std::size_t kListed = 1000;
    nlohmann::json dist = nlohmann::json::array();
    std::size_t listable = 0, withheld = 0;
    std::uint64_t withheld_records = 0;
    for (std::size_t i = 0; i < a.categories.size(); ++i) {
      if (a.role == Role::quasi_identifying && a.level == 0 && a.after[i] == 0 && a.before[i] > 0) {
        ++withheld;
        withheld_records += a.before[i];
        continue;
      }
      if (listable++ < kListed)
        dist.push_back({{"value", a.categories[i]}, {"before", a.before[i]}, {"after", a.after[i]}});
    }
    j["distribution"] = std::move(dist);
    j["distribution_omitted"] = listable > kListed ? listable - kListed : 0;
    if (withheld > 0) j["distribution_withheld"] = {{"categories", withheld}, {"before", withheld_records}};
    if (a.numeric_kind) {
      NumericSummary before = a.numeric_before;
      if (changed) {
        for (auto field : {&NumericSummary::min, &NumericSummary::q1, &NumericSummary::median, &NumericSummary::q3,
                           &NumericSummary::max})
          before.*field = std::nullopt;
        if (before.count == 1) before.mean = std::nullopt;
      }
      j["numeric"] = {{"kind", *a.numeric_kind},
                      {"before", to_json(before)},
                      {"after", to_json(a.numeric_after)},
                      {"deviation", deviation_json(before, a.numeric_after)}};
      if (changed) {
        nlohmann::json names = nlohmann::json::array({"min", "q1", "median", "q3", "max"});
        if (a.numeric_before.count == 1) names.push_back("mean");
        j["numeric"]["before_withheld"] = std::move(names);
      }
    } else {
      j["numeric"] = nullptr;
    }
    attrs.push_back(std::move(j));
  }
  nlohmann::json classification = nlohmann::json::array();
  for (const ClassificationUtility& c : u.classification)
    classification.push_back({{"target", c.target},
                              {"features", c.features},
                              {"model", "logistic-regression"},
                              {"records", c.records},
                              {"folds", c.folds},
                              {"baseline_accuracy", c.baseline},
                              {"accuracy_before", c.accuracy_before},
                              {"accuracy_after", c.accuracy_after},
                              {"relative_accuracy", optional_json(c.relative_accuracy)},
                              {"auc_before", optional_json(c.auc_before)},
                              {"auc_after", optional_json(c.auc_after)}});
  return {{"records", u.records},
          {"classification", std::move(classification)},
          {"suppressed_records", u.suppressed_records},
          {"attributes", std::move(attrs)},
          {"dependencies",
           {{"measure", "cramers_v"},
            {"attributes", u.dependency_attributes},
            {"before", matrix_json(u.cramers_v_before)},
            {"after", matrix_json(u.cramers_v_after)}}}};
}

}  // namespace deid
