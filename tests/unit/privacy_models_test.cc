// The privacy models beyond ARX's core set: entropy
// l-diversity with Grassberger's estimator, average re-identification risk,
// sample uniqueness, delta-disclosure and beta-likeness. Hand examples with
// ARX's definitions, the monotonicity each declares (with a case that shows
// why where it is not monotonic), and the job file's checks.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/pipeline.h"
#include "deid/problem.h"
#include "privacy/frequency_bounds.h"
#include "privacy/k_map.h"
#include "privacy/l_diversity.h"
#include "privacy/risk_thresholds.h"
#include "verify_uniqueness.h"

namespace deid {
namespace {

// A class with one sensitive attribute: `counts[i]` records with code i
// (codes with a zero count are left out, as a class's distribution does).
struct Class {
  explicit Class(const std::vector<std::uint64_t>& c) {
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c[i] > 0) {
        codes.push_back(static_cast<std::uint32_t>(i));
        counts.push_back(c[i]);
        view.count += c[i];
      }
    dist.push_back({codes, counts});
    view.sensitive = dist;
  }
  std::vector<std::uint32_t> codes;
  std::vector<std::uint64_t> counts;
  std::vector<ClassView::Distribution> dist;
  ClassView view;
};

std::vector<std::uint64_t> merged(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::vector<std::uint64_t> m(std::max(a.size(), b.size()), 0);
  for (std::size_t i = 0; i < a.size(); ++i) m[i] += a[i];
  for (std::size_t i = 0; i < b.size(); ++i) m[i] += b[i];
  return m;
}

// --- Grassberger ----------------------------------------------------------

TEST(Grassberger, GIsDigammaPlusItsCorrection) {
  // G(n) = psi(n) + (-1)^n (psi((n+1)/2) - psi(n/2)) / 2: G(1) = -gamma -
  // ln 2, G(2) = 2 - gamma - ln 2 = G(3), and for large n G(n) ~ ln n.
  const double gamma = 0.57721566490153286;
  EXPECT_NEAR(EntropyLDiversity::grassberger(1), -gamma - std::log(2.0), 1e-15);
  EXPECT_NEAR(EntropyLDiversity::grassberger(2), 2 - gamma - std::log(2.0), 1e-15);
  EXPECT_EQ(EntropyLDiversity::grassberger(3), EntropyLDiversity::grassberger(2));
  EXPECT_EQ(EntropyLDiversity::grassberger(101), EntropyLDiversity::grassberger(100));
  // Across the switch from ARX's table to the series, G keeps rising by
  // about 2/n per even step.
  const double g100 = EntropyLDiversity::grassberger(100), g102 = EntropyLDiversity::grassberger(102);
  EXPECT_NEAR(g102 - g100, std::log(102.0 / 100.0), 1e-6);
  EXPECT_NEAR(EntropyLDiversity::grassberger(1000000), std::log(1000000.0), 1e-12);
}

// ARX adds the terms n G(n) in its hash table's order and stops once the sum
// passes the bound; G(1) < 0, so a class can fail there although its full
// sum is within the bound. deid judges the full sum.
TEST(Grassberger, ClassWithinTheBoundHoldsWhateverTheOrderOfItsValues) {
  const EntropyLDiversity three("disease", 0, 3, true, LDiversitySpec::Estimator::grassberger);
  // Counts {8, 1, 1, 1, 1}: C = 12 (G(12) - ln 3) = 16.649; 8 G(8) = 16.656
  // alone passes C, with the four G(1) terms the sum is 11.575.
  const Class c({8, 1, 1, 1, 1});
  const double bound = 12 * (EntropyLDiversity::grassberger(12) - std::log(3.0));
  ASSERT_GT(8 * EntropyLDiversity::grassberger(8), bound);
  EXPECT_TRUE(three.holds(c.view));
  EXPECT_GE(three.entropy(c.view), std::log(3.0));
  // A dominant value makes it fail: {20, 1, 1, 1, 1} has H = 0.893 < ln 3.
  EXPECT_FALSE(three.holds(Class({20, 1, 1, 1, 1}).view));
  EXPECT_LT(three.entropy(Class({20, 1, 1, 1, 1}).view), std::log(3.0));
}

TEST(Grassberger, NotMonotonicEvenWithoutSuppression) {
  const EntropyLDiversity g("disease", 0, 2, false, LDiversitySpec::Estimator::grassberger);
  const std::vector<std::uint64_t> a = {3, 1}, b = {3, 3};
  EXPECT_TRUE(g.holds(Class(a).view));
  EXPECT_TRUE(g.holds(Class(b).view));
  EXPECT_FALSE(g.holds(Class(merged(a, b)).view));  // {6, 4}
  EXPECT_FALSE(g.monotonic());
  // The Shannon variant is monotonic without suppression.
  EXPECT_TRUE(EntropyLDiversity("disease", 0, 2, false).monotonic());
  EXPECT_EQ(g.describe(), "grassberger-entropy-2-diversity for 'disease'");
  EXPECT_EQ(g.to_json()["estimator"], "grassberger");
}

// --- average risk and sample uniqueness --------------------------------------

ClassSizeFrequencies sizes(std::vector<std::uint64_t> s) { return ClassSizeFrequencies::from_class_sizes(s); }

TEST(AverageRisk, SizeThresholdIsArxs) {
  EXPECT_EQ(AverageRisk::size_threshold(0.2), 5u);
  EXPECT_EQ(AverageRisk::size_threshold(0.26), 4u);    // 1/3 is 28 % above 0.26
  EXPECT_EQ(AverageRisk::size_threshold(0.3333), 3u);  // 1/3 is within 1 % of 0.3333
  EXPECT_EQ(AverageRisk::size_threshold(0.334), 3u);
  EXPECT_EQ(AverageRisk::size_threshold(1.0), 1u);
  EXPECT_EQ(AverageRisk::size_threshold(0.1), 10u);
}

TEST(AverageRisk, JudgesClassesPerRecordAndTheRecordsAtRisk) {
  // {1, 1, 9}: 3 classes for 11 records, an average risk of 0.273.
  EXPECT_TRUE(AverageRisk(AverageRiskSpec{0.3, std::nullopt, 0}, true).fulfilled(sizes({1, 1, 9})));
  EXPECT_FALSE(AverageRisk(AverageRiskSpec{0.25, std::nullopt, 0}, true).fulfilled(sizes({1, 1, 9})));
  // Highest risk 1/3: classes below 3 records are at risk, 2 of 11 records.
  EXPECT_FALSE(AverageRisk(AverageRiskSpec{0.5, 1.0 / 3, 0.1}, true).fulfilled(sizes({1, 1, 9})));
  EXPECT_TRUE(AverageRisk(AverageRiskSpec{0.5, 1.0 / 3, 0.2}, true).fulfilled(sizes({1, 1, 9})));
  EXPECT_TRUE(AverageRisk(AverageRiskSpec{0.5, 1.0 / 3, 0}, true).fulfilled(sizes({3, 9})));
  // Everything suppressed holds.
  EXPECT_TRUE(AverageRisk(AverageRiskSpec{0.01, 0.01, 0}, true).fulfilled(ClassSizeFrequencies{}));
}

TEST(SampleUniqueness, JudgesTheShareOfUniqueRecords) {
  EXPECT_TRUE(SampleUniqueness(2.0 / 11).fulfilled(sizes({1, 1, 9})));
  EXPECT_FALSE(SampleUniqueness(0.18).fulfilled(sizes({1, 1, 9})));
  EXPECT_TRUE(SampleUniqueness(0).fulfilled(sizes({2, 9})));
  EXPECT_TRUE(SampleUniqueness(0).monotonic());
}

// Average risk with a records-at-risk limit is not monotonic with
// suppression: at zip level 0 the classes are {a}, {b}, {c x 9}; suppressing
// one unique (1 record, the limit) leaves 1 of 10 records at risk. At level
// 1, {a, b} is one class of 2 < 3 records: 2 of 11 records at risk, and
// suppressing it takes 2 records, over the limit. So the generalization of a
// solution is no solution.
TEST(AverageRisk, RecordsAtRiskAreNotMonotonicWithSuppression) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("avg_risk_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "data.csv") << "zip\na\nb\nc\nc\nc\nc\nc\nc\nc\nc\nc\n";
  std::ofstream(dir / "zip.csv") << "a;AB;*\nb;AB;*\nc;C;*\n";
  const std::string job_text =
      "input: {path: data.csv}\n"
      "attributes:\n  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
      "privacy:\n  - average-risk: {threshold: 0.5, highest-risk: 0.3333333333333333, records-at-risk: 0.1}\n"
      "suppression-limit: 0.1\n";
  auto prepared = prepare(parse_job(job_text, "job.yaml", dir.string()));
  const Problem& problem = prepared->problem;
  ASSERT_EQ(problem.max_suppressed, 1u);
  EXPECT_FALSE(problem.privacy.at(0)->monotonic());
  Checker checker(problem);
  Classes classes;
  const CheckResult x = checker.check(Transformation{0}, &classes);
  EXPECT_TRUE(x.solution);
  EXPECT_EQ(x.suppressed_records, 1u);
  const CheckResult y = checker.check(Transformation{1}, &classes);
  EXPECT_FALSE(y.solution);
  // Without the records-at-risk limit the model is monotonic, and both hold.
  auto plain = prepare(parse_job(
      "input: {path: data.csv}\nattributes:\n  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
      "privacy:\n  - average-risk: {threshold: 0.3}\nsuppression-limit: 0.1\n",
      "job.yaml", dir.string()));
  EXPECT_TRUE(plain->problem.privacy.at(0)->monotonic());
  Checker plain_checker(plain->problem);
  EXPECT_TRUE(plain_checker.check(Transformation{0}, &classes).solution);
  EXPECT_TRUE(plain_checker.check(Transformation{1}, &classes).solution);
  fs::remove_all(dir);
}

// Monotonic models on random tables: when a transformation's output holds
// (within the limit), so does a coarser one's. A zip hierarchy of three
// levels over random data, every pair of transformations x <= y compared.
TEST(RiskThresholds, MonotonicVariantsHoldOnRandomTables) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("risk_mono_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "zip.csv") << "1;1x;*\n2;1x;*\n3;3x;*\n4;3x;*\n5;3x;*\n6;6x;*\n";
  std::ofstream(dir / "sex.csv") << "m;*\nf;*\n";
  std::mt19937_64 rng(19);
  int compared = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::ofstream data(dir / "data.csv");
    data << "zip;sex\n";
    const int rows = 8 + static_cast<int>(rng() % 30);
    for (int r = 0; r < rows; ++r) data << 1 + rng() % 6 << ';' << (rng() % 3 ? "m" : "f") << '\n';
    data.close();
    const double threshold = 0.1 + 0.05 * static_cast<double>(rng() % 10);
    const std::string model = trial % 2 ? "average-risk: {threshold: " + std::to_string(threshold) + "}"
                                        : "sample-uniqueness: {threshold: " + std::to_string(threshold / 4) + "}";
    const std::string limit = std::to_string(0.05 * static_cast<double>(rng() % 6));
    auto prepared = prepare(parse_job("input: {path: data.csv, delimiter: ';'}\nattributes:\n"
                                      "  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
                                      "  sex: {role: quasi-identifying, hierarchy: sex.csv}\n"
                                      "privacy:\n  - " + model + "\nsuppression-limit: " + limit + "\n",
                                      "job.yaml", dir.string()));
    ASSERT_TRUE(prepared->problem.privacy.at(0)->monotonic());
    Checker checker(prepared->problem);
    Classes classes;
    for (std::uint8_t z = 0; z < 3; ++z)
      for (std::uint8_t s = 0; s < 2; ++s) {
        if (!checker.check(Transformation{z, s}, &classes).solution) continue;
        for (std::uint8_t z2 = z; z2 < 3; ++z2)
          for (std::uint8_t s2 = s; s2 < 2; ++s2) {
            EXPECT_TRUE(checker.check(Transformation{z2, s2}, &classes).solution)
                << "trial " << trial << ": (" << +z << "," << +s << ") holds, (" << +z2 << "," << +s2 << ") not";
            ++compared;
          }
      }
  }
  EXPECT_GT(compared, 100);
  fs::remove_all(dir);
}

