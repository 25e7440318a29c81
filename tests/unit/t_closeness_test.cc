// t-closeness (src/privacy/t_closeness.h) and its ground distances: the
// worked example of papers/004 (Figure 1), hand examples for each distance,
// the optimized ordered distance against the plain one, the factory, and a
// small job combining k-anonymity, l-diversity and t-closeness checked
// against an independent evaluation of every transformation.
#include "privacy/t_closeness.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/pipeline.h"
#include "privacy/models.h"

namespace deid {
namespace {

// A distribution over codes 0..counts.size()-1; codes with count 0 are left
// out, as the check leaves them out.
struct Dist {
  explicit Dist(const std::vector<std::uint64_t>& all) {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i] > 0) {
        codes.push_back(static_cast<std::uint32_t>(i));
        counts.push_back(all[i]);
        total += all[i];
      }
  }
  ClassView::Distribution view() const { return {codes, counts}; }
  std::vector<std::uint32_t> codes;
  std::vector<std::uint64_t> counts;
  std::uint64_t total = 0;
};

std::vector<std::uint32_t> identity_ranks(std::size_t m) {
  std::vector<std::uint32_t> r(m);
  for (std::size_t i = 0; i < m; ++i) r[i] = static_cast<std::uint32_t>(i);
  return r;
}

// --- papers/004, section 3.1, Figure 1 -----------------------------------

// Charges 50.000, 60.000, 70.000 occur 1, 3 and 1 times: Q = (1/5, 3/5, 1/5).
// Class e1 = {50.000, 60.000}, e2 = {60.000, 60.000, 70.000}.
TEST(OrderedDistance, PaperFigure1Distances) {
  const OrderedDistance d({1, 3, 1}, identity_ranks(3), 0.25);
  const Dist e1({1, 1, 0}), e2({0, 2, 1});
  EXPECT_NEAR(d.distance(e1.view(), e1.total), 1.0 / 4, 1e-15);
  EXPECT_NEAR(d.distance(e2.view(), e2.total), 1.0 / 6, 1e-15);
  // t = max{1/4, 1/6} = 0.25: both classes are 0.25-close.
  EXPECT_TRUE(d.within(e1.view(), e1.total));
  EXPECT_TRUE(d.within(e2.view(), e2.total));
  const OrderedDistance tighter({1, 3, 1}, identity_ranks(3), 0.2);
  EXPECT_FALSE(tighter.within(e1.view(), e1.total));
  EXPECT_TRUE(tighter.within(e2.view(), e2.total));
}

TEST(OrderedDistance, PaperFigure1ThroughTheModelWithNumericOrder) {
  // The same data as a column whose codes are not in numeric order.
  Column col;
  col.name = "charge";
  for (const char* v : {"60000", "70000", "50000", "60000", "60000"}) {
    col.codes.push_back(col.dictionary.intern(v));
    col.first_line.resize(col.dictionary.size(), 2);
  }
  Problem problem;
  SensitiveAttribute s;
  s.name = "charge";
  s.data = &col;
  problem.sensitive.push_back(s);
  TClosenessSpec spec{"charge", TClosenessSpec::Distance::ordered, 0.25};
  auto model = make_t_closeness(spec, problem, OrderedDistanceOptions{});
  // e1 = {50000, 60000}: codes 2 and 0.
  std::vector<std::uint32_t> codes{0, 2};
  std::vector<std::uint64_t> counts{1, 1};
  std::vector<ClassView::Distribution> dist{{codes, counts}};
  ClassView view;
  view.count = 2;
  view.sensitive = dist;
  EXPECT_NEAR(model->distance(view), 0.25, 1e-15);
  EXPECT_TRUE(model->holds(view));
}

TEST(OrderedDistance, CheckPruningRankOfPaperFigure1) {
  // t(m-1) = 0.5; prefix sums of |-q|: 0.2, then 0.2 + 0.8 = 1.0 > 0.5, so
  // x = 1: a class without the two smallest values cannot be 0.25-close.
  const OrderedDistance d({1, 3, 1}, identity_ranks(3), 0.25);
  EXPECT_EQ(d.pruning_rank(), 1u);
  const Dist only_largest({0, 0, 4});
  EXPECT_FALSE(d.within(only_largest.view(), only_largest.total));
  EXPECT_NEAR(d.distance(only_largest.view(), only_largest.total), 0.5, 1e-15);
  // Never pruned when t is 1 (D <= 1 always).
  EXPECT_EQ(OrderedDistance({1, 3, 1}, identity_ranks(3), 1.0).pruning_rank(), 3u);
}

