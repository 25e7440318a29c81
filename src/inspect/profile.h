// The steps of a column's profile (inspect/): counts per distinct value,
// the values a pattern accepts, the identifiers found and the role.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "deid/dataset.h"
#include "deid/inspect.h"

namespace deid::inspect_detail {

// The cells holding each code of a column (weighted for a grouped table),
// and the code of the empty value (-1 when no cell is empty).
struct ColumnValues {
  std::vector<std::uint64_t> count;
  std::int64_t empty_code = -1;
};
ColumnValues column_values(const Column& column, const std::vector<std::uint64_t>& weights);

// The non-empty values a pattern accepts: cells, distinct values, and the
// first lines (at most 5) where one occurs.
struct PatternCount {
  std::uint64_t cells = 0;
  std::uint64_t distinct = 0;
  std::vector<std::uint64_t> lines;
};
PatternCount count_pattern(const Column& column, const ColumnValues& cv,
                           const std::function<bool(std::string_view)>& match);

// The whole profile of a column but its role.
ColumnProfile profile_column(const Column& column, const std::vector<std::uint64_t>& weights);

// The HIPAA identifiers found by the column's name and values, by
// confidence (highest first). REQUIRES: the counts and the type are set.
std::vector<IdentifierFinding> find_identifiers(const Column& column, const ColumnValues& cv, const ColumnProfile& p);

// Whether a finding is that of ZIP codes by their values.
bool is_zip_finding(const IdentifierFinding& f);

// Sets p.role and p.reason from the findings, the type and the name.
void suggest_role(ColumnProfile& p);

}  // namespace deid::inspect_detail
