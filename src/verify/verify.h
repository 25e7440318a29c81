// An independent verifier of deid's outputs.
//
// Given the input table, the output table the engine wrote, and what the job
// asked for, verify::check() re-establishes from the files alone that the
// output is a valid full-domain generalization that satisfies the privacy
// requirements (docs/architecture.md, "Principles": every guarantee claimed
// for an output is re-checked by an independent verifier that shares no
// code with the engine). It is the library behind `deid verify` (docs/verify.md) and the
// oracle of the tests. It therefore shares no code with the engine: it is a
// library of its own (deid_verify) that links only the C++ standard library
// (and OpenSSL's libcrypto for SHA-256, sha256.h), has its own RFC 4180
// reader, reads the hierarchy files itself and works on strings, never on
// the engine's codes.
//
// What a valid output is (each point is one Violation::Kind when it fails):
//  - both files and every hierarchy file can be read as CSV (`unreadable`,
//    `bad_hierarchy`), and the options name columns of the input
//    (`bad_options`);
//  - the output header holds every input column except the identifying ones,
//    each once, and nothing else (`identifying_column_present`,
//    `column_missing`, `unexpected_column`); column order is not checked;
//  - one output row per input row (`row_count`; its row is the first row
//    where input and output part: a copied column differs, or a
//    quasi-identifier is neither '*' nor at some level of the input value's
//    hierarchy row), in the same order:
//    every column that is neither identifying nor quasi-identifying is
//    identical to the input, row by row (`value_changed`); a reordered row
//    shows up here;
//  - each quasi-identifier is generalized at one single level l of its
//    hierarchy: every value of a record that is not suppressed equals the
//    level-l value of the input value (`not_single_level`); an input value
//    absent from the hierarchy is `value_not_in_hierarchy`; that level lies
//    within the quasi-identifier's min_level and max_level
//    (`level_outside_bounds` when only levels outside them fit);
//  - a suppressed record has '*' in every quasi-identifier and is counted as
//    suppressed; at most floor(limit * rows) records are suppressed
//    (`too_many_suppressed`; ARX's rule, shared/reference/README.md);
//  - every equivalence class (records with an identical tuple of
//    quasi-identifier values) of records that are not suppressed has at least
//    k records (`class_too_small`);
//  - every class satisfies each ClassRequirement (`class_requirement`, with
//    the requirement's index in Violation::requirement);
//  - when a population-uniqueness requirement is given, the class sizes of
//    the records not suppressed satisfy it (`population_uniqueness`;
//    verify_uniqueness.h computes the estimates), and likewise an
//    average-risk (`average_risk`) and a sample-uniqueness requirement
//    (`sample_uniqueness`); with a k-map requirement every class not
//    suppressed has at least the derived k' records (`k_map`);
//  - a microaggregated column (Options::microaggregated) is '*' in every
//    suppressed record (and every record outside the research subset) and
//    elsewhere the aggregate of the input values of the record's class's
//    records in the subset (`wrong_aggregate`, verify_microaggregation.h); its
//    class is the record's quasi-identifier values, with, for a column
//    generalized before aggregation, its input value generalized to one
//    level of its hierarchy (the first level at which every record is
//    right). The column is part of the tuple an attacker sees, so the
//    classes of the checks above include it.
//
// A record whose quasi-identifiers are all '*' is suppressed unless the
// detected levels generalize all of its quasi-identifiers to '*' anyway
// (every hierarchy's top is '*'): then the output cannot tell the two
// apart and the record is counted in the all-'*' class, which is the class
// an attacker sees.
//
// Adding a privacy model: add an alternative to ClassRequirement (e.g.
// entropy or recursive-(c,l)-diversity, t-closeness with the distance and
// t), and a case in requirement_holds() in classes.cc. That function receives
// the class's distribution of the requirement's attribute and its
// distribution over all records of the table, the two inputs every
// l-diversity and t-closeness variant needs. The sensitive attribute
// must be an output column copied from the input (role sensitive), so its
// values are read from the output. checks.h names the model in the table
// of checks.
//
// Thread-safety: check() has no shared state; call it from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "verify_microaggregation.h"
#include "verify_sensitive.h"
#include "verify_uniqueness.h"

