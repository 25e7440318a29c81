// The released table of a cell-suppression job (cell_suppression_bound.h):
// its columns, written as CSV or kept in memory as codes and labels.
#include <fmt/format.h>

#include "deid/csv.h"
#include "deid/formulas.h"
#include "deid/output.h"
#include "transform/cell_suppression_bound.h"

namespace deid::detail {

// The label of a released cell.
const std::string& label(const Bound& b, std::size_t column, std::uint32_t code) {
  const ReleaseAttribute& a = b.attributes[b.plan.column_attribute[column]];
  if (a.hierarchy) return a.hierarchy->label(b.plan.column_level[column], code);
  return a.column->dictionary.value(code);
}

std::vector<OutColumn> output_columns(const Bound& b, const CellTable& t) {
  std::vector<OutColumn> plan;
  for (std::size_t c = 0; c < b.data.columns.size(); ++c) {
    if (b.roles[c] == Role::identifying) continue;
    if (b.roles[c] != Role::quasi_identifying) {
      plan.push_back({static_cast<int>(c), 0});
      continue;
    }
    std::size_t qi = 0;
    while (b.qi_columns[qi] != static_cast<int>(c)) ++qi;
    for (std::size_t tc = 0; tc < t.columns(); ++tc)
      if (b.plan.column_attribute[tc] == qi) plan.push_back({-1, tc});
  }
  return plan;
}

// The released table as columns of codes and labels (CellSuppressionTables).
std::vector<CellSuppressionTables::Column> released_columns(const Bound& b, const CellTable& t,
                                                            const std::string& marker, bool escape) {
  auto text = [&](const std::string& l) { return escape && looks_like_formula(l) ? "'" + l : l; };
  std::vector<CellSuppressionTables::Column> out;
  for (const OutColumn& o : output_columns(b, t)) {
    CellSuppressionTables::Column c;
    if (o.data_column >= 0) {
      const Column& col = b.data.columns[static_cast<std::size_t>(o.data_column)];
      c.name = col.name;
      c.input_column = o.data_column;
      c.codes = col.codes;
      for (std::uint32_t v = 0; v < col.dictionary.size(); ++v) c.labels.push_back(text(col.dictionary.value(v)));
    } else {
      c.name = t.names[o.table_column];
      const std::uint32_t n = t.cardinality[o.table_column];
      for (std::uint32_t v = 0; v < n; ++v) c.labels.push_back(text(label(b, o.table_column, v)));
      c.labels.push_back(text(marker));
      const auto& codes = t.codes[o.table_column];
      c.codes = Codes(codes.size(), code_width(n + 1));
      c.codes.visit_mut([&](auto dst) {
        using T = typename decltype(dst)::value_type;
        for (std::size_t r = 0; r < codes.size(); ++r) dst[r] = static_cast<T>(codes[r] == kSuppressedCell ? n : codes[r]);
      });
    }
    out.push_back(std::move(c));
  }
  return out;
}

void write_table(const Bound& b, const CellTable& t, const std::string& marker, char delim, bool escape,
                 std::ostream& out, const std::vector<std::uint64_t>* rows) {
  auto field = [&](std::string& line, const std::string& value) { append_output_field(line, value, delim, escape); };
  const std::vector<OutColumn> plan = output_columns(b, t);
  std::string line;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (i) line.push_back(delim);
    append_csv_field(line, plan[i].data_column >= 0 ? b.data.columns[static_cast<std::size_t>(plan[i].data_column)].name
                                                    : t.names[plan[i].table_column],
                     delim);
  }
  line.push_back('\n');
  out << line;
  const std::uint64_t n = rows ? rows->size() : t.rows;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t r = rows ? (*rows)[i] : i;
    line.clear();
    for (std::size_t j = 0; j < plan.size(); ++j) {
      if (j) line.push_back(delim);
      if (plan[j].data_column >= 0) {
        const Column& col = b.data.columns[static_cast<std::size_t>(plan[j].data_column)];
        field(line, col.dictionary.value(col.codes[r]));
      } else {
        const std::uint32_t code = t.codes[plan[j].table_column][r];
        field(line, code == kSuppressedCell ? marker : label(b, plan[j].table_column, code));
      }
    }
    line.push_back('\n');
    out << line;
  }
}

}  // namespace deid::detail
