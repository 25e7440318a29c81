// Linked tables (docs/identifiers.md, "Linked tables"): further tables of
// the people in the job's table (admissions, lab results), joined to it by
// the person column and released with the same pseudonyms and date
// offsets, their quasi-identifying columns at the levels the search chose.
// Plain data; the job parser fills it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deid/attribute_spec.h"

namespace deid {

// A column of a linked table: identifying (released by its `action`, as in
// the job's table), quasi-identifying (generalized like the job's
// quasi-identifier `as`, at the level the search chose for it) or
// insensitive (released as it is).
struct LinkedColumn {
  std::string name;
  Role role = Role::insensitive;
  std::string as;                 // quasi-identifying: the job's attribute whose hierarchy and level apply
  IdentifierActionSpec identifier;  // identifying: what it is released as
  std::uint64_t line = 0;         // in the job file
};

struct LinkedTable {
  std::string name;    // names it in messages and the result (default: the file's stem)
  std::string path;    // CSV, resolved against the job's directory
  std::optional<char> delimiter;  // of `path`; default: detected like the input's
  std::string key;     // its column that holds the person (identifiers.person's values)
  std::string output;  // where its release is written; resolved like `path`
  // Rows of a person the release suppressed: kept with their
  // quasi-identifying cells suppressed, or left out.
  enum class Suppressed { keep, drop };
  Suppressed suppressed = Suppressed::keep;
  // Rows whose key names no person of the job's table: an error, or left
  // out (and counted in the result).
  enum class Orphans { error, drop };
  Orphans orphans = Orphans::error;
  std::vector<LinkedColumn> columns;  // every column but the key
  std::uint64_t line = 0;             // of its entry in the job file
};
const char* to_string(LinkedTable::Suppressed s);
const char* to_string(LinkedTable::Orphans o);

}  // namespace deid
