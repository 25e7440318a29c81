// A de-identification job: what the user asks for, as read from a YAML job
// file (docs/job-file.md documents every key). Paths are resolved relative to
// the job file. Parsing validates shape and types and rejects unknown keys
// with their name and line; whether the job fits the data (columns exist,
// hierarchies cover the values) is checked when the job is run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "deid/hierarchy_spec.h"

namespace deid {

struct HierarchyTable;  // deid/hierarchy.h

enum class Role { identifying, quasi_identifying, sensitive, insensitive };
const char* to_string(Role role);

// Microaggregation of a quasi-identifier (ARX's MicroAggregationFunction,
// docs/job-file.md): the value of every record of an equivalence class is
// replaced by the class's aggregate of the attribute.
enum class AggregationFunction { mean, median, mode, geometric_mean, interval };
const char* to_string(AggregationFunction f);
struct MicroaggregationSpec {
  AggregationFunction function = AggregationFunction::mean;
  // true: the attribute is also generalized with its hierarchy (it joins the
  // lattice and forms the classes; ARX's "clustering"); false: it forms no
  // classes and needs no hierarchy.
  bool generalize_before = false;
  std::uint64_t line = 0;  // of the `transformation` key
};

struct AttributeSpec {
  std::string name;
  Role role = Role::insensitive;
  std::string hierarchy;           // path, for quasi-identifying (and optional for sensitive)
  std::vector<std::string> order;  // declared total order of values (t-closeness ordered distance)
  std::uint64_t line = 0;          // line in the job file
  // An inline `hierarchy: {type: ...}` instead of a path: built from the
  // column's distinct values when the job runs (hierarchy_builder.h).
  // (Last, with initializers, so that {name, role, hierarchy, order, line}
  // still initializes the fields above.)
  std::optional<HierarchyBuilderSpec> hierarchy_builder = std::nullopt;
  std::uint64_t hierarchy_line = 0, hierarchy_column = 0;  // of the inline definition
  // A hierarchy table a front end holds in memory (the Python package's
  // DataFrames), never read from a job file. When set, it is the hierarchy:
  // `hierarchy` and `hierarchy_builder` are ignored.
  std::shared_ptr<const HierarchyTable> hierarchy_data = nullptr;
  // The text the inline definition is in, for messages, when it is not the
  // job file (a HierarchyOverride's builder); empty: the job file.
  std::string hierarchy_source = {};
  // Generalization constraints (quasi-identifiers): the search considers
  // only levels in [min_level, max_level]; unset: 0 and the top level.
  std::optional<int> min_level = std::nullopt, max_level = std::nullopt;
  std::uint64_t min_level_line = 0, max_level_line = 0;
  // Weight in the multi-dimensional quality models (ARX's attribute
  // weights), in [0, 1]; unset: ARX's default, 0.5.
  std::optional<double> weight = std::nullopt;
  // `transformation: microaggregation` (quasi-identifiers only); unset:
  // generalization.
  std::optional<MicroaggregationSpec> microaggregation = std::nullopt;

