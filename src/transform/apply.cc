#include <absl/container/flat_hash_map.h>

#include <ostream>
#include <stdexcept>

#include "deid/csv.h"
#include "deid/formulas.h"
#include "deid/identifiers.h"
#include "deid/output.h"
#include "deid/pipeline.h"
#include "transform/microaggregation.h"

namespace deid {

bool row_suppressed(const PreparedJob& p, const Classes& classes, std::uint64_t row) {
  const Problem& pr = p.problem;
  // A record outside the research subset is suppressed (ARX's
  // HashGroupify.performSuppression).
  return classes.suppressed[classes.entry_class[pr.histogram.row_entry[row]]] != 0 ||
         (!pr.subset.empty() && !pr.subset[row]);
}

ReleasedAggregates released_aggregates(const PreparedJob& p, const Classes& classes, const LocalRecodingOutcome* local,
                                       std::size_t m) {
  const Problem& pr = p.problem;
  const MicroaggregatedAttribute& attribute = pr.microaggregated.at(m);
  ReleasedAggregates out;
  absl::flat_hash_map<std::string, std::uint32_t> index;
  const auto intern = [&](const std::string& label) {
    const auto [it, fresh] = index.try_emplace(label, static_cast<std::uint32_t>(out.labels.size()));
    if (fresh) out.labels.push_back(label);
    return it->second;
  };
  const std::uint32_t star = intern("*");
  // Per class of each pass (0: the global transformation's), its label's index.
  std::vector<std::vector<std::uint32_t>> code_of(1 + (local ? local->passes.size() : 0));
  for (const std::string& label : microaggregation::class_labels(attribute, pr.histogram, classes, pr.subset))
    code_of[0].push_back(intern(label));
  for (std::size_t i = 1; i < code_of.size(); ++i)
    if (!local->passes[i - 1].aggregates.empty())  // a pass without a solution has none
      for (const std::string& label : local->passes[i - 1].aggregates[m]) code_of[i].push_back(intern(label));
  out.codes.resize(p.data.rows);
  for (std::uint64_t r = 0; r < p.data.rows; ++r) {
    const std::uint32_t pass = local ? local->row_pass[r] : 0;
    if (local ? pass == LocalRecodingOutcome::kSuppressed : row_suppressed(p, classes, r))
      out.codes[r] = star;
    else if (pass == 0)
      out.codes[r] = code_of[0][classes.entry_class[pr.histogram.row_entry[r]]];
    else
      out.codes[r] = code_of[pass][local->row_class[r]];
  }
  return out;
}

void write_output(const PreparedJob& p, const Transformation& t, const Classes& classes, std::ostream& out,
                  const LocalRecodingOutcome* local) {
  const Dataset& ds = p.data;
  const Problem& pr = p.problem;
  // A grouped table (Dataset::weights) has no rows to write: its database
  // writes the release (write_pushdown).
  if (ds.grouped()) throw std::logic_error("write_output: the input was grouped in its database");
  const char delim = p.job.output.delimiter.value_or(ds.delimiter);

  // Per released column: the quasi-identifier index, -2 (copied), -1 (an
  // identifying column released by its action), or -3 - m for
  // microaggregated attribute m (generalized or not).
  std::vector<int> plan;
  std::vector<std::size_t> kept;
  for (std::size_t c = 0; c < ds.columns.size(); ++c) {
    if (!p.written(c)) continue;
    int qi = p.roles[c] == Role::identifying ? -1 : -2;
    for (std::size_t q = 0; q < pr.qi_columns.size(); ++q)
      if (pr.qi_columns[q] == static_cast<int>(c)) qi = static_cast<int>(q);
    for (std::size_t m = 0; m < pr.microaggregated.size(); ++m)
      if (pr.microaggregated[m].column == static_cast<int>(c)) qi = -3 - static_cast<int>(m);
    kept.push_back(c);
    plan.push_back(qi);
  }
  // Each microaggregated attribute's value per row.
  std::vector<ReleasedAggregates> aggregates;
  for (std::size_t m = 0; m < pr.microaggregated.size(); ++m)
    aggregates.push_back(released_aggregates(p, classes, local, m));

  // With output.escape-formulas, a cell a spreadsheet would run as a
  // formula gets a leading "'" (docs/reliability.md); otherwise every value
  // is written as it is.
  const bool escape = p.job.output.escape_formulas;
  auto field = [&](std::string& out, const std::string& value) { append_output_field(out, value, delim, escape); };

  // Generalized labels are looked up per class, not per row.
  std::string line;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i) line.push_back(delim);
    append_csv_field(line, ds.columns[kept[i]].name, delim);
  }
  // Local recoding's column naming each record's pass, last.
  const std::string* pass_column =
      local && !p.job.local_recoding->column.empty() ? &p.job.local_recoding->column : nullptr;
  if (pass_column) {
    if (!kept.empty()) line.push_back(delim);
    append_csv_field(line, *pass_column, delim);
  }
  line.push_back('\n');
  out << line;

  const std::uint32_t w = classes.width;
  for (std::uint64_t r = 0; r < ds.rows; ++r) {
    line.clear();
    const std::uint32_t cls = classes.entry_class[pr.histogram.row_entry[r]];
    // With local recoding the record's pass decides: its transformation
    // generalizes the record's own values (a later pass's classes are not
    // those of the global transformation).
    const std::uint32_t pass = local ? local->row_pass[r] : 0;
    const bool suppressed = local ? pass == LocalRecodingOutcome::kSuppressed : row_suppressed(p, classes, r);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (i) line.push_back(delim);
      const Column& col = ds.columns[kept[i]];
      if (plan[i] >= 0) {
        const auto q = static_cast<std::size_t>(plan[i]);
        if (suppressed) {
          line.push_back('*');
        } else if (pass == 0) {
          field(line, pr.hierarchies[q].label(t[q], classes.keys[cls * w + q]));
        } else {
          const int level = local->transformation(pass, t)[q];
          const std::uint32_t code = pr.histogram.keys[std::size_t{pr.histogram.row_entry[r]} * pr.histogram.width + q];
          field(line, pr.hierarchies[q].label(level, pr.hierarchies[q].map(level)[code]));
        }
      } else if (plan[i] <= -3) {
        const ReleasedAggregates& a = aggregates[static_cast<std::size_t>(-3 - plan[i])];
        if (suppressed) {
          line.push_back('*');
        } else {
          field(line, a.labels[a.codes[r]]);
        }
      } else if (plan[i] == -1) {
        field(line, p.identifiers->value(kept[i], r));
      } else {
        field(line, col.dictionary.value(col.codes[r]));
      }
    }
    if (pass_column) {
      if (!kept.empty()) line.push_back(delim);
      if (suppressed)
        line.push_back('*');
      else
        line += std::to_string(pass);
    }
    line.push_back('\n');
    out << line;
  }
}

}  // namespace deid
