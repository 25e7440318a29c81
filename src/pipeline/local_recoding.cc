// Local recoding (docs/search.md, "Local recoding"): the semantics of ARX
// 3.9.2's ARXResult.optimizeFast, optimizeIterative and
// optimizeIterativeFast, read from its source.
//
// A pass takes the records suppressed so far (ARX: the output's outliers),
// in input order, and anonymizes them as a table of their own: ARX's
// DataManager.getSubsetInstance keeps the hierarchies, the generalization
// constraints and the domain shares of the whole table and delegates the
// distributions (t-closeness, δ-disclosure, β-likeness) to it, and
// ARXConfiguration.getInstanceForLocalRecoding clones every privacy model
// (estimated k-map becomes k-anonymity with its derived k) and creates the
// quality model again with the pass's gs-factor. The relative suppression
// limit applies to the pass's records. The records the pass's optimum does
// not suppress are released with its transformation; the others stay
// suppressed for the next pass.
//
// With a research subset (Job::subset), ARX's baseline is the subset
// (ARXResult.isOptimizable and optimizeFast: `baselineRowSet`, the
// subset's rows): a pass takes the outliers within the subset only, the
// records outside it stay suppressed, and `records` of mode fast is a share
// of the subset's records (`baselineRecords`). The pass's configuration
// projects the subset onto the pass's records (DataSubset.getSubsetInstance
// within getInstanceForLocalRecoding), which keeps all of them: the pass is
// a table without records outside its subset, searched as one without a
// subset, its models' reference distributions those of the global run (the
// subset's).
#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "deid/error.h"
#include "deid/pipeline.h"
#include "pipeline/local_recoding.h"
#include "search/arx_flash.h"
#include "transform/microaggregation.h"

namespace deid {
namespace {

const char* model_name(const PrivacySpec& spec) {
  return std::visit(
      [](const auto& s) -> const char* {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, DeltaPresenceSpec>) return "delta-presence";
        if constexpr (std::is_same_v<S, DifferentialPrivacySpec>) return "differential-privacy";
        if constexpr (std::is_same_v<S, PopulationUniquenessSpec>) return "population-uniqueness";
        if constexpr (std::is_same_v<S, SampleUniquenessSpec>) return "sample-uniqueness";
        if constexpr (std::is_same_v<S, KMapSpec>) return "k-map without population-size";
        if constexpr (std::is_same_v<S, ProfitabilitySpec>) return "profitability with attacker: journalist";
        return "";
      },
      spec);
}

// Whether ARX recodes locally under the model (its
// PrivacyCriterion.isLocalRecodingSupported): not δ-presence, differential
// privacy, population and sample uniqueness, the journalist's
// profitability, nor k-map with a population table (KMap: only when not
// "accurate").
bool locally_recodable(const PrivacySpec& spec) {
  if (std::holds_alternative<DeltaPresenceSpec>(spec) || std::holds_alternative<DifferentialPrivacySpec>(spec) ||
      std::holds_alternative<PopulationUniquenessSpec>(spec) || std::holds_alternative<SampleUniquenessSpec>(spec))
    return false;
  if (const auto* k = std::get_if<KMapSpec>(&spec)) return k->population_size > 0;
  if (const auto* f = std::get_if<ProfitabilitySpec>(&spec)) return !f->journalist;
  return true;
}

// The rows of `data` narrowed to `rows` (in that order) in the columns
// `columns`, for building the pass's histogram; restored when it goes.
class NarrowedRows {
 public:
  NarrowedRows(Dataset& data, const std::vector<int>& columns, const std::vector<std::uint64_t>& rows)
      : data_(data), rows_(data.rows) {
    for (const int c : columns) {
      Column& col = data_.columns[static_cast<std::size_t>(c)];
      if (std::find(columns_.begin(), columns_.end(), c) != columns_.end()) continue;
      Codes narrowed(rows.size(), col.codes.width());
      narrowed.visit_mut([&](auto out) {
        using T = typename decltype(out)::value_type;
        for (std::size_t i = 0; i < rows.size(); ++i) out[i] = static_cast<T>(col.codes[rows[i]]);
      });
      std::swap(col.codes, narrowed);
      columns_.push_back(c);
      saved_.push_back(std::move(narrowed));
    }
    data_.rows = rows.size();
  }
  ~NarrowedRows() {
    for (std::size_t i = 0; i < columns_.size(); ++i)
      std::swap(data_.columns[static_cast<std::size_t>(columns_[i])].codes, saved_[i]);
    data_.rows = rows_;
  }
  NarrowedRows(const NarrowedRows&) = delete;
  NarrowedRows& operator=(const NarrowedRows&) = delete;