namespace verify {

// A CSV table: the header and the records, as strings.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Line of the file on which each row starts (1-based, the header counted;
  // a quoted field may span lines). Filled by parse_csv; may be empty in a
  // table built in code (row r is then taken to start on line r + 1 + has_header).
  std::vector<std::uint64_t> lines;
  // How many records each row stands for (empty: one each). A release
  // checked grouped (deid.spark.verify: the pairs of input and output rows
  // with equal values counted once) gives both tables the same weights;
  // check_tables counts each row that many times (records, suppressed
  // records, class sizes and distributions) and names rows as usual.
  std::vector<std::uint64_t> weights;
};

// Parses `text` as RFC 4180 CSV with `delimiter`: quoted fields may hold the
// delimiter, line breaks and doubled quotes; records end with CRLF, LF or
// CR; a UTF-8 byte-order mark is skipped; blank lines are skipped (as the
// engine does). The first record is the header when `has_header`. Returns
// nullopt and sets `*error` ("line N: ...") when a quote is malformed or a
// record has a different number of fields than the first.
std::optional<Table> parse_csv(std::string_view text, char delimiter, bool has_header, std::string* error);

// The research subset given as a table of records (deid's `subset.file`):
// each record of `subset` (columns by name, all of the input's) marks the
// first row of `input` with the same values not marked before. nullopt and
// `*error` for a column the input lacks or misses, or a record it does not
// have (that often).
std::optional<std::vector<char>> match_subset(const Table& input, const Table& subset, std::string* error);

// Reads and parses the file at `path`; on failure `*error` names the file.
std::optional<Table> read_csv_file(const std::string& path, char delimiter, bool has_header, std::string* error);

// The delimiter of a CSV text as deid documents its detection
// (docs/job-file.md, `input.delimiter`): the most frequent of ';' ',' tab '|'
// in the first record outside quotes, the earlier in that list on a tie,
// ',' when none occurs. Hierarchy files are detected the same way.
char detect_delimiter(std::string_view text);
// Same on the start of the file at `path`; nullopt when it cannot be read.
std::optional<char> detect_file_delimiter(const std::string& path);

// Distinct l-diversity: every class holds at least `l` distinct values of
// `attribute` (Machanavajjhala et al., "l-Diversity", Section 4.1).
struct DistinctLDiversity {
  std::string attribute;
  std::uint64_t l = 2;
};

// A requirement on every equivalence class of the output beyond its size.
// Entropy and recursive l-diversity and t-closeness: verify_sensitive.h.
using ClassRequirement = std::variant<DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity, TCloseness,
                                      DeltaDisclosure, BetaLikeness>;

// δ-presence (Nergiz et al., SIGMOD 2007) of a research subset: every
// released class has a share of its input records (the population) that
// are in the subset within [min, max]. A class of the input without subset
// records has share 0 and must hold too, unless `judged_too_small_first`
// (the job has a model with a minimal class size, which judges such a
// class first, as ARX does).
struct DeltaPresence {
  double min = 0;
  double max = 1;
  bool judged_too_small_first = false;
};

// The game-theoretic model with attack (Wan et al., "A game theoretic
// framework for analyzing re-identification risk", PLoS ONE 10(3), 2015;
// ARX's ProfitabilityProsecutor and ProfitabilityJournalist): every released
// class has a positive publisher payout
//   benefit * (1 - IL) - (gain * p - cost > 0 ? loss * p : 0),
// with p the adversary's success probability, 1 / the class's records (the
// journalist's: 1 / its records in the input, the population), and IL the
// class's entropy-based information loss, log10 of the product over
// quasi-identifiers of the share of its hierarchy's rows whose value at the
// detected level is the class's value, divided by log10 of the product of
// the hierarchies' row counts, plus 1, clamped to [0, 1].
struct Profitability {
  double publisher_benefit = 1200;
  double publisher_loss = 300;
  double adversary_gain = 300;
  double adversary_cost = 4;
  bool journalist = false;
};

