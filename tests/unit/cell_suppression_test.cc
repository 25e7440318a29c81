// Tests of the combinations suppression algorithm (papers/003), releasing
// hierarchy levels, information loss and sampling.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "cell_suppression_check.h"
#include "deid/cell_suppression_job.h"
#include "deid/error.h"
#include "deid/sampling.h"

namespace deid {
namespace {

constexpr std::uint32_t S = kSuppressedCell;

// A table from rows of strings; codes in order of first appearance.
CellTable make_table(const std::vector<std::string>& names, const std::vector<std::vector<std::string>>& rows,
                     std::vector<std::map<std::string, std::uint32_t>>* dicts = nullptr) {
  CellTable t;
  t.names = names;
  t.rows = rows.size();
  std::vector<std::map<std::string, std::uint32_t>> d(names.size());
  t.codes.assign(names.size(), std::vector<std::uint32_t>(rows.size()));
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < names.size(); ++c) {
      auto [it, inserted] = d[c].try_emplace(rows[r][c], static_cast<std::uint32_t>(d[c].size()));
      t.codes[c][r] = it->second;
    }
  for (const auto& m : d) t.cardinality.push_back(static_cast<std::uint32_t>(m.size()));
  if (dicts) *dicts = d;
  return t;
}

// The table as strings with `marker` for suppressed cells, for the checker.
verify::Table to_strings(const CellTable& t, const std::vector<std::map<std::string, std::uint32_t>>& dicts,
                         const std::string& marker = "*") {
  verify::Table out;
  out.header = t.names;
  std::vector<std::vector<std::string>> back(t.columns());
  for (std::size_t c = 0; c < t.columns(); ++c) {
    back[c].resize(t.cardinality[c]);
    for (const auto& [s, code] : dicts[c]) back[c][code] = s;
  }
  for (std::uint64_t r = 0; r < t.rows; ++r) {
    std::vector<std::string> row;
    for (std::size_t c = 0; c < t.columns(); ++c) {
      const std::uint32_t v = t.codes[c][r];
      row.push_back(v == S ? marker : back[c][v]);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

// ---------------------------------------------------------------------------
// The walkthrough of papers/003 ("Suppression Algorithm Walkthrough",
// Figures 5-7): sex, year of birth in ten-year groups and diagnosis, k = 3,
// weights 1. The figures are images missing from the paper's text, so this
// data set is built to match every fact the text states: 27 records; year
// of birth 1940-49 has support 2 (IDs 5 and 26) and 1980-89 support 1 (ID
// 8); COPD, sepsis, neurological problem and pneumonia support 1; cardiac
// condition, arthropathy and gastrointestinal bleeding support 3, in no
// small class; 1970-79 support 4, all in small classes; acute respiratory
// problem support 4, in a class of size 1 (ID 8) and one of size 3 (IDs 16,
// 19, 24); external injury support 4; metabolic disorder support 6, in two
// classes of size 1 (IDs 23 and 25); 1950-59 support 9 in classes of size
// 3; 1960-69 support 11 with one class of size 2 (IDs 10 and 14); five
// passes in phase 2, then no small class.
const std::vector<std::string> kWalkNames = {"sex", "yob", "diagnosis"};
std::vector<std::vector<std::string>> walkthrough_rows() {
  std::map<int, std::vector<std::string>> id;
  for (int i : {1, 2, 3}) id[i] = {"M", "1950-1959", "cardiac condition"};
  for (int i : {4, 6, 7}) id[i] = {"F", "1950-1959", "arthropathy or spine disorder"};
  id[5] = {"M", "1940-1949", "metabolic disorder"};
  id[8] = {"F", "1980-1989", "acute respiratory problem"};
  for (int i : {9, 11, 12}) id[i] = {"F", "1950-1959", "gastrointestinal bleeding"};
  id[10] = {"F", "1960-1969", "COPD"};
  id[13] = {"M", "1960-1969", "neurological problem"};
  id[14] = {"F", "1960-1969", "sepsis"};
  id[15] = {"M", "1960-1969", "pneumonia"};
  for (int i : {16, 19, 24}) id[i] = {"F", "1960-1969", "acute respiratory problem"};
  for (int i : {17, 18, 20}) id[i] = {"M", "1960-1969", "external injury"};
  for (int i : {21, 22}) id[i] = {"M", "1970-1979", "metabolic disorder"};
  id[23] = {"M", "1960-1969", "metabolic disorder"};
  id[25] = {"F", "1970-1979", "metabolic disorder"};
  id[26] = {"M", "1940-1949", "metabolic disorder"};
  id[27] = {"F", "1970-1979", "external injury"};
  std::vector<std::vector<std::string>> rows;
  for (int i = 1; i <= 27; ++i) rows.push_back(id.at(i));
  return rows;
}

TEST(CellSuppressionWalkthrough, SupportsMatchThePaper) {
  const auto rows = walkthrough_rows();
  ASSERT_EQ(rows.size(), 27u);
  std::map<std::string, int> support;
  for (const auto& r : rows) {
    ++support[r[1]];
    ++support[r[2]];
  }
  EXPECT_EQ(support["1940-1949"], 2);
  EXPECT_EQ(support["1980-1989"], 1);
  EXPECT_EQ(support["1970-1979"], 4);
  EXPECT_EQ(support["1950-1959"], 9);
  EXPECT_EQ(support["1960-1969"], 11);
  for (const char* d : {"COPD", "sepsis", "neurological problem", "pneumonia"}) EXPECT_EQ(support[d], 1) << d;
  for (const char* d : {"cardiac condition", "arthropathy or spine disorder", "gastrointestinal bleeding"})
    EXPECT_EQ(support[d], 3) << d;
  EXPECT_EQ(support["acute respiratory problem"], 4);
  EXPECT_EQ(support["external injury"], 4);
  EXPECT_EQ(support["metabolic disorder"], 6);
}

TEST(CellSuppressionWalkthrough, Phase1SuppressesValuesOfSupportBelowKAsFigure6) {
  std::vector<std::map<std::string, std::uint32_t>> dict;
  CellTable t = make_table(kWalkNames, walkthrough_rows(), &dict);
  CellSuppressionSpec spec;
  spec.k = 3;
  spec.combinations = {{0, 1, 2}};
  const auto stats = suppress_cells(t, spec);

  std::vector<SuppressionPass> phase1;
  for (const auto& p : stats.passes)
    if (p.phase == 1) phase1.push_back(p);
  ASSERT_EQ(phase1.size(), 6u);  // 1940-49, 1980-89, COPD, neurological, sepsis, pneumonia (code order)
  EXPECT_EQ(stats.phase1_cells, 7u);
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> seen;  // value: support, cells
  for (const auto& p : phase1) {
    std::string name;
    for (const auto& [s, code] : dict[p.column])
      if (code == p.value) name = s;
    seen[name] = {p.support, p.cells};
  }
  EXPECT_EQ(seen["1940-1949"], std::make_pair(std::uint64_t{2}, std::uint64_t{2}));
  EXPECT_EQ(seen["1980-1989"], std::make_pair(std::uint64_t{1}, std::uint64_t{1}));
  for (const char* d : {"COPD", "sepsis", "neurological problem", "pneumonia"})
    EXPECT_EQ(seen[d], std::make_pair(std::uint64_t{1}, std::uint64_t{1})) << d;
  // Figure 6: year of birth of IDs 5, 26, 8; diagnosis of 10, 13, 14, 15.
  for (int id : {5, 26, 8}) EXPECT_EQ(t.codes[1][static_cast<std::size_t>(id - 1)], S) << id;
  for (int id : {10, 13, 14, 15}) EXPECT_EQ(t.codes[2][static_cast<std::size_t>(id - 1)], S) << id;
  // Moles after phase 1 (sizes < 3): {5,26}, {8}, {10,14}, {13,15}, {23},
  // {25}, {21,22}, {27}.
  ASSERT_EQ(stats.moles_after_phase1.size(), 1u);
  EXPECT_EQ(stats.moles_after_phase1[0], 8u);
}

TEST(CellSuppressionWalkthrough, Phase2PassesFollowIncreasingSupportAsFigure7) {
  std::vector<std::map<std::string, std::uint32_t>> dict;
  CellTable t = make_table(kWalkNames, walkthrough_rows(), &dict);
  CellSuppressionSpec spec;
  spec.k = 3;
  spec.combinations = {{0, 1, 2}};
  const auto stats = suppress_cells(t, spec);

  std::vector<SuppressionPass> phase2;
  for (const auto& p : stats.passes)
    if (p.phase == 2) phase2.push_back(p);
  ASSERT_EQ(phase2.size(), 5u);
  struct Expected {
    std::size_t column;
    std::string value;
    std::uint64_t support, classes, cells;
  };
  // (1) 1970-79 in every class holding it (all of them small); (2) acute
  // respiratory problem in ID 8's class only; (3) external injury; (4)
  // metabolic disorder in the two classes of size 1 (IDs 23, 25); 1950-59
  // is in no small class and gives no pass; (5) 1960-69 in IDs 10 and 14.
  const std::vector<Expected> expected = {{1, "1970-1979", 4, 3, 4},
                                          {2, "acute respiratory problem", 4, 1, 1},
                                          {2, "external injury", 4, 1, 1},
                                          {2, "metabolic disorder", 6, 2, 2},
                                          {1, "1960-1969", 11, 1, 2}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].value);
    EXPECT_EQ(phase2[i].column, expected[i].column);
    EXPECT_EQ(phase2[i].value, dict[expected[i].column].at(expected[i].value));
    EXPECT_EQ(phase2[i].support, expected[i].support);
    EXPECT_EQ(phase2[i].classes, expected[i].classes);
    EXPECT_EQ(phase2[i].cells, expected[i].cells);
    EXPECT_EQ(phase2[i].round, 0u);
  }
  EXPECT_EQ(stats.phase2_cells, 10u);
  EXPECT_EQ(stats.rounds, 1u);
  // The cells of each pass, by record ID.
  auto yob = [&](int id) { return t.codes[1][static_cast<std::size_t>(id - 1)]; };
  auto diag = [&](int id) { return t.codes[2][static_cast<std::size_t>(id - 1)]; };
  for (int id : {21, 22, 25, 27}) EXPECT_EQ(yob(id), S) << id;       // (1)
  EXPECT_EQ(diag(8), S);                                               // (2)
  EXPECT_EQ(diag(27), S);                                              // (3)
  for (int id : {23, 25}) EXPECT_EQ(diag(id), S) << id;               // (4)
  for (int id : {10, 14}) EXPECT_EQ(yob(id), S) << id;                // (5)
  for (int id : {16, 19, 24}) EXPECT_NE(diag(id), S) << id;           // class of 3 keeps its diagnosis
  for (int id : {5, 26, 21, 22}) EXPECT_NE(diag(id), S) << id;        // (M, *, metabolic) reached 4
  for (std::uint64_t r = 0; r < t.rows; ++r) EXPECT_NE(t.codes[0][r], S);  // sex is never touched

  verify::CellOptions opt;
  opt.k = 3;
  opt.combinations = {kWalkNames};
  const auto report = verify::check_combinations(to_strings(t, dict), opt);
  EXPECT_TRUE(report.valid()) << report.to_string();
}

// ---------------------------------------------------------------------------

TEST(CellSuppression, KForThresholdIsTheSmallestKWithRiskAtMostTau) {
  EXPECT_EQ(k_for_threshold(0.05), 20u);
  EXPECT_EQ(k_for_threshold(0.04), 25u);
  EXPECT_EQ(k_for_threshold(0.2), 5u);
  EXPECT_EQ(k_for_threshold(0.33), 4u);
  EXPECT_EQ(k_for_threshold(1.0), 1u);
  EXPECT_EQ(k_for_threshold(0.1), 10u);
  EXPECT_THROW(k_for_threshold(0.0), std::invalid_argument);
}

TEST(CellSuppression, LowerWeightIsSuppressedFirst) {
  // Two singletons (a1,b1) and (a2,b2) next to classes of 2: with k = 3
  // either column can break them up. Column a has weight 0.1, so its
  // values (weighted support 0.3) go before b's (3).
  const std::vector<std::vector<std::string>> rows = {{"a1", "b1"}, {"a1", "b2"}, {"a1", "b2"},
                                                      {"a2", "b1"}, {"a2", "b1"}, {"a2", "b2"}};
  for (double wa : {0.1, 1.0}) {
    CellTable t = make_table({"a", "b"}, rows);
    CellSuppressionSpec spec;
    spec.k = 3;
    spec.combinations = {{0, 1}};
    spec.weights = {wa, wa == 1.0 ? 0.1 : 1.0};
    suppress_cells(t, spec);
    const std::size_t low = wa == 0.1 ? 0 : 1;
    std::uint64_t low_cells = 0, high_cells = 0;
    for (std::uint64_t r = 0; r < t.rows; ++r) {
      low_cells += t.codes[low][r] == S;
      high_cells += t.codes[1 - low][r] == S;
    }
    EXPECT_GT(low_cells, 0u) << "weight " << wa;
    EXPECT_EQ(high_cells, 0u) << "weight " << wa;
  }
}

TEST(CellSuppression, SensitiveAndOtherColumnsAreNeverTouched) {
  // Columns outside every combination keep all their values.
  CellTable t = make_table({"a", "b", "other"},
                           {{"x", "1", "p"}, {"y", "1", "q"}, {"x", "2", "r"}, {"y", "2", "s"}, {"x", "1", "t"}});
  const CellTable before = t;
  CellSuppressionSpec spec;
  spec.k = 2;
  spec.combinations = {{0, 1}};
  suppress_cells(t, spec);
  EXPECT_EQ(t.codes[2], before.codes[2]);
}

TEST(CellSuppression, FullySuppressedRecordsAreExemptAndTheLoopEnds) {
  // Every value is unique: phase 1 suppresses everything; the all-marker
  // class is exempt, so the run ends without moles.
  CellTable t = make_table({"a", "b"}, {{"1", "x"}, {"2", "y"}, {"3", "z"}});
  CellSuppressionSpec spec;
  spec.k = 2;
  spec.combinations = {{0, 1}};
  const auto stats = suppress_cells(t, spec);
  EXPECT_EQ(stats.phase1_cells, 6u);
  EXPECT_EQ(stats.rounds, 0u);
  const auto cls = combination_classes(t, spec.combinations[0]);
  ASSERT_EQ(cls.sizes.size(), 1u);
  EXPECT_TRUE(cls.exempt[0]);
}

TEST(CellSuppression, RejectsFewerRowsThanKAndBadSpecs) {
  CellTable t = make_table({"a"}, {{"1"}, {"1"}});
  CellSuppressionSpec spec;
  spec.k = 3;
  spec.combinations = {{0}};
  EXPECT_THROW(suppress_cells(t, spec), std::invalid_argument);
  spec.k = 2;
  spec.combinations = {{0, 0}};
  EXPECT_THROW(suppress_cells(t, spec), std::invalid_argument);
  spec.combinations = {{1}};
  EXPECT_THROW(suppress_cells(t, spec), std::invalid_argument);
  spec.combinations = {{0}};
  spec.weights = {1.5};
  EXPECT_THROW(suppress_cells(t, spec), std::invalid_argument);
}

TEST(CellSuppression, PropagationSuppressesTheListedColumnsToo) {
  // Column 1 is a finer level of column 0: suppressing 0 must suppress 1.
  CellTable t = make_table({"coarse", "fine", "sex"},
                           {{"A", "A1", "M"}, {"A", "A2", "M"}, {"A", "A1", "F"}, {"B", "B1", "M"}, {"A", "A2", "F"}});
  CellSuppressionSpec spec;
  spec.k = 2;
  spec.combinations = {{0, 2}};
  spec.propagate = {{1}, {}, {}};
  const auto stats = suppress_cells(t, spec);
  EXPECT_EQ(t.codes[0][3], S);  // B has support 1
  EXPECT_EQ(t.codes[1][3], S);  // propagated
  EXPECT_GE(stats.propagated_cells, 1u);
  for (std::uint64_t r = 0; r < t.rows; ++r) {
    if (t.codes[0][r] == S) {
      EXPECT_EQ(t.codes[1][r], S);
    }
  }
}

TEST(CellSuppression, LaterCombinationsCanSplitEarlierOnesAndARoundRepairsThem) {
  // Suppressing in combination {b, c} moves records out of classes of
  // {a, b} that were already k-anonymous; the next round must restore k.
  // Checked on random tables: every combination ends k-anonymous and at
  // least one run needs a second round.
  std::mt19937_64 rng(7);
  bool saw_second_round = false;
  for (int trial = 0; trial < 200 && !saw_second_round; ++trial) {
    std::vector<std::vector<std::string>> rows;
    for (int r = 0; r < 60; ++r)
      rows.push_back({std::to_string(rng() % 3), std::to_string(rng() % 4), std::to_string(rng() % 5)});
    std::vector<std::map<std::string, std::uint32_t>> dict;
    CellTable t = make_table({"a", "b", "c"}, rows, &dict);
    CellSuppressionSpec spec;
    spec.k = 3;
    spec.combinations = {{0, 1}, {1, 2}, {0, 2}};
    const auto stats = suppress_cells(t, spec);
    saw_second_round = stats.rounds >= 2;
    verify::CellOptions opt;
    opt.k = 3;
    opt.combinations = {{"a", "b"}, {"b", "c"}, {"a", "c"}};
    const auto rep = verify::check_combinations(to_strings(t, dict), opt);
    ASSERT_TRUE(rep.valid()) << rep.to_string();
  }
  EXPECT_TRUE(saw_second_round);
}

// A direct implementation of the same algorithm that recomputes classes,
// supports and moles from scratch at every step (std::map, no indexes):
// the oracle for the incremental bookkeeping.
void reference_suppress(CellTable& t, const CellSuppressionSpec& spec) {
  const std::size_t nc = t.columns();
  std::vector<double> w = spec.weights.empty() ? std::vector<double>(nc, 1.0) : spec.weights;
  // Closed propagation.
  std::vector<std::set<std::size_t>> prop(nc);
  for (std::size_t c = 0; c < nc; ++c) {
    std::vector<std::size_t> stack = {c};
    while (!stack.empty()) {
      const std::size_t x = stack.back();
      stack.pop_back();
      if (x < spec.propagate.size())
        for (std::size_t y : spec.propagate[x])
          if (y != c && prop[c].insert(y).second) stack.push_back(y);
    }
  }
  auto suppress = [&](std::size_t c, std::uint64_t r) {
    t.codes[c][r] = S;
    for (std::size_t x : prop[c]) t.codes[x][r] = S;
  };
  auto support = [&](std::size_t c, std::uint32_t v) {
    std::uint64_t s = 0;
    for (std::uint32_t x : t.codes[c]) s += x == v;
    return s;
  };
  std::set<std::size_t> used;
  for (const auto& b : spec.combinations) used.insert(b.begin(), b.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t c : used) {
      std::vector<bool> rare(t.cardinality[c], false);
      for (std::uint32_t v = 0; v < t.cardinality[c]; ++v) {
        const auto s = support(c, v);
        rare[v] = s > 0 && s < spec.k;
      }
      for (std::uint64_t r = 0; r < t.rows; ++r)
        if (t.codes[c][r] != S && rare[t.codes[c][r]]) {
          suppress(c, r);
          changed = true;
        }
    }
  }
  using Tuple = std::vector<std::uint32_t>;
  auto classes = [&](const std::vector<std::size_t>& b) {
    std::map<Tuple, std::vector<std::uint64_t>> m;
    for (std::uint64_t r = 0; r < t.rows; ++r) {
      Tuple k;
      for (std::size_t c : b) k.push_back(t.codes[c][r]);
      m[k].push_back(r);
    }
    return m;
  };
  auto is_mole = [&](const Tuple& k, std::size_t size) {
    bool all = true;
    for (auto v : k) all = all && v == S;
    return size < spec.k && !all;
  };
  auto moles_of = [&](const std::vector<std::size_t>& b) {
    std::uint64_t n = 0;
    for (const auto& [k, rows] : classes(b)) n += is_mole(k, rows.size());
    return n;
  };
  while (true) {
    std::vector<std::uint64_t> moles;
    for (const auto& b : spec.combinations) moles.push_back(moles_of(b));
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < moles.size(); ++i)
      if (moles[i]) order.push_back(i);
    if (order.empty()) return;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto c) { return moles[a] > moles[c]; });
    for (std::size_t bi : order) {
      const auto& b = spec.combinations[bi];
      while (true) {
        const auto cls = classes(b);
        // The candidate: smallest (wsup, position, code) held by a mole.
        bool found = false;
        std::tuple<double, std::size_t, std::uint32_t> best;
        for (const auto& [k, rows] : cls) {
          if (!is_mole(k, rows.size())) continue;
          for (std::size_t p = 0; p < b.size(); ++p) {
            if (k[p] == S) continue;
            const auto cand = std::make_tuple(static_cast<double>(support(b[p], k[p])) * w[b[p]], p, k[p]);
            if (!found || cand < best) best = cand;
            found = true;
          }
        }
        if (!found) break;
        const auto [ws, p, v] = best;
        for (const auto& [k, rows] : cls)
          if (is_mole(k, rows.size()) && k[p] == v)
            for (auto r : rows) suppress(b[p], r);
      }
    }
  }
}

