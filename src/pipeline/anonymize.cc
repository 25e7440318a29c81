#include <malloc.h>
#include <sys/resource.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "deid/database.h"
#include "deid/error.h"
#include "deid/formula_warnings.h"
#include "deid/identifiers.h"
#include "deid/linked.h"
#include "deid/output.h"
#include "deid/parquet.h"
#include "deid/pipeline.h"
#include "deid/report.h"
#include "deid/utility.h"
#include "pipeline/local_recoding.h"
#include "util/elapsed.h"

namespace deid {
namespace {

nlohmann::json lattice_number(LatticeIndex v) {
  if (v <= static_cast<LatticeIndex>(UINT64_MAX)) return static_cast<std::uint64_t>(v);
  return to_string(v);
}

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

}  // namespace

Transformation given_transformation(const Job& job, const Problem& pr) {
  const Location at{job.search.transformation_source, job.search.transformation_line, 0, {}};
  const Lattice lattice = pr.lattice();
  Transformation t(pr.qi_names.size(), 0);
  std::vector<bool> given(pr.qi_names.size(), false);
  for (const auto& [name, level] : job.search.transformation) {
    const auto it = std::find(pr.qi_names.begin(), pr.qi_names.end(), name);
    if (it == pr.qi_names.end())
      throw JobError(at, fmt::format("the transformation gives a level for '{}', which is not a quasi-identifier of "
                                     "the job (quasi-identifiers: {})",
                                     name, name_list(pr.qi_names)));
    const auto q = static_cast<std::size_t>(it - pr.qi_names.begin());
    const int top = pr.hierarchies[q].height() - 1;
    if (level > top)
      throw JobError(at, fmt::format("the transformation gives '{}' level {}, above its hierarchy's top level {}",
                                     name, level, top));
    if (level < lattice.min_level(q) || level > lattice.max_level(q))
      throw JobError(at, fmt::format("the transformation gives '{}' level {}, outside its min-level and max-level "
                                     "[{}, {}]",
                                     name, level, lattice.min_level(q), lattice.max_level(q)));
    t[q] = static_cast<std::uint8_t>(level);
    given[q] = true;
  }
  std::vector<std::string> missing;
  for (std::size_t q = 0; q < given.size(); ++q)
    if (!given[q]) missing.push_back(pr.qi_names[q]);
  if (!missing.empty())
    throw JobError(at, fmt::format("the transformation gives no level for {}: give one for every quasi-identifier",
                                   name_list(missing)));
  return t;
}

nlohmann::json release_warnings(const PreparedJob& p, const Anonymization& a) {
  std::vector<bool> written(p.data.columns.size(), true);
  for (std::size_t c = 0; c < written.size(); ++c) written[c] = p.written(c);
  // A quasi-identifier's values checked (and quoted as the example) are
  // the labels its released level shows in records that are not
  // suppressed: an input value there, or a level-0 label that only
  // suppressed records had, would name a value the release removed
  // (docs/reliability.md, "What travels with a release"). Without a
  // solution nothing is released: no quasi-identifier value is checked.
  std::vector<std::vector<std::string>> labels(p.problem.qi_columns.size());
  std::vector<const std::vector<std::string>*> released(p.data.columns.size(), nullptr);
  for (std::size_t q = 0; q < labels.size(); ++q)
    released[static_cast<std::size_t>(p.problem.qi_columns[q])] = &labels[q];
  // A microaggregated attribute shows its classes' aggregates (numbers,
  // never formulas), not its input values.
  static const std::vector<std::string> kNone;
  for (const MicroaggregatedAttribute& m : p.problem.microaggregated)
    if (m.column >= 0 && static_cast<std::size_t>(m.column) < released.size() && !released[static_cast<std::size_t>(m.column)])
      released[static_cast<std::size_t>(m.column)] = &kNone;
  if (a.found && a.classes && !p.job.output.escape_formulas) {
    const Classes& cls = *a.classes;
    for (std::size_t q = 0; q < labels.size() && q < cls.width; ++q) {
      const Generalization& h = p.problem.hierarchies[q];
      const int level = a.search.best->transformation[q];
      std::vector<std::uint8_t> shown(h.domain_size(level), 0);
      for (std::size_t c = 0; c < cls.size(); ++c)
        if (!cls.suppressed[c] && cls.keys[c * cls.width + q] < shown.size()) shown[cls.keys[c * cls.width + q]] = 1;
      for (std::uint32_t v = 0; v < h.domain_size(level); ++v)
        if (shown[v]) labels[q].push_back(h.label(level, v));
    }
    // Local recoding: the labels each later pass shows of its records.
    if (a.local)
      for (std::size_t pass = 1; pass <= a.local->passes.size(); ++pass) {
        const Transformation& t = a.local->passes[pass - 1].best ? a.local->passes[pass - 1].best->transformation
                                                                 : a.search.best->transformation;
        const Histogram& hist = p.problem.histogram;
        for (std::size_t q = 0; q < labels.size(); ++q) {
          const Generalization& h = p.problem.hierarchies[q];
          std::vector<std::uint8_t> shown(h.domain_size(t[q]), 0);
          for (std::uint64_t r = 0; r < a.local->row_pass.size(); ++r)
            if (a.local->row_pass[r] == pass)
              shown[h.map(t[q])[hist.keys[std::size_t{hist.row_entry[r]} * hist.width + q]]] = 1;
          for (std::uint32_t v = 0; v < h.domain_size(t[q]); ++v)
            if (shown[v]) labels[q].push_back(h.label(t[q], v));
        }
      }
  }
  // A released identifier shows its action's values, never the input's
  // (docs/identifiers.md): its masks and pseudonyms are checked (or what
  // was counted of them where a grouped table's rows live); shifted dates
  // are never formulas.
  std::vector<const FormulaCount*> counted(p.data.columns.size(), nullptr);
  if (p.identifiers)
    for (std::size_t c = 0; c < released.size(); ++c)
      if (p.identifiers->released(c)) {
        counted[c] = p.identifiers->counted_formulas(c);
        const std::vector<std::string>* v = p.identifiers->distinct_values(c);
        released[c] = v ? v : &kNone;
      }
  nlohmann::json out = nlohmann::json::array();
  if (p.identifiers)
    for (std::string& w : p.identifiers->warnings()) out.push_back(std::move(w));
  if (p.job.output.escape_formulas) return out;
  for (std::string& w : formula_warnings(p.data, written, released, counted)) out.push_back(std::move(w));
  return out;
}

nlohmann::json release_utility(const PreparedJob& p, const Anonymization& a) {
  if (!a.found || !p.job.output.utility) return nullptr;
  if (a.local)
    return {{"skipped", "local recoding released records with several transformations: the analysis reads one "
                        "transformation's release; run deid utility on the released table"}};
  // The analysis reads every released column row by row, and its
  // classification samples records in input order: a table grouped in its
  // database has neither (docs/databases.md, "Pushdown").
  if (p.data.grouped())
    return {{"skipped", "the input was grouped in its database (pushdown): the analysis needs the rows; set "
                        "input.postgres.pushdown: false, or run deid utility on the released table exported to CSV"}};
  nlohmann::json u = to_json(analyze_utility(utility_input(p, a.search.best->transformation, *a.classes)));
  // Microaggregated attributes are left out (utility.cc, left_out).
  for (const MicroaggregatedAttribute& m : p.problem.microaggregated)
    u["not_analyzed"][m.name] = "microaggregated: its released value depends on the record's class";
  return u;
}

std::uint64_t peak_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

namespace {

// Bounded memory (Problem::bounded_memory): each row's quasi-identifier
// codes are its histogram entry's key, so the dataset's copies leave it for
// the search and are written back from the histogram after it (the same
// codes, in the same width). Not with microaggregation or differential
// privacy, whose searches read the dataset.
class CodesSetAside {
 public:
  explicit CodesSetAside(PreparedJob& p) : p_(p) {
    const Problem& pr = p.problem;
    const bool dp = std::any_of(p.job.privacy.begin(), p.job.privacy.end(), [](const PrivacySpec& m) {
      return std::holds_alternative<DifferentialPrivacySpec>(m);
    });
    if (!pr.bounded_memory || dp || !pr.microaggregated.empty() || pr.histogram.row_entry.size() != p.data.rows) return;
    for (std::size_t q = 0; q < pr.qi_columns.size(); ++q) {
      Codes& codes = p.data.columns[static_cast<std::size_t>(pr.qi_columns[q])].codes;
      if (codes.size() != p.data.rows) continue;
      aside_.push_back({q, codes.width()});
      codes = Codes{};
    }
  }
  ~CodesSetAside() {
    try {
      restore();
    } catch (...) {
      // Out of memory while unwinding: the error in flight is reported.
    }
  }
  CodesSetAside(const CodesSetAside&) = delete;
  CodesSetAside& operator=(const CodesSetAside&) = delete;