// The same with a research subset (a third of the records or so, the
// others only in the population), for every model that declares itself
// monotonic with one: average risk and sample uniqueness with any limit
// (their class sizes are the subset's records, classes without any are
// left out), t-closeness and β-likeness without suppression (their Q is
// the subset's distribution; a class without subset records is never
// judged and adds nothing to the classes it merges with).
TEST(RiskThresholds, MonotonicModelsHoldOnRandomTablesWithASubset) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("subset_mono_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "zip.csv") << "1;1x;*\n2;1x;*\n3;3x;*\n4;3x;*\n5;3x;*\n6;6x;*\n";
  std::ofstream(dir / "sex.csv") << "m;*\nf;*\n";
  std::mt19937_64 rng(23);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::ofstream data(dir / "data.csv");
    data << "zip;sex;in;disease\n";
    const int rows = 12 + static_cast<int>(rng() % 40);
    for (int r = 0; r < rows; ++r)
      data << 1 + rng() % 6 << ';' << (rng() % 3 ? "m" : "f") << ';' << (r == 0 || rng() % 3 == 0 ? "y" : "n") << ';'
           << "abc"[rng() % 3] << '\n';
    data.close();
    const double threshold = 0.1 + 0.05 * static_cast<double>(rng() % 10);
    std::string model, limit = std::to_string(0.05 * static_cast<double>(rng() % 6));
    switch (trial % 4) {
      case 0: model = "average-risk: {threshold: " + std::to_string(threshold) + "}"; break;
      case 1: model = "sample-uniqueness: {threshold: " + std::to_string(threshold / 4) + "}"; break;
      case 2:
        model = "t-closeness: {attribute: disease, distance: equal, t: " + std::to_string(threshold) + "}";
        limit = "0";
        break;
      default:
        model = "beta-likeness: {attribute: disease, variant: basic, beta: " + std::to_string(4 * threshold) + "}";
        limit = "0";
    }
    auto prepared = prepare(parse_job("input: {path: data.csv, delimiter: ';'}\nattributes:\n"
                                      "  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
                                      "  sex: {role: quasi-identifying, hierarchy: sex.csv}\n"
                                      "  in: {role: identifying}\n  disease: {role: sensitive}\n"
                                      "privacy:\n  - " + model + "\nsuppression-limit: " + limit +
                                          "\nsubset: {column: in, value: y}\n",
                                      "job.yaml", dir.string()));
    ASSERT_TRUE(prepared->problem.has_subset());
    ASSERT_TRUE(prepared->problem.privacy.at(0)->monotonic()) << model;
    Checker checker(prepared->problem);
    Classes classes;
    for (std::uint8_t z = 0; z < 3; ++z)
      for (std::uint8_t s = 0; s < 2; ++s) {
        if (!checker.check(Transformation{z, s}, &classes).solution) continue;
        for (std::uint8_t z2 = z; z2 < 3; ++z2)
          for (std::uint8_t s2 = s; s2 < 2; ++s2) {
            EXPECT_TRUE(checker.check(Transformation{z2, s2}, &classes).solution)
                << "trial " << trial << " (" << model << ", limit " << limit << "): (" << +z << "," << +s
                << ") holds, (" << +z2 << "," << +s2 << ") not";
            ++compared;
          }
      }
  }
  EXPECT_GT(compared, 150);
  fs::remove_all(dir);
}

