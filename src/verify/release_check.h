// One run of check_tables (verify.h): the tables of a release bound to the
// options, and the steps that judge them, in the order in which they report.
// Each step is a member function that reads what earlier steps bound and
// adds its violations to `report`; check_tables calls them in that order,
// and stops after the options or the hierarchies when those have errors.
//
// The steps live in files by what they check: columns.cc (the options
// against the input, the hierarchies, the output's columns and rows),
// levels.cc (the level of each quasi-identifier, the research subset and
// suppression), identifiers.cc (released identifiers and leaks), verify_microaggregation.cc (microaggregated columns),
// classes.cc (equivalence classes and the models that judge them one by
// one) and population.cc (the models that need the input as population,
// and the dataset-level risks).
//
// Internal to the verifier; not thread-safe (one object per check).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "verify.h"

namespace verify {

using Distribution = std::map<std::string, std::uint64_t>;

std::string quote(const std::string& s);
// The position of column `name` in `header`, or -1.
int index_of(const std::vector<std::string>& header, const std::string& name);
// The value a released identifier must show for input value `v`
// (identifiers.cc): its pseudonym, its mask (`re`: r's regex compiled), or
// the date shifted by the offset of `person` (nullopt: no person, or not a
// date).
std::optional<std::string> released_value(const Options& o, const ReleasedIdentifier& r,
                                          const std::optional<std::regex>& re, const std::string& v,
                                          const std::string* person);
// The attribute a class requirement is about.
const std::string& requirement_attribute(const ClassRequirement& req);
// The tuple of the given output columns of a row, as a map key that cannot
// confuse two tuples (values are length-prefixed); columns < 0 are skipped.
std::string class_key(const std::vector<std::string>& row, const std::vector<int>& qi_out_columns);
// "(name='value', ...)" of the quasi-identifiers of an output row.
std::string describe_tuple(const std::vector<std::string>& row, const std::vector<int>& qi_out_columns,
                           const std::vector<QuasiIdentifier>& qis);

class ReleaseCheck {
 public:
  using Kind = Violation::Kind;

  // REQUIRES: the arguments outlive this object.
  ReleaseCheck(const Options& options, const Table& input, const Table& output, const std::vector<Table>& hierarchies,
               const std::vector<Table>& aggregated_hierarchies);

  // columns.cc
  void check_options();        // the options against the input's header
  void bind_hierarchies();     // hier, heights
  void check_output_columns(); // out_col, qi_in, qi_out
  void check_row_count();      // aligned, rows; where input and output part
  // levels.cc
  void mark_starred();
  void check_copied_columns();  // REQUIRES: aligned
  // identifiers.cc
  void check_identifiers();     // REQUIRES: aligned
  void detect_levels();         // REQUIRES: aligned
  void detect_recoded_levels(); // local recoding's (Options::local_recoding); REQUIRES: aligned
  void add_missing_values(std::size_t q, std::uint64_t missing, std::uint64_t first);
  void check_subset();
  void count_suppressed();
  // verify_microaggregation.cc
  void check_microaggregated();
  // classes.cc
  void group_classes();
  void check_class_sizes();
  void check_class_requirements();
  void check_k_map();
  // population.cc
  void check_population();
  void check_profitability();
  void check_dataset_risk();

  // Sets each violation's line of the output file; returns the report.
  Report finish();

  Report report;

 private:
  struct ClassInfo {
    std::uint64_t size = 0;
    std::size_t first_row = 0;
    std::vector<Distribution> distributions;  // per class requirement
  };
  struct Population {
    std::uint64_t records = 0, subset = 0;
    std::size_t first_row = 0;
  };

  void add(Kind kind, std::string column, std::uint64_t row, std::uint64_t count, std::string message);
  int out_index(const std::string& name) const;
  // Whether row r lies outside the research subset.
  bool outside(std::size_t r) const;
  // The records output row r stands for (Table::weights).
  std::uint64_t weight(std::size_t r) const { return output.weights.empty() ? 1 : output.weights[r]; }

  const Options& options;
  const Table& input;
  const Table& output;
  const std::vector<Table>& hierarchies;
  const std::vector<Table>& aggregated_hierarchies;
  const std::vector<QuasiIdentifier>& qis;
  const std::vector<Microaggregated>& micro;
  const std::set<std::string> identifying;
  const std::set<std::string> released;  // identifying columns released by an action

  std::map<std::string, int> in_col, out_col;
  std::set<std::string> qi_names;  // quasi-identifying and microaggregated
  // Per quasi-identifier: original value → its hierarchy row (level l value = row[l]).
  std::vector<std::unordered_map<std::string, const std::vector<std::string>*>> hier;
  std::vector<int> heights;
  std::vector<int> qi_in, qi_out;
  // Rows are compared position by position, so only when the counts agree.
  bool aligned = false;
  std::size_t rows = 0;  // of the output
  std::uint64_t records = 0;  // the output's rows counted with their weights
  // A row is starred when every quasi-identifier in the output is '*'.
  std::vector<char> starred;
  const bool with_subset;
  std::uint64_t subset_records = 0;
  std::vector<char> suppressed;
  bool all_levels = false;  // a level was detected for every quasi-identifier
  std::vector<int> micro_out;
  // The tuple an attacker sees: the quasi-identifiers and the microaggregated columns.
  std::vector<int> tuple_out;
  std::vector<int> req_out;
  std::vector<Distribution> overall;
  std::map<std::string, ClassInfo> classes;
  std::map<std::string, Population> population;
};

}  // namespace verify