TEST(OrderedDistance, UsesTheRankNotTheCode) {
  // Codes 0, 1, 2 hold values ranked 2, 0, 1.
  const std::vector<std::uint32_t> rank{2, 0, 1};
  const OrderedDistance d({1, 1, 3}, rank, 0.25);  // by rank: Q = (1/5, 3/5, 1/5)
  const Dist e1({0, 1, 1});                        // ranks 0 and 1: e1 of Figure 1
  EXPECT_NEAR(d.distance(e1.view(), e1.total), 0.25, 1e-15);
}

TEST(OrderedDistance, OptimizedEqualsPlainOnRandomDistributions) {
  std::mt19937_64 rng(20200601);
  int pruned = 0, checks = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t m = 1 + rng() % 120;
    std::vector<std::uint64_t> q(m);
    for (auto& c : q) c = 1 + rng() % 50;
    std::vector<std::uint32_t> rank = identity_ranks(m);
    std::shuffle(rank.begin(), rank.end(), rng);
    const double t = std::uniform_real_distribution<double>(0.01, 0.6)(rng);
    std::vector<OrderedDistance> variants;
    for (int mask = 0; mask < 8; ++mask)
      variants.emplace_back(q, rank, t, OrderedDistanceOptions{(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0});
    for (int c = 0; c < 20; ++c) {
      // Classes of a few values, some concentrated at one end of the order.
      std::vector<std::uint64_t> p(m, 0);
      const std::size_t values = 1 + rng() % std::min<std::size_t>(m, 12);
      const std::size_t lo = rng() % m;
      for (std::size_t v = 0; v < values; ++v) p[lo + rng() % (m - lo)] += 1 + rng() % 9;
      const Dist cls(p);
      const bool expected = variants[0].within(cls.view(), cls.total);
      for (std::size_t v = 1; v < variants.size(); ++v)
        ASSERT_EQ(variants[v].within(cls.view(), cls.total), expected) << "trial " << trial << " variant " << v;
      // And the decision agrees with D[P,Q] <= t away from the boundary.
      const double dist = variants[0].distance(cls.view(), cls.total);
      if (std::abs(dist - t) > 1e-9) {
        EXPECT_EQ(expected, dist <= t);
      }
      ++checks;
      std::size_t y = m;
      for (auto code : cls.codes) y = std::min<std::size_t>(y, rank[code]);
      pruned += y > variants[7].pruning_rank();
    }
  }
  // The random classes exercise check pruning, not only the full walk.
  EXPECT_GT(pruned, checks / 20);
  EXPECT_LT(pruned, checks);
}

TEST(FibonacciTable, FindsInsertedKeysAndZeroForOthers) {
  std::mt19937 rng(7);
  FibonacciTable table;
  for (int round = 0; round < 50; ++round) {
    const std::size_t n = rng() % 200;
    std::map<std::uint32_t, double> expected;
    table.reset(n);
    while (expected.size() < n) {
      const std::uint32_t key = rng() % 1000;
      if (expected.count(key)) continue;
      const double value = 1.0 + rng() % 100;
      expected[key] = value;
      table.insert(key, value);
    }
    for (std::uint32_t key = 0; key < 1000; ++key) {
      auto it = expected.find(key);
      ASSERT_EQ(table.get(key), it == expected.end() ? 0.0 : it->second) << key;
    }
  }
}

// --- equal and hierarchical distance -------------------------------------

TEST(EqualDistance, IsHalfTheL1Distance) {
  // Q = (2/4, 1/4, 1/4), P = (1/2, 1/2, 0): 1/2 (0 + 1/4 + 1/4) = 1/4.
  const EqualDistance d({2, 1, 1});
  const Dist p({1, 1, 0});
  EXPECT_NEAR(d.distance(p.view(), p.total), 0.25, 1e-15);
  EXPECT_TRUE(d.within(p.view(), p.total, 0.25));
  EXPECT_FALSE(d.within(p.view(), p.total, 0.24));
  // P = Q: 0. P on the rarest value: 1/2 (1/2 + 3/4 + 1/4) = 3/4.
  const Dist same({4, 2, 2}), rare({0, 0, 3});
  EXPECT_NEAR(d.distance(same.view(), same.total), 0.0, 1e-15);
  EXPECT_NEAR(d.distance(rare.view(), rare.total), 0.75, 1e-15);
}