// --- delta-disclosure and beta-likeness ---------------------------------------

TEST(DeltaDisclosure, BoundsTheRatioOfSharesBothWays) {
  // Table: 5 s (code 0), 5 r (code 1).
  const DeltaDisclosure d("disease", 0, {5, 5}, 1.5);
  EXPECT_TRUE(d.holds(Class({1, 1}).view));  // ratio 1
  EXPECT_TRUE(d.holds(Class({0, 4}).view));  // r at 1 = 2^1 p; s absent, not judged
  EXPECT_FALSE(d.holds(Class({1, 5}).view));  // s at 1/6 = p / 3: |log2| = 1.58
  // The bound is strict, as in ARX: a ratio of exactly 2^delta fails.
  EXPECT_FALSE(DeltaDisclosure("disease", 0, {5, 5}, 1).holds(Class({0, 4}).view));
}

TEST(DeltaDisclosure, NotMonotonicEvenWithoutSuppression) {
  const DeltaDisclosure d("disease", 0, {5, 5}, 1.5);
  const std::vector<std::uint64_t> a = {1, 1}, b = {0, 4};
  EXPECT_TRUE(d.holds(Class(a).view));
  EXPECT_TRUE(d.holds(Class(b).view));
  EXPECT_FALSE(d.holds(Class(merged(a, b)).view));
  EXPECT_FALSE(d.monotonic());
}

