// What becomes of identifying attributes (docs/identifiers.md): removed, or
// released as a keyed pseudonym, a mask or a date shifted per person, and
// the job's `identifiers` section (the secret, the person column, the
// shift). Plain data; the job parser fills it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace deid {

enum class IdentifierAction { remove, pseudonym, mask, date_shift };
const char* to_string(IdentifierAction action);

// Throws std::invalid_argument naming the problem unless `format` writes a
// date with each of %Y, %m and %d exactly once and other characters (%%
// for a "%"): the formats of `action: date-shift`.
void check_date_format(const std::string& format);

// `action: mask`: either keep-first and/or keep-last (every other character
// becomes `symbol`), or digits and/or letters (each ASCII digit, each ASCII
// letter becomes the given symbol), or a regular expression and its
// replacement (ECMAScript syntax, every match replaced; $1... refer to
// groups). Characters are UTF-8 code points.
struct MaskSpec {
  int keep_first = 0, keep_last = 0;
  std::string symbol = "*";
  std::optional<std::string> digits, letters;
  std::optional<std::string> regex;
  std::string replacement;
};

// An identifying attribute's `action` and its parameters.
struct IdentifierActionSpec {
  IdentifierAction action = IdentifierAction::remove;
  int length = 16;                       // pseudonym: hexadecimal digits kept of the HMAC (8 to 64)
  MaskSpec mask;                         // action: mask
  std::string date_format = "%Y-%m-%d";  // date-shift: %Y, %m, %d and literal characters
  std::uint64_t line = 0;                // of the `action` key
};

// The job's `identifiers` section.
struct IdentifiersSpec {
  // The secret key of the HMACs: the bytes of a file (`secret: {file:
  // PATH}`, resolved against the job's directory) or of an environment
  // variable (`secret: {env: NAME}`), trailing "\r" and "\n" removed; never
  // in the job, the result or a log.
  std::string secret_file, secret_env;
  std::uint64_t secret_line = 0;
  std::string person;     // the column that names the person (date shifts)
  int shift_days = 0;     // dates move by a whole number of days in [-shift_days, shift_days]
  std::uint64_t line = 0; // of the section
};

}  // namespace deid
