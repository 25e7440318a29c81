// The utility analysis (docs/utility.md): per attribute, its distribution
// before and after the release (distances, numeric summaries), and the
// dependencies between attributes (Cramér's V) before and after; the
// classification utility is utility/classification.cc. What it analyzes
// comes from input.cc, its JSON from json.cc.
#include "deid/utility.h"

#include <absl/container/flat_hash_map.h>
#include <tbb/parallel_for.h>

#include <algorithm>

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

}  // namespace deid