  void restore() {
    const Histogram& h = p_.problem.histogram;
    for (const auto& [column, width] : aside_) {
      const std::size_t q = column;  // a lambda may not capture a structured binding (clang 14)
      Codes codes(p_.data.rows, width);
      codes.visit_mut([&](auto out) {
        using T = typename decltype(out)::value_type;
        for (std::size_t r = 0; r < out.size(); ++r)
          out[r] = static_cast<T>(h.keys[std::size_t{h.row_entry[r]} * h.width + q]);
      });
      p_.data.columns[static_cast<std::size_t>(p_.problem.qi_columns[q])].codes = std::move(codes);
    }
    aside_.clear();
  }

 private:
  PreparedJob& p_;
  std::vector<std::pair<std::size_t, unsigned>> aside_;  // quasi-identifier, code width
};

}  // namespace

Anonymization run_search(PreparedJob& p, const RunOptions& options) {
  const Problem& pr = p.problem;
  const Job& job = p.job;
  Anonymization a;
  if (options.phase) options.phase(Phase::search);
  CodesSetAside aside(p);
  if (pr.bounded_memory) {
    // Bounded memory: buffers of 1 MiB and more are mapped on their own and
    // go back to the system when freed. glibc otherwise raises this
    // threshold as such buffers are freed (up to 32 MiB), after which the
    // checks' buffers come from its heap and stay there, freed but
    // resident: 0.2 of the survey table's histogram at 16x, the search no
    // slower (docs/databases.md, "Memory"). The setting stays for the rest
    // of the process. And what reading and preparing freed goes back now.
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    malloc_trim(0);
  }
  const auto t0 = std::chrono::steady_clock::now();
  SearchLimits limits{job.search.time_limit_seconds, job.search.max_checks};
  // ARX's heuristics (and auto's searches above the heuristic threshold)
  // stop after 30 s unless told otherwise (search.md).
  if (job.search.transformation.empty()) limits.time_limit_seconds = default_time_limit(job.search, pr);
  auto ev = std::make_unique<Evaluator>(pr, limits, options.progress);
  auto algo = job.search.transformation.empty() ? make_search(job.search, pr)
                                                 : make_given_search(given_transformation(job, pr));
  a.search = algo->run(*ev);
  a.timings.search = ms_since(t0);
  a.check_statistics = ev->check_statistics();
  a.found = a.search.best.has_value();
  // What the result reports of the search, then the search's checker goes
  // (its grouping tables and sorted copies would otherwise stay beside the
  // final check's: docs/databases.md, "Memory").
  const std::vector<CheckResult> best_solutions = ev->best_solutions();
  const std::vector<FrontierPoint> frontier = ev->frontier();
  ev.reset();
  aside.restore();

  const Lattice lattice = pr.lattice();
  nlohmann::json& r = a.result;
  r = nlohmann::json::object();
  r["records"] = pr.rows;
  if (pr.has_subset())
    // The records judged are the research subset's; the release has a row
    // for every input record, those outside the subset suppressed.
    r["subset"] = {{"records", pr.rows},
                   {"population_records", pr.population_rows},
                   {"suppressed_outside", pr.population_rows - pr.rows}};
  r["quasi_identifiers"] = pr.qi_names;
  if (!pr.microaggregated.empty()) {
    nlohmann::json micro = nlohmann::json::object();
    for (const MicroaggregatedAttribute& m : pr.microaggregated)
      micro[m.name] = {{"function", to_string(m.function)}, {"generalize_before", m.generalized()}};
    r["microaggregated"] = micro;
  }
  r["quality_model"] = pr.quality->name();
  r["quality_model_description"] = pr.quality->describe();
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : pr.privacy) models.push_back(m->to_json());
  r["privacy_models"] = models;
  r["suppression_limit"] = job.suppression_limit;
  r["suppression_limit_records"] = pr.max_suppressed;
  r["solution_found"] = a.found;