TEST(BetaLikeness, BasicBoundsTheRelativeGainEnhancedAlsoByMinusLnP) {
  // Table shares: 1/2, 1/4, 1/4.
  const std::vector<std::uint64_t> table = {2, 1, 1};
  // A class of code 1 only: q = 1, gain (1 - 1/4) / (1/4) = 3.
  const Class only_one({0, 1, 0});
  EXPECT_FALSE(BetaLikeness("d", 0, table, 2, BetaLikenessSpec::Variant::basic, true).holds(only_one.view));
  EXPECT_TRUE(BetaLikeness("d", 0, table, 3, BetaLikenessSpec::Variant::basic, true).holds(only_one.view));
  // Enhanced: bound min(3, -ln 1/4 = 1.386).
  EXPECT_FALSE(BetaLikeness("d", 0, table, 3, BetaLikenessSpec::Variant::enhanced, true).holds(only_one.view));
  // Code 0 alone: gain 1, -ln 1/2 = 0.693 < 1.
  EXPECT_TRUE(BetaLikeness("d", 0, table, 1, BetaLikenessSpec::Variant::basic, true).holds(Class({3}).view));
  EXPECT_FALSE(BetaLikeness("d", 0, table, 1, BetaLikenessSpec::Variant::enhanced, true).holds(Class({3}).view));
  // A class below the table's share everywhere holds at any beta.
  EXPECT_TRUE(BetaLikeness("d", 0, table, 0.01, BetaLikenessSpec::Variant::enhanced, true).holds(Class({2, 1, 1}).view));
}