class HierarchicalDistanceTest : public ::testing::Test {
 protected:
  // a, b under X; c, d under Y; all under *. H = 2: values under the same
  // parent are 1/2 apart, others 1. Each value occurs once (Q uniform).
  HierarchicalDistanceTest() {
    column.name = "diagnosis";
    for (const char* v : {"a", "b", "c", "d"}) {
      column.codes.push_back(column.dictionary.intern(v));
      column.first_line.push_back(column.codes.size() + 1);
    }
    table.source = "diagnosis.csv";
    table.rows = {{"a", "X", "*"}, {"b", "X", "*"}, {"c", "Y", "*"}, {"d", "Y", "*"}, {"e", "Y", "*"}};
    table.lines = {1, 2, 3, 4, 5};
  }
  Column column;
  HierarchyTable table;
};

TEST_F(HierarchicalDistanceTest, HandExamples) {
  const HierarchicalDistance d(Generalization::build(table, column, "data.csv"), {1, 1, 1, 1});
  // All mass on a: 1/4 moves to b at 1/2, 1/2 moves to c, d at 1:
  // 1/8 + 1/2 = 5/8. Bottom-up: X has extras -3/4, +1/4 → min 1/4 at level
  // 1 (weight 1/2); the root has -1/2 (X), +1/2 (Y) → 1/2 at weight 1.
  const Dist a({1, 0, 0, 0});
  EXPECT_NEAR(d.distance(a.view(), a.total), 5.0 / 8, 1e-15);
  // Mass on a and b: 1/2 moves from X to Y at distance 1.
  const Dist ab({1, 1, 0, 0});
  EXPECT_NEAR(d.distance(ab.view(), ab.total), 0.5, 1e-15);
  // Mass on a and c: 1/4 moves a→b and 1/4 moves c→d, each at 1/2.
  const Dist ac({3, 0, 3, 0});
  EXPECT_NEAR(d.distance(ac.view(), ac.total), 0.25, 1e-15);
  EXPECT_TRUE(d.within(ac.view(), ac.total, 0.25));
  EXPECT_FALSE(d.within(ac.view(), ac.total, 0.2));
  // e is in the hierarchy but not in the data: it changes nothing.
  const Dist all({1, 1, 1, 1});
  EXPECT_NEAR(d.distance(all.view(), all.total), 0.0, 1e-15);
}

TEST_F(HierarchicalDistanceTest, FactoryNeedsAHierarchy) {
  Problem problem;
  SensitiveAttribute s;
  s.name = "diagnosis";
  s.data = &column;
  problem.sensitive.push_back(s);
  const TClosenessSpec spec{"diagnosis", TClosenessSpec::Distance::hierarchical, 0.3};
  EXPECT_THROW(make_t_closeness(spec, problem, {}), JobError);
  problem.sensitive[0].hierarchy = &table;
  auto model = make_t_closeness(spec, problem, {});
  EXPECT_EQ(model->to_json()["distance"], "hierarchical");
  // A hierarchy that lacks a value of the data.
  table.rows.erase(table.rows.begin());
  table.lines.erase(table.lines.begin());
  EXPECT_THROW(make_t_closeness(spec, problem, {}), InputError);
}

// --- order of values -----------------------------------------------------

SensitiveAttribute attribute_of(Column& col, const std::vector<std::string>& values) {
  col.name = "x";
  for (const auto& v : values) {
    col.codes.push_back(col.dictionary.intern(v));
    if (col.first_line.size() < col.dictionary.size()) col.first_line.push_back(col.codes.size() + 1);
  }
  SensitiveAttribute s;
  s.name = "x";
  s.data = &col;
  return s;
}

TEST(OrderedRanks, NumbersInNumericOrder) {
  Column col;
  // "10" < "9" as strings; numerically 9 < 10. -1.5 is the smallest.
  const SensitiveAttribute s = attribute_of(col, {"10", "9", "-1.5", "100", "9"});
  EXPECT_EQ(ordered_ranks(s), (std::vector<std::uint32_t>{2, 1, 0, 3}));
}

TEST(OrderedRanks, DeclaredOrderWhenNotNumeric) {
  Column col;
  SensitiveAttribute s = attribute_of(col, {"high", "low", "medium", "low"});
  EXPECT_THROW(ordered_ranks(s), JobError);
  s.order = {"low", "medium", "high", "unused"};
  EXPECT_EQ(ordered_ranks(s), (std::vector<std::uint32_t>{2, 0, 1}));
  s.order = {"low", "high"};
  try {
    ordered_ranks(s);
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find("'medium'"), std::string::npos) << e.what();
  }
  s.order = {"low", "medium", "high", "low"};
  EXPECT_THROW(ordered_ranks(s), JobError);
}