  // Whether the attribute is a quasi-identifier of the lattice: generalized
  // (microaggregated ones only with generalize-before).
  bool generalized() const {
    return role == Role::quasi_identifying && (!microaggregation || microaggregation->generalize_before);
  }
  // A hierarchy file, an inline definition or a table in memory.
  bool has_hierarchy() const { return !hierarchy.empty() || hierarchy_builder.has_value() || hierarchy_data != nullptr; }
};

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

enum class Aggregate { geometric_mean, arithmetic_mean, sum, max };
const char* to_string(Aggregate a);

struct QualitySpec {
  // loss | entropy | precision | height | discernability | aecs |
  // normalized-entropy | ambiguity | kl-divergence | classification |
  // publisher-payout
  std::string model = "loss";
  std::optional<Aggregate> aggregate;  // default depends on the model (ARX's defaults)
  double gs_factor = 0.5;              // loss and classification
  // classification: the response variables (ARX's
  // DataDefinition.setResponseVariable), in the order given, and the job
  // file's line of the list (0: not from a file).
  std::vector<std::string> responses;
  std::uint64_t responses_line = 0;
  // publisher-payout: the job's `cost-benefit`, and whether the attacker
  // is a journalist (success probability 1 / population class size; needs
  // the research subset).
  CostBenefitSpec cost_benefit;
  bool journalist = false;
  // entropy and discernability: ARX's monotonic variants (suppressed
  // records charged like kept ones: MetricMDNUEntropy, DM*).
  bool monotonic = false;
};

struct SearchSpec {
  enum class Algorithm { automatic, exhaustive, optimal, best_first, safepub };
  Algorithm algorithm = Algorithm::automatic;
  std::optional<double> time_limit_seconds;
  std::optional<std::uint64_t> max_checks;  // budget of transformations to check
  // The checker's working memory (docs/databases.md, "Memory"): bounded
  // keeps it within half the histogram's size plus a constant; fast spends
  // more for speed (sorted copies of the histogram, radix-partitioned
  // grouping); automatic is bounded for histograms over
  // kBoundedMemoryHistogramBytes (problem.h).
  enum class Memory { automatic, bounded, fast };
  Memory memory = Memory::automatic;
  // A transformation to release instead of searching (search.transformation
  // or `deid anonymize --transformation`): each quasi-identifier with its
  // level, in the order given. Empty: search.
  std::vector<std::pair<std::string, int>> transformation;
  // Where it was given, for messages: the job file and line, or the option.
  std::string transformation_source;
  std::uint64_t transformation_line = 0;
};
const char* to_string(SearchSpec::Algorithm a);

// A table in a PostgreSQL database, as a job's input or output
// (docs/databases.md). Names are used exactly as given (quoted, never folded
// to lower case).
struct PostgresTable {
  // libpq connection string or URI; empty: libpq's defaults (the PG*
  // environment variables, ~/.pgpass). Never shown: messages, results and
  // reports name the connection without its password (redact_connection).
  std::string connection;
  std::string schema;  // empty: the connection's search_path
  std::string table;   // input: this or `query`; output: required
  std::string query;   // input only: a SELECT whose rows are the input
  enum class Mode { create, replace, append };
  Mode mode = Mode::create;  // output only
  // input only: group the table in the database and write the release
  // there (docs/databases.md, "Pushdown") when the output is a table on
  // the same connection or there is no output table; false: stream rows.
  bool pushdown = true;
  std::uint64_t line = 0;    // of the `postgres` key in the job file
};
const char* to_string(PostgresTable::Mode mode);

struct Job {
  std::string path;       // the job file (empty when built in code)
  std::string base_dir;   // directory paths are relative to

  struct Input {
    std::string path;
    std::optional<char> delimiter;
    std::optional<PostgresTable> postgres;  // instead of `path`
    // Instead of `path`: a table of a Spark session's catalog
    // (docs/spark.md). Only deid.spark (the Python package) reads it; the
    // deid command refuses a job that names one (job_reads).
    std::string table;
  } input;

  std::vector<AttributeSpec> attributes;
  std::optional<Role> default_role;
  std::vector<PrivacySpec> privacy;
  std::vector<std::uint64_t> privacy_lines;  // line of each privacy entry in the job file (0: unknown)
  double suppression_limit = 0.0;  // fraction of records
  QualitySpec quality;
  CostBenefitSpec cost_benefit;  // `cost-benefit` (ARX's defaults when absent)
  SearchSpec search;

  // The research subset (ARX's DataSubset; docs/privacy-models.md,
  // "Research subset"): the records to release, out of the input, which is
  // then the population. Records outside it are suppressed in the release;
  // the privacy and quality models judge the subset, and δ-presence, k-map
  // without population-size and the journalist models compare it with the
  // population. Either `file`, a table of the subset's records (the
  // input's columns; each matched to one equal record of the input, as
  // ARX's DataSubset.create), or `column` and `value`: the records whose
  // `column` holds `value`.
  struct Subset {
    std::string file;     // resolved against the job's directory
    std::optional<char> delimiter;  // of `file`; default: the input's
    std::string column;
    std::string value;
    std::uint64_t line = 0;  // of the section in the job file (0: none)
  };
  std::optional<Subset> subset;

