// The privacy models a job asks for (deid/job.h, docs/job-file.md
// "privacy", docs/privacy-models.md): one struct of parameters per model,
// and PrivacySpec, the variant of them all. Plain data; the job parser fills
// it and privacy/factory.cc makes the models of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace deid {

struct KAnonymitySpec {
  std::uint64_t k = 2;
};

struct LDiversitySpec {
  enum class Variant { distinct, entropy, recursive };
  // The entropy variant's estimator of the entropy of a class's sensitive
  // values (ARX's EntropyEstimator): the plug-in (Shannon) estimate or
  // Grassberger's bias-corrected one (docs/privacy-models.md).
  enum class Estimator { shannon, grassberger };
  std::string attribute;
  Variant variant = Variant::distinct;
  double l = 2;
  double c = 1;  // recursive (c,l) only
  Estimator estimator = Estimator::shannon;  // entropy only
};

struct TClosenessSpec {
  enum class Distance { equal, hierarchical, ordered };
  std::string attribute;
  Distance distance = Distance::equal;
  double t = 0.2;
};

struct PopulationUniquenessSpec {
  enum class Estimator { dankar, pitman, zayatz, snb };
  double threshold = 0.01;
  double population_size = 0;
  Estimator estimator = Estimator::dankar;
};

// Average re-identification risk (ARX's AverageReidentificationRisk): the
// records not suppressed have, on average, a risk of at most `threshold`
// (classes / records); optionally at most `records_at_risk` of them are in
// classes whose risk exceeds `highest_risk` (docs/privacy-models.md).
struct AverageRiskSpec {
  double threshold = 0.05;
  std::optional<double> highest_risk;  // in (0, 1]
  double records_at_risk = 0;          // in [0, 1]; used with highest_risk
};

// Sample uniqueness (ARX's SampleUniqueness): at most `threshold` of the
// records not suppressed are alone in their class.
struct SampleUniquenessSpec {
  double threshold = 0.01;
};

// delta-disclosure privacy (Brickell and Shmatikov, KDD 2008; ARX's
// DDisclosurePrivacy): in every class, each sensitive value's frequency is
// within a factor 2^delta of its frequency in the whole table.
struct DeltaDisclosureSpec {
  std::string attribute;
  double delta = 1;
};

// beta-likeness (Cao and Karras, PVLDB 5(11), 2012; ARX's BasicBLikeness and
// EnhancedBLikeness): no sensitive value is more than (1 + beta) times as
// frequent in a class as in the table (enhanced: min(beta, -ln p) for a
// value of table frequency p).
struct BetaLikenessSpec {
  enum class Variant { basic, enhanced };
  std::string attribute;
  Variant variant = Variant::enhanced;
  double beta = 1;
};

// k-map with ARX's estimators (El Emam and Dankar, "Protecting privacy
// using k-anonymity", JAMIA 15(5), 2008; ARX's KMap with a
// CellSizeEstimator): every class of the sample stands, with probability at
// least 1 - significance, for at least k individuals of the population,
// the population class size modelled as Poisson (or zero-truncated
// Poisson) with mean k * records / population-size. ARX turns this into
// k'-anonymity with a derived k' <= k (docs/privacy-models.md).
//
// Without `population-size` (ARX's KMap(k, subset)): the data are the
// population and the job's research subset is the sample; a class of the
// sample holds when its population class has at least k records.
struct KMapSpec {
  enum class Estimator { poisson, zero_truncated_poisson };
  std::uint64_t k = 5;
  double population_size = 0;  // 0: the population table (needs `subset`)
  double significance = 0.01;
  Estimator estimator = Estimator::poisson;
};

// The game-theoretic model's costs and benefits (Wan et al., "A game
// theoretic framework for analyzing re-identification risk", PLoS ONE
// 2015; ARX's ARXCostBenefitConfiguration, with its defaults): the job's
// `cost-benefit`, shared by the profitability privacy model and the
// publisher-payout quality model.
struct CostBenefitSpec {
  double publisher_benefit = 1200;  // the publisher's benefit per record released whole
  double publisher_loss = 300;      // the publisher's loss per record re-identified
  double adversary_gain = 300;      // the adversary's gain per record re-identified
  double adversary_cost = 4;        // the adversary's cost per record attacked
};

// Profitability (ARX's ProfitabilityProsecutor, or
// ProfitabilityProsecutorNoAttack with attack false): a prosecutor attacks
// a record of a class of c when gain / c > cost. With `attack`, a class is
// kept when the publisher's payout benefit * (1 - IL) - (attacked ? loss / c
// : 0) is positive (IL the class's entropy-based information loss); without,
// when no record of it is attacked (k-anonymity with k derived from gain /
// cost).
//
// With `journalist` (ProfitabilityJournalist, ProfitabilityJournalistNoAttack;
// needs the job's research subset): the journalist does not know whether the
// target is in the sample, p = 1 / the population class's size.
struct ProfitabilitySpec {
  bool attack = true;
  bool journalist = false;
  CostBenefitSpec cost_benefit;  // the job's `cost-benefit`
};

// δ-presence (Nergiz, Atzori and Clifton, "Hiding the presence of
// individuals from shared databases", SIGMOD 2007; ARX's DPresence): the
// data are the population (public) table and the job's research subset the
// private one; each class must have a share of its population records in
// the subset within [min, max].
struct DeltaPresenceSpec {
  double min = 0;
  double max = 1;
};

// (epsilon, delta)-differential privacy as ARX implements it (SafePub: Bild,
// Kuhn, Prasser, PoPETs 2018; ARX's EDDifferentialPrivacy): a random sample
// of the records (each with probability beta), generalized, every class
// with fewer than k sampled records suppressed and every record outside the
// sample too; k and beta follow from epsilon and delta. Data-dependent (no
// `generalization`): the SafePub search picks the transformation with the
// exponential mechanism, spending `search_budget` of epsilon over `steps`
// steps. Data-independent: the job's `generalization` is the transformation.
// docs/privacy-models.md.
struct DifferentialPrivacySpec {
  double epsilon = 2;
  double delta = 1e-6;
  double search_budget = 0.1;  // data-dependent only
  std::uint64_t steps = 100;   // data-dependent only
  // The seed of java.util.Random for the sample and the search (ARX's
  // deterministic mode is the seed 0xDEADBEEF, `seed: arx`); unset: a
  // cryptographic random number generator, as ARX's SecureRandom.
  std::optional<std::int64_t> seed;
  // Data-independent: each quasi-identifier with its level, as given.
  std::vector<std::pair<std::string, int>> generalization;
  std::uint64_t line = 0;    // of the model in the job file (0: not from a file)
  std::uint64_t column = 0;
  bool data_dependent() const { return generalization.empty(); }
};

// ARX's deterministic seed (`seed: arx`): the Java int literal 0xDEADBEEF,
// negative, as the long Random's constructor receives it (-559038737).
inline constexpr std::int64_t kArxDeterministicSeed = static_cast<std::int32_t>(0xDEADBEEFu);

using PrivacySpec = std::variant<KAnonymitySpec, LDiversitySpec, TClosenessSpec, PopulationUniquenessSpec,
                                 AverageRiskSpec, SampleUniquenessSpec, DeltaDisclosureSpec, BetaLikenessSpec,
                                 KMapSpec, ProfitabilitySpec, DeltaPresenceSpec, DifferentialPrivacySpec>;

}  // namespace deid