 private:
  Dataset& data_;
  std::uint64_t rows_;
  std::vector<int> columns_;
  std::vector<Codes> saved_;
};

// The problem of a pass: the records `rows` of the prepared job's.
Problem pass_problem(PreparedJob& p, const std::vector<std::uint64_t>& rows, double suppression_limit,
                     double gs_factor) {
  const Problem& whole = p.problem;
  Problem sub;
  sub.qi_names = whole.qi_names;
  sub.qi_columns = whole.qi_columns;
  sub.hierarchies = whole.hierarchies;
  sub.sensitive = whole.sensitive;
  sub.min_levels = whole.min_levels;
  sub.max_levels = whole.max_levels;
  sub.weights = whole.weights;
  sub.responses = whole.responses;
  // The histogram's distributions: the sensitive attributes', then the
  // insensitive response variables' (prepare()'s order).
  std::vector<int> distribution_columns;
  for (const SensitiveAttribute& s : whole.sensitive) distribution_columns.push_back(s.column);
  for (const ResponseVariable& r : whole.responses)
    if (r.qi < 0 && r.distribution >= static_cast<int>(whole.sensitive.size()))
      distribution_columns.push_back(p.data.column_index(r.name));
  // Microaggregated attributes: each pass aggregates its own records (ARX's
  // pass anonymizes a DataManager of the pass's rows and copies their
  // microaggregated values into the output).
  sub.microaggregated = whole.microaggregated;
  {
    std::vector<int> columns = whole.qi_columns;
    columns.insert(columns.end(), distribution_columns.begin(), distribution_columns.end());
    for (const MicroaggregatedAttribute& m : sub.microaggregated) columns.push_back(m.column);
    const NarrowedRows narrowed(p.data, columns, rows);
    sub.histogram = build_histogram(p.data, whole.qi_columns, distribution_columns);
    for (MicroaggregatedAttribute& m : sub.microaggregated)
      if (!m.generalized()) microaggregation::index_entries(m, sub.histogram, {});
  }
  sub.rows = rows.size();
  sub.population_rows = rows.size();
  sub.max_suppressed = static_cast<std::uint64_t>(suppression_limit * static_cast<double>(sub.rows) + 1e-9);
  // ARX's getInstanceForLocalRecoding: the model again with the pass's
  // gs-factor, which models without one ignore.
  QualitySpec quality = p.job.quality;
  if (has_gs_factor(quality.model)) quality.gs_factor = gs_factor;
  sub.quality = make_quality_model(quality);
  // The models of the whole table: their reference distributions and
  // k-map's derived k are the whole table's, as in ARX's pass (its models
  // read the distributions from the source DataManager, and estimated
  // k-map turns into k-anonymity with the k derived for the whole table).
  for (const PrivacySpec& spec : p.job.privacy) sub.privacy.push_back(make_privacy_model(spec, whole));
  return sub;
}

// Whether histogram entry `e` of `pr` shows '*' in every quasi-identifier
// under `t`, and ARX would mark it an outlier for that. ARX marks such
// records as outliers in its output (HashGroupify.performSuppression:
// isCompletelyGeneralized, every value the dictionary's suppressed code
// '*'), though they satisfied the models, whenever it suppresses at all,
// i.e. when the absolute suppression limit is not 0
// (TransformationApplicator.applyTransformation): the release is the same,
// but such a record counts as suppressed, is not recoded, and is among the
// records of the next pass.
bool completely_generalized(const Problem& pr, const Transformation& t, std::size_t e) {
  if (pr.max_suppressed == 0) return false;
  const Histogram& h = pr.histogram;
  for (std::size_t q = 0; q < pr.qi_names.size(); ++q)
    if (pr.hierarchies[q].label(t[q], pr.hierarchies[q].map(t[q])[h.keys[e * h.width + q]]) != "*") return false;
  return true;
}

// Whether input row `r` is outside the research subset: suppressed by the
// global run and never recoded (ARX's passes take the outliers of
// `baselineRowSet` only).
bool outside_subset(const Problem& pr, std::uint64_t r) { return !pr.subset.empty() && !pr.subset[r]; }

}  // namespace