TEST(OrderedRanks, ErrorNamesTheValueThatIsNotANumber) {
  Column col;
  const SensitiveAttribute s = attribute_of(col, {"39", "50", "?"});
  try {
    ordered_ranks(s);
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'?'"), std::string::npos) << what;
    EXPECT_NE(what.find("order"), std::string::npos) << what;
  }
}

TEST(TCloseness, IsMonotonicOnlyWithoutSuppression) {
  Column col;
  Problem problem;
  problem.sensitive.push_back(attribute_of(col, {"1", "2", "3"}));
  for (auto distance : {TClosenessSpec::Distance::equal, TClosenessSpec::Distance::ordered}) {
    const TClosenessSpec spec{"x", distance, 0.2};
    problem.max_suppressed = 0;
    EXPECT_TRUE(make_t_closeness(spec, problem, {})->monotonic());
    problem.max_suppressed = 1;
    EXPECT_FALSE(make_t_closeness(spec, problem, {})->monotonic());
  }
}

// --- several models in one job --------------------------------------------

// Twelve people: age and sex are quasi-identifying; disease is protected by
// distinct 2-diversity, income by ordered-distance t-closeness.
const char* kData =
    "age;sex;disease;income\n"
    "21;M;flu;10\n22;M;cold;20\n23;M;flu;30\n"
    "31;M;flu;40\n32;M;flu;50\n33;M;flu;60\n"
    "21;F;cancer;10\n22;F;flu;20\n"
    "34;F;cold;70\n35;F;asthma;80\n36;F;flu;90\n37;F;cold;100\n";

class SeveralModels : public ::testing::Test {
 protected:
  SeveralModels() {
    dir = std::filesystem::path(::testing::TempDir()) / ("deid_tclose_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    write("data.csv", kData);
    write("age.csv",
          "21;20-29;*\n22;20-29;*\n23;20-29;*\n31;30-39;*\n32;30-39;*\n33;30-39;*\n"
          "34;30-39;*\n35;30-39;*\n36;30-39;*\n37;30-39;*\n");
    write("sex.csv", "M;*\nF;*\n");
  }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
  }
  Job job(double k, double l, double t, double limit) const {
    Job j;
    j.input.path = (dir / "data.csv").string();
    j.input.delimiter = ';';
    j.attributes = {{"age", Role::quasi_identifying, (dir / "age.csv").string(), {}, 0},
                    {"sex", Role::quasi_identifying, (dir / "sex.csv").string(), {}, 0},
                    {"disease", Role::sensitive, "", {}, 0},
                    {"income", Role::sensitive, "", {}, 0}};
    j.privacy.push_back(KAnonymitySpec{static_cast<std::uint64_t>(k)});
    LDiversitySpec ls;
    ls.attribute = "disease";
    ls.l = l;
    j.privacy.push_back(ls);
    j.privacy.push_back(TClosenessSpec{"income", TClosenessSpec::Distance::ordered, t});
    j.suppression_limit = limit;
    return j;
  }
  std::filesystem::path dir;
};

// Rows as (age, sex, disease, income), for the independent evaluation.
struct Row {
  int age;
  std::string sex, disease;
  int income;
};
std::vector<Row> rows() {
  return {{21, "M", "flu", 10},    {22, "M", "cold", 20},   {23, "M", "flu", 30},  {31, "M", "flu", 40},
          {32, "M", "flu", 50},    {33, "M", "flu", 60},    {21, "F", "cancer", 10}, {22, "F", "flu", 20},
          {34, "F", "cold", 70},   {35, "F", "asthma", 80}, {36, "F", "flu", 90},  {37, "F", "cold", 100}};
}

