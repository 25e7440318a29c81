// The released table that `deid serve --explore` shows (docs/share.md,
// "The data explorer"): read once, kept in memory, and answered only in
// bounded pieces: a page of rows (sorted and filtered), the frequency
// table of a column, the cross-tabulation of two. No query returns the
// whole table: a page holds at most `max_page_size` rows, a frequency
// table at most `max_categories` values and a cross-tabulation at most
// `max_categories` values a side (the rest summed as one "other" entry).
//
// The table is a de-identified release: counts are shown as they are,
// small ones too. Values are text; a column whose every non-empty value
// is a finite number is numeric (sorted and filtered by value). An empty
// value is missing: sorted last, counted as "" in frequencies.
//
// Immutable after construction: queries may run concurrently.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace deid::serve {

struct ExploreLimits {
  std::size_t max_page_size = 100;
  std::size_t default_page_size = 25;
  std::size_t max_categories = 200;  // values of a frequency table, and per side of a cross-tabulation
  std::size_t max_filters = 32;
  std::size_t max_sort_keys = 8;
};

// A row filter: `op` one of "eq" (the value equals `value`), "has" (it
// contains `value`, case-sensitive), "min" / "max" (a numeric column's value
// is at least / at most `value`; missing values never pass).
struct ExploreFilter {
  std::string op;
  std::string column;
  std::string value;
};

struct ExploreSortKey {
  std::string column;
  bool descending = false;
};

// A query's parameters, each as the URL carries them (explore_server.cc
// turns the query string into these).
struct ExploreQuery {
  std::vector<ExploreFilter> filters;
  std::vector<ExploreSortKey> sort;
  std::size_t offset = 0;
  std::size_t limit = 0;  // 0: the default page size
};

class ExploreTable {
 public:
  // Reads the CSV file (header line first) with deid's reader. Throws
  // InputError / IoError (csv.h) naming the file, line and column, and
  // InputError for a table without columns, with duplicate or empty column
  // names, or without rows.
  ExploreTable(const std::string& path, ExploreLimits limits = {});

  const std::string& name() const { return name_; }
  std::size_t rows() const { return rows_.size(); }
  const ExploreLimits& limits() const { return limits_; }

  // {"name", "rows", "columns": [{"name", "type": "number"|"text",
  // "distinct", "missing"}], "limits": {...}}
  nlohmann::json describe() const;
  // {"total" (rows passing the filters), "offset", "limit", "columns",
  // "rows": [[...], ...]}: the rows passing the filters, sorted by the keys
  // in order (then by their order in the file: the sort is stable), from
  // `offset`, at most `limit`.
  nlohmann::json page(const ExploreQuery& query) const;
  // {"column", "total", "values": [{"value", "count", "share"}], "other":
  // {"values", "count"} | null}: the rows passing the filters counted by
  // the value of `column`, most frequent first (then by value); shares of
  // `total`.
  nlohmann::json frequencies(const std::string& column, const ExploreQuery& query) const;
  // {"row", "column", "total", "row_values", "column_values", "counts":
  // [[...]], "row_totals", "column_totals", "other_row", "other_column"}:
  // counts of the rows passing the filters by both values; each side's
  // values most frequent first, those beyond max_categories lumped into a
  // last "(other)" row or column.
  nlohmann::json crosstab(const std::string& row, const std::string& column, const ExploreQuery& query) const;

  // Thrown for a query the table cannot answer (an unknown column, a bad
  // number, a page too large); explore_server.cc answers it with 400.
  class QueryError : public std::runtime_error {
   public:
    using std::runtime_error::runtime_error;
  };

 private:
  std::size_t column_index(const std::string& column) const;
  std::vector<std::size_t> selected(const ExploreQuery& query) const;  // rows passing the filters, in file order
  // (value index, count) of `column` over `rows`, most frequent first.
  std::vector<std::pair<std::size_t, std::size_t>> counted(std::size_t column,
                                                          const std::vector<std::size_t>& rows) const;

  std::string name_;
  ExploreLimits limits_;
  std::vector<std::string> columns_;
  std::vector<bool> numeric_;
  // Per column: the distinct values (sorted), and per row the index of its
  // value, so that counting, equality and sorting work on integers.
  std::vector<std::vector<std::string>> values_;
  std::vector<std::vector<double>> numbers_;  // per column, per distinct value (numeric columns)
  std::vector<std::vector<std::uint32_t>> rows_;  // rows_[r][c]: index into values_[c]
};

}  // namespace deid::serve
