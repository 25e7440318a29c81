// Loss's cached generalization-only sums and the per-class information loss
// of every quality model (src/quality, docs/quality-models.md):
//  - LossModel::lower_bound() and evaluate() read L(q, level) from a table
//    built once per Problem and visit only the suppressed classes; they must
//    give, bit for bit, what the loop over all classes x attributes gives
//    (the computation they replaced, kept here as the reference), on random
//    transformations and suppressions of adult and of random tables, for
//    every aggregate and gs-factor;
//  - QualityModel::class_loss() follows ARX's Metric.getInformationLoss(
//    transformation, entry) (Loss: aggregate of count * share; the others:
//    the class's size), and the risk-based suppression order (size, class
//    loss, first record) equals a reference sort with losses computed here.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "deid/check.h"
#include "deid/dataset.h"
#include "deid/hierarchy.h"
#include "deid/histogram.h"
#include "deid/pipeline.h"
#include "deid/problem.h"
#include "deid/quality.h"
#include "quality/arx_conventions.h"
#include "quality/loss.h"
#include "risk/suppression.h"
#include "support/reference.h"

namespace {

using deid::Aggregate;
using deid::Classes;
using deid::Problem;
using deid::QualitySpec;
using deid::Transformation;

QualitySpec spec(const std::string& model, std::optional<Aggregate> aggregate = std::nullopt, double gs = 0.5) {
  QualitySpec s;
  s.model = model;
  s.aggregate = aggregate;
  s.gs_factor = gs;
  return s;
}

// Every Loss configuration: each aggregate at gs 0.5, each gs-factor with the default aggregate.
std::vector<QualitySpec> loss_specs() {
  std::vector<QualitySpec> out;
  for (Aggregate a : {Aggregate::geometric_mean, Aggregate::arithmetic_mean, Aggregate::sum, Aggregate::max})
    out.push_back(spec("loss", a));
  for (double gs : {0.0, 0.25, 0.75, 1.0}) out.push_back(spec("loss", std::nullopt, gs));
  return out;
}

// The aggregate as ARX's ILMultiDimensional* classes compute it.
double reference_aggregate(Aggregate how, const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  double acc = how == Aggregate::geometric_mean ? 1.0 : 0.0;
  for (double x : v) {
    if (how == Aggregate::geometric_mean) acc *= std::pow(x + 1.0, 1.0 / n);
    if (how == Aggregate::arithmetic_mean) acc += x / n;
    if (how == Aggregate::sum) acc += x;
    if (how == Aggregate::max) acc = std::max(acc, x);
  }
  return how == Aggregate::geometric_mean ? acc - 1.0 : acc;
}

// The Loss computation before the cache: per attribute a loop over all
// classes, summing records x hierarchy rows as integers.
deid::QualityValue reference_loss(const Problem& p, const Transformation& t, const Classes& classes,
                                  const QualitySpec& s, bool with_suppression) {
  const deid::quality::GsWeights wts = deid::quality::gs_weights(s.gs_factor);
  const double g = wts.generalization, sw = wts.suppression;
  const std::uint32_t w = classes.width;
  const double n = static_cast<double>(p.rows);
  deid::QualityValue out;
  out.per_attribute.resize(w);
  for (std::uint32_t q = 0; q < w; ++q) {
    const deid::Generalization& h = p.hierarchies[q];
    const double rows_h = static_cast<double>(h.hierarchy_rows());
    std::uint64_t kept_leaves = 0, suppressed_leaves = 0, suppressed_records = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const std::uint64_t leaves = classes.counts[c] * h.leaves(t[q], classes.keys[c * w + q]);
      if (with_suppression && classes.suppressed[c]) {
        suppressed_leaves += leaves;
        suppressed_records += classes.counts[c];
      } else {
        kept_leaves += leaves;
      }
    }
    double sum = static_cast<double>(kept_leaves + suppressed_leaves) / rows_h * g;
    if (suppressed_records > 0) {
      const double share = static_cast<double>(suppressed_leaves) / rows_h;
      const double records = static_cast<double>(suppressed_records);
      sum += std::max(0.0, sw == 1.0 ? records - g * share : share * (1.0 - g) + sw * (records - share));
    }
    const double min = g * n / rows_h;
    const double v = n - min > 0 ? (sum - min) / (n - min) : 0.0;
    out.per_attribute[q] = deid::quality::truncate_10_digits(std::max(0.0, v));
  }
  out.value = reference_aggregate(s.aggregate.value_or(Aggregate::geometric_mean), out.per_attribute);
  return out;
}

