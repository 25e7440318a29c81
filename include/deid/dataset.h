// A table whose columns are dictionary-encoded once into dense codes.
//
// Every distinct value of a column gets a code 0..n-1 in order of first
// appearance in the file, so encoding is deterministic (and the same for any
// number of threads). The engine works on codes only; strings are needed
// again only when the output is written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "deid/csv.h"

namespace deid {

// Maps distinct strings to dense codes and back. Not thread-safe for writes.
// Each value is stored once: the index is a hash set of codes that hashes
// and compares through the values.
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

// The codes of one column, one per row, stored in the narrowest unsigned type
// that holds them (1, 2 or 4 bytes): the widest code decides. Reading a code
// through operator[] or iteration costs a branch on the width; loops over
// many rows use visit(), which hands the storage over as a typed span.
class Codes {
 public:
  Codes() = default;
  // `n` codes, all 0, each `width` bytes wide (1, 2 or 4).
  Codes(std::size_t n, unsigned width);

  std::size_t size() const;
  bool empty() const { return size() == 0; }
  unsigned width() const { return static_cast<unsigned>(std::size_t{1} << storage_.index()); }
  std::uint32_t operator[](std::size_t row) const {
    switch (storage_.index()) {
      case 0: return std::get<0>(storage_)[row];
      case 1: return std::get<1>(storage_)[row];
      default: return std::get<2>(storage_)[row];
    }
  }
  // Appends `code`, widening the storage when it does not fit.
  void push_back(std::uint32_t code);
  // Makes the storage at least `width` bytes wide (copies the codes) and
  // reserves room for `rows` codes.
  void widen(unsigned width, std::size_t rows = 0);
  void resize(std::size_t n);
  void clear() { storage_ = {}; }
  std::vector<std::uint32_t> to_vector() const;

  // Calls f(std::span<const T>) with the codes, T being std::uint8_t,
  // std::uint16_t or std::uint32_t; returns what f returns.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit([&](const auto& v) { return f(std::span(v.data(), v.size())); }, storage_);
  }
  // Same with a mutable span (to fill codes in place).
  template <class F>
  decltype(auto) visit_mut(F&& f) {
    return std::visit([&](auto& v) { return f(std::span(v.data(), v.size())); }, storage_);
  }

  // Value iteration (by copy), for loops where speed does not matter.
  class const_iterator {
   public:
    using value_type = std::uint32_t;
    using difference_type = std::ptrdiff_t;
    const_iterator() = default;
    const_iterator(const Codes* c, std::size_t i) : c_(c), i_(i) {}
    std::uint32_t operator*() const { return (*c_)[i_]; }
    const_iterator& operator++() { ++i_; return *this; }
    const_iterator operator++(int) { auto t = *this; ++i_; return t; }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
   private:
    const Codes* c_ = nullptr;
    std::size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  std::variant<std::vector<std::uint8_t>, std::vector<std::uint16_t>, std::vector<std::uint32_t>> storage_;
};

// Bytes per code needed for a dictionary of `n` values: 1, 2 or 4.
unsigned code_width(std::uint32_t n);

// One encoded column.
struct Column {
  std::string name;
  Dictionary dictionary;
  Codes codes;                            // one per row
  std::vector<std::uint64_t> first_line;  // per code: the file line where it first occurs
};

// The file line on which `code` of `column` first occurs, or 0 when the
// column carries no lines (a table grouped in its database).
inline std::uint64_t first_line_of(const Column& column, std::uint32_t code) {
  return code < column.first_line.size() ? column.first_line[code] : 0;
}

// An encoded table: a header and one column per field.
struct Dataset {
  std::string source;  // file name, for messages
  char delimiter = ',';
  std::vector<Column> columns;
  std::uint64_t rows = 0;
  // Of a table read from a file: the SHA-256 (hex) and size of the bytes
  // read; empty and 0 for a text read from memory.
  std::string sha256;
  std::uint64_t bytes = 0;
  // Empty for a table of records (a file, a COPY of a table): each row is
  // one record. Set for a table grouped where it lives (docs/databases.md,
  // "Pushdown"): row r is weights[r] identical records, and only the
  // grouped columns have codes; the others have a name, no codes and a
  // dictionary that holds at most the values formula_warnings (output.h)
  // must see. Such a table is searched like any other (its histogram has
  // the same entries and counts as the records'), but its rows cannot be
  // written out one per record: the database writes the release.
  std::vector<std::uint64_t> weights;
  // Of a grouped table: its records (the sum of the weights), 0 otherwise.
  // It stays when release_grouped_rows() has freed the weights and codes.
  std::uint64_t grouped_records = 0;

  bool grouped() const { return grouped_records > 0; }
  // The number of records: rows, or the sum of the weights.
  std::uint64_t records() const { return grouped() ? grouped_records : rows; }
  // Of a grouped table, once its histogram is built (prepare): frees the
  // rows' codes and weights, which nothing reads afterwards (the database
  // writes the release), so that the search's memory is the histogram's
  // (docs/databases.md, "Memory"). The dictionaries stay.
  void release_grouped_rows();
  // Index of the column named `name`, or -1.
  int column_index(std::string_view name) const;
  // For a message about a name column_index() did not find: "is not a
  // column of SOURCE", then why: when the header was read as one column
  // that holds a likely delimiter, that input.delimiter is wrong (and
  // which to set); else the columns there are (the first 20).
  std::string not_a_column() const;
};

// Reads and encodes a CSV file (csv.h) whose first record is a header row of
// unique, non-empty column names, followed by at least one data record.
// Throws IoError when the file cannot be read and InputError (file, line,
// column) for an empty file, a header without data records, an empty or
// duplicate column name, or malformed CSV. `options.header` and
// `options.ragged` are ignored (always a header, never ragged). Errors are
// the ones read_csv reports, with the same priority (invalid UTF-8 anywhere
// in the file wins over any other error).
//
// The file is read in blocks of whole records; each block is cut into
// pieces that are parsed and encoded in parallel (oneTBB) and merged in file
// order, so codes, dictionaries and first lines do not depend on the number
// of threads. Memory: a block of text plus the codes, not the whole file.
Dataset read_dataset(const std::string& path, const CsvOptions& options);
Dataset read_dataset_text(std::string_view text, const std::string& name, const CsvOptions& options);
// Same, from a stream of CSV text: `read(dst, n)` copies up to n bytes into
// dst and returns how many, 0 at the end (a database's COPY output,
// database.h). Exceptions thrown by `read` propagate.
Dataset read_dataset_stream(const std::function<std::size_t(char*, std::size_t)>& read, const std::string& name,
                            const CsvOptions& options);

// The table as CSV text that reads back to the same table: a header, then
// one record per row, each cell quoted only where the CSV format needs it.
// REQUIRES: not grouped (one row per record).
std::string dataset_csv_text(const Dataset& data, char delimiter);

}  // namespace deid