  if (a.found) {
    const CheckResult& best = *a.search.best;
    // Re-check the chosen transformation to get its classes.
    Checker checker(pr);
    Classes classes;
    checker.check(best.transformation, &classes);
    nlohmann::json tr = nlohmann::json::object();
    nlohmann::json per = nlohmann::json::object();
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q) tr[pr.qi_names[q]] = best.transformation[q];
    // The quality model's dimensions: the quasi-identifiers, then the
    // microaggregated attributes it accounts for.
    const std::vector<std::string> dimensions = pr.dimension_names();
    for (std::size_t d = 0; d < dimensions.size() && d < best.quality.per_attribute.size(); ++d)
      per[dimensions[d]] = best.quality.per_attribute[d];
    r["transformation"] = tr;
    r["information_loss"] = best.quality.value;
    r["information_loss_per_attribute"] = per;
    r["suppressed_records"] = best.suppressed_records;
    std::uint64_t kept_classes = 0, smallest = 0, largest = 0, kept_records = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes.suppressed[c] || classes.counts[c] == 0) continue;  // 0: no record of the research subset
      const std::uint64_t n = classes.counts[c];
      smallest = kept_classes == 0 ? n : std::min(smallest, n);
      largest = std::max(largest, n);
      kept_records += n;
      ++kept_classes;
    }
    r["classes"] = kept_classes;
    r["smallest_class_size"] = smallest;
    r["largest_class_size"] = largest;
    r["average_class_size"] = kept_classes ? static_cast<double>(kept_records) / static_cast<double>(kept_classes) : 0.0;
    a.classes = std::move(classes);
  } else {
    r["transformation"] = nullptr;
    r["information_loss"] = nullptr;
  }
  r["optimal"] = a.found && a.search.optimal;
  // Local recoding's passes after the global optimum (docs/search.md,
  // "Local recoding").
  if (job.local_recoding && a.found) {
    // Each record is recoded on its own: a table grouped where it lives
    // (pushdown, Spark) has no rows (check_local_recoding refuses those jobs
    // before they are read; a front end that prepares its own table may not).
    if (p.data.grouped())
      throw JobError(Location{job.path, job.local_recoding->line, 0, {}},
                     "local-recoding recodes the records one by one, which a table grouped where it lives does not "
                     "hold");
    a.local = run_local_recoding(p, a.search.best->transformation, *a.classes);
    r["local_recoding"] = local_recoding_json(*job.local_recoding, *a.local, pr, a.search.best->transformation);
  }
  // The released identifiers: their actions and the secret's fingerprint.
  if (p.identifiers) r["identifiers"] = p.identifiers->summary();
  nlohmann::json s = a.search.statistics;
  s["algorithm"] = a.search.algorithm;
  s["transformations_checked"] = a.search.checked;
  s["lattice_size"] = lattice_number(lattice.size());
  s["stopped_by_limit"] = a.search.stopped_by_limit;
  // Which limit (the evaluator tests the budget of checks first): with no
  // solution found, the job may still be satisfiable, and every front end
  // says so instead of "no transformation satisfies the job".
  if (!a.search.stopped_by_limit)
    s["stopped_by"] = nullptr;
  else if (!a.search.stopped_by.empty())
    s["stopped_by"] = a.search.stopped_by;
  else if (job.search.max_checks && a.search.checked >= *job.search.max_checks)
    s["stopped_by"] = "max-checks";
  else
    s["stopped_by"] = "time-limit";
  s["time_to_best_ms"] = a.search.time_to_best_seconds * 1000.0;
  // A transformation as {quasi-identifier: level}.
  const auto levels_of = [&](const Transformation& t) {
    nlohmann::json levels = nlohmann::json::object();
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q) levels[pr.qi_names[q]] = t[q];
    return levels;
  };
  // The best solutions the search checked, best first (the chosen one first
  // when the search found one): how the choice compares with its rivals.
  nlohmann::json sols = nlohmann::json::array();
  for (const CheckResult& c : best_solutions) {
    sols.push_back({{"transformation", levels_of(c.transformation)},
                    {"information_loss", c.quality.value},
                    {"suppressed_records", c.suppressed_records}});
  }
  s["best_solutions"] = sols;
  // The risk-utility frontier of the checked solutions, by increasing loss;
  // at most kFrontierPoints of them, evenly spaced, both ends kept.
  constexpr std::size_t kFrontierPoints = 100;
  nlohmann::json front = nlohmann::json::array();
  const std::size_t shown = std::min(frontier.size(), kFrontierPoints);
  for (std::size_t i = 0; i < shown; ++i) {
    const std::size_t k = shown < 2 ? 0 : i * (frontier.size() - 1) / (shown - 1);
    const FrontierPoint& f = frontier[k];
    front.push_back({{"transformation", levels_of(f.transformation)},
                     {"information_loss", f.information_loss},
                     {"highest_risk", f.highest_risk},
                     {"average_risk", f.average_risk},
                     {"suppressed_records", f.suppressed_records}});
  }
  s["frontier"] = front;
  s["frontier_size"] = frontier.size();
  r["search"] = s;
  const CheckStatistics& cs = a.check_statistics;
  r["check"] = {{"checks", cs.checks},
                {"rolled_up", cs.rolled_up},
                {"from_histogram", cs.from_histogram},
                {"ranged", cs.ranged},
                {"stopped_early", cs.stopped_early},
                {"refined", cs.refined},
                {"grouped", cs.grouped},
                {"cached_snapshots", cs.cached_snapshots},
                {"largest_cache_bytes", cs.largest_cache_words * sizeof(std::uint32_t)},
                {"speculative", cs.speculative},
                {"speculative_used", cs.speculative_used},
                {"histogram_entries", pr.histogram.size()},
                {"histogram_bytes", pr.histogram.bytes()},
                {"memory", pr.bounded_memory ? "bounded" : "fast"}};
  return a;
}

