// Releasing every level of a hierarchy as its own column and generating the
// combinations per level of background knowledge (papers/003, "Disclosing
// All Levels of the Hierarchy", Tables 5, 7 and 8).

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "deid/cell_suppression_release.h"
#include "deid/error.h"

namespace deid {
namespace {

[[noreturn]] void fail(const std::string& file, const std::string& msg) {
  throw JobError(Location{file, 0, 0, {}}, msg);
}

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

ReleasePlan plan_release(const std::vector<ReleaseAttribute>& attributes,
                         const std::vector<std::vector<std::string>>& combinations, std::uint64_t k,
                         const std::string& marker, const std::string& job_file) {
  ReleasePlan plan;
  CellTable& t = plan.table;
  // Per attribute: its table columns by released level, and the evaluated ones.
  std::vector<std::vector<std::size_t>> columns_of(attributes.size());
  std::vector<std::vector<std::size_t>> evaluated_of(attributes.size());
  std::vector<std::vector<std::size_t>> propagate;
  std::vector<double> weights;
  std::set<std::string> names;

  for (std::size_t ai = 0; ai < attributes.size(); ++ai) {
    const ReleaseAttribute& a = attributes[ai];
    if (!a.column) fail(job_file, fmt::format("attribute '{}': no data column", a.name));
    if (t.rows == 0 && ai == 0) t.rows = a.column->codes.size();
    if (a.column->codes.size() != t.rows) fail(job_file, "attributes of different lengths");
    const int height = a.hierarchy ? a.hierarchy->height() : 1;
    std::vector<int> levels = a.levels.empty() ? std::vector<int>{0} : a.levels;
    for (std::size_t i = 0; i < levels.size(); ++i) {
      if (levels[i] < 0 || levels[i] >= height)
        fail(job_file, a.hierarchy ? fmt::format("attribute '{}': level {} is not a level of its hierarchy (0..{})",
                                                 a.name, levels[i], height - 1)
                                   : fmt::format("attribute '{}': level {} needs a hierarchy (only level 0 can be "
                                                 "released without one)",
                                                 a.name, levels[i]));
      if (i > 0 && levels[i] <= levels[i - 1])
        fail(job_file, fmt::format("attribute '{}': release levels must be ascending and distinct, got [{}]", a.name,
                                   join(levels)));
    }
    if (!(a.weight >= 0 && a.weight <= 1))
      fail(job_file, fmt::format("attribute '{}': weight must be in [0, 1], got {}", a.name, a.weight));
    if (!a.names.empty() && a.names.size() != levels.size())
      fail(job_file, fmt::format("attribute '{}': {} names for {} released levels", a.name, a.names.size(),
                                 levels.size()));
    std::vector<int> evaluate = a.evaluate;
    std::sort(evaluate.begin(), evaluate.end());
    evaluate.erase(std::unique(evaluate.begin(), evaluate.end()), evaluate.end());
    const int known = a.known_level ? *a.known_level : (!evaluate.empty() ? evaluate.front() : levels.front());
    if (std::find(levels.begin(), levels.end(), known) == levels.end())
      fail(job_file, fmt::format("attribute '{}': known level {} is not released (released: [{}])", a.name, known,
                                 join(levels)));
    if (evaluate.empty()) {
      for (int l : levels)
        if (l >= known && (!a.totally_ordered || l == known)) evaluate.push_back(l);
    } else {
      for (int l : evaluate)
        if (std::find(levels.begin(), levels.end(), l) == levels.end())
          fail(job_file, fmt::format("attribute '{}': evaluated level {} is not released (released: [{}])", a.name, l,
                                     join(levels)));
      // The adversary knows the known level: its combinations must be
      // evaluated, and nothing finer is known.
      if (evaluate.front() != known)
        fail(job_file, fmt::format("attribute '{}': the finest evaluated level must be the known level {}, got [{}]",
                                   a.name, known, join(evaluate)));
    }

    for (std::size_t i = 0; i < levels.size(); ++i) {
      const int l = levels[i];
      std::string name = !a.names.empty() ? a.names[i] : (i == 0 ? a.name : fmt::format("{}_L{}", a.name, l));
      if (!names.insert(name).second)
        fail(job_file, fmt::format("attribute '{}': output column '{}' is named twice", a.name, name));
      std::vector<std::uint32_t> codes(t.rows);
      std::uint32_t card = 0;
      if (a.hierarchy) {
        const auto& map = a.hierarchy->map(l);
        for (std::uint64_t r = 0; r < t.rows; ++r) codes[r] = map[a.column->codes[r]];
        card = a.hierarchy->domain_size(l);
        for (std::uint32_t v = 0; v < card; ++v)
          if (a.hierarchy->label(l, v) == marker)
            fail(job_file, fmt::format("attribute '{}': level {} has the value '{}', which is the suppression "
                                       "marker; choose another 'marker' or another level",
                                       a.name, l, marker));
      } else {
        codes = a.column->codes.to_vector();
        card = a.column->dictionary.size();
        if (a.column->dictionary.find(marker) >= 0)
          fail(job_file, fmt::format("attribute '{}': the data holds the value '{}', which is the suppression "
                                     "marker; choose another 'marker'",
                                     a.name, marker));
      }
      columns_of[ai].push_back(t.names.size());
      if (std::find(evaluate.begin(), evaluate.end(), l) != evaluate.end())
        evaluated_of[ai].push_back(t.names.size());
      t.names.push_back(std::move(name));
      t.codes.push_back(std::move(codes));
      t.cardinality.push_back(card);
      plan.column_attribute.push_back(ai);
      plan.column_level.push_back(l);
      weights.push_back(a.weight);
    }

    // Propagation (papers/003, "Level of Detail of Quasi-identifiers"): a
    // suppressed level is suppressed in every finer released level, which
    // would reveal it; a coarser level that is not evaluated copies the
    // suppression of the nearest evaluated level below it.
    const auto& cols = columns_of[ai];
    for (std::size_t i = 0; i < levels.size(); ++i) {
      std::vector<std::size_t> to;
      for (std::size_t j = 0; j < i; ++j) to.push_back(cols[j]);
      const bool evaluated = std::find(evaluate.begin(), evaluate.end(), levels[i]) != evaluate.end();
      if (evaluated)
        for (std::size_t j = i + 1; j < levels.size(); ++j) {
          if (std::find(evaluate.begin(), evaluate.end(), levels[j]) != evaluate.end()) break;
          to.push_back(cols[j]);
        }
      propagate.push_back(std::move(to));
    }
  }

  // Combinations: each entry an attribute (its evaluated levels) or a
  // released column (that level); the cartesian product of the entries.
  std::vector<std::vector<std::string>> requested = combinations;
  if (requested.empty()) {
    requested.emplace_back();
    for (const auto& a : attributes) requested.back().push_back(a.name);
  }
  std::set<std::vector<std::size_t>> seen;
  for (const auto& combo : requested) {
    std::vector<std::vector<std::size_t>> choices;
    std::set<std::size_t> attrs_used;
    for (const auto& entry : combo) {
      std::size_t ai = attributes.size();
      for (std::size_t i = 0; i < attributes.size(); ++i)
        if (attributes[i].name == entry) ai = i;
      if (ai < attributes.size()) {
        choices.push_back(evaluated_of[ai]);
      } else {
        const int c = t.column_index(entry);
        if (c < 0)
          fail(job_file, fmt::format("combination entry '{}' is neither a quasi-identifier nor a released column",
                                     entry));
        ai = plan.column_attribute[static_cast<std::size_t>(c)];
        choices.push_back({static_cast<std::size_t>(c)});
      }
      if (!attrs_used.insert(ai).second)
        fail(job_file, fmt::format("a combination names attribute '{}' twice (entry '{}')", attributes[ai].name,
                                   entry));
    }
    if (choices.empty()) fail(job_file, "an empty combination");
    // Odometer over the choices, first entry slowest.
    std::vector<std::size_t> idx(choices.size(), 0);
    while (true) {
      std::vector<std::size_t> b;
      for (std::size_t e = 0; e < choices.size(); ++e) b.push_back(choices[e][idx[e]]);
      std::vector<std::size_t> sorted = b;
      std::sort(sorted.begin(), sorted.end());
      if (seen.insert(sorted).second) plan.spec.combinations.push_back(std::move(b));
      std::size_t e = choices.size();
      while (e > 0) {
        --e;
        if (++idx[e] < choices[e].size()) break;
        idx[e] = 0;
        if (e == 0) {
          e = choices.size() + 1;
          break;
        }
      }
      if (e == choices.size() + 1) break;
    }
  }

  plan.evaluated.assign(t.names.size(), false);
  for (const auto& b : plan.spec.combinations)
    for (std::size_t c : b) plan.evaluated[c] = true;
  plan.spec.k = k;
  plan.spec.weights = std::move(weights);
  plan.spec.propagate = std::move(propagate);
  return plan;
}

}  // namespace deid