struct QuasiIdentifier {
  std::string name;
  std::string hierarchy_path;  // ARX format: value;level1;...;top, no header
  // The job's generalization constraints (min-level, max-level); nullopt:
  // the hierarchy's top.
  int min_level = 0;
  std::optional<int> max_level = std::nullopt;
};

// An identifying column released by its action (deid's job `action`,
// docs/identifiers.md) instead of removed: present in the output, each value
// recomputed here from the input's value in the same row.
//  - pseudonym: the first `length` hexadecimal digits of HMAC-SHA-256(secret,
//    value) (RFC 2104, computed here on SHA-256);
//  - mask: keep_first / keep_last code points, the others `symbol`; or each
//    ASCII digit `digits`, each ASCII letter `letters`; or every match of the
//    ECMAScript `regex` replaced by `replacement`;
//  - date_shift: the date (`date_format` of %Y, %m, %d) moved by whole days,
//    the first 8 bytes of HMAC-SHA-256(secret, "deid date shift" 0x00
//    person) modulo 2 shift_days + 1, less shift_days; an empty cell stays
//    empty, what follows the date stays.
struct ReleasedIdentifier {
  enum class Action { pseudonym, mask, date_shift };
  std::string name;
  Action action = Action::pseudonym;
  int length = 16;
  int keep_first = 0, keep_last = 0;
  std::string symbol = "*";
  std::optional<std::string> digits, letters, regex;
  std::string replacement;
  std::string date_format = "%Y-%m-%d";
};

// A table linked to the input by its person column (deid's `linked`,
// docs/identifiers.md): what each of its columns must be in its release.
struct LinkedColumn {
  enum class Kind { copied, removed, released, generalized };
  std::string name;
  Kind kind = Kind::copied;
  ReleasedIdentifier released;   // released: its action
  std::string quasi_identifier;  // generalized: the input's quasi-identifier whose level applies
};
struct LinkedTableOptions {
  std::string name;
  std::string key;  // its column holding the person's value (Options::person)
  bool drop_suppressed = false, drop_orphans = false;
  bool key_as_is = false;  // the person column is released as it is (not identifying)
  std::vector<LinkedColumn> columns;  // every column but the key
};

struct Options {
  std::string input_path;
  std::string output_path;
  char input_delimiter = ';';
  std::optional<char> output_delimiter;  // default: input_delimiter
  char hierarchy_delimiter = ';';

  std::vector<QuasiIdentifier> quasi_identifiers;
  std::vector<std::string> identifying;  // columns that must be absent from the output
  // Identifying columns released by an action, the secret that keys them,
  // and for date shifts the column naming the person and the range.
  std::vector<ReleasedIdentifier> released_identifiers;
  std::string secret;
  std::string person;
  int shift_days = 0;
  std::uint64_t k = 1;                   // minimal class size (1: no k-anonymity)
  double suppression_limit = 0;          // fraction of the input rows
  std::vector<ClassRequirement> class_requirements;
  // A requirement on the output as a whole (dataset level).
  std::optional<PopulationUniqueness> population_uniqueness;
  std::optional<AverageRisk> average_risk;
  std::optional<SampleUniqueness> sample_uniqueness;
  std::optional<KMap> k_map;
  // Microaggregated quasi-identifiers (not in quasi_identifiers).
  std::vector<Microaggregated> microaggregated;

  // The research subset (deid's job `subset`; ARX's DataSubset): empty, or
  // one flag per input row (1: in the subset). Records outside it must be
  // suppressed ('*' in every quasi-identifier) and count nowhere else; the
  // classes, the suppressed records and their limit are the subset's.
  std::vector<char> subset;
  std::optional<DeltaPresence> delta_presence;
  // Every released class has at least this many input records (k-map with
  // the population table; the journalist's no-attack profitability); 0:
  // no such requirement.
  std::uint64_t population_k = 0;
  // Profitability with attack; the journalist's needs the subset.
  std::optional<Profitability> profitability;
  // Local recoding (deid's `local-recoding`, docs/search.md): records may
  // be generalized at different levels. Each value of a record that is not
  // suppressed must then be its input value at some level of the
  // quasi-identifier's bounds (`not_single_level` otherwise), and with
  // `pass_column` (a released column naming each record's pass, '*' for a
  // suppressed record) the records of one pass must share one level per
  // quasi-identifier. The classes are the released values as they are.
  bool local_recoding = false;
  std::string pass_column;
};

