// Information loss of a cell suppression (papers/003, "Measuring
// Information Loss" and "Distribution of Missingness").

#include <cmath>
#include <stdexcept>

#include "deid/cell_suppression_report.h"

namespace deid {

InformationLoss information_loss(const CellTable& before, const CellTable& after) {
  if (before.columns() != after.columns() || before.rows != after.rows)
    throw std::invalid_argument("information_loss: tables of different shapes");
  InformationLoss loss;
  loss.records = after.rows;
  loss.cells = after.rows * after.columns();
  std::vector<bool> row_hit(after.rows, false);
  const double n = static_cast<double>(after.rows);
  for (std::size_t c = 0; c < after.columns(); ++c) {
    ColumnLoss col;
    col.name = after.names[c];
    // Non-uniform entropy (Gionis and Tassa 2009; papers/003 ref. 95): a
    // published value g of an original value v costs -log2 P(v | g), with
    // P from the original column. The marker stands for every value, so a
    // suppressed cell costs log2(n / count(v)); a kept value costs 0.
    std::vector<std::uint64_t> count(before.cardinality[c], 0);
    for (std::uint32_t v : before.codes[c])
      if (v != kSuppressedCell) ++count[v];
    for (std::uint64_t r = 0; r < after.rows; ++r) {
      if (after.codes[c][r] != kSuppressedCell) continue;
      ++col.suppressed;
      row_hit[r] = true;
      const std::uint32_t v = before.codes[c][r];
      if (v != kSuppressedCell) col.entropy += std::log2(n / static_cast<double>(count[v]));
    }
    col.fraction = after.rows ? static_cast<double>(col.suppressed) / n : 0.0;
    loss.suppressed_cells += col.suppressed;
    loss.entropy += col.entropy;
    loss.columns.push_back(std::move(col));
  }
  for (bool h : row_hit) loss.records_with_suppression += h ? 1 : 0;
  loss.suppressed_cells_fraction = loss.cells ? static_cast<double>(loss.suppressed_cells) / static_cast<double>(loss.cells) : 0.0;
  loss.records_with_suppression_fraction = after.rows ? static_cast<double>(loss.records_with_suppression) / n : 0.0;
  return loss;
}

Missingness missingness(const CellTable& after, std::size_t variable,
                        std::span<const std::uint32_t> by_codes, std::uint32_t by_cardinality) {
  if (variable >= after.columns() || by_codes.size() != after.rows)
    throw std::invalid_argument("missingness: variable out of range or grouping of the wrong length");
  Missingness m;
  m.variable = after.names[variable];
  m.groups.resize(by_cardinality);
  for (std::uint32_t v = 0; v < by_cardinality; ++v) m.groups[v].value = v;
  for (std::uint64_t r = 0; r < after.rows; ++r) {
    const std::uint32_t g = by_codes[r];
    if (g == kSuppressedCell || g >= by_cardinality) continue;
    ++m.groups[g].records;
    if (after.codes[variable][r] == kSuppressedCell) ++m.groups[g].suppressed;
  }
  std::vector<Missingness::Group> kept;
  for (auto& g : m.groups) {
    if (g.records == 0) continue;
    g.fraction = static_cast<double>(g.suppressed) / static_cast<double>(g.records);
    kept.push_back(g);
  }
  m.groups = std::move(kept);
  return m;
}

}  // namespace deid