TEST(CellSuppression, IncrementalAlgorithmEqualsRecomputingReferenceOnRandomTables) {
  std::mt19937_64 rng(2011);
  for (int trial = 0; trial < 150; ++trial) {
    const std::size_t nc = 2 + rng() % 4;
    const std::size_t n = 20 + rng() % 120;
    std::vector<std::string> names;
    std::vector<std::uint32_t> domain;
    for (std::size_t c = 0; c < nc; ++c) {
      names.push_back(std::string("c").append(std::to_string(c)));
      domain.push_back(2 + static_cast<std::uint32_t>(rng() % 7));
    }
    std::vector<std::vector<std::string>> rows;
    for (std::size_t r = 0; r < n; ++r) {
      std::vector<std::string> row;
      for (std::size_t c = 0; c < nc; ++c) {
        // Skewed values: small codes are frequent.
        const auto a = rng() % domain[c], b = rng() % domain[c];
        row.push_back(std::string("v").append(std::to_string(std::min(a, b))));
      }
      rows.push_back(row);
    }
    std::vector<std::map<std::string, std::uint32_t>> dict;
    const CellTable t0 = make_table(names, rows, &dict);
    CellSuppressionSpec spec;
    spec.k = 2 + rng() % 4;
    const std::size_t nb = 1 + rng() % 3;
    for (std::size_t i = 0; i < nb; ++i) {
      std::vector<std::size_t> b;
      for (std::size_t c = 0; c < nc; ++c)
        if (rng() % 2) b.push_back(c);
      if (b.empty()) b.push_back(rng() % nc);
      std::shuffle(b.begin(), b.end(), rng);
      spec.combinations.push_back(b);
    }
    if (rng() % 2)
      for (std::size_t c = 0; c < nc; ++c) spec.weights.push_back(static_cast<double>(rng() % 5) / 4.0);
    if (rng() % 2) {
      spec.propagate.resize(nc);
      spec.propagate[rng() % nc].push_back(rng() % nc);
    }
    spec.force_wide_keys = trial % 3 == 0;
    SCOPED_TRACE(std::string("trial ").append(std::to_string(trial)));

    CellTable fast = t0, slow = t0;
    suppress_cells(fast, spec);
    reference_suppress(slow, spec);
    ASSERT_EQ(fast.codes, slow.codes);

    verify::CellOptions opt;
    opt.k = spec.k;
    for (const auto& b : spec.combinations) {
      opt.combinations.emplace_back();
      for (std::size_t c : b) opt.combinations.back().push_back(names[c]);
    }
    const auto rep = verify::check_combinations(to_strings(fast, dict), opt);
    ASSERT_TRUE(rep.valid()) << rep.to_string();
  }
}

