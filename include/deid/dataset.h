// A table whose columns are dictionary-encoded once into dense codes.
//
// Every distinct value of a column gets a code 0..n-1 in order of first
// appearance, so encoding is deterministic. The engine works on codes only;
// strings are needed again only when the output is written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deid/csv.h"

namespace deid {

// Maps distinct strings to dense codes and back. Not thread-safe for writes.
class Dictionary {
 public:
  Dictionary();
  ~Dictionary();
  Dictionary(Dictionary&&) noexcept;
  Dictionary& operator=(Dictionary&&) noexcept;

  // Returns the code of `value`, adding it when new.
  std::uint32_t intern(std::string_view value);
  // Returns the code of `value`, or -1 when absent.
  std::int64_t find(std::string_view value) const;
  const std::string& value(std::uint32_t code) const { return values_[code]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(values_.size()); }

 private:
  struct Index;
  std::unique_ptr<Index> index_;
  std::vector<std::string> values_;
};

// One encoded column.
struct Column {
  std::string name;
  Dictionary dictionary;
  std::vector<std::uint32_t> codes;       // one per row
  std::vector<std::uint64_t> first_line;  // per code: the file line where it first occurs
};

// An encoded table: a header and one column per field.
struct Dataset {
  std::string source;  // file name, for messages
  char delimiter = ',';
  std::vector<Column> columns;
  std::uint64_t rows = 0;

  // Index of the column named `name`, or -1.
  int column_index(std::string_view name) const;
};

// Reads and encodes a CSV file (csv.h) whose first record is a header row of
// unique, non-empty column names, followed by at least one data record.
// Throws IoError when the file cannot be read and InputError (file, line,
// column) for an empty file, a header without data records, an empty or
// duplicate column name, or malformed CSV. `options.header` and
// `options.ragged` are ignored (always a header, never ragged).
Dataset read_dataset(const std::string& path, const CsvOptions& options);
Dataset read_dataset_text(std::string_view text, const std::string& name, const CsvOptions& options);

}  // namespace deid
