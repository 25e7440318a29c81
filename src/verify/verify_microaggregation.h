// The verifier's check of microaggregated columns (verify.h): the released
// value of every record that is not suppressed must be its class's
// aggregate of the input values, as docs/job-file.md defines the functions.
// Written apart from the engine (src/transform/microaggregation.cc) and
// compared by value, not by text: an integer column's aggregate rounded
// half up (either neighbour when the exact value is within 1e-9 of a half),
// a decimal column's within a relative 1e-9, mode any most frequent value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace verify {

// A microaggregated quasi-identifier of the job.
struct Microaggregated {
  std::string name;
  std::string function;        // mean | median | mode | geometric-mean | interval
  std::string hierarchy_path;  // generalized before aggregation: its hierarchy; empty otherwise
};

// Whether `function` is one of the five.
bool known_aggregation_function(const std::string& function);

// The records whose released value is wrong, when the classes are
// `group[r]` (records with equal keys form a class; rows with skip[r] set
// are left out): their number, the first (0-based) and why.
struct AggregateErrors {
  std::uint64_t wrong = 0;
  std::size_t first_row = 0;
  std::string why;
};
AggregateErrors check_aggregates(const Microaggregated& m, const std::vector<std::string>& input,
                                 const std::vector<std::string>& released, const std::vector<std::string>& group,
                                 const std::vector<char>& skip);

}  // namespace verify
