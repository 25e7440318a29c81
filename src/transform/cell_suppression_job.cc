// `deid suppress`: a cell-suppression job from input to output files and the
// JSON result (docs/cell-suppression.md).

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <sstream>

#include "deid/attack_risk.h"
#include "deid/cell_suppression_job.h"
#include "deid/csv.h"
#include "deid/database.h"
#include "deid/error.h"
#include "deid/formula_warnings.h"
#include "deid/formulas.h"
#include "deid/job.h"
#include "deid/output.h"
#include "deid/parquet.h"
#include "deid/pipeline.h"
#include "deid/sampling.h"
#include "transform/cell_suppression_bound.h"
#include "util/release.h"
#include "util/elapsed.h"

namespace deid {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t peak_rss() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

[[noreturn]] void fail(const Job& job, std::uint64_t line, const std::string& msg) {
  throw JobError(Location{job.path, line, 0, {}}, msg);
}

using detail::Bound;
using detail::label;
using detail::loss_json;
using detail::OutColumn;
using detail::output_columns;
using detail::registry_json;
using detail::released_columns;
using detail::sizes_of;
using detail::stats_json;
using detail::targeted_json;
using detail::write_table;

// Binds the job to its data: roles, the hierarchies of the attributes
// released above level 0, and the release plan. Throws JobError when they
// do not fit.
void bind(const Job& job, Bound& b, std::uint64_t k) {
  const Job::CellSuppression& cs = *job.cell_suppression;
  Dataset& ds = b.data;
  for (const auto& a : job.attributes)
    if (ds.column_index(a.name) < 0)
      fail(job, a.line, fmt::format("attribute '{}' {}", a.name, ds.not_a_column()));
  std::vector<std::string> unassigned;
  for (std::size_t c = 0; c < ds.columns.size(); ++c) {
    const AttributeSpec* spec = job.attribute(ds.columns[c].name);
    if (spec)
      b.roles.push_back(spec->role);
    else if (job.default_role)
      b.roles.push_back(*job.default_role);
    else {
      b.roles.push_back(Role::insensitive);
      unassigned.push_back(ds.columns[c].name);
    }
    if (b.roles.back() == Role::quasi_identifying) b.qi_columns.push_back(static_cast<int>(c));
  }
  if (!unassigned.empty()) {
    std::string list;
    for (const auto& n : unassigned) list += (list.empty() ? "'" : ", '") + n + "'";
    fail(job, 0, fmt::format("columns without a role: {}; list them under 'attributes' or set 'default-role'", list));
  }
  if (b.qi_columns.empty()) fail(job, cs.line, "cell suppression needs at least one quasi-identifying attribute");

  // Hierarchies are read only for attributes released above level 0.
  b.tables.reserve(b.qi_columns.size());
  b.hierarchies.reserve(b.qi_columns.size());
  for (int c : b.qi_columns) {
    const Column& col = ds.columns[static_cast<std::size_t>(c)];
    ReleaseAttribute a;
    a.name = col.name;
    a.column = &col;
    for (const auto& r : cs.release_levels) {
      if (r.attribute != col.name) continue;
      a.levels = r.levels;
      a.names = r.names;
      a.known_level = r.known_level;
      a.evaluate = r.evaluate;
      if (r.totally_ordered) a.totally_ordered = *r.totally_ordered;
      bool above_zero = false;
      for (int l : r.levels) above_zero = above_zero || l > 0;
      if (above_zero) {
        // A hierarchy file, or an inline definition built from the column.
        b.tables.push_back(hierarchy_table(job, *job.attribute(col.name), ds));
        b.hierarchies.push_back(Generalization::build(b.tables.back(), col, ds.source));
        a.hierarchy = &b.hierarchies.back();
      }
    }
    for (const auto& [name, w] : cs.weights)
      if (name == col.name) a.weight = w;
    b.attributes.push_back(std::move(a));
  }
  b.plan = plan_release(b.attributes, cs.combinations, k, cs.marker, job.path);
  if (ds.rows < k)
    fail(job, cs.line, fmt::format("the input has {} rows, fewer than k = {}: no suppression makes it k-anonymous",
                                   ds.rows, k));
}

}  // namespace