// Without suppression beta-likeness is monotonic: a merged class's share of
// a value is a weighted mean of its parts'. Random pairs of classes that
// hold give a merged class that holds.
TEST(BetaLikeness, MergingClassesThatHoldGivesAClassThatHolds) {
  std::mt19937_64 rng(5);
  const std::vector<std::uint64_t> table = {40, 25, 20, 10, 5};
  int merged_pairs = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const bool enhanced = trial % 2;
    const BetaLikeness m("d", 0, table, 0.5 + static_cast<double>(rng() % 20) / 10,
                         enhanced ? BetaLikenessSpec::Variant::enhanced : BetaLikenessSpec::Variant::basic, false);
    ASSERT_TRUE(m.monotonic());
    std::vector<std::uint64_t> a(5), b(5);
    for (auto& x : a) x = rng() % 4;
    for (auto& x : b) x = rng() % 4;
    if (Class(a).view.count == 0 || Class(b).view.count == 0) continue;
    if (!m.holds(Class(a).view) || !m.holds(Class(b).view)) continue;
    EXPECT_TRUE(m.holds(Class(merged(a, b)).view)) << "trial " << trial;
    ++merged_pairs;
  }
  EXPECT_GT(merged_pairs, 100);
  EXPECT_FALSE(BetaLikeness("d", 0, table, 1, BetaLikenessSpec::Variant::basic, true).monotonic());
}

