// Reading and writing CSV files (RFC 4180).
//
// The reader accepts quoted fields with embedded delimiters, quotes ("") and
// line breaks, CRLF, LF or CR line ends, and UTF-8 with or without a
// byte-order mark. Blank lines (outside quotes) are skipped. Spaces are part
// of a field, as RFC 4180 says. Unless CsvOptions::ragged is set, every record
// must have as many fields as the first one.
//
// Errors: text that is not UTF-8, a quote inside an unquoted field, a
// character after a closing quote, an unterminated quoted field and a record
// with too few or too many fields throw InputError whose Location names the
// file, the physical line on which the record starts and the 1-based field
// number (with the header name when CsvOptions::header is set); the message
// adds the exact line and character when they differ.
//
// Not thread-safe per call (the callback runs on the caller's thread); calls
// on different texts may run concurrently. read_dataset (dataset.h) reads
// the same format in parallel, straight into codes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace deid {

struct CsvOptions {
  // Field delimiter; detected from the first record when empty. Must not be
  // '"', CR or LF.
  std::optional<char> delimiter;
  // The first record is a header: field-count errors then name the column
  // (as in "field 4 ('salary') is missing").
  bool header = false;
  // Records may have different numbers of fields; the caller checks them
  // (hierarchies do, to word the error in their own terms).
  bool ragged = false;
};

// One record as the reader hands it over. The views are valid only during
// the callback.
struct CsvRecord {
  std::span<const std::string_view> fields;
  std::uint64_t line = 0;    // physical line (1-based) on which the record starts
  std::uint64_t index = 0;   // 0 for the first record (the header, if any)
};

// Guesses the delimiter from the first record of `sample` (a leading BOM is
// skipped): the candidate among ';' ',' '\t' '|' that occurs most often
// outside quotes, the earlier one in that list on a tie. Returns ',' when none
// occurs (a one-column file).
char detect_delimiter(std::string_view sample);

// Streams the records of the file at `path` to `on_record`. Returns the
// delimiter used. Throws IoError when the file cannot be read and InputError
// on malformed content; an exception thrown by `on_record` propagates
// unchanged (no further record is handed over).
char read_csv(const std::string& path, const CsvOptions& options,
              const std::function<void(const CsvRecord&)>& on_record);

// Same, from a string in memory; `name` is used in error messages.
char read_csv_text(std::string_view text, const std::string& name, const CsvOptions& options,
                   const std::function<void(const CsvRecord&)>& on_record);

// Appends `field` to `out`, quoted per RFC 4180 only when it contains the
// delimiter, a quote, CR or LF, or starts with a UTF-8 byte-order mark
// (quotes inside are doubled). What read_csv reads back is the field
// unchanged.
void append_csv_field(std::string& out, std::string_view field, char delimiter);

}  // namespace deid