namespace {

// The run on `data`; `in_memory` as run_cell_suppression(job, data, ...).
CellSuppressionRun run(const Job& job, Dataset data, Clock::time_point t_start, double read_ms,
                       CellSuppressionTables* in_memory, const CheckedFiles* checked) {
  const Job::CellSuppression& cs = *job.cell_suppression;
  CellSuppressionRun run;
  run.k = cs.k ? *cs.k : k_for_threshold(*cs.tau);
  const double tau = cs.tau ? *cs.tau : 1.0 / static_cast<double>(run.k);

  Bound b;
  b.data = std::move(data);
  auto t0 = Clock::now();
  bind(job, b, run.k);
  // Identifying columns are never written: drop their values (a column of
  // unique identifiers is the largest dictionary of the table).
  for (std::size_t c = 0; c < b.data.columns.size(); ++c)
    if (b.roles[c] == Role::identifying) {
      Column& col = b.data.columns[c];
      col.codes = {};
      util::release(col.first_line);
      col.dictionary = Dictionary();
    }
  const double encode_ms = ms_since(t0);

  // Samples are drawn without overlap; checked before the long run.
  std::uint64_t sample_rows = 0;  // rounded as draw_disjoint_samples rounds them
  for (const auto& s : cs.samples)
    sample_rows += static_cast<std::uint64_t>(std::floor(s.fraction * static_cast<double>(b.data.rows) + 0.5));
  if (sample_rows > b.data.rows)
    fail(job, cs.line, fmt::format("the {} samples need {} rows together, but the table has {} rows: lower their "
                                   "fractions (samples are drawn without overlap)",
                                   cs.samples.size(), sample_rows, b.data.rows));

  // Missingness entries name released columns (variable) and released or
  // copied columns (by); checked before the long run.
  for (const auto& m : cs.missingness) {
    if (b.plan.table.column_index(m.variable) < 0)
      fail(job, cs.line, fmt::format("missingness: variable '{}' is not a released quasi-identifier column",
                                     m.variable));
    const int by_input = b.data.column_index(m.by);
    if (b.plan.table.column_index(m.by) < 0 && by_input < 0)
      fail(job, cs.line, fmt::format("missingness: by '{}' is neither a released column nor a column of the input",
                                     m.by));
    // Groups named by an identifier, or by the input values of a
    // quasi-identifier released under other names, would quote values the
    // release removes (docs/reliability.md, "What travels with a release").
    if (b.plan.table.column_index(m.by) < 0 && b.roles[static_cast<std::size_t>(by_input)] != Role::sensitive &&
        b.roles[static_cast<std::size_t>(by_input)] != Role::insensitive) {
      std::string released;
      for (std::size_t tc = 0; tc < b.plan.table.columns(); ++tc) {
        const ReleaseAttribute& a = b.attributes[b.plan.column_attribute[tc]];
        if (a.name == m.by) released += fmt::format("{}'{}'", released.empty() ? "" : ", ", b.plan.table.names[tc]);
      }
      fail(job, cs.line,
           released.empty()
               ? fmt::format("missingness: by '{}' is an identifying column, which the release removes: its values "
                             "would appear in the result; group by a released column",
                             m.by)
               : fmt::format("missingness: by '{}' is a quasi-identifier the release shows only as {}: group by "
                             "one of those (its input values would appear in the result)",
                             m.by, released));
    }
  }

  // The released columns before suppression are rebuilt after it rather
  // than copied before, so that the copy and the grouping of every
  // combination are not in memory at the same time.
  auto rebuild_original = [&]() {
    return plan_release(b.attributes, cs.combinations, run.k, cs.marker, job.path).table;
  };
  t0 = Clock::now();
  const std::clock_t cpu0 = std::clock();
  run.stats = suppress_cells(b.plan.table, b.plan.spec);
  const double suppress_ms = ms_since(t0);
  // CPU time as well: on a shared machine wall time says little.
  const double suppress_cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const CellTable& out = b.plan.table;
  const CellTable original = rebuild_original();
  run.loss = information_loss(original, out);

  nlohmann::json& j = run.result;
  j["k"] = run.k;
  if (cs.tau) j["tau"] = *cs.tau;
  j["marker"] = cs.marker;
  j["records"] = out.rows;
  nlohmann::json combos = nlohmann::json::array();
  for (const auto& c : b.plan.spec.combinations) {
    std::vector<std::string> names;
    for (std::size_t x : c) names.push_back(out.names[x]);
    combos.push_back(names);
  }
  j["combinations"] = combos;
  j["released_columns"] = out.names;
  j["information_loss"] = loss_json(run.loss);
  j["suppression"] = stats_json(run.stats, b.plan.spec, out);

  if (cs.compare_complete) {
    CellTable complete = original;
    const CellSuppressionSpec spec = complete_spec(b.plan.spec, complete.columns());
    run.complete_stats = suppress_cells(complete, spec);
    run.complete_loss = information_loss(original, complete);
    nlohmann::json c = loss_json(*run.complete_loss);
    c["suppression"] = stats_json(*run.complete_stats, spec, complete);
    j["complete"] = c;
    // Entropy relative to the complete algorithm as the baseline (100%),
    // as papers/003 Tables 9 and 10 give entropy relative to one data set.
    nlohmann::json rel = nlohmann::json::object();
    auto pct = [](double x, double base) { return base > 0 ? nlohmann::json(100.0 * x / base) : nlohmann::json(); };
    rel["total"] = pct(run.loss.entropy, run.complete_loss->entropy);
    for (std::size_t i = 0; i < run.loss.columns.size(); ++i)
      rel[run.loss.columns[i].name] = pct(run.loss.columns[i].entropy, run.complete_loss->columns[i].entropy);
    j["entropy_percent_of_complete"] = rel;
  }

  nlohmann::json miss = nlohmann::json::array();
  for (const auto& m : cs.missingness) {
    const auto var = static_cast<std::size_t>(out.column_index(m.variable));
    const int by_table = original.column_index(m.by);
    std::vector<std::uint32_t> by_codes;
    std::uint32_t by_card = 0;
    std::vector<std::string> by_labels;
    if (by_table >= 0) {
      const auto bt = static_cast<std::size_t>(by_table);
      by_codes = original.codes[bt];
      by_card = original.cardinality[bt];
      for (std::uint32_t v = 0; v < by_card; ++v) by_labels.push_back(label(b, bt, v));
    } else {
      const Column& col = b.data.columns[static_cast<std::size_t>(b.data.column_index(m.by))];
      by_codes = col.codes.to_vector();
      by_card = col.dictionary.size();
      for (std::uint32_t v = 0; v < by_card; ++v) by_labels.push_back(col.dictionary.value(v));
    }
    const Missingness ms = missingness(out, var, by_codes, by_card);
    // A released grouping column's value that no released cell shows (every
    // record that had it lost it to suppression) is not named: such groups
    // are summed into one with value null and their number in
    // "values_withheld" (docs/cell-suppression.md).
    std::vector<std::uint8_t> shown(by_card, 1);
    if (by_table >= 0) {
      const int by_out = out.column_index(m.by);
      std::fill(shown.begin(), shown.end(), 0);
      if (by_out >= 0)
        for (std::uint32_t code : out.codes[static_cast<std::size_t>(by_out)])
          if (code != kSuppressedCell && code < by_card) shown[code] = 1;
    }
    nlohmann::json groups = nlohmann::json::array();
    Missingness::Group hidden;
    std::uint64_t hidden_values = 0;
    for (const auto& g : ms.groups) {
      if (!shown[g.value]) {
        ++hidden_values;
        hidden.records += g.records;
        hidden.suppressed += g.suppressed;
        continue;
      }
      groups.push_back({{"value", by_labels[g.value]}, {"records", g.records}, {"suppressed", g.suppressed},
                        {"fraction", g.fraction}});
    }
    if (hidden_values > 0)
      groups.push_back({{"value", nullptr}, {"values_withheld", hidden_values}, {"records", hidden.records},
                        {"suppressed", hidden.suppressed},
                        {"fraction", static_cast<double>(hidden.suppressed) / static_cast<double>(hidden.records)}});
    miss.push_back({{"variable", m.variable}, {"by", m.by}, {"groups", groups}});
  }
  if (!cs.missingness.empty()) j["missingness"] = miss;

  // Samples (papers/003: non-overlapping 10% samples of the de-identified
  // population file).
  std::vector<double> fractions;
  for (const auto& s : cs.samples) fractions.push_back(s.fraction);
  const auto samples = fractions.empty() ? std::vector<std::vector<std::uint64_t>>{}
                                          : draw_disjoint_samples(out.rows, fractions, cs.seed);

  // Attack 3 per combination: on the file itself (F_j = f_j), and for each
  // sample with the whole released file as its population (F_j).
  nlohmann::json risk = nlohmann::json::array();
  for (const auto& combo : b.plan.spec.combinations) {
    const CombinationClasses cls = combination_classes(out, combo);
    std::vector<std::string> names;
    for (std::size_t x : combo) names.push_back(out.names[x]);
    const auto F = sizes_of(cls, nullptr);
    nlohmann::json entry = {{"combination", names}, {"file", targeted_json(targeted_attack_risk(F, {}, tau))}};
    nlohmann::json per_sample = nlohmann::json::array();
    for (const auto& s : samples) per_sample.push_back(targeted_json(targeted_attack_risk(sizes_of(cls, &s), F, tau)));
    if (!samples.empty()) entry["samples"] = per_sample;
    risk.push_back(entry);
  }
  j["attack3"] = risk;
  if (cs.registry) j["registry"] = registry_json(job, b, out, tau, samples);

  // Every output goes to a temporary file; all replace their targets only
  // when all are complete (docs/reliability.md).
  t0 = Clock::now();
  const char delim = job.output.delimiter.value_or(b.data.delimiter);
  const bool escape = job.output.escape_formulas;
  std::vector<FileDigest> files;
  files.push_back({"input", input_name(job), b.data.sha256, b.data.bytes, {}, 0});
  std::vector<std::unique_ptr<OutputFile>> outputs;
  std::optional<PostgresTableWriter> db_table;
  if (in_memory) {
    std::ostringstream table;
    write_table(b, out, cs.marker, delim, escape, table, nullptr);
    in_memory->table = std::move(table).str();
    for (const auto& sample : samples) {
      std::ostringstream text;
      write_table(b, out, cs.marker, delim, escape, text, &sample);
      in_memory->samples.push_back(std::move(text).str());
    }
    in_memory->columns = released_columns(b, out, cs.marker, escape);
    in_memory->sample_rows = samples;
  } else if (!job.output.path.empty()) {
    outputs.push_back(std::make_unique<OutputFile>(checked->output("output table")));
    if (job.output.format == TableFormat::parquet) {
      // The CSV text, converted by the codec: the same cells as a CSV output.
      std::ostringstream csv;
      write_table(b, out, cs.marker, delim, escape, csv, nullptr);
      write_parquet(csv.view(), delim, outputs.back()->stream(), job.output.path, "output table");
    } else {
      write_table(b, out, cs.marker, delim, escape, outputs.back()->stream(), nullptr);
    }
    files.push_back(outputs.back()->finish("output"));
  } else if (job.output.postgres) {
    // Row by row, as for a file: COPY ... FROM STDIN in one transaction,
    // committed before any file is published (docs/databases.md).
    std::vector<std::string> names;
    for (const OutColumn& o : output_columns(b, out))
      names.push_back(o.data_column >= 0 ? b.data.columns[static_cast<std::size_t>(o.data_column)].name
                                         : out.names[o.table_column]);
    db_table.emplace(*job.output.postgres, names, delim);
    write_table(b, out, cs.marker, delim, escape, db_table->stream(), nullptr);
    files.push_back(db_table->finish("output"));
  }
  nlohmann::json sj = nlohmann::json::array();
  for (std::size_t i = 0; i < samples.size() && !in_memory; ++i) {
    outputs.push_back(std::make_unique<OutputFile>(checked->output(fmt::format("sample {}", i + 1))));
    write_table(b, out, cs.marker, delim, escape, outputs.back()->stream(), &samples[i]);
    files.push_back(outputs.back()->finish("sample"));
    sj.push_back({{"path", cs.samples[i].path}, {"fraction", cs.samples[i].fraction}, {"records", samples[i].size()}});
  }
  if (!samples.empty()) j["samples"] = {{"seed", cs.seed}, {"draws", sj}};
  const double write_ms = ms_since(t0);

  j["time_ms"] = {{"read", read_ms}, {"encode", encode_ms}, {"suppress", suppress_ms},
                  {"suppress_cpu", suppress_cpu_ms}, {"write", write_ms},
                  {"total", ms_since(t_start)}};
  j["peak_rss_bytes"] = peak_rss();
  nlohmann::json warnings = nlohmann::json::array();
  if (!escape) {
    std::vector<bool> written(b.data.columns.size());
    for (std::size_t c = 0; c < written.size(); ++c) written[c] = b.roles[c] != Role::identifying;
    // A quasi-identifier is checked on what its released columns show (the
    // labels of cells not suppressed), never on its input values, which the
    // release may have generalized or suppressed.
    std::vector<std::vector<std::string>> labels(b.qi_columns.size());
    std::vector<const std::vector<std::string>*> released(b.data.columns.size(), nullptr);
    for (std::size_t qi = 0; qi < b.qi_columns.size(); ++qi) {
      released[static_cast<std::size_t>(b.qi_columns[qi])] = &labels[qi];
      for (std::size_t tc = 0; tc < out.columns(); ++tc) {
        if (b.plan.column_attribute[tc] != qi) continue;
        std::vector<std::uint8_t> shown(out.cardinality[tc], 0);
        for (std::uint32_t code : out.codes[tc])
          if (code != kSuppressedCell && code < shown.size()) shown[code] = 1;
        for (std::uint32_t v = 0; v < shown.size(); ++v)
          if (shown[v]) labels[qi].push_back(label(b, tc, v));
      }
    }
    for (std::string& w : formula_warnings(b.data, written, released)) warnings.push_back(std::move(w));
  }
  j["warnings"] = warnings;
  j["files"] = to_json(files);
  if (!job.output.result.empty() && !in_memory) {
    outputs.push_back(std::make_unique<OutputFile>(checked->output("result")));
    outputs.back()->stream() << j.dump(2) << '\n';
    outputs.back()->finish("result");
  }
  // Commit and renames are one step for a terminating signal.
  PublishBatch batch;
  if (db_table) db_table->commit();
  std::vector<OutputFile*> files_out;
  for (auto& f : outputs) files_out.push_back(f.get());
  publish_all(files_out);
  return run;
}

}  // namespace