deid::LatticeIndex random_index(std::mt19937& rng, const deid::Lattice& lattice) {
  const auto last = static_cast<std::uint64_t>(lattice.size() - 1);
  return static_cast<deid::LatticeIndex>(std::uniform_int_distribution<std::uint64_t>(0, last)(rng));
}

// Random transformations of `p`, grouped, with random classes suppressed;
// the model of each spec must equal the reference bit for bit.
int compare_loss_with_class_loop(Problem& p, std::mt19937& rng, int transformations, const std::string& what) {
  const deid::Lattice lattice = p.lattice();
  deid::Checker checker(p);
  int compared = 0;
  for (int i = 0; i < transformations; ++i) {
    const Transformation t = lattice.at(random_index(rng, lattice));
    Classes classes;
    checker.group(t, classes);
    const double rate = std::uniform_real_distribution<double>(0.0, 0.6)(rng);
    for (std::size_t c = 0; c < classes.size(); ++c)
      if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) < rate) {
        classes.suppressed[c] = 1;
        classes.suppressed_records += classes.counts[c];
      }
    for (const QualitySpec& s : loss_specs()) {
      p.quality = deid::make_quality_model(s);
      const std::string where = fmt::format("{} t {} gs {} aggregate {}", what, deid::to_string(t), s.gs_factor,
                                            s.aggregate ? deid::to_string(*s.aggregate) : "default");
      const deid::QualityValue v = p.quality->evaluate(p, t, classes);
      const deid::QualityValue rv = reference_loss(p, t, classes, s, true);
      EXPECT_EQ(v.value, rv.value) << where;
      EXPECT_EQ(v.per_attribute, rv.per_attribute) << where;
      EXPECT_EQ(p.quality->lower_bound(p, t, classes), reference_loss(p, t, classes, s, false).value) << where;
      ++compared;
    }
  }
  return compared;
}

// A problem built directly from CSV text: every column is a quasi-identifier.
struct SmallProblem {
  deid::Dataset data;
  Problem problem;
};

std::string random_hierarchy(std::mt19937& rng, int values, int levels) {
  // Level j groups values by blocks of width[j] (multiples of each other,
  // so the groups nest); the last level is '*'.
  std::vector<int> width{1};
  for (int j = 1; j + 1 < levels; ++j) width.push_back(width.back() * std::uniform_int_distribution<int>(2, 3)(rng));
  std::string text;
  for (int v = 0; v < values; ++v) {
    text += fmt::format("v{}", v);
    for (int j = 1; j + 1 < levels; ++j) text += fmt::format(";g{}_{}", j, v / width[j]);
    if (levels > 1) text += ";*";
    text += "\n";
  }
  return text;
}

