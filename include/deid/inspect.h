// Inspection of a raw table (`deid inspect`, docs/inspect.md): what each
// column holds, which columns identify people, which combinations of the
// candidate quasi-identifiers make records unique, and a first job.
//
// inspect() reads only the encoded Dataset (dataset.h): per column it works
// on the dictionary (each distinct value once, with its count), so its cost
// grows with the distinct values, not the rows; the attribute risk works on
// the columns' codes. Nothing here prints, reads or writes a file.
//
// Determinism: the result depends on the Dataset alone (its values, their
// order of first appearance and their counts), never on the number of
// threads; the combinations are computed in parallel (oneTBB) into fixed
// slots and sorted by a total order.
//
// Thread-safety: the functions have no shared mutable state (the bundled
// name lists are built once, thread-safely, on first use).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/dataset.h"
#include "deid/job.h"

namespace deid {

// What the values of a column are. A column is of a type when at least 80 %
// of its non-empty cells conform to it; the others are its non-conforming
// values. Integers are tried first, then decimals, then the date formats,
// then codes (short values without spaces) and free text.
enum class ValueType { empty, integer, decimal, date, code, free_text };
const char* value_type_name(ValueType t);  // "empty", "integer", "decimal", "date", "code", "free text"

// A value that does not conform to its column's type.
struct ValueExample {
  std::string value;
  std::uint64_t line = 0;   // the data file line where it first occurs (0: unknown)
  std::uint64_t count = 0;  // cells holding it
};

// One HIPAA Safe Harbor identifier found in a column (45 CFR 164.514(b)(2)(i)).
struct IdentifierFinding {
  std::string type;     // e.g. "telephone number", "dates (more precise than year)"
  std::string hipaa;    // the paragraph's letter of 164.514(b)(2)(i), "A" .. "R"
  std::string method;   // "column name" or "values"
  double confidence = 0;  // in (0, 1]: how sure the detector is
  std::string evidence;   // what matched: the name's words, or "9 of 10 values ..."
  std::vector<std::uint64_t> lines;  // the first data file lines (at most 5) whose value matched (values only)
  std::uint64_t cells = 0;           // cells whose value matched (values only)
};

// A role suggested for a column, as a job file spells it.
enum class SuggestedRole { identifying, quasi_identifying, sensitive, insensitive };
const char* role_name(SuggestedRole r);

// The numeric range of a column (integer, decimal, year) over its
// conforming values.
struct NumericRange {
  bool valid = false;
  double min = 0, max = 0;
};

struct ColumnProfile {
  std::string name;
  ValueType type = ValueType::empty;
  std::string date_format;  // for dates: "%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y" or "%Y"
  std::uint64_t conforming = 0;      // non-empty cells that conform to the type
  std::uint64_t non_conforming = 0;  // non-empty cells that do not
  std::vector<ValueExample> non_conforming_examples;  // at most 5, in order of first line
  std::uint64_t distinct = 0;  // distinct non-empty values
  std::uint64_t missing = 0;   // empty cells
  // Share of the non-empty cells whose value occurs in no other cell (0
  // when every cell is empty).
  double uniqueness = 0;
  NumericRange range;
  std::size_t max_length = 0;  // of the non-empty values, in bytes
  bool has_digits_in_codes = false;  // for codes: most values hold a digit (ZIP, ICD, ...)
  // For codes with at most 100 distinct values: every value (the empty one
  // too), in order of first appearance; empty otherwise.
  std::vector<std::string> categories;
  std::vector<IdentifierFinding> findings;  // by confidence, highest first
  SuggestedRole role = SuggestedRole::insensitive;
  std::string reason;  // why that role, in one sentence
};

// The attribute risk of one combination of quasi-identifiers (Motwani and
// Xu, "Efficient algorithms for masking and finding quasi-identifiers",
// VLDB 2007; ARX's RiskModelAttributes): over the records, grouped by their
// values of the combination into classes,
//   alpha-distinction = classes / records,
//   alpha-separation  = pairs of records that differ on the combination /
//                       all pairs = 1 - sum_c size_c (size_c - 1) / (n (n - 1)),
// the distinction 0 without records, the separation 0 with fewer than 2
// (ARX's NaN of 0 / 0 read as 0). As in
// ARX, the records whose every value of the combination is `*` (ARX's
// suppressed value) are left out: they count neither in n nor as a class.
struct CombinationRisk {
  std::vector<int> columns;  // indexes into Inspection::columns, ascending
  std::uint64_t records = 0;  // n: the records counted (all but those all `*` on the combination)
  std::uint64_t classes = 0;
  std::uint64_t unique_records = 0;  // records alone in their class
  double distinction = 0;
  double separation = 0;
};

struct InspectOptions {
  // Combinations of 1 .. this many candidate quasi-identifiers are measured.
  int max_combination_size = 3;
  // A bound on the work (0: none): the size is lowered below
  // max_combination_size until the combinations of 1 .. size number at most
  // this many (the single columns are always measured). `deid serve` bounds
  // its inspections so; Inspection::max_combination_size is the size used.
  std::uint64_t max_combinations = 0;
};

// The number of combinations of 1 .. max_size of `candidates` columns.
std::uint64_t combination_count(std::size_t candidates, int max_size);

struct Inspection {
  std::string source;
  char delimiter = ',';
  std::uint64_t records = 0;
  std::vector<ColumnProfile> columns;
  std::vector<int> quasi_identifiers;  // the columns suggested as quasi-identifying, in table order
  int max_combination_size = 3;  // the size measured (lowered by InspectOptions::max_combinations)
  // Every combination of 1 .. max_combination_size quasi-identifiers, most
  // unique first: unique records, distinction and separation descending,
  // then fewer columns, then the columns' indexes.
  std::vector<CombinationRisk> combinations;
};

// Profiles every column, finds identifiers, suggests roles and measures the
// attribute risk of the combinations of suggested quasi-identifiers.
// REQUIRES: `data` holds rows (a grouped table counts each row with its
// weight). Throws JobError when max_combination_size is below 1 or above 8.
Inspection inspect(const Dataset& data, const InspectOptions& options = {});

// The attribute risk of every combination of `candidates` (column indexes of
// `data`) of 1 .. max_size columns, sorted as Inspection::combinations.
// Computed from the columns' codes, the combinations in parallel.
std::vector<CombinationRisk> attribute_risks(const Dataset& data, const std::vector<int>& candidates, int max_size);

// The inspection as JSON (docs/inspect.md, "The JSON").
nlohmann::json to_json(const Inspection& inspection);
// The summary `deid inspect` prints.
std::string to_text(const Inspection& inspection);

// A commented job file (YAML) from the suggested roles: inline hierarchy
// builders chosen from the types, k-anonymity with the reason for each
// choice. `input_path` and `output_stem` are written as given (relative to
// the job file's directory); the output is OUTPUT_STEM-deid.csv with its
// result OUTPUT_STEM-deid.json. `deid anonymize` runs it as it is.
std::string starter_job(const Inspection& inspection, const std::string& input_path, const std::string& output_stem);

// Where the starter job reads its table: a CSV file (`path`, written as
// given with the inspection's delimiter), a PostgreSQL table or query
// (`postgres`: its connection, schema, table or query written as given, so
// the connection must come without its password, as redact_connection in
// database.h gives it; libpq then finds the password in ~/.pgpass or
// PGPASSWORD), or neither: no input section, the table being given beside
// the job (deid.anonymize(data, job) in the Python package).
struct StarterInput {
  std::string path;
  std::optional<PostgresTable> postgres;
};
// The same job for any input; an empty `output_stem` writes no output
// section (the Python package returns the release instead of writing it).
std::string starter_job(const Inspection& inspection, const StarterInput& input, const std::string& output_stem);

}  // namespace deid