// --- k-map -------------------------------------------------------------------

TEST(KMap, DerivesArxsKFromThePoissonQuantile) {
  // adult (30,162 records) from a population of 100,000: lambda = 10 n / N
  // = 3.0162. P(X <= 6) = 0.9657 is the first to reach 0.95, and ARX's loop
  // ends two past it: k' = 8. At 0.99, P(X <= 8) = 0.9967: k' = 10 = k.
  KMapSpec spec{10, 100000, 0.05, KMapSpec::Estimator::poisson};
  EXPECT_EQ(KMap(spec, 30162).derived_k(), 8u);
  EXPECT_NEAR(KMap(spec, 30162).type1_error(), 1 - 0.96566820575392864, 1e-12);
  spec.significance = 0.01;
  EXPECT_EQ(KMap(spec, 30162).derived_k(), 10u);
  // k' never exceeds the records.
  EXPECT_EQ(KMap(KMapSpec{10, 4, 0.01, KMapSpec::Estimator::poisson}, 3).derived_k(), 3u);
  // A significance of 1 asks for nothing: k' = 1.
  EXPECT_EQ(KMap(KMapSpec{10, 100000, 1, KMapSpec::Estimator::poisson}, 30162).derived_k(), 1u);
  EXPECT_EQ(KMap(KMapSpec{10, 100000, 1, KMapSpec::Estimator::zero_truncated_poisson}, 30162).derived_k(), 1u);
  const KMap m(KMapSpec{10, 100000, 0.05, KMapSpec::Estimator::poisson}, 30162);
  EXPECT_TRUE(m.monotonic());
  EXPECT_EQ(m.minimal_class_size(), 8u);
  Class seven({7}), eight({8});
  EXPECT_FALSE(m.holds(seven.view));
  EXPECT_TRUE(m.holds(eight.view));
  EXPECT_EQ(m.describe(), "(10)-map estimated as (8)-anonymity (Poisson)");
}

// The verifier derives k' with its own Poisson terms; the two agree on
// random parameters of both estimators.
TEST(KMap, VerifierDerivesTheSameK) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint64_t records = 1 + rng() % 100000;
    const double population = static_cast<double>(records) * (1 + static_cast<double>(rng() % 10000) / 100);
    const std::uint64_t k = 1 + rng() % 200;
    // From 0 (certainty, where double rounding decides) to 1 (k' = 1).
    const double significance = trial % 50 == 0 ? 0.0 : trial % 50 == 1 ? 1.0 : static_cast<double>(rng() % 1000) / 2000;
    const bool zero = trial % 2;
    const KMap engine(KMapSpec{k, std::floor(population), significance,
                               zero ? KMapSpec::Estimator::zero_truncated_poisson : KMapSpec::Estimator::poisson},
                      records);
    const verify::KMap req{k, std::floor(population), significance, zero};
    const std::uint64_t checked = verify::k_map_derived_k(req, records);
    // At significance 0 the verifier may stop a little earlier (its margin
    // favours the release); elsewhere the two agree.
    if (significance == 0) {
      EXPECT_LE(checked, engine.derived_k()) << "trial " << trial;
      continue;
    }
    EXPECT_EQ(engine.derived_k(), checked)
        << "trial " << trial << ": n " << records << " N " << population << " k " << k << " alpha " << significance;
  }
}

// --- the job file -----------------------------------------------------------------

std::string job_error(const std::string& privacy) {
  const std::string text =
      "input: {path: data.csv}\nattributes:\n  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
      "  disease: {role: sensitive}\nprivacy:\n" + privacy;
  try {
    parse_job(text, "job.yaml", ".");
  } catch (const JobError& e) {
    return e.what();
  }
  return "";
}

