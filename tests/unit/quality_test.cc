// Quality models (src/quality, docs/quality-models.md): hand-computed values
// on a table of 8 records with 2 quasi-identifiers, Loss's gs-factor as ARX's
// MetricMDNMLoss defines it, the factory's defaults and rejections, and a
// randomized check of every lower bound: lower_bound(t) <= evaluate(t) and
// lower_bound(t) <= lower_bound(successor of t), and level_bound(t) ==
// lower_bound(t) bit for bit where a model has a level bound.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "deid/check.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/hierarchy.h"
#include "deid/histogram.h"
#include "deid/problem.h"
#include "deid/quality.h"
#include "quality/arx_conventions.h"
#include "quality/entropy.h"

namespace {

using deid::Aggregate;
using deid::Classes;
using deid::Problem;
using deid::QualitySpec;
using deid::Transformation;

// A problem built directly from CSV text: every column is a quasi-identifier.
struct SmallProblem {
  deid::Dataset data;
  Problem problem;
};

std::unique_ptr<SmallProblem> small_problem(const std::string& csv, const std::vector<std::string>& hierarchies,
                                            const QualitySpec& spec) {
  auto sp = std::make_unique<SmallProblem>();
  sp->data = deid::read_dataset_text(csv, "table.csv", deid::CsvOptions{','});
  Problem& p = sp->problem;
  std::vector<int> columns;
  for (std::size_t q = 0; q < hierarchies.size(); ++q) {
    const auto table = deid::read_hierarchy_text(hierarchies[q], fmt::format("h{}.csv", q),
                                                 deid::CsvOptions{';'});
    p.hierarchies.push_back(deid::Generalization::build(table, sp->data.columns[q], "table.csv"));
    p.qi_names.push_back(sp->data.columns[q].name);
    p.qi_columns.push_back(static_cast<int>(q));
    columns.push_back(static_cast<int>(q));
  }
  p.histogram = deid::build_histogram(sp->data, columns);
  p.rows = sp->data.rows;
  p.max_suppressed = p.rows;
  p.quality = deid::make_quality_model(spec);
  return sp;
}

// The classes of `t` with every class smaller than k suppressed.
Classes classes_of(const Problem& p, const Transformation& t, std::uint64_t k) {
  deid::Checker checker(p);
  Classes cls;
  checker.group(t, cls);
  for (std::size_t c = 0; c < cls.size(); ++c)
    if (cls.counts[c] < k) {
      cls.suppressed[c] = 1;
      cls.suppressed_records += cls.counts[c];
    }
  return cls;
}

QualitySpec spec(const std::string& model, std::optional<Aggregate> aggregate = std::nullopt, double gs = 0.5) {
  QualitySpec s;
  s.model = model;
  s.aggregate = aggregate;
  s.gs_factor = gs;
  return s;
}

// The worked example. A has 4 of the 6 values of its hierarchy (5 and 6 are
// in the hierarchy only); B is M or F.
//
// At transformation (1, 0) the classes are (1-2,M):2, (1-2,F):1,
// (3-4,F):3, (3-4,M):2. With k = 2 only (1-2,F) is suppressed (1 record);
// with k = 3 (1-2,M), (1-2,F) and (3-4,M) are (5 records).
const char* kTable =
    "A,B\n"
    "1,M\n"
    "1,M\n"
    "2,F\n"
    "3,F\n"
    "3,F\n"
    "4,M\n"
    "4,M\n"
    "4,F\n";
const char* kHierarchyA = "1;1-2;*\n2;1-2;*\n3;3-4;*\n4;3-4;*\n5;5-6;*\n6;5-6;*\n";
const char* kHierarchyB = "M;*\nF;*\n";
const Transformation kT10 = {1, 0};

std::unique_ptr<SmallProblem> example(const QualitySpec& s) {
  return small_problem(kTable, {kHierarchyA, kHierarchyB}, s);
}

constexpr double kTol = 1e-9;  // values are truncated to 10 decimal places like ARX's

TEST(LossModel, WorkedExampleSharesAreMeasuredAgainstTheHierarchy) {
  // A at level 1: each kept record has share 2/6; the suppressed one 1.
  // sum = 7/3 + 1, min = 8/6: (10/3 - 4/3) / (8 - 4/3) = 0.3.
  // B at level 0: share 1/2; sum = 3.5 + 1, min = 4: 0.5 / 4 = 0.125.
  auto sp = example(spec("loss", Aggregate::arithmetic_mean));
  const auto v = sp->problem.quality->evaluate(sp->problem, kT10, classes_of(sp->problem, kT10, 2));
  ASSERT_EQ(v.per_attribute.size(), 2u);
  EXPECT_NEAR(v.per_attribute[0], 0.3, kTol);
  EXPECT_NEAR(v.per_attribute[1], 0.125, kTol);
  EXPECT_NEAR(v.value, (0.3 + 0.125) / 2, kTol);
}

// With bounded memory a Checker leaves the keys of a solution's classes
// unwritten and Loss reads those it needs through Classes::pending_keys
// (deid/check.h): the same values as from the keys, each suppressed class's
// key read once, and the (cleared) keys never.
class CountingReader final : public deid::KeyReader {
 public:
  CountingReader(std::vector<std::uint32_t> keys, std::uint32_t width) : keys_(std::move(keys)), width_(width) {}
  void read(std::size_t c, std::uint32_t* out) const override {
    ++reads;
    for (std::uint32_t q = 0; q < width_; ++q) out[q] = keys_[c * width_ + q];
  }
  mutable int reads = 0;