Anonymization anonymize(const Job& job, const RunOptions& options, std::unique_ptr<PreparedJob>* prepared_out) {
  const auto t0 = std::chrono::steady_clock::now();
  // Before any work: no output may be an input or another output, and every
  // output's directory must take it (docs/reliability.md).
  const CheckedFiles checked = check_files(job_reads(job), job_writes(job));
  // And local recoding only with what it can recode (Job::LocalRecoding).
  check_local_recoding(job);
  // A Parquet table needs the codec of a front end (parquet.h).
  require_table_formats(job);
  // And every database answers, and the output table can be written.
  check_databases(job);
  Timings timings;
  std::unique_ptr<PostgresPushdown> pushdown;
  std::unique_ptr<PreparedJob> prepared;
  if (uses_pushdown(job)) {
    if (options.phase) options.phase(Phase::reading);
    const auto tr = std::chrono::steady_clock::now();
    pushdown = std::make_unique<PostgresPushdown>(*job.input.postgres);
    Dataset data = read_grouped(job, *pushdown);
    timings.read = ms_since(tr);
    prepared = prepare(job, std::move(data), &timings, options.phase);
  } else {
    prepared = prepare(job, &timings, options.phase);
  }
  release_identifiers(*prepared);
  if (job.local_recoding && !job.local_recoding->column.empty() &&
      prepared->data.column_index(job.local_recoding->column) >= 0)
    throw JobError(Location{job.path, job.local_recoding->line, 0, {}},
                   fmt::format("local-recoding.column '{}' is a column of {}: name the column of the passes "
                               "differently",
                               job.local_recoding->column, prepared->data.source));
  // The linked tables are read and checked before the search.
  std::vector<std::unique_ptr<LinkedRelease>> linked;
  for (const LinkedTable& t : job.linked) linked.push_back(std::make_unique<LinkedRelease>(*prepared, t));
  Anonymization a = run_search(*prepared, options);
  a.timings.read = timings.read;
  a.timings.encode = timings.encode;
  a.result["warnings"] = release_warnings(*prepared, a);
  for (const auto& l : linked)
    for (std::string& w : l->warnings()) a.result["warnings"].push_back(l->spec().name + ": " + std::move(w));
  // The utility analysis of the release (docs/utility.md), unless
  // output.utility is false.
  if (nlohmann::json u = release_utility(*prepared, a); !u.is_null()) a.result["utility"] = std::move(u);

  // Every output is written to a temporary file first and the temporaries
  // replace their targets only when all are complete, so a failure leaves
  // the files of an earlier run as they were. With no solution no table is
  // written, and an existing one is left alone: the result's "files" says
  // which table (if any) this run wrote.
  if (options.phase) options.phase(Phase::writing);
  const auto tw = std::chrono::steady_clock::now();
  std::vector<FileDigest> files;
  files.push_back({"input", input_name(job), prepared->data.sha256, prepared->data.bytes, {}, 0});
  if (pushdown) files.back().pushdown = "histogram";
  bool pushed = false;
  std::optional<OutputFile> table, report, result, linkage;
  std::optional<PostgresTableWriter> db_table;
  if (a.found && !job.output.path.empty()) {
    table.emplace(checked.output("output table"));
    if (job.output.format == TableFormat::parquet) {
      // The CSV text, converted by the codec: the same cells as a CSV output.
      std::ostringstream csv;
      write_output(*prepared, a.search.best->transformation, *a.classes, csv, a.local ? &*a.local : nullptr);
      write_parquet(csv.view(), job.output.delimiter.value_or(prepared->data.delimiter), table->stream(),
                    job.output.path, "output table");
    } else {
      write_output(*prepared, a.search.best->transformation, *a.classes, table->stream(),
                   a.local ? &*a.local : nullptr);
    }
    files.push_back(table->finish("output"));
  } else if (a.found && job.output.postgres && pushdown) {
    files.push_back(write_pushdown(*pushdown, *prepared, a.search.best->transformation, *a.classes));
    pushed = true;
  } else if (a.found && job.output.postgres) {
    std::vector<std::string> columns;
    for (std::size_t c = 0; c < prepared->data.columns.size(); ++c)
      if (prepared->written(c)) columns.push_back(prepared->data.columns[c].name);
    if (job.local_recoding && !job.local_recoding->column.empty()) columns.push_back(job.local_recoding->column);
    db_table.emplace(*job.output.postgres, columns, job.output.delimiter.value_or(prepared->data.delimiter));
    write_output(*prepared, a.search.best->transformation, *a.classes, db_table->stream(),
                 a.local ? &*a.local : nullptr);
    files.push_back(db_table->finish("output"));
  }
  if (a.found && !job.output.linkage.empty() && prepared->identifiers) {
    // Each value beside its pseudonym: for the custodian alone.
    linkage.emplace(checked.output("linkage table"));
    linkage->owner_only();
    prepared->identifiers->write_linkage(linkage->stream(), job.output.delimiter.value_or(prepared->data.delimiter));
    files.push_back(linkage->finish("linkage"));
  }
  // The linked tables' releases, each joined to the job's chosen one.
  std::vector<std::unique_ptr<OutputFile>> linked_files;
  if (a.found && !linked.empty()) {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& l : linked) {
      files.push_back(l->input_digest());
      linked_files.push_back(std::make_unique<OutputFile>(checked.output(linked_output_role(l->spec()))));
      l->write(a.search.best->transformation, *a.classes, linked_files.back()->stream());
      files.push_back(linked_files.back()->finish("linked output"));
      entries.push_back(l->summary());
    }
    a.result["linked"] = std::move(entries);
  }
  a.timings.write = ms_since(tw);
  a.timings.total = ms_since(t0);
  a.result["time_ms"] = {{"read", a.timings.read},     {"encode", a.timings.encode}, {"search", a.timings.search},
                         {"write", a.timings.write},   {"total", a.timings.total}};
  a.result["peak_rss_bytes"] = peak_rss_bytes();
  if (!job.output.report.empty()) {
    report.emplace(checked.output("report"));
    report->stream() << render_html_report(*prepared, a);
    files.push_back(report->finish("report"));
  }
  a.result["files"] = to_json(files);
  if (!job.output.result.empty()) {
    result.emplace(checked.output("result"));
    result->stream() << a.result.dump(2) << '\n';
    result->finish("result");
  }
  // The table's transaction commits first: when it fails, no file is
  // replaced. Commit and renames are one step for a terminating signal.
  {
    PublishBatch batch;
    if (db_table) db_table->commit();
    if (pushed) pushdown->commit();
    std::vector<OutputFile*> outputs = {table ? &*table : nullptr, linkage ? &*linkage : nullptr};
    for (const auto& f : linked_files) outputs.push_back(f.get());
    outputs.push_back(report ? &*report : nullptr);
    outputs.push_back(result ? &*result : nullptr);
    publish_all(outputs);
  }
  if (prepared_out) *prepared_out = std::move(prepared);
  return a;
}

}  // namespace deid
