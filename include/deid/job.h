// A de-identification job: what the user asks for, as read from a YAML job
// file (docs/job-file.md documents every key). Paths are resolved relative to
// the job file. Parsing validates shape and types and rejects unknown keys
// with their name and line; whether the job fits the data (columns exist,
// hierarchies cover the values) is checked when the job is run.
//
// The attributes' settings are deid/attribute_spec.h, the privacy models'
// parameters deid/privacy_spec.h; this header includes both.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deid/attribute_spec.h"
#include "deid/linked_spec.h"
#include "deid/privacy_spec.h"

namespace deid {

enum class Aggregate { geometric_mean, arithmetic_mean, sum, max };
const char* to_string(Aggregate a);

// Whether quality model `model` weighs generalization against suppression
// with a gs-factor (ARX's Metric.isGSFactorSupported, for the models deid
// has): loss, entropy, precision, aecs, classification, publisher-payout. The others
// ignore it, in local recoding's passes too.
inline bool has_gs_factor(const std::string& model) {
  return model == "loss" || model == "entropy" || model == "precision" || model == "aecs" ||
         model == "classification" || model == "publisher-payout";
}

struct QualitySpec {
  // loss | entropy | precision | height | discernability | aecs |
  // normalized-entropy | ambiguity | kl-divergence | classification |
  // publisher-payout
  std::string model = "loss";
  std::optional<Aggregate> aggregate;  // default depends on the model (ARX's defaults)
  double gs_factor = 0.5;              // the models with one: has_gs_factor()
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

// ARX's genetic algorithm (BEST_EFFORT_GENETIC) and its settings, with
// ARX 3.9.2's defaults (ARXConfiguration): two subpopulations of
// quasi-identifiers + subpopulation_size individuals each, `iterations`
// generations (docs/search.md, "genetic").
struct GeneticSpec {
  std::uint64_t subpopulation_size = 100;
  double elite_fraction = 0.2;
  double crossover_fraction = 0.2;
  double mutation_probability = 0.2;
  double immigration_fraction = 0.2;
  std::uint64_t immigration_interval = 10;
  double production_fraction = 0.2;
  std::uint64_t iterations = 50;
  // java.util.Random's seed; ARX's deterministic mode is 0xDEADBEEF
  // (kArxDeterministicSeed, the default: the same job, the same release).
  std::int64_t seed = static_cast<std::int32_t>(0xDEADBEEFu);
};

struct SearchSpec {
  enum class Algorithm { automatic, exhaustive, optimal, best_first, safepub, bottom_up, top_down, genetic };
  Algorithm algorithm = Algorithm::automatic;
  std::optional<double> time_limit_seconds;
  std::optional<std::uint64_t> max_checks;  // budget of transformations to check (ARX's step limit)
  // auto runs bottom-up Lightning on lattices larger than this (ARX's
  // heuristic search threshold); kDefaultHeuristicThreshold when unset.
  std::optional<std::uint64_t> heuristic_threshold;
  GeneticSpec genetic;
  // Best-first's warm start (search.warm-start, docs/search.md "Warm
  // start"): on by default; off, best-first starts from the bottom alone.
  bool warm_start = true;
  // Best-first's queue limit (search.max-queue, docs/search.md
  // "Best-first's queue"); kBestFirstMaxQueue when unset.
  std::optional<std::uint64_t> max_queue;
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

// How a table file is stored: CSV text, or Parquet, which the Python package
// reads and writes (parquet.h; `input.parquet`, `output.parquet`).
enum class TableFormat { csv, parquet };
// The format of a file named on the command line: Parquet when its name
// ends in ".parquet" (any case), CSV otherwise.
TableFormat table_format_of(std::string_view path);

struct Job {
  std::string path;       // the job file (empty when built in code)
  std::string base_dir;   // directory paths are relative to

  struct Input {
    std::string path;
    TableFormat format = TableFormat::csv;  // `parquet: PATH` instead of `path: PATH`
    std::optional<char> delimiter;          // of a CSV file
    std::optional<PostgresTable> postgres;  // instead of `path`
    // Instead of `path`: a table of a Spark session's catalog
    // (docs/spark.md). Only deid.spark (the Python package) reads it; the
    // deid command refuses a job that names one (job_reads).
    std::string table;

    // A file named on the command line (or set from Python) replaces the
    // job's input, also a database or Spark table: its format follows its
    // name (table_format_of).
    void use_file(const std::string& file);
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
    std::string path;    // transformed table; empty: not written
    TableFormat format = TableFormat::csv;  // `parquet: PATH` instead of `path: PATH`
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
    // The linkage table (docs/identifiers.md): each pseudonymized value and
    // its pseudonym, for the custodian; written owner-only. Empty: none.
    std::string linkage;

    // Likewise for the released table: `file` replaces the job's output
    // path, database table or Spark table.
    void use_file(const std::string& file);
  } output;

  // `identifiers` (docs/identifiers.md): the secret of the pseudonyms and
  // date shifts, the person column, the shift's range. Present only when
  // the job has the section.
  std::optional<IdentifiersSpec> identifiers;

  // `linked` (docs/identifiers.md, "Linked tables"): further tables of the
  // same people, released beside the output table.
  std::vector<LinkedTable> linked;

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

  // Local recoding (docs/search.md, "Local recoding"; ARX's
  // ARXResult.optimize, optimizeIterative and optimizeIterativeFast): after
  // the global optimum, the records it suppressed are anonymized again as
  // a table of their own, pass after pass, and each pass's records that are
  // not suppressed there are released with that pass's transformation.
  struct LocalRecoding {
    enum class Mode {
      single,     // one pass (ARX's optimize)
      fast,       // passes that may each suppress all but `records` (optimizeIterativeFast)
      iterative,  // passes until none recodes a record (optimizeIterative)
    };
    Mode mode = Mode::iterative;
    // The quality model's gs-factor in every pass (iterative: the first's).
    double gs_factor = 0.5;
    std::uint64_t max_iterations = 100;  // iterative
    double adaption_factor = 0.05;       // iterative: added to the gs-factor when a pass recodes nothing
    // fast: the fraction of the records (of all the records judged) each
    // pass must at least release, when its suppressed records have that many.
    double records = 0.01;
    // A released column naming the pass that released each record (0: the
    // global transformation, empty for a suppressed record); empty: none.
    std::string column;
    std::uint64_t line = 0;  // of the section in the job file
  };
  std::optional<LocalRecoding> local_recoding;

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
