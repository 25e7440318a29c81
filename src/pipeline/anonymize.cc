#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "deid/error.h"
#include "deid/pipeline.h"
#include "deid/report.h"

namespace deid {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json lattice_number(LatticeIndex v) {
  if (v <= static_cast<LatticeIndex>(UINT64_MAX)) return static_cast<std::uint64_t>(v);
  return to_string(v);
}

std::ofstream open_for_writing(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw IoError(Location{path, 0, 0, {}}, "cannot open file for writing");
  return out;
}

}  // namespace

std::uint64_t peak_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

Anonymization run_search(PreparedJob& p, const RunOptions& options) {
  const Problem& pr = p.problem;
  const Job& job = p.job;
  Anonymization a;
  if (options.phase) options.phase(Phase::search);
  const auto t0 = std::chrono::steady_clock::now();
  SearchLimits limits{job.search.time_limit_seconds, job.search.max_checks};
  Evaluator ev(pr, limits, options.progress);
  auto algo = make_search(job.search.algorithm, pr);
  a.search = algo->run(ev);
  a.timings.search = ms_since(t0);
  a.check_statistics = ev.check_statistics();
  a.found = a.search.best.has_value();

  const Lattice lattice = pr.lattice();
  nlohmann::json& r = a.result;
  r = nlohmann::json::object();
  r["records"] = pr.rows;
  r["quasi_identifiers"] = pr.qi_names;
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
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
      tr[pr.qi_names[q]] = best.transformation[q];
      if (q < best.quality.per_attribute.size()) per[pr.qi_names[q]] = best.quality.per_attribute[q];
    }
    r["transformation"] = tr;
    r["information_loss"] = best.quality.value;
    r["information_loss_per_attribute"] = per;
    r["suppressed_records"] = best.suppressed_records;
    std::uint64_t kept_classes = 0, smallest = 0, largest = 0, kept_records = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes.suppressed[c]) continue;
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
  nlohmann::json s = a.search.statistics;
  s["algorithm"] = a.search.algorithm;
  s["transformations_checked"] = a.search.checked;
  s["lattice_size"] = lattice_number(lattice.size());
  s["stopped_by_limit"] = a.search.stopped_by_limit;
  s["time_to_best_ms"] = a.search.time_to_best_seconds * 1000.0;
  // The best solutions the search checked, best first (the chosen one first
  // when the search found one): how the choice compares with its rivals.
  nlohmann::json sols = nlohmann::json::array();
  for (const CheckResult& c : ev.best_solutions()) {
    nlohmann::json levels = nlohmann::json::object();
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q) levels[pr.qi_names[q]] = c.transformation[q];
    sols.push_back({{"transformation", levels},
                    {"information_loss", c.quality.value},
                    {"suppressed_records", c.suppressed_records}});
  }
  s["best_solutions"] = sols;
  r["search"] = s;
  const CheckStatistics& cs = a.check_statistics;
  r["check"] = {{"checks", cs.checks},
                {"rolled_up", cs.rolled_up},
                {"from_histogram", cs.from_histogram},
                {"grouped", cs.grouped},
                {"cached_snapshots", cs.cached_snapshots},
                {"largest_cache_bytes", cs.largest_cache_words * sizeof(std::uint32_t)},
                {"histogram_entries", pr.histogram.size()}};
  return a;
}

Anonymization anonymize(const Job& job, const RunOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  Timings timings;
  auto prepared = prepare(job, &timings, options.phase);
  Anonymization a = run_search(*prepared, options);
  a.timings.read = timings.read;
  a.timings.encode = timings.encode;

  if (options.phase) options.phase(Phase::writing);
  const auto tw = std::chrono::steady_clock::now();
  if (!a.found && !job.output.path.empty()) {
    // No output for this run: an output of an earlier run must not stay in
    // place, where it could be taken for this run's.
    std::error_code ignored;
    std::filesystem::remove(job.output.path, ignored);
  }
  if (a.found && !job.output.path.empty()) {
    std::ofstream out = open_for_writing(job.output.path);
    write_output(*prepared, a.search.best->transformation, *a.classes, out);
    out.flush();
    if (!out) throw IoError(Location{job.output.path, 0, 0, {}}, "cannot write the output");
  }
  a.timings.write = ms_since(tw);
  a.timings.total = ms_since(t0);
  a.result["time_ms"] = {{"read", a.timings.read},     {"encode", a.timings.encode}, {"search", a.timings.search},
                         {"write", a.timings.write},   {"total", a.timings.total}};
  a.result["peak_rss_bytes"] = peak_rss_bytes();
  if (!job.output.result.empty()) {
    std::ofstream out = open_for_writing(job.output.result);
    out << a.result.dump(2) << '\n';
    if (!out) throw IoError(Location{job.output.result, 0, 0, {}}, "cannot write the result");
  }
  if (!job.output.report.empty()) {
    std::ofstream out = open_for_writing(job.output.report);
    out << render_html_report(*prepared, a);
    if (!out) throw IoError(Location{job.output.report, 0, 0, {}}, "cannot write the report");
  }
  return a;
}

}  // namespace deid