TEST(PrivacyModelsJob, ParsesTheNewModels) {
  const Job job = parse_job(
      "input: {path: data.csv}\nattributes:\n  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
      "  disease: {role: sensitive}\nprivacy:\n"
      "  - l-diversity: {attribute: disease, variant: entropy, l: 2.5, estimator: grassberger}\n"
      "  - average-risk: {threshold: 0.05, highest-risk: 0.2, records-at-risk: 0.01}\n"
      "  - sample-uniqueness: {threshold: 0.01}\n"
      "  - delta-disclosure: {attribute: disease, delta: 1.2}\n"
      "  - beta-likeness: {attribute: disease, beta: 2}\n",
      "job.yaml", ".");
  ASSERT_EQ(job.privacy.size(), 5u);
  EXPECT_EQ(std::get<LDiversitySpec>(job.privacy[0]).estimator, LDiversitySpec::Estimator::grassberger);
  const auto& ar = std::get<AverageRiskSpec>(job.privacy[1]);
  EXPECT_EQ(ar.threshold, 0.05);
  EXPECT_EQ(ar.highest_risk, 0.2);
  EXPECT_EQ(ar.records_at_risk, 0.01);
  EXPECT_EQ(std::get<SampleUniquenessSpec>(job.privacy[2]).threshold, 0.01);
  EXPECT_EQ(std::get<DeltaDisclosureSpec>(job.privacy[3]).delta, 1.2);
  EXPECT_EQ(std::get<BetaLikenessSpec>(job.privacy[4]).variant, BetaLikenessSpec::Variant::enhanced);
  EXPECT_EQ(std::get<BetaLikenessSpec>(job.privacy[4]).beta, 2.0);
  EXPECT_NE(job_error("  - beta-likeness: {attribute: disease, beta: 2}\n"
                      "  - beta-likeness: {attribute: disease, variant: basic, beta: 0.5}\n")
                .find("privacy model beta-likeness on 'disease' is listed twice"),
            std::string::npos);
}

TEST(PrivacyModelsJob, RejectsImpossibleParametersNamingTheLine) {
  EXPECT_NE(job_error("  - l-diversity: {attribute: disease, l: 2, estimator: grassberger}\n")
                .find("'estimator' applies only to variant: entropy"),
            std::string::npos);
  EXPECT_NE(job_error("  - l-diversity: {attribute: disease, variant: entropy, l: 2, estimator: miller}\n")
                .find("estimator"),
            std::string::npos);
  EXPECT_NE(job_error("  - average-risk: {threshold: 0.1, records-at-risk: 0.1}\n").find("needs 'highest-risk'"),
            std::string::npos);
  EXPECT_NE(job_error("  - average-risk: {threshold: 1.5}\n").find("threshold must be in [0, 1]"), std::string::npos);
  EXPECT_NE(job_error("  - average-risk: {threshold: 0.1, highest-risk: 0}\n").find("highest-risk must be > 0"),
            std::string::npos);
  EXPECT_NE(job_error("  - average-risk: {}\n").find("needs 'threshold'"), std::string::npos);
  EXPECT_NE(job_error("  - sample-uniqueness: {threshold: -0.1}\n").find("in [0, 1]"), std::string::npos);
  EXPECT_NE(job_error("  - delta-disclosure: {attribute: disease, delta: 0}\n").find("delta must be > 0"),
            std::string::npos);
  EXPECT_NE(job_error("  - delta-disclosure: {attribute: zip, delta: 1}\n").find("must have role: sensitive"),
            std::string::npos);
  EXPECT_NE(job_error("  - beta-likeness: {attribute: disease, beta: -1}\n").find("beta must be > 0"),
            std::string::npos);
  EXPECT_NE(job_error("  - beta-likeness: {attribute: disease, variant: strong, beta: 1}\n").find("variant"),
            std::string::npos);
  const std::string unknown = job_error("  - presence: {delta-min: 0}\n");
  EXPECT_NE(unknown.find("unknown privacy model 'presence'"), std::string::npos);
  EXPECT_NE(unknown.find("beta-likeness, k-map"), std::string::npos);
  EXPECT_NE(job_error("  - sample-uniqueness: {threshold: 0.1}\n  - sample-uniqueness: {threshold: 2}\n").find("job.yaml:7:"),
            std::string::npos);
}

}  // namespace
}  // namespace deid
