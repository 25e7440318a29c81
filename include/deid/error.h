// Typed errors thrown by the deid library.
//
// The library never prints and never exits: it throws one of these. Each
// carries where the problem is (file, line, column, value) so that a user can
// act on the message; the CLI maps the type to an exit code (see
// docs/job-file.md, "Exit codes").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace deid {

// Where in an input file a problem was found. Line and column are 1-based;
// 0 means "not applicable".
struct Location {
  std::string file;
  std::uint64_t line = 0;
  std::uint64_t column = 0;
  std::string column_name;  // header name of the column, when known

  // "file:line:column (column 'name')", omitting what is unknown; empty when
  // nothing is known (the error's message is then the problem alone).
  std::string to_string() const;
};

// " (data line N)" for a message about a value first seen on line N of the
// data, "" when the line is unknown (0: a table grouped in its database).
std::string data_line_note(std::uint64_t line);

// Base of every deid error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Malformed or inconsistent input data: CSV syntax, hierarchies, values
// missing from a hierarchy. Exit code 2.
class InputError : public Error {
 public:
  InputError(Location where, const std::string& problem);
  const Location& where() const { return where_; }
  const std::string& problem() const { return problem_; }

 private:
  Location where_;
  std::string problem_;
};

// A job file that is invalid: unknown keys, wrong types, impossible
// combinations of settings. Exit code 2.
class JobError : public InputError {
 public:
  using InputError::InputError;
};

// A file that cannot be opened, read or written. Exit code 2 for inputs.
class IoError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace deid