std::unique_ptr<SmallProblem> random_problem(std::mt19937& rng, const QualitySpec& s) {
  const int width = std::uniform_int_distribution<int>(1, 4)(rng);
  std::vector<std::string> hierarchies;
  std::vector<int> values(width);
  std::string csv;
  for (int q = 0; q < width; ++q) {
    values[q] = std::uniform_int_distribution<int>(2, 12)(rng);
    hierarchies.push_back(random_hierarchy(rng, values[q], std::uniform_int_distribution<int>(1, 4)(rng)));
    csv += fmt::format("{}q{}", q ? "," : "", q);
  }
  csv += "\n";
  const int rows = std::uniform_int_distribution<int>(3, 150)(rng);
  for (int r = 0; r < rows; ++r) {
    for (int q = 0; q < width; ++q) {
      // Skewed, and the last value of each hierarchy never occurs.
      const int hi = std::max(0, values[q] - 2);
      const int v = std::min(hi, static_cast<int>(std::abs(std::normal_distribution<double>(0, hi / 2.0 + 0.5)(rng))));
      csv += fmt::format("{}v{}", q ? "," : "", v);
    }
    csv += "\n";
  }
  auto sp = std::make_unique<SmallProblem>();
  sp->data = deid::read_dataset_text(csv, "table.csv", deid::CsvOptions{','});
  Problem& p = sp->problem;
  std::vector<int> columns;
  for (int q = 0; q < width; ++q) {
    const auto table = deid::read_hierarchy_text(hierarchies[q], fmt::format("h{}.csv", q), deid::CsvOptions{';'});
    p.hierarchies.push_back(deid::Generalization::build(table, sp->data.columns[q], "table.csv"));
    p.qi_names.push_back(sp->data.columns[q].name);
    p.qi_columns.push_back(q);
    columns.push_back(q);
  }
  p.histogram = deid::build_histogram(sp->data, columns);
  p.rows = sp->data.rows;
  p.max_suppressed = p.rows;
  p.quality = deid::make_quality_model(s);
  return sp;
}

TEST(LossFastPath, BoundAndValueEqualTheClassLoopOnAdult) {
  const deid::Job job = deid::testing::arx_adult_job(deid::testing::arx_adult_run("adult_k5_loss"));
  auto prepared = deid::prepare(job);
  std::mt19937 rng(7);
  EXPECT_EQ(compare_loss_with_class_loop(prepared->problem, rng, 40, "adult"), 40 * 8);
}

TEST(LossFastPath, BoundAndValueEqualTheClassLoopOnRandomTables) {
  std::mt19937 rng(20261122);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    auto sp = random_problem(rng, spec("loss"));
    compared += compare_loss_with_class_loop(sp->problem, rng, 6, fmt::format("trial {}", trial));
  }
  EXPECT_EQ(compared, 60 * 6 * 8);
}

TEST(LossFastPath, GeneralizedLeavesAreRecordsTimesHierarchyRowsUnderTheirValue) {
  // Worked example of quality_test.cc: A = 1,1,2,3,3,4,4,4 in a 6-row
  // hierarchy; at level 1 every value is under a 2-row group: 8 * 2 = 16;
  // at level 2 under '*' (6 rows): 48; at level 0: 8.
  auto sp = std::make_unique<SmallProblem>();
  sp->data = deid::read_dataset_text("A\n1\n1\n2\n3\n3\n4\n4\n4\n", "table.csv", deid::CsvOptions{','});
  const auto table = deid::read_hierarchy_text("1;1-2;*\n2;1-2;*\n3;3-4;*\n4;3-4;*\n5;5-6;*\n6;5-6;*\n", "a.csv",
                                               deid::CsvOptions{';'});
  Problem& p = sp->problem;
  p.hierarchies.push_back(deid::Generalization::build(table, sp->data.columns[0], "table.csv"));
  p.histogram = deid::build_histogram(sp->data, {0});
  p.rows = 8;
  const deid::LossModel model(Aggregate::geometric_mean, 0.5);
  EXPECT_EQ(model.generalized_leaves(p, 0, 0), 8u);
  EXPECT_EQ(model.generalized_leaves(p, 0, 1), 16u);
  EXPECT_EQ(model.generalized_leaves(p, 0, 2), 48u);
}

// ARX's per-class information loss (Metric.getInformationLoss(
// transformation, entry)) of each model, computed here from its definition.
double reference_class_loss(const Problem& p, const Transformation& t, const Classes& classes, std::size_t c,
                            const QualitySpec& s) {
  const double count = static_cast<double>(classes.counts[c]);
  if (s.model == "discernability" || s.model == "aecs") return count;  // MetricSDNMDiscernability, MetricSDAECS
  std::vector<double> v(classes.width, count);  // MetricMDNUEntropyPrecomputed, MetricMDNMPrecision, MetricMDHeight
  if (s.model == "loss")                        // MetricMDNMLoss: count * share
    for (std::uint32_t q = 0; q < classes.width; ++q) {
      const deid::Generalization& h = p.hierarchies[q];
      v[q] = count * (static_cast<double>(h.leaves(t[q], classes.keys[c * classes.width + q])) /
                      static_cast<double>(h.hierarchy_rows()));
    }
  const Aggregate defaults = s.model == "loss"        ? Aggregate::geometric_mean
                             : s.model == "precision" ? Aggregate::arithmetic_mean
                                                      : Aggregate::sum;
  return reference_aggregate(s.aggregate.value_or(defaults), v);
}