TEST(CellSuppression, WideAndPackedKeysGiveTheSameResult) {
  std::mt19937_64 rng(5);
  std::vector<std::vector<std::string>> rows;
  for (int r = 0; r < 400; ++r)
    rows.push_back({std::to_string(rng() % 6), std::to_string(rng() % 9), std::to_string(rng() % 4)});
  const CellTable t0 = make_table({"a", "b", "c"}, rows);
  CellSuppressionSpec spec;
  spec.k = 5;
  spec.combinations = {{0, 1, 2}, {0, 1}};
  CellTable packed = t0, wide = t0;
  suppress_cells(packed, spec);
  spec.force_wide_keys = true;
  suppress_cells(wide, spec);
  EXPECT_EQ(packed.codes, wide.codes);
}

TEST(CellSuppression, CombinationsSuppressNoMoreThanCompleteOnTable6) {
  // papers/003 Table 6 in spirit: every class of <prov, age, sex, MRDx> and
  // of <prov, age, sex, CMG> has 2 records, but MRDx and CMG cross: the
  // combinations need no suppression, the complete algorithm does.
  const std::vector<std::vector<std::string>> rows = {
      {"ON", "40", "F", "J18", "C1"}, {"ON", "40", "F", "J18", "C2"}, {"ON", "40", "F", "J20", "C1"},
      {"ON", "40", "F", "J20", "C2"}, {"BC", "50", "M", "K35", "C3"}, {"BC", "50", "M", "K35", "C4"},
      {"BC", "50", "M", "K36", "C3"}, {"BC", "50", "M", "K36", "C4"}};
  const CellTable t0 = make_table({"prov", "age", "sex", "mrdx", "cmg"}, rows);
  CellSuppressionSpec spec;
  spec.k = 2;
  spec.combinations = {{0, 1, 2, 3}, {0, 1, 2, 4}};
  CellTable combos = t0;
  const auto s1 = suppress_cells(combos, spec);
  EXPECT_EQ(s1.phase1_cells + s1.phase2_cells, 0u);
  CellTable complete = t0;
  const auto spec2 = complete_spec(spec, t0.columns());
  ASSERT_EQ(spec2.combinations.size(), 1u);
  EXPECT_EQ(spec2.combinations[0], (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  const auto s2 = suppress_cells(complete, spec2);
  EXPECT_GT(s2.phase2_cells, 0u);
}

// ---------------------------------------------------------------------------
// Release levels.

Column make_column(const std::string& name, const std::vector<std::string>& values) {
  Column c;
  c.name = name;
  for (const auto& v : values) c.codes.push_back(c.dictionary.intern(v));
  return c;
}

HierarchyTable diag_table() {
  // code ; group ; block ; chapter ; *
  HierarchyTable h;
  h.source = "diag.csv";
  h.rows = {{"J181", "G1", "J10-J18", "J", "*"}, {"J189", "G1", "J10-J18", "J", "*"},
            {"J200", "G2", "J20-J22", "J", "*"}, {"K350", "G3", "K35-K38", "K", "*"}};
  return h;
}

struct ReleaseFixture {
  Column diag = make_column("diagnosis", {"J181", "J189", "J200", "K350", "J181", "J189"});
  Column interv = make_column("intervention", {"1A", "1A", "2B", "2B", "1A", "1A"});
  Column sex = make_column("sex", {"F", "M", "F", "M", "F", "M"});
  HierarchyTable dt = diag_table();
  HierarchyTable it{"interv.csv", {{"1A", "1", "*"}, {"2B", "2", "*"}}, {}};
  Generalization dg = Generalization::build(dt, diag, "data");
  Generalization ig = Generalization::build(it, interv, "data");

  ReleaseAttribute attr_sex() const {
    ReleaseAttribute a;
    a.name = "sex";
    a.column = &sex;
    return a;
  }
  ReleaseAttribute attr_diag(std::vector<int> levels, bool totally_ordered) const {
    ReleaseAttribute a;
    a.name = "diagnosis";
    a.column = &diag;
    a.hierarchy = &dg;
    a.levels = std::move(levels);
    a.totally_ordered = totally_ordered;
    return a;
  }
  ReleaseAttribute attr_interv(std::vector<int> levels, bool totally_ordered) const {
    ReleaseAttribute a;
    a.name = "intervention";
    a.column = &interv;
    a.hierarchy = &ig;
    a.levels = std::move(levels);
    a.totally_ordered = totally_ordered;
    return a;
  }
};

std::vector<std::vector<std::string>> combination_names(const ReleasePlan& p) {
  std::vector<std::vector<std::string>> out;
  for (const auto& b : p.spec.combinations) {
    out.emplace_back();
    for (std::size_t c : b) out.back().push_back(p.table.names[c]);
  }
  return out;
}

TEST(CellSuppressionRelease, FourLevelsGiveTheFourEvaluationsOfTable5) {
  ReleaseFixture f;
  const auto plan = plan_release({f.attr_sex(), f.attr_diag({0, 1, 2, 3}, false)}, {}, 2, "*", "job.yaml");
  EXPECT_EQ(plan.table.names,
            (std::vector<std::string>{"sex", "diagnosis", "diagnosis_L1", "diagnosis_L2", "diagnosis_L3"}));
  EXPECT_EQ(combination_names(plan), (std::vector<std::vector<std::string>>{{"sex", "diagnosis"},
                                                                            {"sex", "diagnosis_L1"},
                                                                            {"sex", "diagnosis_L2"},
                                                                            {"sex", "diagnosis_L3"}}));
  // Generalized codes come from the hierarchy.
  EXPECT_EQ(f.dg.label(2, plan.table.codes[3][2]), "J20-J22");
}

TEST(CellSuppressionRelease, TwoHierarchicalAttributesGiveTheEightCombinationsOfTable7) {
  ReleaseFixture f;
  const auto plan = plan_release({f.attr_sex(), f.attr_diag({0, 1, 2, 3}, false), f.attr_interv({0, 1}, false)}, {},
                                 2, "*", "job.yaml");
  const auto names = combination_names(plan);
  ASSERT_EQ(names.size(), 8u);
  std::set<std::vector<std::string>> distinct(names.begin(), names.end());
  EXPECT_EQ(distinct.size(), 8u);
  EXPECT_EQ(names.front(), (std::vector<std::string>{"sex", "diagnosis", "intervention"}));
  EXPECT_EQ(names.back(), (std::vector<std::string>{"sex", "diagnosis_L3", "intervention_L1"}));
}

TEST(CellSuppressionRelease, KnownLevelsAndTotalOrderGiveTheTwoCombinationsOfTable8) {
  // The adversary knows the diagnosis at CMG (level 1) and the short
  // intervention (level 1); block -> chapter is totally ordered, so
  // chapter copies block's suppression: 2 combinations.
  ReleaseFixture f;
  auto d = f.attr_diag({0, 1, 2, 3}, false);
  d.known_level = 1;
  d.evaluate = {1, 2};
  auto i = f.attr_interv({0, 1}, true);
  i.known_level = 1;
  const auto plan = plan_release({f.attr_sex(), d, i}, {}, 2, "*", "job.yaml");
  EXPECT_EQ(combination_names(plan), (std::vector<std::vector<std::string>>{
                                         {"sex", "diagnosis_L1", "intervention_L1"},
                                         {"sex", "diagnosis_L2", "intervention_L1"}}));
  // Propagation: CMG -> MRDx; block -> CMG, MRDx and (copy) chapter;
  // SHORT_CCI -> CCI.
  const auto col = [&](const std::string& n) { return static_cast<std::size_t>(plan.table.column_index(n)); };
  auto targets = [&](const std::string& n) {
    std::set<std::string> s;
    for (std::size_t c : plan.spec.propagate[col(n)]) s.insert(plan.table.names[c]);
    return s;
  };
  EXPECT_EQ(targets("diagnosis_L1"), (std::set<std::string>{"diagnosis"}));
  EXPECT_EQ(targets("diagnosis_L2"), (std::set<std::string>{"diagnosis", "diagnosis_L1", "diagnosis_L3"}));
  EXPECT_EQ(targets("intervention_L1"), (std::set<std::string>{"intervention"}));
  EXPECT_FALSE(plan.evaluated[col("diagnosis")]);
  EXPECT_FALSE(plan.evaluated[col("diagnosis_L3")]);
}

TEST(CellSuppressionRelease, TotallyOrderedEvaluatesOnlyTheKnownLevelAndCopiesUpward) {
  ReleaseFixture f;
  auto d = f.attr_diag({0, 1, 2, 3}, true);
  d.known_level = 1;
  const auto plan = plan_release({f.attr_sex(), d}, {}, 2, "*", "job.yaml");
  EXPECT_EQ(combination_names(plan), (std::vector<std::vector<std::string>>{{"sex", "diagnosis_L1"}}));
  std::set<std::string> s;
  for (std::size_t c : plan.spec.propagate[static_cast<std::size_t>(plan.table.column_index("diagnosis_L1"))])
    s.insert(plan.table.names[c]);
  EXPECT_EQ(s, (std::set<std::string>{"diagnosis", "diagnosis_L2", "diagnosis_L3"}));
}

TEST(CellSuppressionRelease, ExplicitCombinationsExpandAttributesAndKeepNamedColumns) {
  ReleaseFixture f;
  const auto plan = plan_release({f.attr_sex(), f.attr_diag({0, 2}, false), f.attr_interv({0, 1}, false)},
                                 {{"sex", "diagnosis"}, {"sex", "intervention_L1"}}, 2, "*", "job.yaml");
  EXPECT_EQ(combination_names(plan), (std::vector<std::vector<std::string>>{
                                         {"sex", "diagnosis"}, {"sex", "diagnosis_L2"}, {"sex", "intervention_L1"}}));
  EXPECT_FALSE(plan.evaluated[static_cast<std::size_t>(plan.table.column_index("intervention"))]);
}

TEST(CellSuppressionRelease, RejectsBadLevelsNamesAndMarkers) {
  ReleaseFixture f;
  EXPECT_THROW(plan_release({f.attr_diag({0, 5}, false)}, {}, 2, "*", "j"), JobError);
  EXPECT_THROW(plan_release({f.attr_diag({2, 1}, false)}, {}, 2, "*", "j"), JobError);
  EXPECT_THROW(plan_release({f.attr_diag({0, 4}, false)}, {}, 2, "*", "j"), JobError);  // top level is '*'
  EXPECT_THROW(plan_release({f.attr_sex()}, {{"nosuch"}}, 2, "*", "j"), JobError);
  EXPECT_THROW(plan_release({f.attr_sex()}, {{"sex", "sex"}}, 2, "*", "j"), JobError);
  auto d = f.attr_diag({0, 1}, false);
  d.known_level = 2;
  EXPECT_THROW(plan_release({d}, {}, 2, "*", "j"), JobError);
  auto s = f.attr_sex();
  s.levels = {1};
  EXPECT_THROW(plan_release({s}, {}, 2, "*", "j"), JobError);
  EXPECT_THROW(plan_release({f.attr_sex()}, {}, 2, "F", "j"), JobError);  // the data holds the marker
}

TEST(CellSuppressionRelease, CoarseSuppressionPropagatesToFinerLevels) {
  // A rare chapter (K, one record) is suppressed at level 3; the record's
  // code, group and block must go too, while its sex stays.
  ReleaseFixture f;
  auto plan = plan_release({f.attr_sex(), f.attr_diag({0, 1, 2, 3}, false)}, {}, 2, "*", "job.yaml");
  suppress_cells(plan.table, plan.spec);
  for (std::size_t c = 1; c <= 4; ++c) EXPECT_EQ(plan.table.codes[c][3], S) << plan.table.names[c];
  for (std::uint64_t r = 0; r < plan.table.rows; ++r)
    for (std::size_t coarse = 2; coarse <= 4; ++coarse)
      if (plan.table.codes[coarse][r] == S) {
        for (std::size_t fine = 1; fine < coarse; ++fine) EXPECT_EQ(plan.table.codes[fine][r], S);
      }
}

// ---------------------------------------------------------------------------
// Information loss.

TEST(CellSuppressionLoss, CountsAndNonUniformEntropyByHand) {
  // Column a: values x x x y; suppress one x and the y.
  // entropy = log2(4/3) + log2(4/1) = 0.415037... + 2.
  CellTable before = make_table({"a", "b"}, {{"x", "1"}, {"x", "1"}, {"x", "2"}, {"y", "2"}});
  CellTable after = before;
  after.codes[0][0] = S;
  after.codes[0][3] = S;
  after.codes[1][3] = S;
  const InformationLoss l = information_loss(before, after);
  EXPECT_EQ(l.cells, 8u);
  EXPECT_EQ(l.suppressed_cells, 3u);
  EXPECT_DOUBLE_EQ(l.suppressed_cells_fraction, 3.0 / 8);
  EXPECT_EQ(l.records_with_suppression, 2u);
  EXPECT_DOUBLE_EQ(l.records_with_suppression_fraction, 0.5);
  EXPECT_EQ(l.columns[0].suppressed, 2u);
  EXPECT_DOUBLE_EQ(l.columns[0].fraction, 0.5);
  EXPECT_NEAR(l.columns[0].entropy, std::log2(4.0 / 3) + 2.0, 1e-12);
  EXPECT_NEAR(l.columns[1].entropy, 1.0, 1e-12);  // '2' has 2 of 4
  EXPECT_NEAR(l.entropy, std::log2(4.0 / 3) + 3.0, 1e-12);
}

TEST(CellSuppressionLoss, MissingnessByGroup) {
  CellTable after = make_table({"diag"}, {{"a"}, {"b"}, {"c"}, {"d"}, {"e"}});
  after.codes[0][0] = S;
  after.codes[0][1] = S;
  after.codes[0][4] = S;
  const std::vector<std::uint32_t> region = {0, 0, 1, 1, 1};
  const Missingness m = missingness(after, 0, region, 3);
  ASSERT_EQ(m.groups.size(), 2u);  // region 2 has no records
  EXPECT_EQ(m.groups[0].records, 2u);
  EXPECT_DOUBLE_EQ(m.groups[0].fraction, 1.0);
  EXPECT_EQ(m.groups[1].suppressed, 1u);
  EXPECT_DOUBLE_EQ(m.groups[1].fraction, 1.0 / 3);
}

// ---------------------------------------------------------------------------
// Samples.

TEST(CellSuppressionSampling, SamplesAreDisjointSizedSortedAndDeterministic) {
  const std::vector<double> fractions = {0.1, 0.1, 0.25};
  const auto a = draw_disjoint_samples(1000, fractions, 42);
  const auto b = draw_disjoint_samples(1000, fractions, 42);
  const auto c = draw_disjoint_samples(1000, fractions, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].size(), 100u);
  EXPECT_EQ(a[1].size(), 100u);
  EXPECT_EQ(a[2].size(), 250u);
  std::set<std::uint64_t> all;
  for (const auto& s : a) {
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    for (auto r : s) {
      EXPECT_LT(r, 1000u);
      EXPECT_TRUE(all.insert(r).second) << "row " << r << " in two samples";
    }
  }
  EXPECT_THROW(draw_disjoint_samples(10, std::vector<double>{0.6, 0.6}, 1), std::invalid_argument);
  EXPECT_EQ(draw_disjoint_samples(10, std::vector<double>{1.0}, 1)[0].size(), 10u);
}

TEST(CellSuppressionSampling, EveryRowIsEquallyLikely) {
  // 2000 draws of a 10% sample of 50 rows: each row about 200 times.
  std::vector<int> hits(50, 0);
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    const auto samples = draw_disjoint_samples(50, std::vector<double>{0.1}, seed);
    for (auto r : samples[0]) ++hits[r];
  }
  for (int h : hits) {
    EXPECT_GT(h, 140);
    EXPECT_LT(h, 260);
  }
}

}  // namespace
}  // namespace deid
