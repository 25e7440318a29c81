// The whole pipeline of `deid anonymize`: read and encode the data, bind the
// hierarchies, build the problem, search, apply the chosen transformation,
// write the output and the JSON result (docs/architecture.md).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/check.h"
#include "deid/database.h"
#include "deid/dataset.h"
#include "deid/hierarchy.h"
#include "deid/job.h"
#include "deid/output.h"
#include "deid/problem.h"
#include "deid/search.h"

namespace deid {

class IdentifierRelease;   // deid/identifiers.h
struct CountedIdentifier;  // deid/identifiers.h
struct Secret;             // deid/identifiers.h
struct LocalRecodingOutcome;  // below

// Wall time of each phase, in milliseconds.
struct Timings {
  double read = 0, encode = 0, search = 0, write = 0, total = 0;
};

// The phases of a run, in the order they happen, for a progress display.
enum class Phase { reading, encoding, search, writing };
const char* to_string(Phase phase);
// Called, on the thread that runs the job, when a phase starts.
using PhaseFn = std::function<void(Phase)>;

// A job bound to its data. Not copyable: the problem points into it.
struct PreparedJob {
  Job job;
  Dataset data;
  std::vector<Role> roles;                     // per dataset column
  std::vector<HierarchyTable> qi_tables;       // per quasi-identifier
  std::vector<HierarchyTable> sensitive_tables;// per sensitive attribute (empty table when none)
  Problem problem;
  // The identifying columns released as pseudonyms, masks or shifted dates
  // (docs/identifiers.md); null when every identifying column is removed.
  std::shared_ptr<const IdentifierRelease> identifiers;

  // Whether column `c` of the data is written to the output table: every
  // column but the identifying ones that are removed.
  bool written(std::size_t c) const;