std::vector<std::vector<std::uint32_t>> arx_distinct_values(const PreparedJob& p) {
  const Problem& pr = p.problem;
  std::vector<std::vector<std::uint32_t>> out(pr.qi_names.size());
  for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
    const Generalization& h = pr.hierarchies[q];
    const std::uint32_t values = p.data.columns[static_cast<std::size_t>(pr.qi_columns[q])].dictionary.size();
    std::vector<std::uint8_t> seen;
    for (int level = 0; level < h.height(); ++level) {
      seen.assign(h.domain_size(level), 0);
      std::uint32_t n = 0;
      for (std::uint32_t code = 0; code < values && code < h.map(level).size(); ++code)
        if (!seen[h.map(level)[code]]++) ++n;
      out[q].push_back(n);
    }
  }
  return out;
}

namespace {

// One pass (ARX's optimizeFast): nullopt when there is nothing to recode
// (ARX's isOptimizable), else the pass, its records in row_pass marked
// with `pass_number` when released.
// `distinct`: arx_distinct_values(p), the same for every pass.
std::optional<LocalRecodingPass> recode(PreparedJob& p, const std::vector<std::vector<std::uint32_t>>& distinct,
                                        std::vector<std::uint32_t>& row_pass, std::vector<std::uint32_t>& row_class,
                                        std::uint32_t pass_number,
                                        double gs_factor, std::optional<double> records) {
  const Job& job = p.job;
  std::vector<std::uint64_t> rows;
  for (std::uint64_t r = 0; r < row_pass.size(); ++r)
    if (row_pass[r] == LocalRecodingOutcome::kSuppressed && !outside_subset(p.problem, r)) rows.push_back(r);
  if (rows.empty()) return std::nullopt;
  // ARX's config.getMinimalGroupSize(): fewer outliers than the largest
  // minimal class size cannot form a class.
  std::uint64_t minimal = 0;
  for (const auto& m : p.problem.privacy)
    if (m->declares_minimal_class_size()) minimal = std::max(minimal, m->minimal_class_size());
  if (rows.size() < minimal) return std::nullopt;

  double limit = job.suppression_limit;
  if (records) {
    // ARX: at least records × (all records; with a subset, the subset's)
    // of the pass's records are released, i.e. the limit is
    // 1 - min(1, that / the pass's records).
    const double relative =
        std::clamp(*records * static_cast<double>(p.problem.rows) / static_cast<double>(rows.size()), 0.0, 1.0);
    limit = 1.0 - relative;
  }
  const Problem sub = pass_problem(p, rows, limit, gs_factor);
  LocalRecodingPass pass;
  pass.gs_factor = gs_factor;
  pass.records = rows.size();
  pass.suppression_limit_records = sub.max_suppressed;

  SearchLimits limits{default_time_limit(job.search, sub), job.search.max_checks};
  bool optimal = false;
  {
    Evaluator ev(sub, limits);
    SearchOutcome outcome = make_search(job.search, sub)->run(ev);
    pass.best = std::move(outcome.best);
    optimal = outcome.optimal;
  }
  if (!pass.best) return pass;
  // Among optima of equal loss, the one ARX's Flash keeps (docs/search.md,
  // "Ties in a pass"): its traversal simulated on the pass's records.
  // deid's optimum stays when the simulation does not apply or disagrees
  // on the loss.
  if (optimal) {
    const ArxFlashOutcome flash = arx_flash_optimum(sub, distinct, limit);
    pass.arx_flash = flash.optimum;
    if (flash.simulated && flash.optimum && same_loss(flash.optimum->quality.value, pass.best->quality.value))
      pass.best = flash.optimum;
  }
  Checker checker(sub);
  Classes classes;
  checker.check(pass.best->transformation, &classes);
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (const std::uint32_t e = sub.histogram.row_entry[i];
        !classes.suppressed[classes.entry_class[e]] && !completely_generalized(sub, pass.best->transformation, e)) {
      row_pass[rows[i]] = pass_number;
      if (!row_class.empty()) row_class[rows[i]] = classes.entry_class[e];
      ++pass.recoded;
    }
  if (!sub.microaggregated.empty()) {
    std::vector<int> columns;
    for (const MicroaggregatedAttribute& m : sub.microaggregated) columns.push_back(m.column);
    const NarrowedRows narrowed(p.data, columns, rows);
    for (const MicroaggregatedAttribute& m : sub.microaggregated)
      pass.aggregates.push_back(microaggregation::class_labels(m, sub.histogram, classes, {}));
  }
  return pass;
}

}  // namespace

