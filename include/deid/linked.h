// Linked tables (docs/identifiers.md, "Linked tables"): a further table of
// the job's people read, joined to the job's table by the person column,
// checked, and written with the same pseudonyms and date offsets and its
// quasi-identifying columns at the levels the search chose.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "deid/dataset.h"
#include "deid/digest.h"
#include "deid/job.h"
#include "deid/lattice.h"

namespace deid {

struct PreparedJob;
struct Classes;
class IdentifierRelease;

class LinkedRelease {
 public:
  // Reads the table of `spec` and checks everything that does not depend on
  // the transformation, before the search: its columns (each but the key
  // given a role), the person column (unique in the job's table, released
  // as a pseudonym, a mask or as it is), every key (names a person, unless
  // orphans: drop), every quasi-identifying value (in its hierarchy), and
  // its pseudonyms, masks and date shifts (as IdentifierRelease). Throws
  // JobError, InputError (file, line, column) and IoError. `p` must outlive
  // the object.
  LinkedRelease(const PreparedJob& p, const LinkedTable& spec);
  ~LinkedRelease();
  LinkedRelease(const LinkedRelease&) = delete;
  LinkedRelease& operator=(const LinkedRelease&) = delete;

  const LinkedTable& spec() const { return spec_; }
  // The table's file, as read ("linked input").
  FileDigest input_digest() const;

  // Writes the release for transformation `t` with `classes` (the job's
  // chosen one): the key and every column not removed, in the file's
  // order; rows in the file's order, less orphans and (suppressed: drop)
  // the rows of suppressed people.
  void write(const Transformation& t, const Classes& classes, std::ostream& out);
  // The result's entry for the table (after write()).
  nlohmann::json summary() const;
  // Warnings for the result: cells a spreadsheet would run as formulas.
  std::vector<std::string> warnings() const;

 private:
  void place_missing(std::size_t c, const LinkedColumn& s, const std::vector<std::uint32_t>& codes);
  const std::string& label(std::size_t c, int level, std::uint32_t code) const;

  const PreparedJob& p_;
  LinkedTable spec_;
  Dataset data_;
  std::size_t key_ = 0;              // the key column of data_
  std::vector<std::int64_t> person_; // per code of the key: the job table's row, or -1
  std::size_t person_column_ = 0;    // of the job's table
  // Per column of data_: what it is released as.
  enum class Plan { key, copied, removed, released, generalized };
  std::vector<Plan> plan_;
  std::vector<std::size_t> qi_;                   // per column: the quasi-identifier (generalized)
  // Per column: its code -> the hierarchy's level-0 code, or kPlaced | i:
  // row i of placed_ (a value an inline hierarchy placed by itself).
  std::vector<std::vector<std::uint32_t>> leaf_;
  static constexpr std::uint32_t kPlaced = 0x80000000u;
  std::vector<std::vector<std::string>> placed_;
  Job released_job_;                              // the actions of the identifying columns (and the key)
  std::unique_ptr<IdentifierRelease> released_;
  std::uint64_t written_ = 0, suppressed_kept_ = 0, suppressed_dropped_ = 0, orphans_ = 0;
  std::vector<int> levels_;  // per column: the level written (generalized), after write()
};

}  // namespace deid
