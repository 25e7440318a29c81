// Reading and writing CSV files (RFC 4180).
//
// The reader accepts quoted fields with embedded delimiters, quotes ("") and
// line breaks, CRLF or LF line ends, and UTF-8 with or without a byte-order
// mark. Blank lines are skipped. Every record must have as many fields as the
// first one; a record that does not, or a malformed quote, throws InputError
// naming the file, line and column.
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
  // Field delimiter; detected from the first record when empty.
  std::optional<char> delimiter;
};

// One record as the reader hands it over. The views are valid only during
// the callback.
struct CsvRecord {
  std::span<const std::string_view> fields;
  std::uint64_t line = 0;    // physical line (1-based) on which the record starts
  std::uint64_t index = 0;   // 0 for the first record (the header, if any)
};

// Guesses the delimiter from the first record of `sample`: the candidate among
// ';' ',' '\t' '|' that occurs most often outside quotes. Returns ',' when
// none occurs.
char detect_delimiter(std::string_view sample);

// Streams the records of the file at `path` to `on_record`. Returns the
// delimiter used. Throws IoError when the file cannot be read and InputError
// on malformed content.
char read_csv(const std::string& path, const CsvOptions& options,
              const std::function<void(const CsvRecord&)>& on_record);

// Same, from a string in memory; `name` is used in error messages.
char read_csv_text(std::string_view text, const std::string& name, const CsvOptions& options,
                   const std::function<void(const CsvRecord&)>& on_record);

// Appends `field` to `out`, quoted per RFC 4180 when it contains the
// delimiter, a quote, CR or LF.
void append_csv_field(std::string& out, std::string_view field, char delimiter);

}  // namespace deid