 private:
  std::vector<std::uint32_t> keys_;
  std::uint32_t width_;
};

TEST(LossModel, ReadsPendingKeysThroughTheReader) {
  auto sp = example(spec("loss", Aggregate::arithmetic_mean));
  const Problem& p = sp->problem;
  EXPECT_TRUE(p.quality->reads_keys_lazily(p));
  Classes cls = classes_of(p, kT10, 3);  // 3 of the 4 classes suppressed
  const auto direct = p.quality->evaluate(p, kT10, cls);
  std::vector<double> direct_class(cls.size());
  for (std::size_t c = 0; c < cls.size(); ++c) direct_class[c] = p.quality->class_loss(p, kT10, cls, c);

  const CountingReader reader(std::vector<std::uint32_t>(cls.keys.begin(), cls.keys.end()), cls.width);
  cls.keys.clear();
  cls.pending_keys = &reader;
  const auto lazy = p.quality->evaluate(p, kT10, cls);
  EXPECT_EQ(lazy.value, direct.value);
  EXPECT_EQ(lazy.per_attribute, direct.per_attribute);
  // Only the kept class's key: with most classes suppressed the kept ones
  // are summed and taken from the total.
  EXPECT_EQ(reader.reads, 1);
  for (std::size_t c = 0; c < cls.size(); ++c) EXPECT_EQ(p.quality->class_loss(p, kT10, cls, c), direct_class[c]);
  EXPECT_EQ(reader.reads, 1 + static_cast<int>(cls.size()));
  cls.pending_keys = nullptr;

  // A microaggregated dimension finds its classes by their keys; other
  // models read the keys themselves.
  deid::MicroaggregatedAttribute m;
  m.name = "C";
  sp->problem.microaggregated.push_back(m);
  EXPECT_FALSE(p.quality->reads_keys_lazily(p));
  auto entropy = example(spec("entropy"));
  EXPECT_FALSE(entropy->problem.quality->reads_keys_lazily(entropy->problem));
}

TEST(LossModel, OriginalDataHasLossZeroAndTopHasLossOne) {
  auto sp = example(spec("loss"));
  const Problem& p = sp->problem;
  const auto bottom = p.quality->evaluate(p, {0, 0}, classes_of(p, {0, 0}, 1));
  EXPECT_EQ(bottom.value, 0.0);
  const auto top = p.quality->evaluate(p, {2, 1}, classes_of(p, {2, 1}, 1));
  EXPECT_NEAR(top.value, 1.0, kTol);
  EXPECT_NEAR(top.per_attribute[0], 1.0, kTol);
}

TEST(LossModel, EveryAggregateCombinesTheSamePerAttributeValues) {
  const double a = 0.3, b = 0.125;
  const struct {
    Aggregate how;
    double expected;
  } cases[] = {{Aggregate::geometric_mean, std::sqrt((1 + a) * (1 + b)) - 1},
               {Aggregate::arithmetic_mean, (a + b) / 2},
               {Aggregate::sum, a + b},
               {Aggregate::max, a}};
  for (const auto& c : cases) {
    auto sp = example(spec("loss", c.how));
    const auto v = sp->problem.quality->evaluate(sp->problem, kT10, classes_of(sp->problem, kT10, 2));
    EXPECT_NEAR(v.value, c.expected, kTol) << deid::to_string(c.how);
  }
}

// ARX's MetricMDNMLoss: s = gs < 0.5 ? 2 gs : 1, g = gs <= 0.5 ? 1 : 2 (1 - gs);
// a kept class adds c p g, a suppressed one c (s = 1) or c p + s (c - c p);
// normalization (sum - g n/H) / (n - g n/H). Worked on (1, 0) with k = 2.
struct GsCase {
  double gs;
  double a, b;          // per attribute
  double bound_a, bound_b;
  const char* name;     // ARX's toString
};

class LossGsFactor : public ::testing::TestWithParam<GsCase> {};

TEST_P(LossGsFactor, WeighsGeneralizationAndSuppressionLikeArx) {
  const GsCase& c = GetParam();
  auto sp = example(spec("loss", Aggregate::arithmetic_mean, c.gs));
  const Problem& p = sp->problem;
  const auto v = p.quality->evaluate(p, kT10, classes_of(p, kT10, 2));
  EXPECT_NEAR(v.per_attribute[0], c.a, kTol);
  EXPECT_NEAR(v.per_attribute[1], c.b, kTol);
  EXPECT_NEAR(p.quality->lower_bound(p, kT10, classes_of(p, kT10, 1)), (c.bound_a + c.bound_b) / 2, kTol);
  EXPECT_EQ(p.quality->describe(), c.name);
}

INSTANTIATE_TEST_SUITE_P(
    HandComputed, LossGsFactor,
    ::testing::Values(
        // gs 0: suppression is free (s = 0): the suppressed record keeps the
        // loss of its generalized value, so the value equals the bound.
        // A: (7/3 + 1/3 - 4/3) / (20/3) = 0.2; B: (3.5 + 0.5 - 4) / 4 = 0.
        GsCase{0.0, 0.2, 0.0, 0.2, 0.0, "Loss (0.0/1.0/0.0)"},
        // gs 0.25: s = 0.5. A: suppressed 1/3 + 0.5 * 2/3 = 2/3, (3 - 4/3) / (20/3)
        // = 0.25; B: suppressed 0.5 + 0.25, (4.25 - 4) / 4 = 0.0625.
        GsCase{0.25, 0.25, 0.0625, 0.2, 0.0, "Loss (0.25/1.0/0.5)"},
        // gs 0.5: both weights 1.
        GsCase{0.5, 0.3, 0.125, 0.2, 0.0, "Loss (0.5/1.0/1.0)"},
        // gs 0.75: g = 0.5, and the minimum moves with g: min = 0.5 n / H.
        // A: (7/6 + 1 - 2/3) / (8 - 2/3) = 9/44; B: (1.75 + 1 - 2) / (8 - 2) = 0.125.
        // Bound A: (7/6 + 1/6 - 2/3) / (22/3) = 1/11; B: (2 - 2) / 6 = 0.
        GsCase{0.75, 9.0 / 44.0, 0.125, 1.0 / 11.0, 0.0, "Loss (0.75/0.5/1.0)"},
        // gs 1: generalization is free (g = 0): only the suppressed record
        // counts, 1 / 8 in each attribute; the bound is 0.
        GsCase{1.0, 0.125, 0.125, 0.0, 0.0, "Loss (1.0/0.0/1.0)"}),
    [](const auto& info) { return "gs" + std::to_string(static_cast<int>(info.param.gs * 100)); });

TEST(LossModel, GsFactorZeroMakesSuppressionCostNothingBeyondGeneralization) {
  // With k = 3, five records are suppressed: at gs 0 the value still equals
  // the loss of generalization alone.
  auto sp = example(spec("loss", std::nullopt, 0.0));
  const Problem& p = sp->problem;
  const double value = p.quality->evaluate(p, kT10, classes_of(p, kT10, 3)).value;
  EXPECT_NEAR(value, p.quality->lower_bound(p, kT10, classes_of(p, kT10, 1)), kTol);
}

TEST(EntropyModel, WorkedExampleAddsSuppressedRecordsEntropyOfTheirGeneralizedValues) {
  // A: counts 1:2, 2:1, 3:2, 4:3; at level 1, 1-2 has 3 records and 3-4 has 5.
  const double gen_a = 2 * std::log2(3.0 / 2) + 1 * std::log2(3.0) + 2 * std::log2(5.0 / 2) + 3 * std::log2(5.0 / 3);
  // k = 3 suppresses 5 records: generalized A values 1-2 (3) and 3-4 (2),
  // B values M (4) and F (1).
  const double supp_a = 3 * std::log2(5.0 / 3) + 2 * std::log2(5.0 / 2);
  const double supp_b = 4 * std::log2(5.0 / 4) + 1 * std::log2(5.0);
  auto sp = example(spec("entropy"));
  const Problem& p = sp->problem;
  const auto v = p.quality->evaluate(p, kT10, classes_of(p, kT10, 3));
  EXPECT_NEAR(v.per_attribute[0], gen_a + supp_a, kTol);
  EXPECT_NEAR(v.per_attribute[1], supp_b, kTol);  // B is not generalized
  EXPECT_NEAR(v.value, gen_a + supp_a + supp_b, 2 * kTol);  // default aggregate: sum
  EXPECT_NEAR(p.quality->lower_bound(p, kT10, classes_of(p, kT10, 1)), gen_a, kTol);
  EXPECT_EQ(p.quality->describe(), "Non-monotonic non-uniform entropy");
}

TEST(EntropyModel, TopLevelCostsTheEntropyOfTheColumn) {
  // Fully generalized, each record costs -log2 of its value's frequency.
  auto sp = example(spec("entropy"));
  const auto& model = dynamic_cast<const deid::EntropyModel&>(*sp->problem.quality);
  const double h_a = 2 * std::log2(8.0 / 2) + std::log2(8.0) + 2 * std::log2(8.0 / 2) + 3 * std::log2(8.0 / 3);
  EXPECT_NEAR(model.generalization_entropy(sp->problem, 0, 2), h_a, 1e-12);
  EXPECT_NEAR(model.generalization_entropy(sp->problem, 1, 1), 4 * 1.0 + 4 * 1.0, 1e-12);
  EXPECT_EQ(model.generalization_entropy(sp->problem, 0, 0), 0.0);
}

TEST(PrecisionModel, WorkedExampleChargesSuppressedRecordsInFull) {
  // A at level 1 of 2: kept records lose 1/2; B at level 0 of 1: 0.
  // One suppressed record: A (7 * 0.5 + 1) / 8, B (7 * 0 + 1) / 8.
  auto sp = example(spec("precision"));
  const Problem& p = sp->problem;
  const auto v = p.quality->evaluate(p, kT10, classes_of(p, kT10, 2));
  EXPECT_DOUBLE_EQ(v.per_attribute[0], 4.5 / 8);
  EXPECT_DOUBLE_EQ(v.per_attribute[1], 1.0 / 8);
  EXPECT_DOUBLE_EQ(v.value, (4.5 / 8 + 1.0 / 8) / 2);  // default aggregate: arithmetic mean
  EXPECT_DOUBLE_EQ(p.quality->lower_bound(p, kT10, classes_of(p, kT10, 1)), (0.5 + 0.0) / 2);
  EXPECT_EQ(p.quality->describe(), "Non-monotonic precision");
}

TEST(HeightModel, SumsTheLevelsWhateverIsSuppressed) {
  auto sp = example(spec("height"));
  const Problem& p = sp->problem;
  const auto v = p.quality->evaluate(p, {2, 1}, classes_of(p, {2, 1}, 3));
  EXPECT_EQ(v.per_attribute, (std::vector<double>{2, 1}));
  EXPECT_EQ(v.value, 3.0);
  EXPECT_EQ(p.quality->evaluate(p, kT10, classes_of(p, kT10, 3)).value, 1.0);
  EXPECT_EQ(p.quality->lower_bound(p, kT10, classes_of(p, kT10, 1)), 1.0);
}

TEST(DiscernabilityModel, ChargesKeptRecordsTheirClassAndSuppressedOnesTheTable) {
  // k = 2: kept classes 2, 3, 2 -> 4 + 9 + 4; the suppressed record 8.
  auto sp = example(spec("discernability"));
  const Problem& p = sp->problem;
  const auto v = p.quality->evaluate(p, kT10, classes_of(p, kT10, 2));
  EXPECT_EQ(v.value, 25.0);
  EXPECT_TRUE(v.per_attribute.empty());
  EXPECT_EQ(p.quality->lower_bound(p, kT10, classes_of(p, kT10, 1)), 18.0);  // 4 + 1 + 9 + 4
}

TEST(AecsModel, CountsSuppressedRecordsAsOneClass) {
  auto sp = example(spec("aecs"));
  const Problem& p = sp->problem;
  // k = 2: 3 kept classes + 1 for the suppressed record: 8 / 4.
  EXPECT_EQ(p.quality->evaluate(p, kT10, classes_of(p, kT10, 2)).value, 2.0);
  // k = 3: 1 kept class + 1: 8 / 2.
  EXPECT_EQ(p.quality->evaluate(p, kT10, classes_of(p, kT10, 3)).value, 4.0);
  // Nothing suppressed: 8 / 4 classes.
  EXPECT_EQ(p.quality->evaluate(p, kT10, classes_of(p, kT10, 1)).value, 2.0);
  EXPECT_EQ(p.quality->lower_bound(p, kT10, classes_of(p, kT10, 1)), 2.0);
  EXPECT_TRUE(p.quality->evaluate(p, kT10, classes_of(p, kT10, 2)).per_attribute.empty());
}

TEST(QualityFactory, UsesArxDefaultAggregates) {
  // Per-attribute values (0.3, 0.125) for loss; the default aggregate decides the total.
  auto loss = example(spec("loss"));
  EXPECT_NEAR(loss->problem.quality->evaluate(loss->problem, kT10, classes_of(loss->problem, kT10, 2)).value,
              std::sqrt(1.3 * 1.125) - 1, kTol);
  auto height = example(spec("height"));
  EXPECT_EQ(height->problem.quality->evaluate(height->problem, {2, 1}, classes_of(height->problem, {2, 1}, 1)).value,
            3.0);  // sum
  EXPECT_EQ(loss->problem.quality->name(), "loss");
  EXPECT_EQ(height->problem.quality->describe(), "Height");
  EXPECT_EQ(example(spec("discernability"))->problem.quality->describe(), "Non-monotonic discernability");
  EXPECT_EQ(example(spec("aecs"))->problem.quality->describe(), "Average equivalence class size");
}

TEST(QualityFactory, RejectsAnAggregateForSingleValueModels) {
  for (const char* model : {"discernability", "aecs"}) {
    try {
      deid::make_quality_model(spec(model, Aggregate::sum));
      ADD_FAILURE() << model << " accepted an aggregate";
    } catch (const deid::JobError& e) {
      EXPECT_NE(std::string(e.what()).find("quality.aggregate"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(model), std::string::npos) << e.what();
    }
  }
  for (const char* model : {"loss", "entropy", "precision", "height"})
    for (Aggregate a : {Aggregate::geometric_mean, Aggregate::arithmetic_mean, Aggregate::sum, Aggregate::max})
      EXPECT_NO_THROW(deid::make_quality_model(spec(model, a))) << model;
}

TEST(QualityFactory, RejectsUnknownModelsAndGsFactorsOutsideLoss) {
  EXPECT_THROW(deid::make_quality_model(spec("utility")), deid::JobError);
  // monotonic belongs to entropy and discernability only.
  deid::QualitySpec monotonic_loss = spec("loss");
  monotonic_loss.monotonic = true;
  EXPECT_THROW(deid::make_quality_model(monotonic_loss), deid::JobError);
  EXPECT_THROW(deid::make_quality_model(spec("height", std::nullopt, 0.3)), deid::JobError);
  EXPECT_THROW(deid::make_quality_model(spec("normalized-entropy", std::nullopt, 0.3)), deid::JobError);
  for (const char* model : {"entropy", "precision", "aecs"})
    EXPECT_NO_THROW(deid::make_quality_model(spec(model, std::nullopt, 0.3))) << model;
  EXPECT_THROW(deid::make_quality_model(spec("loss", std::nullopt, 1.5)), deid::JobError);
  EXPECT_NO_THROW(deid::make_quality_model(spec("loss", std::nullopt, 0.0)));
  EXPECT_NO_THROW(deid::make_quality_model(spec("loss", std::nullopt, 1.0)));
}

TEST(ArxConventions, GsWeightsFollowArxAndTruncationKeepsTenDigits) {
  EXPECT_EQ(deid::quality::gs_weights(0.0).suppression, 0.0);
  EXPECT_EQ(deid::quality::gs_weights(0.0).generalization, 1.0);
  EXPECT_EQ(deid::quality::gs_weights(1.0).generalization, 0.0);
  EXPECT_EQ(deid::quality::gs_weights(1.0).suppression, 1.0);
  EXPECT_EQ(deid::quality::truncate_10_digits(0.22798035396), 0.2279803539);
  EXPECT_EQ(deid::quality::java_double(1.0), "1.0");
  EXPECT_EQ(deid::quality::java_double(0.25), "0.25");
  EXPECT_EQ(deid::quality::java_double(1e7), "1.0E7");
  EXPECT_EQ(deid::quality::java_double(0.0001), "1.0E-4");
  EXPECT_EQ(deid::quality::java_double(-2.5e-10), "-2.5E-10");
}

// Random tables of 3 quasi-identifiers with random nested hierarchies (some
// hierarchy values absent from the data), random k: for every model, every
// aggregate and Loss's gs-factors, over the whole lattice,
// lower_bound(t) <= evaluate(t) and lower_bound(t) <= lower_bound(s) for every
// direct generalization s of t.
std::string random_hierarchy(std::mt19937& rng, int values, int levels) {
  // Level j groups values by blocks of width[j]; each width is a multiple of
  // the previous one, so the groups nest. The last level is '*'.
  std::vector<int> width{1};
  for (int j = 1; j + 1 < levels; ++j) width.push_back(width.back() * std::uniform_int_distribution<int>(2, 3)(rng));
  std::string text;
  for (int v = 0; v < values; ++v) {
    text += 'v';
    text += std::to_string(v);
    for (int j = 1; j + 1 < levels; ++j) text += fmt::format(";g{}_{}", j, v / width[j]);
    if (levels > 1) text += ";*";
    text += "\n";
  }
  return text;
}

std::string describe(const QualitySpec& s) {
  return fmt::format("{} aggregate {} gs {}", s.model, s.aggregate ? deid::to_string(*s.aggregate) : "default",
                     s.gs_factor);
}

// Loss where most classes are suppressed sums the kept classes and takes
// them from the total (LossModel::evaluate): the same value, bit for bit,
// as summing the suppressed ones, which it does when zero-count kept
// classes make the suppressed ones a minority (they add nothing either way).
TEST(LossModel, SumsTheKeptClassesWhereMostAreSuppressedToTheSameBits) {
  std::mt19937 rng(20261130);
  int from_kept = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int width = 3;
    std::vector<std::string> hierarchies;
    std::vector<int> values(width);
    for (int q = 0; q < width; ++q) {
      values[q] = std::uniform_int_distribution<int>(2, 9)(rng);
      hierarchies.push_back(random_hierarchy(rng, values[q], std::uniform_int_distribution<int>(1, 4)(rng)));
    }
    std::string csv = "q0,q1,q2\n";
    const int rows = std::uniform_int_distribution<int>(5, 80)(rng);
    for (int r = 0; r < rows; ++r)
      csv += fmt::format("v{},v{},v{}\n", std::uniform_int_distribution<int>(0, values[0] - 1)(rng),
                         std::uniform_int_distribution<int>(0, values[1] - 1)(rng),
                         std::uniform_int_distribution<int>(0, values[2] - 1)(rng));
    for (double gs : {0.0, 0.5, 1.0}) {
      auto sp = small_problem(csv, hierarchies, spec("loss", Aggregate::arithmetic_mean, gs));
      const Problem& p = sp->problem;
      const deid::Lattice lattice = p.lattice();
      for (deid::LatticeIndex i = 0; i < lattice.size(); ++i) {
        const Transformation t = lattice.at(i);
        const Classes cls = classes_of(p, t, std::uniform_int_distribution<std::uint64_t>(2, 8)(rng));
        std::size_t suppressed = 0;
        for (std::size_t c = 0; c < cls.size(); ++c) suppressed += cls.suppressed[c];
        from_kept += 2 * suppressed > cls.size();
        Classes padded = cls;
        for (std::size_t c = 0; c < cls.size() + 1; ++c) {
          padded.keys.insert(padded.keys.end(), cls.keys.begin(), cls.keys.begin() + width);
          padded.counts.push_back(0);
          padded.suppressed.push_back(0);
        }
        const deid::QualityValue a = p.quality->evaluate(p, t, cls), b = p.quality->evaluate(p, t, padded);
        EXPECT_EQ(a.value, b.value) << "gs " << gs << " t " << deid::to_string(t) << " (trial " << trial << ")";
        EXPECT_EQ(a.per_attribute, b.per_attribute) << "gs " << gs << " t " << deid::to_string(t);
      }
    }
  }
  EXPECT_GT(from_kept, 500);
}

TEST(QualityLowerBound, IsBelowTheValueAndMonotonicOnRandomTables) {
  std::vector<QualitySpec> specs;
  for (const char* m : {"loss", "entropy", "precision", "height"})
    for (Aggregate a : {Aggregate::geometric_mean, Aggregate::arithmetic_mean, Aggregate::sum, Aggregate::max})
      specs.push_back(spec(m, a));
  // The models with a gs-factor; below 0.5 precision's and AECS's bounds
  // are deid's, not ARX's (which the value can fall below).
  for (const char* m : {"loss", "entropy", "precision", "aecs"})
    for (double gs : {0.0, 0.25, 0.75, 1.0}) specs.push_back(spec(m, std::nullopt, gs));
  specs.push_back(spec("normalized-entropy"));
  specs.push_back(spec("discernability"));
  specs.push_back(spec("aecs"));

  std::mt19937 rng(20240611);
  int comparisons = 0, level_bounds = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const int width = 3;
    std::vector<int> values(width), levels(width);
    std::vector<std::string> hierarchies;
    for (int q = 0; q < width; ++q) {
      values[q] = std::uniform_int_distribution<int>(2, 9)(rng);
      levels[q] = std::uniform_int_distribution<int>(1, 4)(rng);
      hierarchies.push_back(random_hierarchy(rng, values[q], levels[q]));
    }
    const int rows = std::uniform_int_distribution<int>(5, 60)(rng);
    std::string csv = "q0,q1,q2\n";
    for (int r = 0; r < rows; ++r) {
      for (int q = 0; q < width; ++q) {
        // Skewed: the last value of each hierarchy never occurs.
        const int v = std::uniform_int_distribution<int>(0, std::max(0, values[q] - 2))(rng);
        if (q > 0) csv += ',';
        csv += 'v';
        csv += std::to_string(v);
      }
      csv += "\n";
    }
    const std::uint64_t k = std::uniform_int_distribution<std::uint64_t>(1, 6)(rng);
    for (const QualitySpec& s : specs) {
      auto sp = small_problem(csv, hierarchies, s);
      const Problem& p = sp->problem;
      const deid::Lattice lattice = p.lattice();
      // The bound from the levels alone, where the model has one: the same
      // number, bit for bit, without and with attribute weights.
      if (const auto level_bound = p.quality->level_bound(p)) {
        for (int weighted = 0; weighted < 2; ++weighted) {
          std::vector<double> weights;
          for (int q = 0; weighted && q < width; ++q)
            weights.push_back(std::uniform_real_distribution<double>(0.1, 2.0)(rng));
          sp->problem.weights = weights;
          const auto lb = p.quality->level_bound(p);
          for (deid::LatticeIndex i = 0; i < lattice.size(); ++i) {
            const Transformation t = lattice.at(i);
            EXPECT_EQ((*lb)(t), p.quality->lower_bound(p, t, classes_of(p, t, 1)))
                << describe(s) << " weighted " << weighted << " t " << deid::to_string(t) << " (trial " << trial << ")";
            ++level_bounds;
          }
        }
        sp->problem.weights.clear();
      }
      for (deid::LatticeIndex i = 0; i < lattice.size(); ++i) {
        const Transformation t = lattice.at(i);
        const double bound = p.quality->lower_bound(p, t, classes_of(p, t, 1));
        const double value = p.quality->evaluate(p, t, classes_of(p, t, k)).value;
        const double slack = 1e-12 * std::max(1.0, std::abs(value));
        EXPECT_LE(bound, value + slack) << describe(s) << " t " << deid::to_string(t) << " (trial " << trial << ")";
        for (const Transformation& up : lattice.successors(t)) {
          const double next = p.quality->lower_bound(p, up, classes_of(p, up, 1));
          EXPECT_LE(bound, next + slack) << describe(s) << " " << deid::to_string(t) << " -> " << deid::to_string(up)
                                         << " (trial " << trial << ")";
          ++comparisons;
        }
      }
    }
  }
  EXPECT_GT(comparisons, 1000);
  EXPECT_GT(level_bounds, 1000);
}

}  // namespace