  PreparedJob() = default;
  PreparedJob(const PreparedJob&) = delete;
  PreparedJob& operator=(const PreparedJob&) = delete;
};

// Reads the data and hierarchies of `job` and builds its problem; inline
// hierarchy definitions are built from their column's distinct values.
// Throws JobError when the job does not fit the data (unknown columns,
// columns without a role, a value an inline hierarchy cannot place) and
// InputError for bad files. `phase` (optional) hears Phase::reading and
// Phase::encoding start.
std::unique_ptr<PreparedJob> prepare(const Job& job, Timings* timings = nullptr, const PhaseFn& phase = {});
// Same, with the data already read (only Phase::encoding is announced).
std::unique_ptr<PreparedJob> prepare(const Job& job, Dataset data, Timings* timings = nullptr,
                                     const PhaseFn& phase = {});

// Computes the released identifiers of `p` (p.identifiers) when its job
// releases any (docs/identifiers.md): the secret read, every pseudonym,
// mask and date shift computed and checked. Called by the commands that
// write a release, after prepare() and before the search; the others
// (utility, risk) need no secret. Throws JobError for a table grouped where
// it lives, and as IdentifierRelease does.
void release_identifiers(PreparedJob& p);
// The same for a table grouped where it lives whose released values are
// computed there (deid.spark, on Spark's executors, through the Python
// binding): the result's summary and warnings from the secret already read
// and what was counted of each released column (IdentifierRelease's second
// constructor). PostgreSQL's pushdown has no such place, and is off for a
// job with actions (uses_pushdown).
void release_counted_identifiers(PreparedJob& p, const Secret& secret, const std::vector<CountedIdentifier>& counted);

// The job's input: its CSV file (read_dataset) or its PostgreSQL table or
// query (read_postgres, database.h).
Dataset read_input(const Job& job);
// What messages, results and reports call the job's input and its output
// table: the path, or describe() of the database table (no password).
std::string input_name(const Job& job);
std::string output_name(const Job& job);

// The hierarchy of `attribute` (which has_hierarchy()): its table in memory
// (hierarchy_data) as it is, its file read, or its inline definition built from the distinct values of its column of
// `data`, in order of first appearance. Throws as prepare() does; a value an
// inline builder cannot place is a JobError at the value's first line in
// the data whose message names the definition's line in the job file.
HierarchyTable hierarchy_table(const Job& job, const AttributeSpec& attribute, const Dataset& data);

// Writes the output table for transformation `t` with `classes` (suppressed
// classes flagged): one row per input row in input order; identifying
// columns removed; quasi-identifiers generalized, or '*' in every
// quasi-identifier of a suppressed record.
// With `local` (local recoding), each record released by a later pass
// shows that pass's generalization, and Job::LocalRecoding::column, when
// set, is written last: the record's pass, '*' for a suppressed record.
void write_output(const PreparedJob& prepared, const Transformation& t, const Classes& classes, std::ostream& out,
                  const LocalRecodingOutcome* local = nullptr);
// Whether row `row` of the prepared data is suppressed in that release: its
// class is, or it is outside the research subset.
bool row_suppressed(const PreparedJob& prepared, const Classes& classes, std::uint64_t row);
// The released value of microaggregated attribute `m`
// (Problem::microaggregated) in every row of that release, as write_output
// writes it: an index into `labels`, which holds "*" for the suppressed
// records; a record released by a later pass of local recoding shows its
// pass's aggregate.
struct ReleasedAggregates {
  std::vector<std::uint32_t> codes;  // per row
  std::vector<std::string> labels;
};
ReleasedAggregates released_aggregates(const PreparedJob& prepared, const Classes& classes,
                                       const LocalRecodingOutcome* local, std::size_t m);

// Pushdown (docs/databases.md, "Pushdown"): whether anonymize() has the
// input's database group the input and write the release, i.e. the input
// is a table with input.postgres.pushdown (the default) and the output is
// no file (a table on the input's connection, or none).
bool uses_pushdown(const Job& job);
// The job's input grouped by its quasi-identifying and sensitive columns,
// with the formula-like values of its insensitive ones (PostgresPushdown::read).
Dataset read_grouped(const Job& job, PostgresPushdown& source);
// Writes the release of `t` with `classes` into job.output.postgres by the
// database (PostgresPushdown::write): the rows write_output() would write,
// in the database's order.
FileDigest write_pushdown(PostgresPushdown& database, const PreparedJob& prepared, const Transformation& t,
                          const Classes& classes);

// Hooks for a progress display. The library never prints: a front end
// renders what these report (the CLI draws a bar on a terminal).
struct RunOptions {
  ProgressFn progress;  // search progress, at most every 100 ms of search
  PhaseFn phase;        // each phase as it starts (anonymize(): all four; run_search(): search)
};

// One pass of local recoding (Job::LocalRecoding; docs/search.md, "Local
// recoding"): the records suppressed so far, anonymized as a table of
// their own.
struct LocalRecodingPass {
  double gs_factor = 0;                       // of the pass's quality model
  std::uint64_t records = 0;                  // the pass's records: those suppressed before it
  std::uint64_t suppression_limit_records = 0;  // of those, at most this many suppressed
  // The pass's optimum (nullopt: no transformation satisfies the job on
  // its records, and the pass recodes none).
  std::optional<CheckResult> best;
  std::uint64_t recoded = 0;                  // records released by this pass
  // The optimum ARX 3.9.2's Flash keeps on the pass's records, replayed
  // (search/arx_flash.h; nullopt: not replayed, or no solution). `best` is
  // this one when its loss is the pass's optimal loss; ARX's bounds of
  // precision and AECS below gs-factor 0.5 can prune the optimum, and
  // then ARX's loss here is higher.
  std::optional<CheckResult> arx_flash;
  // Per microaggregated attribute (Problem::microaggregated), the released
  // value of each of the pass's classes: the aggregate over the class's
  // records in the pass ("" for a suppressed class). Rows find their class
  // in LocalRecodingOutcome::row_class.
  std::vector<std::vector<std::string>> aggregates;
};

// What local recoding released: the passes after the global one, and the
// pass that released each record.
struct LocalRecodingOutcome {
  static constexpr std::uint32_t kSuppressed = UINT32_MAX;
  std::vector<LocalRecodingPass> passes;      // pass i + 1 is passes[i]
  // Per input row: 0 (the global transformation), the pass that released
  // it, or kSuppressed.
  std::vector<std::uint32_t> row_pass;
  // With microaggregation: per input row released by a pass, its class
  // among that pass's classes (LocalRecodingPass::aggregates); empty
  // without microaggregation.
  std::vector<std::uint32_t> row_class;
  // Records the global transformation suppressed, and those still
  // suppressed after the last pass; with a research subset, of its records
  // (those outside it stay suppressed and are never recoded).
  std::uint64_t suppressed_before = 0;
  std::uint64_t suppressed_after = 0;
  // The classes of the release (records not suppressed with equal released
  // values) and the size of the smallest (0: none); class_sizes holds
  // their sizes, largest first.
  std::uint64_t classes = 0;
  std::uint64_t smallest_class = 0;
  std::vector<std::uint64_t> class_sizes;
  // The transformation of pass `i` (0: the global one).
  const Transformation& transformation(std::uint32_t pass, const Transformation& global) const {
    return pass == 0 ? global : passes[pass - 1].best->transformation;
  }
};

struct Anonymization {
  bool found = false;               // a transformation satisfies the job
  SearchOutcome search;
  CheckStatistics check_statistics; // roll-ups and cache of the search's checks
  std::optional<Classes> classes;   // of the chosen transformation
  // With Job::local_recoding and a solution: the passes after the global
  // one (run_local_recoding).
  std::optional<LocalRecodingOutcome> local;
  nlohmann::json result;            // the JSON result (docs/job-file.md)
  Timings timings;
};

// Runs the search on a prepared job and builds the result; writes nothing.
// With Job::local_recoding, also the passes of local recoding
// (run_local_recoding) and the result's "local_recoding".
Anonymization run_search(PreparedJob& prepared, const RunOptions& options = {});
// Local recoding after the global optimum `global`, whose classes are `classes`
// (docs/search.md, "Local recoding"), as ARX's ARXResult.optimize,
// optimizeIterativeFast and optimizeIterative do it: each pass searches
// the records suppressed so far as a table of their own (the same
// hierarchies, constraints and search; the privacy models' reference
// distributions and k-map's derived k those of the whole table; the
// quality model with the pass's gs-factor; the suppression limit applied
// to the pass's records) and releases those its optimum does not suppress.
// With a research subset, the passes search the suppressed records of the
// subset only (ARX's `baselineRowSet`).
// Deterministic: the same passes for any number of threads.
LocalRecodingOutcome run_local_recoding(PreparedJob& prepared, const Transformation& global, const Classes& classes);
// Throws JobError, naming the job's line, when the job combines
// local-recoding with what it cannot do: a privacy model ARX does not
// recode locally under, a quality model without a gs-factor, and the
// features deid does not recode yet (microaggregation, cell suppression,
// linked tables, pushdown). Nothing without local-recoding.
void check_local_recoding(const Job& job);
// The job's search.transformation as a transformation of the problem.
// Throws JobError (naming where it was given) for a name that is not a
// quasi-identifier, one missing, or a level outside the hierarchy or the
// attribute's min-level and max-level.
Transformation given_transformation(const Job& job, const Problem& problem);

// Warnings about the table `a` releases (cells a spreadsheet would run as
// formulas, output.h), for the result's "warnings"; empty with
// output.escape-formulas, which escapes them.
nlohmann::json release_warnings(const PreparedJob& prepared, const Anonymization& a);
// The result's "utility" section (docs/utility.md): the analysis of the
// table `a` releases; null when there is none (no solution, or
// output.utility: false), {"skipped": ...} for a grouped input.
nlohmann::json release_utility(const PreparedJob& prepared, const Anonymization& a);

// The whole of `deid anonymize`: prepare, search, write the output (when a
// solution was found and job.output.path or job.output.postgres is set) and
// the result (when job.output.result is set). A database table is written
// in one transaction, committed after the report and the result are
// complete and before they replace their files. With `prepared` the
// prepared job is handed over there (the Python package keeps it to make
// the released DataFrame and the report from).
Anonymization anonymize(const Job& job, const RunOptions& options = {},
                        std::unique_ptr<PreparedJob>* prepared = nullptr);

// The files `job` reads (job file, input data, hierarchy files, a
// registry's population table) and writes (output table, result, report,
// samples), with their roles, for check_files() (output.h). Empty paths
// are included; check_files() skips them.
std::vector<FileUse> job_reads(const Job& job);
std::vector<FileUse> job_writes(const Job& job);
// The role of a linked table's release among the outputs: "release of
// linked table 'NAME'".
std::string linked_output_role(const LinkedTable& table);

// Peak resident set size of this process so far, in bytes.
std::uint64_t peak_rss_bytes();

}  // namespace deid