// Records to suppress under (k, distinct l, ordered t), computed from the
// rows alone: group by generalized age and sex, and evaluate the formulas of
// the papers directly.
std::uint64_t independent_suppressed(int age_level, int sex_level, std::size_t k, std::size_t l, double t) {
  const auto all = rows();
  std::set<int> incomes;
  for (const auto& r : all) incomes.insert(r.income);
  const std::vector<int> order(incomes.begin(), incomes.end());
  const double m = static_cast<double>(order.size());
  auto share = [&](const std::vector<Row>& rs, int v) {
    double n = 0;
    for (const auto& r : rs) n += r.income == v;
    return n / static_cast<double>(rs.size());
  };
  std::map<std::pair<std::string, std::string>, std::vector<Row>> classes;
  for (const auto& r : all) {
    const std::string age = age_level == 0 ? std::to_string(r.age)
                            : age_level == 1 ? std::to_string(r.age / 10 * 10) + "s"
                                             : "*";
    classes[{age, sex_level == 0 ? r.sex : "*"}].push_back(r);
  }
  std::uint64_t suppressed = 0;
  for (const auto& [key, rs] : classes) {
    std::set<std::string> diseases;
    for (const auto& r : rs) diseases.insert(r.disease);
    double cumulative = 0, emd = 0;
    for (int v : order) {
      cumulative += share(rs, v) - share(all, v);
      emd += std::abs(cumulative);
    }
    emd /= m - 1;
    if (rs.size() < k || diseases.size() < l || emd > t) suppressed += rs.size();
  }
  return suppressed;
}

TEST_F(SeveralModels, EveryTransformationAgreesWithIndependentEvaluation) {
  for (double t : {0.2, 0.3, 0.35, 0.45}) {
    for (std::size_t l : {1, 2, 3}) {
      auto prepared = prepare(job(2, static_cast<double>(l), t, 0.25));
      const Problem& problem = prepared->problem;
      Checker checker(problem);
      for (int a = 0; a < 3; ++a)
        for (int s = 0; s < 2; ++s) {
          const Transformation tr{static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(s)};
          const CheckResult r = checker.check(tr);
          const std::uint64_t expected = independent_suppressed(a, s, 2, l, t);
          EXPECT_EQ(r.suppressed_records, expected) << "t=" << t << " l=" << l << " levels " << a << "," << s;
          EXPECT_EQ(r.solution, expected <= 3) << "t=" << t << " l=" << l << " levels " << a << "," << s;
        }
    }
  }
}

TEST_F(SeveralModels, ClassesViolatingAnyModelAreSuppressedWithinTheLimit) {
  // Age by decade, sex kept: four classes, all of at least 2 records.
  //  (20s, M) {flu, cold, flu},        incomes 10, 20, 30:   D = 17/54 = 0.315
  //  (30s, M) {flu, flu, flu},         incomes 40, 50, 60:   D = 2/9   = 0.222
  //  (20s, F) {cancer, flu},           incomes 10, 20:       D = 10/27 = 0.370
  //  (30s, F) {cold, asthma, flu, cold}, incomes 70..100:    D = 11/27 = 0.407
  // With k = 2, distinct 2-diversity and t = 0.35: (30s, M) violates only
  // l-diversity, (20s, F) and (30s, F) only t-closeness: 3 + 2 + 4 = 9
  // records go, which a limit of 9/12 allows and 8/12 does not.
  for (double limit : {0.75, 0.70}) {
    auto prepared = prepare(job(2, 2, 0.35, limit));
    Checker checker(prepared->problem);
    Classes classes;
    const CheckResult r = checker.check({1, 0}, &classes);
    EXPECT_EQ(r.suppressed_records, 9u);
    EXPECT_EQ(r.solution, limit == 0.75);
    ASSERT_EQ(classes.size(), 4u);
    std::uint64_t kept = 0;
    for (std::size_t c = 0; c < classes.size(); ++c)
      if (!classes.suppressed[c]) kept += classes.counts[c];
    EXPECT_EQ(kept, 3u);  // only (20s, M) stays
  }
}

TEST_F(SeveralModels, SearchFindsASolutionSatisfyingAllModels) {
  auto prepared = prepare(job(2, 2, 0.35, 0.25));
  const Anonymization a = run_search(*prepared);
  ASSERT_TRUE(a.found);
  // Solutions (at most 3 records to suppress): (decade, *), (*, sex) and
  // (*, *), each with no violating class. Loss (geometric mean of
  // 1 + per-attribute loss, minus 1): (decade, *) has age 0.481 and sex 1,
  // 0.721; (*, sex) has age 1 and sex 0, 0.414; (*, *) is 1.
  EXPECT_EQ(a.result["transformation"]["age"], 2);
  EXPECT_EQ(a.result["transformation"]["sex"], 0);
  EXPECT_EQ(a.result["suppressed_records"], 0);
}

}  // namespace
}  // namespace deid
