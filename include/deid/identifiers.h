// Identifiers that stay linkable (docs/identifiers.md): keyed pseudonyms,
// masks and per-person date shifts of identifying attributes, and the
// released columns they make.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "deid/formulas.h"
#include "deid/identifier_spec.h"

namespace deid {

struct Job;
struct Dataset;

// Whether the job releases an identifying attribute (an `action` other
// than remove).
bool releases_identifiers(const Job& job);

// HMAC-SHA-256 of `message` under `key` (RFC 2104 with SHA-256, OpenSSL).
std::array<unsigned char, 32> hmac_sha256(std::string_view key, std::string_view message);

// HMAC-SHA-256 under one key, for many messages: the key's padded blocks
// are digested once (OpenSSL's EVP_MAC, re-initialized without the key),
// which halves the time per short message against hmac_sha256 (see
// bench/identifiers_bench.cc). One object per thread.
class Hmac {
 public:
  explicit Hmac(std::string_view key);
  ~Hmac();
  Hmac(const Hmac&) = delete;
  Hmac& operator=(const Hmac&) = delete;
  std::array<unsigned char, 32> operator()(std::string_view message);

 private:
  struct State;
  std::unique_ptr<State> state_;
};
std::string to_hex(const unsigned char* bytes, std::size_t n);

// The secret of a job's `identifiers` section, read from its file or
// environment variable (trailing "\r" and "\n" removed). Throws JobError at
// the `secret` key when the file cannot be read, the variable is unset, or
// the secret is shorter than 16 bytes.
struct Secret {
  std::string bytes;
  // The first 16 hexadecimal digits of SHA-256("deid secret fingerprint" 0x00
  // secret): names the secret in results without revealing it.
  std::string fingerprint;
  std::string source;  // "file PATH" or "environment variable NAME"
  // Set when the file can be read by its group or by others.
  std::optional<std::string> warning;
};
Secret load_secret(const Job& job);

// The first `length` hexadecimal digits (lower case) of
// HMAC-SHA-256(secret, value); the second form with the secret's Hmac.
std::string pseudonym(std::string_view secret, std::string_view value, int length);
std::string pseudonym(Hmac& keyed, std::string_view value, int length);

// The whole days, uniform in [-shift_days, shift_days], that the dates of
// `person` move: the first 8 bytes of HMAC-SHA-256(secret, "deid date
// shift" 0x00 person), big-endian, modulo 2 shift_days + 1, less
// shift_days.
int date_offset(std::string_view secret, std::string_view person, int shift_days);
int date_offset(Hmac& keyed, std::string_view person, int shift_days);

// A mask (MaskSpec) ready to apply.
class Masker {
 public:
  explicit Masker(const MaskSpec& spec);  // throws std::regex_error for a bad regex
  std::string operator()(std::string_view value) const;

 private:
  MaskSpec spec_;
  std::optional<std::regex> regex_;
};

// Dates written with %Y (four digits), %m, %d (two digits each) and
// literal characters. A value may go on after the date with a space or a
// "T" and anything after it (a time of day), which is kept as it is.
class DateFormat {
 public:
  explicit DateFormat(std::string format);  // throws std::invalid_argument naming the problem
  // Days since 1970-01-01, or nullopt when `value` is not such a date; `rest`
  // gets what follows the date.
  std::optional<std::int64_t> parse(std::string_view value, std::string* rest = nullptr) const;
  std::string format(std::int64_t days) const;  // throws std::out_of_range outside years 1 to 9999

 private:
  std::string format_;
};

// The index in `data` of the job's identifiers.person column (the person
// whose dates move together). Throws JobError at the identifiers section
// when it is not a column of `data`.
std::size_t person_column(const Job& job, const Dataset& data);

// What a front end that holds the rows elsewhere counted of one released
// identifying column (deid.spark, on Spark's executors, with the values
// IdentifierRelease gives): the column's distinct input values, and of
// their released values those a spreadsheet would run as formulas.
struct CountedIdentifier {
  std::string name;
  std::uint64_t distinct_values = 0;
  FormulaCount formulas;
};

// The released identifying columns of a job's data: every identifying
// attribute with an action other than remove, its values computed once
// (per distinct value; per row for date shifts). Throws JobError for a bad
// secret or mask, InputError (data file, line, column) for a date that
// does not parse, a date whose person is empty, or two values of a
// column whose pseudonyms collide (naming both lines).
class IdentifierRelease {
 public:
  // `secret`: the secret already read (the job's table's, for a linked
  // table), else it is read from the job.
  IdentifierRelease(const Job& job, const Dataset& data, const Secret* secret = nullptr);
  // For a table grouped where it lives (Dataset::grouped), whose released
  // values are computed there: `counted` has one entry per released
  // attribute, in the job's order. Such a release has the summary and the
  // warnings, not the values: value(), distinct_values() and
  // write_linkage() are for one built from the rows. Throws JobError when
  // identifiers.person is not a column for a date shift.
  IdentifierRelease(const Job& job, const Dataset& grouped, const Secret& secret,
                    const std::vector<CountedIdentifier>& counted);
  ~IdentifierRelease();

  const Secret& secret() const { return secret_; }

  // Whether column `c` of the data is released transformed.
  bool released(std::size_t c) const;
  bool empty() const { return columns_.empty(); }
  // The released value of column `c` (released()) in row `row`.
  std::string value(std::size_t c, std::uint64_t row) const;
  // The released values of column `c` (released()) per code of the column,
  // for pseudonyms and masks; null for date shifts.
  const std::vector<std::string>* distinct_values(std::size_t c) const;
  // Of a release built from counts: the formulas counted in column `c`
  // (released()); null for one built from the rows.
  const FormulaCount* counted_formulas(std::size_t c) const;
  // The result's "identifiers" section: the secret's fingerprint, each
  // column's action, the person column and the shift's range.
  nlohmann::json summary() const;
  // Warnings for the result (a secret file others can read).
  std::vector<std::string> warnings() const;
  // The linkage table: "column,value,pseudonym", each pseudonymized value
  // once per column, in order of first appearance.
  void write_linkage(std::ostream& out, char delimiter) const;

 private:
  struct ColumnRelease;
  const Dataset* data_;
  bool counted_ = false;  // built from counts (a grouped table): no values
  Secret secret_;
  std::string person_;
  int shift_days_ = 0;
  std::vector<std::unique_ptr<ColumnRelease>> columns_;
  std::vector<int> by_column_;  // per data column: index into columns_, or -1
  std::size_t person_column_ = 0;
  std::vector<std::int32_t> person_offsets_;  // per code of the person column (date shifts)
};

}  // namespace deid