  struct Output {
    std::string path;    // transformed CSV; empty: not written
    std::string result;  // JSON result; empty: not written
    std::string report;  // HTML report; empty: not written
    std::optional<char> delimiter;  // default: the input's
    // Prefix cells a spreadsheet would run as formulas (output.h,
    // looks_like_formula) with "'"; off by default: data is not changed.
    bool escape_formulas = false;
    // The utility analysis (docs/utility.md) in the result's "utility"
    // section; on by default, off with `output.utility: false`.
    bool utility = true;
    // The released table written to a database instead of `path`
    // (docs/databases.md); `result` and `report` stay files.
    std::optional<PostgresTable> postgres;
    // Instead of `path`: the release written by Spark into a table of the
    // session's catalog (docs/spark.md), with `table_mode` "create",
    // "replace" or "append". Only deid.spark writes it; the deid command
    // refuses a job that names one (job_writes).
    std::string table;
    std::string table_mode = "create";
  } output;

  // The utility analysis's classification (docs/utility.md): the attributes
  // to predict and the features to predict them from. Empty targets: every
  // sensitive attribute; empty features: the quasi-identifiers (less the
  // target).
  struct Utility {
    std::vector<std::string> targets;
    std::vector<std::string> features;
    std::uint64_t line = 0;  // of the section in the job file (0: none)
  } utility;

  // `deid risk` (docs/risk-models.md): the threshold on the risk of single
  // records for "records at risk", and the populations to estimate
  // population uniques for (name, size); empty: the defaults.
  struct Risk {
    std::optional<double> threshold;
    std::vector<std::pair<std::string, double>> populations;
    std::uint64_t line = 0;  // of the section in the job file (0: none)
  } risk;

  // `deid suppress` (docs/cell-suppression.md): local cell suppression for
  // combinations of quasi-identifiers and the release of several levels of
  // a hierarchy (papers/003). Present only when the job has the section.
  struct CellSuppression {
    std::optional<std::uint64_t> k;  // exactly one of k and tau is set
    std::optional<double> tau;
    std::string marker = "*";        // written for a suppressed cell
    std::vector<std::pair<std::string, double>> weights;  // attribute, weight in [0, 1]
    struct Release {                 // how one quasi-identifier is released
      std::string attribute;
      std::vector<int> levels;
      std::vector<std::string> names;
      std::optional<int> known_level;
      std::vector<int> evaluate;
      std::optional<bool> totally_ordered;
      std::uint64_t line = 0;
    };
    std::vector<Release> release_levels;
    std::vector<std::vector<std::string>> combinations;  // empty: one of all quasi-identifiers
    bool compare_complete = false;
    struct Missingness {
      std::string variable, by;
    };
    std::vector<Missingness> missingness;
    struct Sample {
      double fraction = 0;
      std::string path;
    };
    std::vector<Sample> samples;
    std::uint64_t seed = 0;
    struct Registry {                // attacks 1 and 2
      std::vector<std::string> attributes;
      std::string population;        // CSV: the attributes and a count column; empty: none
      std::string count_column = "count";
      std::optional<double> sampling_fraction;
    };
    std::optional<Registry> registry;
    std::uint64_t line = 0;
  };
  std::optional<CellSuppression> cell_suppression;

  const AttributeSpec* attribute(const std::string& name) const;
};

// A hierarchy given beside the job rather than in it (the Python package's
// `hierarchies=`): it replaces the hierarchy the job gives the attribute,
// and an attribute the job does not list becomes quasi-identifying. The job
// is parsed from its own text, so messages keep its lines. One of `table`,
// `builder` and `path` is used, in this order.
struct HierarchyOverride {
  std::string attribute;
  std::shared_ptr<const HierarchyTable> table;  // held in memory
  std::string builder;  // an inline definition as YAML text, e.g. "{type: masking, levels: 2}"
  std::string path;     // a hierarchy file, as given (not relative to the job file)
  std::string source;   // names the override in messages, e.g. "hierarchies['age']"
};

// Reads and validates a job file. Throws JobError (with file and line) for
// YAML syntax errors, unknown keys, wrong types and values out of range.
// Parses "age=2,sex=0,...": quasi-identifier=level pairs separated by
// commas (blanks around either allowed). Throws JobError naming `source`
// for anything else, a level that is not an integer in [0, 255] or a name
// given twice. Which names and levels the job allows is checked when the
// job runs (the hierarchies' heights are known then).
std::vector<std::pair<std::string, int>> parse_transformation(const std::string& text, const std::string& source);

Job read_job(const std::string& path, const std::vector<HierarchyOverride>& hierarchies = {});
// Same from text; relative paths are resolved against `base_dir`.
Job parse_job(const std::string& text, const std::string& name, const std::string& base_dir,
              const std::vector<HierarchyOverride>& hierarchies = {});

}  // namespace deid