void check_local_recoding(const Job& job) {
  if (!job.local_recoding) return;
  const Location at{job.path, job.local_recoding->line, 0, {}};
  for (std::size_t i = 0; i < job.privacy.size(); ++i)
    if (!locally_recodable(job.privacy[i]))
      throw JobError(Location{job.path, i < job.privacy_lines.size() ? job.privacy_lines[i] : 0, 0, {}},
                     fmt::format("local-recoding: ARX does not recode locally under {} (its "
                                 "isLocalRecodingSupported() is false): remove local-recoding or the model",
                                 model_name(job.privacy[i])));
  const auto refuse = [&](const std::string& what) {
    throw JobError(at, fmt::format("local-recoding cannot be combined yet with {}", what));
  };
  if (job.cell_suppression) refuse("cell-suppression");
  if (!job.linked.empty()) refuse("linked tables ('linked')");
  if (uses_pushdown(job))
    refuse("a PostgreSQL input grouped by its database (pushdown): set input.postgres.pushdown: false");
}

LocalRecodingOutcome run_local_recoding(PreparedJob& p, const Transformation& global, const Classes& classes) {
  const Job::LocalRecoding& lr = *p.job.local_recoding;
  LocalRecodingOutcome out;
  out.row_pass.assign(p.data.rows, 0);
  if (!p.problem.microaggregated.empty()) out.row_class.assign(p.data.rows, 0);
  for (std::uint64_t r = 0; r < p.data.rows; ++r)
    if (row_suppressed(p, classes, r) || completely_generalized(p.problem, global, p.problem.histogram.row_entry[r])) {
      out.row_pass[r] = LocalRecodingOutcome::kSuppressed;
      out.suppressed_before += !outside_subset(p.problem, r);
    }
  const std::vector<std::vector<std::uint32_t>> distinct = arx_distinct_values(p);
  const auto next = [&](double gs, std::optional<double> records) -> std::optional<std::uint64_t> {
    std::optional<LocalRecodingPass> pass =
        recode(p, distinct, out.row_pass, out.row_class, static_cast<std::uint32_t>(out.passes.size() + 1), gs, records);
    if (!pass) return std::nullopt;  // nothing to recode
    const std::uint64_t recoded = pass->recoded;
    out.passes.push_back(std::move(*pass));
    return recoded;
  };
  using Mode = Job::LocalRecoding::Mode;
  switch (lr.mode) {
    case Mode::single:
      next(lr.gs_factor, std::nullopt);
      break;
    case Mode::fast:
      // ARX's optimizeIterativeFast: passes until one recodes nothing.
      while (true) {
        const std::optional<std::uint64_t> recoded = next(lr.gs_factor, lr.records);
        if (!recoded || *recoded == 0) break;
      }
      break;
    case Mode::iterative: {
      // ARX's optimizeIterative: a pass that recodes nothing raises the
      // gs-factor by the adaption factor and, while it stays <= 1, the
      // passes go on; every pass counts against max-iterations.
      double gs = lr.gs_factor;
      for (std::uint64_t iteration = 0; iteration < lr.max_iterations; ++iteration) {
        const std::optional<std::uint64_t> recoded = next(gs, std::nullopt);
        if (!recoded) break;
        if (*recoded == 0) {
          if (lr.adaption_factor <= 0) break;
          gs += lr.adaption_factor;
          if (gs > 1.0) break;
        }
      }
      break;
    }
  }
  for (std::uint64_t r = 0; r < out.row_pass.size(); ++r)
    out.suppressed_after += out.row_pass[r] == LocalRecodingOutcome::kSuppressed && !outside_subset(p.problem, r);
  // The release's classes: its records by their released labels (two
  // passes may show the same labels at different levels) and
  // microaggregated values (each pass aggregates its own classes), but
  // those shown as '*' in every quasi-identifier, which look suppressed.
  const Problem& pr = p.problem;
  const Histogram& h = pr.histogram;
  std::vector<ReleasedAggregates> aggregates;
  for (std::size_t m = 0; m < pr.microaggregated.size(); ++m) aggregates.push_back(released_aggregates(p, classes, &out, m));
  absl::flat_hash_map<std::string, std::uint64_t> sizes;
  std::string key;
  for (std::uint64_t r = 0; r < out.row_pass.size(); ++r) {
    const std::uint32_t pass = out.row_pass[r];
    if (pass == LocalRecodingOutcome::kSuppressed) continue;
    const Transformation& t = out.transformation(pass, global);
    key.clear();
    bool starred = true;
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
      const std::uint32_t code = h.keys[std::size_t{h.row_entry[r]} * h.width + q];
      const std::string& label = pr.hierarchies[q].label(t[q], pr.hierarchies[q].map(t[q])[code]);
      starred = starred && label == "*";
      key += label;
      key.push_back('\0');
    }
    for (const ReleasedAggregates& a : aggregates) {
      key += a.labels[a.codes[r]];
      key.push_back('\0');
    }
    if (!starred) ++sizes[key];
  }
  out.classes = sizes.size();
  for (const auto& [k, n] : sizes) out.class_sizes.push_back(n);
  std::sort(out.class_sizes.begin(), out.class_sizes.end(), std::greater<>());
  out.smallest_class = out.class_sizes.empty() ? 0 : out.class_sizes.back();
  return out;
}