struct Violation {
  enum class Kind {
    unreadable,
    bad_hierarchy,
    bad_options,
    identifying_column_present,
    column_missing,
    unexpected_column,
    row_count,
    value_changed,
    value_not_in_hierarchy,
    not_single_level,
    level_outside_bounds,
    too_many_suppressed,
    class_too_small,
    class_requirement,
    population_uniqueness,
    wrong_aggregate,
    average_risk,
    sample_uniqueness,
    k_map,
    outside_subset_released,
    delta_presence,
    population_class_too_small,
    unprofitable_class,
    identifier_wrong,   // a released identifier is not its action's value of the input's
    identifier_leaked,  // an input value of an identifying column is a cell of the output's row
  };
  Kind kind;
  std::string column;      // the column concerned, when one is
  std::uint64_t row = 0;   // first data row concerned (1-based, header excluded); 0: none
  std::uint64_t count = 0; // how many rows (or classes) are concerned
  std::string message;     // a sentence a person can act on
  // Line of the output file on which `row` starts (0: no row, or the output
  // table has no line numbers).
  std::uint64_t line = 0;
  // class_requirement: index of the requirement in Options::class_requirements.
  std::size_t requirement = 0;
};

const char* to_string(Violation::Kind kind);

struct Report {
  std::vector<Violation> violations;  // empty: the output is valid
  // Why the aggregates of the microaggregated columns were not checked
  // (empty: they were).
  std::string microaggregation_skipped;
  // Per quasi-identifier (Options order): the single level at which the
  // column is generalized, or nullopt when none fits. When several levels
  // fit the records that are not suppressed (equal values at two levels for
  // every value in the data, or every record starred), the one that
  // generalizes the most starred records to '*' and, among those, the lowest.
  std::vector<std::optional<int>> levels;
  // Per quasi-identifier: every level that fits the records that are not
  // suppressed (empty when none does); `levels` is one of them.
  std::vector<std::vector<int>> fitting_levels;
  std::uint64_t input_rows = 0;
  std::uint64_t output_rows = 0;
  std::uint64_t suppressed_records = 0;
  std::uint64_t max_suppressed = 0;  // floor(limit * input_rows)
  std::uint64_t classes = 0;         // classes of records that are not suppressed
  std::uint64_t smallest_class = 0;  // 0 when there is none
  // With a population-uniqueness requirement: estimated uniques / N of the
  // output (0 without an estimate).
  std::optional<double> population_uniqueness;
  // With an average-risk requirement: classes / records of the output; with
  // a sample-uniqueness requirement: the share of records alone in a class.
  std::optional<double> average_risk;
  std::optional<double> sample_uniqueness;
  // With a k-map requirement: the derived k'.
  std::optional<std::uint64_t> k_map_derived_k;
  // With a research subset: its records (what the result calls "records").
  std::optional<std::uint64_t> subset_records;

  bool valid() const { return violations.empty(); }
  // Whether some violation is of `kind`.
  bool has(Violation::Kind kind) const;
  // One line per violation, for test failure messages.
  std::string to_string() const;
};

// Verifies the output of a job (see the header comment). Never throws for
// bad files: problems reading them are violations.
Report check(const Options& options);

// Same on tables already read; `hierarchies[i]` belongs to
// options.quasi_identifiers[i], `aggregated_hierarchies[i]` to
// options.microaggregated[i] (an empty table when it has no hierarchy);
// paths and delimiters in `options` are used only in messages.
Report check_tables(const Options& options, const Table& input, const Table& output,
                    const std::vector<Table>& hierarchies, const std::vector<Table>& aggregated_hierarchies = {});

}  // namespace verify