CellSuppressionRun run_cell_suppression(const Job& job) {
  if (!job.cell_suppression) fail(job, 0, "the job has no 'cell-suppression' section");
  const auto t_start = Clock::now();
  // Before any work: no output may be an input or another output, and every
  // output's directory must take it (docs/reliability.md).
  const CheckedFiles checked = check_files(job_reads(job), job_writes(job));
  require_table_formats(job);
  // A hierarchy is read only for an attribute released above level 0, but
  // one the job names and that cannot be read is a mistake in the job
  // either way: said now, not silently passed over.
  for (const AttributeSpec& a : job.attributes) {
    if (a.hierarchy.empty()) continue;
    const int fd = ::open(a.hierarchy.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      fail(job, a.line, fmt::format("attribute '{}': cannot read its hierarchy file {} ({})", a.name, a.hierarchy,
                                    std::strerror(errno)));
    ::close(fd);
  }
  // And every database answers, and the output table can be written.
  check_databases(job);
  Dataset data = read_input(job);
  return run(job, std::move(data), t_start, ms_since(t_start), nullptr, &checked);
}

CellSuppressionRun run_cell_suppression(const Job& job, Dataset data, CellSuppressionTables& tables) {
  if (!job.cell_suppression) fail(job, 0, "the job has no 'cell-suppression' section");
  return run(job, std::move(data), Clock::now(), 0.0, &tables, nullptr);
}

}  // namespace deid