nlohmann::json local_recoding_json(const Job::LocalRecoding& lr, const LocalRecodingOutcome& o, const Problem& pr,
                                   const Transformation& global) {
  using Mode = Job::LocalRecoding::Mode;
  nlohmann::json j = nlohmann::json::object();
  j["mode"] = lr.mode == Mode::single ? "single" : lr.mode == Mode::fast ? "fast" : "iterative";
  j["gs_factor"] = lr.gs_factor;
  if (lr.mode == Mode::iterative) {
    j["max_iterations"] = lr.max_iterations;
    j["adaption_factor"] = lr.adaption_factor;
  }
  if (lr.mode == Mode::fast) j["records"] = lr.records;
  j["column"] = lr.column.empty() ? nlohmann::json(nullptr) : nlohmann::json(lr.column);
  j["suppressed_before"] = o.suppressed_before;
  j["suppressed_after"] = o.suppressed_after;
  j["recoded"] = o.suppressed_before - o.suppressed_after;
  // Records shown with '*' in every quasi-identifier: the suppressed ones,
  // and those a pass released at such levels (deid verify cannot tell them
  // from suppressed ones, and counts them so), but those outside the
  // research subset (counted in the result's subset.suppressed_outside).
  std::uint64_t starred = 0;
  const Histogram& h = pr.histogram;
  for (std::uint64_t r = 0; r < o.row_pass.size(); ++r) {
    if (outside_subset(pr, r)) continue;
    bool all = true;
    if (o.row_pass[r] != LocalRecodingOutcome::kSuppressed) {
      const Transformation& t = o.transformation(o.row_pass[r], global);
      for (std::size_t q = 0; q < pr.qi_names.size() && all; ++q) {
        const std::uint32_t code = h.keys[std::size_t{h.row_entry[r]} * h.width + q];
        all = pr.hierarchies[q].label(t[q], pr.hierarchies[q].map(t[q])[code]) == "*";
      }
    }
    starred += all;
  }
  j["starred_records"] = starred;
  j["classes"] = o.classes;
  j["smallest_class_size"] = o.smallest_class;
  nlohmann::json passes = nlohmann::json::array();
  for (std::size_t i = 0; i < o.passes.size(); ++i) {
    const LocalRecodingPass& pass = o.passes[i];
    nlohmann::json e = {{"pass", i + 1},
                        {"gs_factor", pass.gs_factor},
                        {"records", pass.records},
                        {"suppression_limit_records", pass.suppression_limit_records},
                        {"solution_found", pass.best.has_value()},
                        {"recoded", pass.recoded}};
    if (pass.best) {
      nlohmann::json levels = nlohmann::json::object();
      for (std::size_t q = 0; q < pr.qi_names.size(); ++q) levels[pr.qi_names[q]] = pass.best->transformation[q];
      e["transformation"] = levels;
      e["information_loss"] = pass.best->quality.value;
      e["suppressed_records"] = pass.best->suppressed_records;
    } else {
      e["transformation"] = nullptr;
      e["information_loss"] = nullptr;
    }
    passes.push_back(std::move(e));
  }
  j["passes"] = std::move(passes);
  return j;
}

}  // namespace deid