TEST(ClassLoss, SuppressionOrderEqualsAReferenceSortForEveryQualityModel) {
  std::vector<QualitySpec> specs = loss_specs();
  for (const char* m : {"entropy", "precision", "height"})
    for (Aggregate a : {Aggregate::geometric_mean, Aggregate::arithmetic_mean, Aggregate::sum, Aggregate::max})
      specs.push_back(spec(m, a));
  specs.push_back(spec("discernability"));
  specs.push_back(spec("aecs"));

  std::mt19937 rng(61);
  int orders = 0, loss_ties_broken = 0;
  for (int trial = 0; trial < 40; ++trial) {
    for (const QualitySpec& s : specs) {
      auto sp = random_problem(rng, s);
      const Problem& p = sp->problem;
      const deid::Lattice lattice = p.lattice();
      const Transformation t =
          lattice.at(random_index(rng, lattice));
      deid::Checker checker(p);
      Classes classes;
      checker.group(t, classes);
      for (std::size_t c = 0; c < classes.size(); ++c)
        if (rng() % 8 == 0) classes.suppressed[c] = 1;  // already suppressed: not candidates

      std::vector<std::uint32_t> expected;
      std::vector<double> loss(classes.size());
      for (std::uint32_t c = 0; c < classes.size(); ++c) {
        loss[c] = reference_class_loss(p, t, classes, c, s);
        EXPECT_EQ(p.quality->class_loss(p, t, classes, c), loss[c]) << s.model << " class " << c;
        if (!classes.suppressed[c]) expected.push_back(c);
      }
      std::sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (classes.counts[a] != classes.counts[b]) return classes.counts[a] < classes.counts[b];
        if (loss[a] != loss[b]) return loss[a] < loss[b];
        return a < b;
      });
      const std::string where = fmt::format("{} aggregate {} trial {} t {}", s.model,
                                            s.aggregate ? deid::to_string(*s.aggregate) : "default", trial,
                                            deid::to_string(t));
      EXPECT_EQ(deid::risk::suppression_order(p, t, classes), expected) << where;
      for (std::size_t i = 1; i < expected.size(); ++i)
        if (classes.counts[expected[i - 1]] == classes.counts[expected[i]] &&
            loss[expected[i - 1]] != loss[expected[i]])
          ++loss_ties_broken;

      // Every prefix without the full order; the batch of one size equals class_loss().
      for (std::size_t prefix = 0; prefix <= expected.size(); ++prefix) {
        auto first = deid::risk::first_for_suppression(p, t, classes, prefix);
        std::sort(first.begin(), first.end());
        std::vector<std::uint32_t> want(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(prefix));
        std::sort(want.begin(), want.end());
        EXPECT_EQ(first, want) << where << " prefix " << prefix;
      }
      if (!expected.empty()) {
        std::vector<std::uint32_t> one_size;
        for (std::uint32_t c : expected)
          if (classes.counts[c] == classes.counts[expected[0]]) one_size.push_back(c);
        std::vector<double> batch(one_size.size());
        p.quality->class_losses(p, t, classes, one_size, batch);
        for (std::size_t i = 0; i < one_size.size(); ++i) EXPECT_EQ(batch[i], loss[one_size[i]]) << where;
      }
      ++orders;
    }
  }
  EXPECT_EQ(orders, 40 * static_cast<int>(specs.size()));
  EXPECT_GT(loss_ties_broken, 5);   // the random tables do exercise the tie-break by loss
}

}  // namespace
