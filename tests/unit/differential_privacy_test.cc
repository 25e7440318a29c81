// (epsilon, delta)-differential privacy: the pieces that must reproduce ARX
// 3.9.2 bit for bit (privacy/differential_privacy.h, search/safepub.h,
// quality/dp_score.h). The expected values were printed by Java 17 with
// ARX 3.9.2's jar: java.util.Random, dp.ParameterCalculation,
// dp.ExponentialMechanism (deterministic) and java.util.HashMap.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "deid/differential_privacy.h"
#include "privacy/differential_privacy.h"
#include "privacy/java_random.h"
#include "quality/dp_score.h"
#include "search/safepub.h"

namespace deid {
namespace {

TEST(JavaRandom, MatchesJavaUtilRandom) {
  JavaRandom r(42);
  EXPECT_EQ(r.next_int(), -1170105035);
  EXPECT_EQ(r.next_double(), 0.05466526274716077);
  EXPECT_EQ(r.next_double(), 0.047939305137387644);
  JavaRandom m(-7);
  EXPECT_EQ(m.next_int(), 1155869324);
  EXPECT_EQ(m.next_double(), 0.9014975826916275);
}

TEST(JavaRandom, ArxDeterministicSeedIsTheIntLiteral) {
  EXPECT_EQ(kArxDeterministicSeed, -559038737);
  // new Random(0xDEADBEEF).nextDouble(), five times.
  JavaRandom r(kArxDeterministicSeed);
  for (double expected : {0.23127968346166938, 0.8933406622164421, 0.2921249365632519, 0.008613164541980245, 0.857744091205314}) EXPECT_EQ(r.next_double(), expected);
}

// ARX's ParameterCalculation(epsilon, delta): k and beta.
struct ArxParameters {
  double epsilon, delta;
  std::uint64_t k;
  double beta;
};
// (Without epsilon 0.01 at small delta and epsilon 3 at delta below 1e-6,
// which take seconds each, in deid as in ARX.)
const ArxParameters kArxParameters[] = {
    {0.01, 0.1, 7, 0.00995016625083178},
    {0.01, 0.5, 2, 0.00995016625083178},
    {0.1, 0.001, 27, 0.09516258196404025},
    {0.1, 1.0e-4, 39, 0.09516258196404025},
    {0.1, 1.0e-5, 50, 0.09516258196404025},
    {0.1, 1.0e-6, 61, 0.09516258196404025},
    {0.1, 1.0e-7, 73, 0.09516258196404025},
    {0.1, 1.0e-9, 96, 0.09516258196404025},
    {0.1, 0.01, 17, 0.09516258196404025},
    {0.1, 0.1, 7, 0.09516258196404025},
    {0.1, 0.5, 2, 0.09516258196404025},
    {0.5, 0.001, 28, 0.3934693402873664},
    {0.5, 1.0e-4, 40, 0.3934693402873664},
    {0.5, 1.0e-5, 52, 0.3934693402873664},
    {0.5, 1.0e-6, 64, 0.3934693402873664},
    {0.5, 1.0e-7, 76, 0.3934693402873664},
    {0.5, 1.0e-9, 102, 0.3934693402873664},
    {0.5, 0.01, 18, 0.3934693402873664},
    {0.5, 0.1, 6, 0.3934693402873664},
    {0.5, 0.5, 2, 0.3934693402873664},
    {0.693, 0.001, 32, 0.49992640430423213},
    {0.693, 1.0e-4, 44, 0.49992640430423213},
    {0.693, 1.0e-5, 56, 0.49992640430423213},
    {0.693, 1.0e-6, 68, 0.49992640430423213},
    {0.693, 1.0e-7, 81, 0.49992640430423213},
    {0.693, 1.0e-9, 107, 0.49992640430423213},
    {0.693, 0.01, 20, 0.49992640430423213},
    {0.693, 0.1, 8, 0.49992640430423213},
    {0.693, 0.5, 2, 0.49992640430423213},
    {1.0, 0.001, 35, 0.6321205588285574},
    {1.0, 1.0e-4, 48, 0.6321205588285574},
    {1.0, 1.0e-5, 62, 0.6321205588285574},
    {1.0, 1.0e-6, 75, 0.6321205588285574},
    {1.0, 1.0e-7, 92, 0.6321205588285574},
    {1.0, 1.0e-9, 119, 0.6321205588285574},
    {1.0, 0.01, 22, 0.6321205588285574},
    {1.0, 0.1, 10, 0.6321205588285574},
    {1.0, 0.5, 3, 0.6321205588285574},
    {1.5, 0.001, 45, 0.77686983985157},
    {1.5, 1.0e-4, 63, 0.77686983985157},
    {1.5, 1.0e-5, 81, 0.77686983985157},
    {1.5, 1.0e-6, 100, 0.77686983985157},
    {1.5, 1.0e-7, 118, 0.77686983985157},
    {1.5, 1.0e-9, 155, 0.77686983985157},
    {1.5, 0.01, 27, 0.77686983985157},
    {1.5, 0.1, 11, 0.77686983985157},
    {1.5, 0.5, 4, 0.77686983985157},
    {1.9, 0.001, 58, 0.8504313807773648},
    {1.9, 1.0e-4, 74, 0.8504313807773648},
    {1.9, 1.0e-5, 103, 0.8504313807773648},
    {1.9, 1.0e-6, 119, 0.8504313807773648},
    {1.9, 1.0e-7, 148, 0.8504313807773648},
    {1.9, 1.0e-9, 194, 0.8504313807773648},
    {1.9, 0.01, 30, 0.8504313807773648},
    {1.9, 0.1, 16, 0.8504313807773648},
    {1.9, 0.5, 6, 0.8504313807773648},
    {2.0, 0.001, 65, 0.8646647167633871},
    {2.0, 1.0e-4, 82, 0.8646647167633871},
    {2.0, 1.0e-5, 114, 0.8646647167633871},
    {2.0, 1.0e-6, 132, 0.8646647167633871},
    {2.0, 1.0e-7, 165, 0.8646647167633871},
    {2.0, 1.0e-9, 201, 0.8646647167633871},
    {2.0, 0.01, 33, 0.8646647167633871},
    {2.0, 0.1, 17, 0.8646647167633871},
    {2.0, 0.5, 6, 0.8646647167633871},
    {3.0, 0.001, 137, 0.9502129316321359},
    {3.0, 1.0e-4, 182, 0.9502129316321359},
    {3.0, 1.0e-5, 227, 0.9502129316321359},
    {3.0, 1.0e-6, 272, 0.9502129316321359},
    {3.0, 0.01, 92, 0.9502129316321359},
    {3.0, 0.1, 47, 0.9502129316321359},
    {3.0, 0.5, 15, 0.9502129316321359},
};

TEST(DpParameters, KAndBetaMatchArx) {
  int beta_exact = 0;
  for (const ArxParameters& a : kArxParameters) {
    const DpParameters p = dp_parameters(a.epsilon, a.delta);
    EXPECT_EQ(p.k, a.k) << "epsilon " << a.epsilon << " delta " << a.delta;
    // beta = 1 - e^-epsilon as the lower bound of an interval: glibc's exp
    // and the JVM's Math.exp round differently in about 0.2 % of arguments,
    // which moves the bound by an ulp (docs/privacy-models.md).
    EXPECT_LE(std::fabs(p.beta - a.beta), std::nextafter(a.beta, 2.0) - a.beta)
        << "epsilon " << a.epsilon << " delta " << a.delta;
    beta_exact += p.beta == a.beta ? 1 : 0;
  }
  EXPECT_GE(beta_exact, static_cast<int>(std::size(kArxParameters)) * 3 / 4);
}

TEST(DpParameters, StopsAtTheWorkLimit) {
  // epsilon 6 takes 1.3e10 steps (k 5568), epsilon 0.001 about 4e10: both
  // stop at a small limit with the typed error, whose figure is the limit.
  for (const double epsilon : {6.0, 0.001}) {
    try {
      dp_parameters(epsilon, 1e-6, 10'000'000);
      ADD_FAILURE() << "epsilon " << epsilon << " computed within 1e7 steps";
    } catch (const DpComputationLimitError& e) {
      EXPECT_EQ(e.steps(), 10'000'000u);
      EXPECT_NE(std::string(e.what()).find("10000000 steps"), std::string::npos) << e.what();
    }
  }
  // Within the limit the result is the unlimited one (ARX's k = 132).
  EXPECT_EQ(dp_parameters(2.0, 1e-6, 10'000'000).k, 132u);
  EXPECT_EQ(dp_parameters(2.0, 1e-6, 10'000'000).beta, dp_parameters(2.0, 1e-6, 0).beta);
}

TEST(DpParameters, BudgetsAreLowerBounds) {
  // ARX: epsilon_anon = lower bound of [2.0] - [0.1] (one ulp below 1.9).
  EXPECT_EQ(dp_anonymization_epsilon(2.0, 0.1), std::nextafter(1.9, 0.0));
  EXPECT_EQ(dp_anonymization_epsilon(2.0, 0.0), 2.0);
  EXPECT_EQ(dp_epsilon_per_step(0.1, 100), std::nextafter(0.1 / 100, 0.0));
  EXPECT_EQ(dp_epsilon_per_step(0.1, 0), 0.0);
}

TEST(DpSample, OneDrawPerRowBelowBeta) {
  DpRandom a(std::int64_t{kArxDeterministicSeed}), b(std::int64_t{kArxDeterministicSeed});
  const std::vector<std::uint8_t> s = dp_sample(1000, 0.5, a);
  for (std::size_t r = 0; r < s.size(); ++r) EXPECT_EQ(s[r], b.next_double() < 0.5 ? 1 : 0);
}

// ExponentialMechanism<Object>(epsilon, true), setDistribution(values,
// scores) and sample() 40 times on one instance.
TEST(ExponentialMechanism, PicksWhatArxPicks) {
  const std::vector<double> scores = {-10.5, -3.25, -7.0, -3.25, 0.0, -120.0, -1.0};
  for (const auto& [epsilon, expected] :
       std::vector<std::pair<double, std::vector<std::size_t>>>{{0.05, {1, 6, 1, 0, 6, 6, 6, 3, 4, 2, 4, 1, 6, 6, 3, 4, 0, 2, 4, 1, 0, 3, 2, 3, 1, 0, 5, 4, 2, 0, 3, 1, 3, 3, 3, 6, 1, 0, 0, 0}},
                                                                {2.0, {4, 6, 4, 1, 6, 6, 6, 4, 4, 4, 4, 4, 6, 6, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 6, 4, 4, 4, 4, 4, 4, 4, 4, 6, 4, 4, 4, 3}}}) {
    DpRandom random(std::int64_t{kArxDeterministicSeed});
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_EQ(exponential_mechanism(scores, epsilon, random), expected[i]) << "draw " << i;
  }
}

// A java.util.HashMap<Long, ?> after these puts (and removes, negative),
// iterated by keySet().
TEST(JavaHashOrder, IteratesAsJavaUtilHashMap) {
  const std::vector<std::int64_t> ops = {19487, -19487, 9424, 17605, 6691, 17321, 5303, 6560, 18090, -17321, 8017, 11165, -6691, 13402, 14647, 8320, 13292, 9129, 9030, -9129, 3633, 17451, -8017, -11165, 3042, 7595, 11805, 2637, -17605, 4900, 15431, -3042, -14647, -9424, -13292, -5303, 7236, 2030, 11057, 360, 5399, 9073, 16863, 18091, 2506, -2030, 13111, 8101, 7585, 14469, -13111, -5399, -360, 8149, -14469, 15179, 3055, -9030, 16604, -3055, 17240, 3524, 6570, 15818, 8391, 1292, -15179, 2247, 9385, 16005, -16863, -9385, 15565, 14896, 3992, -3633, -11057, -3524, -2506, 2134, -1292, 3199, 11924, 2185, 1571, -11805, 19909, -7236, 14677, 977, 5270, 4128, 13077, 685, 14348, 11148, 6688, 2400, 16105, 2887, 3218, 9261, 8150, -6560, 13419, 1572, -14896, 7325, 16108, 14122, 3745, -14122, 6810, 17653, 4663, 2180, -8101, 11821, 937, 16047, 12051, 140, -7585, 5116, 15086, 3198, -977, 15402, 9625, 9473, 13121, 18726, 10943, 1062, -3198, 13746, 15281, 12270, -4128, 14369, 16864, 14989, 2828, 12761, 19967, -16047, -2637, -4900, -13419, 16635, 2564, -3218, 8105, 1132, 13592, 3440, 13572, 14841, 12456, 4610, 14418, -7325, 2362, 11812, 12048, 16688, 6388, -19909, -6388, -14348, 6431, 12268, 11167, -5270, 4485, 683, -2400, 2586, 19506, 8041, 9412, -18090, 15222, 6752, 2199, 11665, 1216, 7770, 13813, 9885, 14692, 8790, 5003, -6752, 2742, 8897, 17605, 14987, -4663, -683, 19957, 11200, 16960, 1630, -19967, 12605, 1771, -11167, -2134, 11656, -2180, 8466, 13240, 3193, 12285, 11973, 4093, 3804, 1922, 16092, 8962, 1194, 19326, 8965, 10084, 8084, 17108, 3774, -9473, -17240, 18731, 1368, -9412, -8391, 19851, 8503, 17666, 4330, 17856, 11728, 2447, 10195, 11830, 12969, 4959, 15146, 13338, 16925, 12603, 16779, 17855, 11157, -1132, 19104, 2198, 16046, -2185, 13993, 5748, 3097, -9073, 1397, -16604, 5142, 9049, 16646, 10817, 6232, 15877, -3992, -2362, 7299, 16884, -11830, 15475, 18609, 1531, -10817, 7406, 4840, 5042, 12607, 3797, 14148, 9586, 3232, -15431, 18739, 18647, -4610, 7030, -16925, -8150, 1828, 6138, 14583, 2760, 5209, 18144, 15391};
  const std::vector<std::int64_t> expected = {8962, 17666, 2564, 13572, 8965, 15877, 16646, 2828, 12048, 8466, 12051, 13077, 5142, 13592, 3097, 2586, 13338, 6431, 15391, 6688, 14369, 1571, 1572, 11812, 1828, 18726, 1062, 15402, 15146, 17451, 18731, 9261, 11821, 16688, 19506, 18739, 8503, 12603, 12605, 12607, 16960, 13121, 14148, 2887, 14418, 14677, 8790, 1368, 6232, 9049, 5209, 13402, 7770, 1630, 4959, 14692, 10084, 8041, 3440, 9586, 15475, 5748, 1397, 15222, 7030, 3193, 19326, 3199, 8320, 1922, 7299, 16005, 4485, 11656, 5003, 14987, 19851, 16779, 11148, 140, 14989, 2447, 11665, 11924, 8084, 11157, 2198, 2199, 9625, 6810, 9885, 19104, 3232, 3745, 12456, 937, 8105, 12969, 13993, 6570, 1194, 7595, 18091, 685, 16046, 15281, 18609, 13746, 5042, 2742, 13240, 3774, 10943, 17855, 1216, 11200, 17856, 8897, 17605, 11973, 2247, 2760, 15818, 15565, 11728, 10195, 17108, 8149, 3797, 18647, 12761, 3804, 16092, 16864, 18144, 4840, 16105, 4330, 1771, 16108, 12268, 15086, 12270, 7406, 16884, 17653, 13813, 19957, 14583, 14841, 6138, 16635, 1531, 5116, 12285, 4093};
  JavaHashOrder h;
  for (std::int64_t op : ops) {
    if (op < 0) h.remove(-op);
    else h.put(op);
  }
  EXPECT_EQ(h.order(), expected);
  EXPECT_TRUE(h.exact());
}

TEST(ExactFraction, ReducesComparesAndConvertsAsBigFraction) {
  const ExactFraction a(6, -4);
  EXPECT_EQ(a.num(), -3);
  EXPECT_EQ(a.den(), 2);
  EXPECT_EQ((ExactFraction(1, 3) + ExactFraction(1, 6)), ExactFraction(1, 2));
  EXPECT_EQ((ExactFraction(2, 3) * ExactFraction(3, 4)), ExactFraction(1, 2));
  EXPECT_EQ((ExactFraction(2, 3) / ExactFraction(4, 3)), ExactFraction(1, 2));
  EXPECT_LT(ExactFraction(1, 3).compare(ExactFraction(1, 2)), 0);
  EXPECT_EQ(ExactFraction(-7, 3).compare(ExactFraction(-14, 6)), 0);
  // doubleValue(): numerator and denominator rounded, then divided.
  const __int128 big = (static_cast<__int128>(1) << 70) + 1;
  EXPECT_EQ(ExactFraction(big, 3).to_double(), static_cast<double>(big) / 3.0);
}

}  // namespace
}  // namespace deid
