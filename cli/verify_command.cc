// `deid verify JOB [--output FILE] [--result FILE] [--input FILE] [--json FILE]`:
// re-checks a released table against its job with the independent verifier
// (src/verify, docs/verify.md), which shares no code with the engine.
//
// What this file takes from the library: the job parser (`read_job`), which
// is the specification of what was asked, not engine code; and, for inline
// hierarchy definitions only, the hierarchy builder (`hierarchy_table`), which
// turns a definition into the table the verifier then checks against (the
// one part of the check that reuses the engine's code; docs/verify.md says
// so). Everything else (reading the tables, the levels, the classes, every
// privacy model, the digests) is the verifier's own. A PostgreSQL table is
// fetched by the library's database layer (read_postgres_text: the same
// COPY the engine reads with) and parsed by the verifier's own reader; its
// rows, which have no order, are paired with the input's by their values
// (pairing.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks.h"
#include "commands.h"
#include "deid/csv.h"
#include "deid/database.h"
#include "deid/dataset.h"
#include "deid/differential_privacy.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/output.h"
#include "deid/parquet.h"
#include "deid/pipeline.h"
#include "pairing.h"
#include "sha256.h"
#include "verify.h"

namespace deid::cli {
namespace {

constexpr int kExitHold = 0;
constexpr int kExitFailed = 1;

// A CSV read with the verifier's reader; a file that cannot be opened or
// parsed is an error of the invocation (exit 2).
verify::Table read_table(const std::string& path, char delimiter, bool header, const char* what) {
  std::string why;
  auto table = verify::read_csv_file(path, delimiter, header, &why);
  if (!table) throw IoError(Location{path, 0, 0, {}}, fmt::format("cannot read the {}: {}", what, why));
  return std::move(*table);
}

char file_delimiter(const std::string& path, const char* what) {
  const auto d = verify::detect_file_delimiter(path);
  if (!d) throw IoError(Location{path, 0, 0, {}}, fmt::format("cannot open the {}", what));
  return *d;
}

// A table verify reads: a CSV file, or a PostgreSQL table (or query)
// fetched with the database layer's COPY and parsed by the verifier's own
// reader.
struct Source {
  verify::Table table;
  std::string name;  // the path, or describe() of the table (no password)
  std::string text;  // a database table's CSV text
  bool database = false;
};

Source read_database(const PostgresTable& t, const char* what) {
  Source s;
  s.database = true;
  s.name = describe(t);
  s.text = read_postgres_text(t, fmt::format("read the {}", what));
  std::string why;
  auto table = verify::parse_csv(s.text, ',', true, &why);
  if (!table) throw InputError(Location{s.name, 0, 0, {}}, fmt::format("the {} is not CSV: {}", what, why));
  s.table = std::move(*table);
  s.table.lines.clear();  // lines of the text received mean nothing in a table
  return s;
}

// A Parquet file, read through the codec of the Python package (parquet.h)
// and handed to the verifier's reader as CSV text: the cells the engine read
// (the verifier has no Parquet reader of its own). Its rows are numbered,
// it has no lines.
Source read_parquet_file(const std::string& path, const char* what) {
  const std::string text = dataset_csv_text(read_parquet(path, what), ',');
  Source s;
  s.name = path;
  std::string why;
  auto table = verify::parse_csv(text, ',', true, &why);
  if (!table) throw InputError(Location{path, 0, 0, {}}, fmt::format("the {} cannot be read: {}", what, why));
  s.table = std::move(*table);
  s.table.lines.clear();
  return s;
}

// The hierarchies of a job, as tables of strings. A file is read by the
// verifier's reader; a table a front end holds in memory (the Python
// package's hierarchies=) is taken as it is; an inline definition is built
// by the library's builder from the input (encoded once, when the first
// inline definition needs it).
class Hierarchies {
 public:
  Hierarchies(const Job& job, const Source& input, char delimiter) : job_(job), input_(input), delimiter_(delimiter) {}

  verify::Table of(const AttributeSpec& a) {
    if (a.hierarchy_data) {  // a table a front end holds in memory (deid.verify in Python)
      verify::Table t;
      t.rows = a.hierarchy_data->rows;
      return t;
    }
    if (!a.hierarchy_builder) return read_table(a.hierarchy, file_delimiter(a.hierarchy, "hierarchy"), false, "hierarchy");
    if (!data_)
      data_.emplace(input_.database ? read_dataset_text(input_.text, input_.name, CsvOptions{',', true})
                                    : read_dataset(input_.name, CsvOptions{delimiter_, true}));
    verify::Table t;
    t.rows = hierarchy_table(job_, a, *data_).rows;
    return t;
  }
  // For messages.
  std::string name_of(const AttributeSpec& a) const {
    if (a.hierarchy_data) return a.hierarchy_data->source;
    if (!a.hierarchy_builder) return a.hierarchy;
    return fmt::format("(inline hierarchy at {}:{})", a.hierarchy_source.empty() ? job_.path : a.hierarchy_source,
                       a.hierarchy_line);
  }

 private:
  const Job& job_;
  const Source& input_;
  char delimiter_;
  std::optional<Dataset> data_;
};

// The role of every input column (the job's, or its default role; a column
// without either is taken as copied, the strictest reading).
Role role_of(const Job& job, const std::string& column) {
  if (const AttributeSpec* a = job.attribute(column)) return a->role;
  return job.default_role.value_or(Role::insensitive);
}

struct Mapped {
  verify::Options options;
  std::vector<verify::Table> hierarchies;  // per quasi-identifier
  std::vector<verify::Table> aggregated_hierarchies;  // per microaggregated column (empty: not generalized)
  // Models of the job the table cannot show (reported as skipped).
  std::vector<verify::CheckLine> unchecked;
};

// The job as verifier options (anonymization).
Mapped map_anonymization(const Job& job, const verify::Table& input, Hierarchies& hierarchies) {
  Mapped m;
  if (job.subset) {
    // The research subset, found again by the verifier's own reader and
    // matching.
    const Job::Subset& s = *job.subset;
    std::vector<char>& in = m.options.subset;
    if (s.file.empty()) {
      const auto c = std::find(input.header.begin(), input.header.end(), s.column);
      if (c == input.header.end())
        throw JobError(Location{job.path, s.line, 0, {}}, fmt::format("subset.column '{}' is not a column of the input", s.column));
      const std::size_t col = static_cast<std::size_t>(c - input.header.begin());
      for (const auto& row : input.rows) in.push_back(row[col] == s.value ? 1 : 0);
    } else {
      const verify::Table subset =
          read_table(s.file, s.delimiter ? *s.delimiter : file_delimiter(s.file, "subset"), true, "subset");
      std::string why;
      const auto matched = verify::match_subset(input, subset, &why);
      if (!matched) throw InputError(Location{s.file, 0, 0, {}}, fmt::format("the subset does not fit the input: {}", why));
      in = *matched;
    }
  }
  verify::Options& o = m.options;
  for (const auto& column : input.header) {
    const Role role = role_of(job, column);
    if (role == Role::identifying) o.identifying.push_back(column);
    if (role != Role::quasi_identifying) continue;
    const AttributeSpec& a = *job.attribute(column);
    if (a.microaggregation) {
      const bool generalized = a.microaggregation->generalize_before;
      o.microaggregated.push_back(
          {column, to_string(a.microaggregation->function), generalized ? hierarchies.name_of(a) : std::string()});
      m.aggregated_hierarchies.push_back(generalized ? hierarchies.of(a) : verify::Table{});
      continue;
    }
    o.quasi_identifiers.push_back({column, hierarchies.name_of(a), a.min_level.value_or(0), a.max_level});
    m.hierarchies.push_back(hierarchies.of(a));
  }
  o.suppression_limit = job.suppression_limit;
  // With differential privacy every model is judged on its sample, which
  // is secret. The released classes hold sampled records only, so what a
  // model judges class by class (l-diversity, k-anonymity, profitability)
  // and the risk models (which read the released classes' sizes and
  // records, ARX's HashGroupifyDistribution) can be checked; t-closeness,
  // delta-disclosure and beta-likeness compare a class with the sample's
  // distribution and cannot (docs/verify.md).
  const bool sampled = std::any_of(job.privacy.begin(), job.privacy.end(), [](const PrivacySpec& p) {
    return std::holds_alternative<DifferentialPrivacySpec>(p);
  });
  const auto unchecked = [&](std::string name) {
    verify::CheckLine l;
    l.name = std::move(name);
    l.status = verify::CheckLine::Status::skipped;
    l.detail = "judged against the distribution of differential privacy's sample, which is secret; the table "
               "cannot show it";
    m.unchecked.push_back(std::move(l));
  };
  for (const auto& spec : job.privacy) {
    std::visit(
        [&](const auto& p) {
          using P = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<P, TClosenessSpec> || std::is_same_v<P, DeltaDisclosureSpec> ||
                        std::is_same_v<P, BetaLikenessSpec>) {
            if (sampled) {
              unchecked(fmt::format("{} ({})",
                                    std::is_same_v<P, TClosenessSpec>        ? "t-closeness"
                                    : std::is_same_v<P, DeltaDisclosureSpec> ? "delta-disclosure privacy"
                                                                             : "beta-likeness",
                                    p.attribute));
              return;
            }
          }
          if constexpr (std::is_same_v<P, KAnonymitySpec>) {
            o.k = std::max(o.k, p.k);
          } else if constexpr (std::is_same_v<P, LDiversitySpec>) {
            switch (p.variant) {
              case LDiversitySpec::Variant::distinct:
                o.class_requirements.push_back(verify::DistinctLDiversity{p.attribute, static_cast<std::uint64_t>(p.l)});
                break;
              case LDiversitySpec::Variant::entropy:
                o.class_requirements.push_back(verify::EntropyLDiversity{
                    p.attribute, p.l, p.estimator == LDiversitySpec::Estimator::grassberger});
                break;
              case LDiversitySpec::Variant::recursive:
                o.class_requirements.push_back(
                    verify::RecursiveCLDiversity{p.attribute, p.c, static_cast<std::uint64_t>(p.l)});
                break;
            }
          } else if constexpr (std::is_same_v<P, TClosenessSpec>) {
            verify::TCloseness t;
            t.attribute = p.attribute;
            t.t = p.t;
            const AttributeSpec* a = job.attribute(p.attribute);
            switch (p.distance) {
              case TClosenessSpec::Distance::equal:
                t.distance = verify::TCloseness::Distance::equal;
                break;
              case TClosenessSpec::Distance::ordered:
                t.distance = verify::TCloseness::Distance::ordered;
                if (a) t.order = a->order;
                break;
              case TClosenessSpec::Distance::hierarchical:
                t.distance = verify::TCloseness::Distance::hierarchical;
                if (a && a->has_hierarchy()) t.hierarchy = hierarchies.of(*a).rows;
                break;
            }
            o.class_requirements.push_back(std::move(t));
          } else if constexpr (std::is_same_v<P, DeltaDisclosureSpec>) {
            o.class_requirements.push_back(verify::DeltaDisclosure{p.attribute, p.delta});
          } else if constexpr (std::is_same_v<P, BetaLikenessSpec>) {
            o.class_requirements.push_back(
                verify::BetaLikeness{p.attribute, p.beta, p.variant == BetaLikenessSpec::Variant::enhanced});
          } else if constexpr (std::is_same_v<P, AverageRiskSpec>) {
            o.average_risk = verify::AverageRisk{p.threshold, p.highest_risk, p.records_at_risk};
          } else if constexpr (std::is_same_v<P, KMapSpec>) {
            if (p.population_size == 0)  // the population table
              o.population_k = std::max(o.population_k, p.k);
            else
              o.k_map = verify::KMap{p.k, p.population_size, p.significance,
                                     p.estimator == KMapSpec::Estimator::zero_truncated_poisson};
          } else if constexpr (std::is_same_v<P, SampleUniquenessSpec>) {
            o.sample_uniqueness = verify::SampleUniqueness{p.threshold};
          } else if constexpr (std::is_same_v<P, DifferentialPrivacySpec>) {
            // Every released record was sampled, and every released class
            // holds at least k sampled records: the released table is
            // k-anonymous for ARX's k (the sample itself is secret, so that
            // is all a table can show; docs/privacy-models.md). Suppression
            // is unlimited.
            o.k = std::max(o.k, job_dp_parameters(p, job.path).k);
            o.suppression_limit = 1;
          } else if constexpr (std::is_same_v<P, ProfitabilitySpec>) {
            // Without attack: k-anonymity with k derived from gain / cost
            // (ARX's ProfitabilityProsecutorNoAttack), derived here again;
            // the journalist's: the class's records in the population (the
            // input) must reach k. With attack: every released class has a
            // positive publisher payout (verify::Profitability).
            if (p.attack) {
              const CostBenefitSpec& cb = p.cost_benefit;
              o.profitability = verify::Profitability{cb.publisher_benefit, cb.publisher_loss, cb.adversary_gain,
                                                      cb.adversary_cost, p.journalist};
            } else {
              const double gain = p.cost_benefit.adversary_gain, cost = p.cost_benefit.adversary_cost;
              std::uint64_t k = 1;
              if (gain > 0) {
                const double ratio = gain / cost;
                k = std::isinf(ratio) ? 2147483647u
                    : ratio == std::floor(ratio) ? static_cast<std::uint64_t>(ratio) + 1
                                                 : static_cast<std::uint64_t>(std::ceil(ratio));
              }
              if (p.journalist)
                o.population_k = std::max(o.population_k, k);
              else
                o.k = std::max(o.k, k);
            }
          } else if constexpr (std::is_same_v<P, DeltaPresenceSpec>) {
            o.delta_presence = verify::DeltaPresence{p.min, p.max, false};
          } else {
            static_assert(std::is_same_v<P, PopulationUniquenessSpec>);
            verify::PopulationUniqueness pu;
            pu.threshold = p.threshold;
            pu.population_size = p.population_size;
            switch (p.estimator) {
              case PopulationUniquenessSpec::Estimator::dankar: pu.estimator = verify::PopulationUniqueness::Estimator::dankar; break;
              case PopulationUniquenessSpec::Estimator::pitman: pu.estimator = verify::PopulationUniqueness::Estimator::pitman; break;
              case PopulationUniquenessSpec::Estimator::zayatz: pu.estimator = verify::PopulationUniqueness::Estimator::zayatz; break;
              case PopulationUniquenessSpec::Estimator::snb: pu.estimator = verify::PopulationUniqueness::Estimator::snb; break;
            }
            o.population_uniqueness = pu;
          }
        },
        spec);
  }
  // ARX judges a class without subset records too small before it asks
  // δ-presence when a model has a minimal class size (docs/privacy-models.md).
  if (o.delta_presence)
    for (const auto& spec : job.privacy)
      o.delta_presence->judged_too_small_first =
          o.delta_presence->judged_too_small_first || std::holds_alternative<KAnonymitySpec>(spec) ||
          std::holds_alternative<LDiversitySpec>(spec) ||
          (std::holds_alternative<KMapSpec>(spec) && std::get<KMapSpec>(spec).population_size > 0) ||
          (std::holds_alternative<ProfitabilitySpec>(spec) && !std::get<ProfitabilitySpec>(spec).attack &&
           !std::get<ProfitabilitySpec>(spec).journalist);
  return m;
}

struct MappedCells {
  verify::CellOptions options;
  std::vector<verify::Table> hierarchies;  // per released column (empty at level 0)
};

// The job's `cell-suppression` section as checker options
// (docs/cell-suppression.md): released columns named as documented (the
// first released level under the attribute's name, the others NAME_L<level>,
// unless `names` is given); every combination expanded to every choice of
// released levels from the known one up.
MappedCells map_cell_suppression(const Job& job, const verify::Table& input, Hierarchies& hierarchies) {
  const Job::CellSuppression& cs = *job.cell_suppression;
  MappedCells m;
  verify::CellOptions& o = m.options;
  if (cs.k) {
    o.k = *cs.k;
  } else {
    // k = ceil(1/tau); the margin keeps 1/0.2 = 5.000000000000001 at 5.
    o.k = static_cast<std::uint64_t>(std::ceil(1.0 / cs.tau.value_or(1.0) - 1e-9));
  }
  o.marker = cs.marker;
  std::map<std::string, std::vector<std::size_t>> known_columns;  // attribute -> released columns from the known level
  std::set<std::string> released_names;
  std::vector<std::string> qis;
  for (const auto& column : input.header) {
    const Role role = role_of(job, column);
    if (role == Role::identifying) o.removed.push_back(column);
    if (role == Role::quasi_identifying) qis.push_back(column);
  }
  for (const auto& attribute : qis) {
    const AttributeSpec& a = *job.attribute(attribute);
    const auto release = std::find_if(cs.release_levels.begin(), cs.release_levels.end(),
                                      [&](const auto& r) { return r.attribute == attribute; });
    std::vector<int> levels = {0};
    std::vector<std::string> names;
    std::optional<int> known;
    if (release != cs.release_levels.end()) {
      if (!release->levels.empty()) levels = release->levels;
      names = release->names;
      known = release->known_level;
      if (!known && !release->evaluate.empty()) known = *std::min_element(release->evaluate.begin(), release->evaluate.end());
    }
    const int known_level = known.value_or(*std::min_element(levels.begin(), levels.end()));
    std::optional<verify::Table> table;
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const std::string name =
          i < names.size() ? names[i] : (i == 0 ? attribute : fmt::format("{}_L{}", attribute, levels[i]));
      o.released.push_back({name, attribute, levels[i], a.has_hierarchy() ? hierarchies.name_of(a) : std::string()});
      if (levels[i] > 0 && !table) table = hierarchies.of(a);
      m.hierarchies.push_back(levels[i] > 0 ? *table : verify::Table{});
      released_names.insert(name);
      if (levels[i] >= known_level) known_columns[attribute].push_back(o.released.size() - 1);
    }
  }
  std::vector<std::vector<std::string>> combinations = cs.combinations;
  if (combinations.empty()) combinations.push_back(qis);
  std::set<std::vector<std::string>> seen;
  for (const auto& combination : combinations) {
    // Each member: the released columns it stands for.
    std::vector<std::vector<std::string>> choices;
    for (const auto& member : combination) {
      if (known_columns.count(member)) {
        std::vector<std::string> columns;
        for (std::size_t i : known_columns.at(member)) columns.push_back(o.released[i].output_column);
        choices.push_back(columns);
      } else if (released_names.count(member)) {
        choices.push_back({member});
      } else {
        throw JobError(Location{job.path, cs.line, 0, {}},
                       fmt::format("cell-suppression: the combination member '{}' is neither a quasi-identifier nor "
                                   "a released column",
                                   member));
      }
    }
    // The cartesian product of the choices.
    std::vector<std::vector<std::string>> product = {{}};
    for (const auto& choice : choices) {
      std::vector<std::vector<std::string>> next;
      for (const auto& partial : product)
        for (const auto& column : choice) {
          next.push_back(partial);
          next.back().push_back(column);
        }
      product = std::move(next);
    }
    for (auto& c : product)
      if (seen.insert(c).second) o.combinations.push_back(std::move(c));
  }
  return m;
}

// What the JSON result at `path` claims.
verify::ResultClaims read_claims(const std::string& path, bool cell_suppression) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(Location{path, 0, 0, {}}, "cannot open the result");
  nlohmann::json r;
  try {
    r = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(Location{path, 0, 0, {}}, fmt::format("the result is not JSON: {}", e.what()));
  }
  if (!r.is_object()) throw InputError(Location{path, 0, 0, {}}, "the result is not a JSON object");
  auto count = [&](const nlohmann::json& parent, const char* key) -> std::optional<std::uint64_t> {
    if (!parent.is_object() || !parent.contains(key)) return std::nullopt;
    if (!parent[key].is_number_unsigned())
      throw InputError(Location{path, 0, 0, {}}, fmt::format("the result's \"{}\" is not a count", key));
    return parent[key].get<std::uint64_t>();
  };
  verify::ResultClaims c;
  c.records = count(r, "records");
  if (cell_suppression) {
    c.k = count(r, "k");
    if (r.contains("information_loss")) c.suppressed_cells = count(r["information_loss"], "suppressed_cells");
  } else {
    if (r.contains("solution_found") && r["solution_found"].is_boolean()) c.solution_found = r["solution_found"].get<bool>();
    c.suppressed_records = count(r, "suppressed_records");
    // Differential privacy's sample (a research subset the verifier cannot
    // know): the result counts the sample's records; the output has every
    // input record, those outside the sample suppressed. (A job's own
    // `subset` is found again by the verifier, and its counts compared as
    // they are.)
    bool sampled = false;
    if (r.contains("privacy_models") && r["privacy_models"].is_array())
      for (const auto& m : r["privacy_models"])
        sampled = sampled || (m.is_object() && m.value("model", "") == "differential-privacy");
    if (sampled && r.contains("subset") && r["subset"].is_object()) {
      c.records = count(r["subset"], "population_records");
      const auto outside = count(r["subset"], "suppressed_outside");
      if (c.suppressed_records && outside) *c.suppressed_records += *outside;
    }
    c.classes = count(r, "classes");
    c.smallest_class_size = count(r, "smallest_class_size");
    if (r.contains("transformation") && r["transformation"].is_object()) {
      c.transformation.emplace();
      for (const auto& [name, level] : r["transformation"].items()) {
        if (!level.is_number_integer())
          throw InputError(Location{path, 0, 0, {}}, fmt::format("the result's level of '{}' is not an integer", name));
        c.transformation->emplace_back(name, level.get<int>());
      }
    }
  }
  if (r.contains("files")) {
    if (!r["files"].is_array()) throw InputError(Location{path, 0, 0, {}}, "the result's \"files\" is not an array");
    c.files.emplace();
    for (const auto& f : r["files"]) {
      // A table the database wrote itself (pushdown) has "sha256": null.
      const bool pushed = f.is_object() && f.contains("pushdown") && f["pushdown"].is_string();
      if (!f.is_object() || !f.contains("role") || !f["role"].is_string() || !f.contains("sha256") ||
          !(f["sha256"].is_string() || (pushed && f["sha256"].is_null())))
        throw InputError(Location{path, 0, 0, {}},
                         "an entry of the result's \"files\" lacks \"role\" or \"sha256\": " + f.dump());
      verify::FileClaim claim;
      claim.role = f["role"].get<std::string>();
      if (f["sha256"].is_string()) {
        // A digest is 64 hexadecimal digits in either case (sha256sum
        // writes lower case, other tools upper case): compared as a number.
        claim.sha256 = f["sha256"].get<std::string>();
        const bool hex = claim.sha256.size() == 64 &&
                         std::all_of(claim.sha256.begin(), claim.sha256.end(), [](unsigned char ch) {
                           return std::isxdigit(ch) != 0;
                         });
        if (!hex)
          throw InputError(Location{path, 0, 0, {}},
                           fmt::format("the result's \"files\" entry for '{}' has \"sha256\": \"{}\", which is not a "
                                       "SHA-256 digest (64 hexadecimal digits)",
                                       claim.role, claim.sha256.size() > 80 ? claim.sha256.substr(0, 77) + "..."
                                                                              : claim.sha256));
        std::transform(claim.sha256.begin(), claim.sha256.end(), claim.sha256.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      }
      if (pushed) claim.pushdown = f["pushdown"].get<std::string>();
      if (f.contains("rows") && f["rows"].is_number_unsigned()) claim.rows = f["rows"].get<std::uint64_t>();
      if (f.contains("path") && f["path"].is_string()) claim.path = f["path"].get<std::string>();
      if (f.contains("bytes") && f["bytes"].is_number_unsigned()) claim.bytes = f["bytes"].get<std::uint64_t>();
      c.files->push_back(std::move(claim));
    }
  }
  return c;
}

void print_table(const std::vector<verify::CheckLine>& lines, bool failures_only) {
  std::size_t width = 0;
  for (const auto& l : lines) width = std::max(width, l.name.size());
  for (const auto& l : lines) {
    if (failures_only && l.status != verify::CheckLine::Status::failed) continue;
    fmt::print("{:<{}}  {:<7}  {}\n", l.name, width, verify::to_string(l.status), l.detail);
  }
}

}  // namespace

nlohmann::json to_json(const Verification& v) {
  const auto& lines = v.lines;
  const auto& output = v.output;
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& l : lines) {
    nlohmann::json c = {{"check", l.name}, {"status", verify::to_string(l.status)}, {"detail", l.detail}};
    if (l.status == verify::CheckLine::Status::failed) {
      if (!l.column.empty()) c["column"] = l.column;
      if (l.row) c["row"] = l.row;
      if (l.line) c["line"] = l.line;
    }
    checks.push_back(std::move(c));
  }
  // A failed check's detail quotes input values to locate the fault: the
  // table of checks is for the custodian (docs/reliability.md).
  return {{"output", output},
          {"valid", verify::all_hold(lines)},
          {"checks", std::move(checks)},
          {"custodian_only", true}};
}

namespace {

// "FILE:LINE (data row R, column 'C')" of a failed line, as much as is
// known. Rows paired by their values are named by their input row: "TABLE
// (the row paired with input row R, column 'C')" (a table has no lines).
std::string where(const verify::CheckLine& l, const std::string& output, bool paired) {
  std::string s = output;
  if (l.line) s += fmt::format(":{}", l.line);
  std::string in;
  if (l.row) in = paired ? fmt::format("the row paired with input row {}", l.row) : fmt::format("data row {}", l.row);
  if (!l.column.empty()) in += fmt::format("{}column '{}'", in.empty() ? "" : ", ", l.column);
  return in.empty() ? s : s + " (" + in + ")";
}

}  // namespace

Verification verify_release(Job job, const std::string& input_path, const std::string& output_path,
                            const std::string& result_path) {
  if (!input_path.empty()) {
    job.input.path = input_path;
    job.input.format = table_format_of(input_path);
    job.input.postgres.reset();
  }
  if (!output_path.empty()) {
    job.output.postgres.reset();
    job.output.format = table_format_of(output_path);
  }
  const std::string output = output_path.empty() ? job.output.path : output_path;
  if (output.empty() && !job.output.postgres)
    throw JobError(Location{job.path, 0, 0, {}},
                   "nothing to verify: the job has no output.path or output table; give --output FILE");
  // A table appended to holds other rows than this release's.
  if (job.output.postgres && job.output.postgres->mode == PostgresTable::Mode::append)
    throw JobError(Location{job.path, job.output.postgres->line, 0, {}},
                   "deid verify cannot check an output table of mode append: it holds the rows of other runs too; "
                   "export this run's rows and give --output FILE");

  // The input: its file, or its table read through the database layer.
  Source input;
  char input_delimiter = ',';
  if (job.input.postgres) {
    input = read_database(*job.input.postgres, "input table");
  } else if (job.input.format == TableFormat::parquet) {
    input = read_parquet_file(job.input.path, "input");
  } else {
    input_delimiter = job.input.delimiter ? *job.input.delimiter : file_delimiter(job.input.path, "input");
    input.name = job.input.path;
    input.table = read_table(job.input.path, input_delimiter, true, "input");
  }
  for (const auto& a : job.attributes)
    if (std::find(input.table.header.begin(), input.table.header.end(), a.name) == input.table.header.end())
      throw JobError(Location{job.path, a.line, 0, {}},
                     fmt::format("attribute '{}' is not a column of {}", a.name, input.name));
  Hierarchies hierarchies(job, input, input_delimiter);

  std::vector<verify::CheckLine> lines;
  std::optional<verify::Table> released;
  verify::VerifiedFiles files{input.name, output, {}, false, 0};
  if (input.database) files.input_table = verify::FileDigest{verify::sha256_hex(input.text), input.text.size()};
  if (job.output.postgres) {
    Source out = read_database(*job.output.postgres, "released table");
    files.output = out.name;
    files.output_table = true;
    files.output_rows = out.table.rows.size();
    released = std::move(out.table);
  } else if (job.output.format == TableFormat::parquet) {
    require_parquet(output, "output");
    std::error_code ec;
    if (!std::filesystem::exists(output, ec))
      throw IoError(Location{output, 0, 0, {}}, "cannot open the output to verify");
    released = read_parquet_file(output, "output").table;
  } else {
    const char output_delimiter = job.output.delimiter.value_or(input_delimiter);
    std::string why;
    released = verify::read_csv_file(output, output_delimiter, true, &why);
    if (!released) {
      std::ifstream probe(output, std::ios::binary);
      if (!probe) throw IoError(Location{output, 0, 0, {}}, "cannot open the output to verify");
      // A released table that is not CSV fails verification (exit 1).
      lines.push_back({"output csv", verify::CheckLine::Status::failed, why, {}, 0, 0});
    }
  }
  // Rows of a table have no order (docs/databases.md, "Row order"): with a
  // table on either side the output's rows are paired with the input's by
  // their values (pairing.h); files are compared in their order.
  const bool unordered = input.database || files.output_table;
  if (!released) {
  } else if (job.cell_suppression) {
    // deid suppress streams its release into a new table in input order,
    // and a new table is read back in the order it was written: compared as
    // it reads (docs/verify.md).
    const MappedCells m = map_cell_suppression(job, input.table, hierarchies);
    const verify::CellReport report = verify::check_cell_tables(input.table, *released, m.hierarchies, m.options);
    for (const auto& v : report.violations)
      if (v.kind == verify::CellViolation::Kind::unreadable || v.kind == verify::CellViolation::Kind::bad_options)
        throw JobError(Location{job.path, 0, 0, {}}, fmt::format("the job does not fit the data: {}", v.message));
    lines = verify::summarize(m.options, report);
    if (!result_path.empty()) {
      const auto more = verify::check_result(read_claims(result_path, true), m.options, report, files);
      lines.insert(lines.end(), more.begin(), more.end());
    }
  } else {
    const Mapped m = map_anonymization(job, input.table, hierarchies);
    if (unordered)
      if (const auto pairing = verify::pair_rows(m.options, input.table, *released, m.hierarchies))
        released = verify::in_input_order(*released, *pairing);
    const verify::Report report =
        verify::check_tables(m.options, input.table, *released, m.hierarchies, m.aggregated_hierarchies);
    for (const auto& v : report.violations)
      if (v.kind == verify::Violation::Kind::unreadable || v.kind == verify::Violation::Kind::bad_options ||
          v.kind == verify::Violation::Kind::bad_hierarchy)
        throw JobError(Location{job.path, 0, 0, {}}, fmt::format("the job does not fit the data: {}", v.message));
    lines = verify::summarize(m.options, report);
    lines.insert(lines.end(), m.unchecked.begin(), m.unchecked.end());
    if (!result_path.empty()) {
      const auto more = verify::check_result(read_claims(result_path, false), m.options, report, files);
      lines.insert(lines.end(), more.begin(), more.end());
    }
  }
  if (files.output_table)
    for (auto& l : lines) l.line = 0;  // a table has no lines
  if (unordered && released && released->rows.size() != input.table.rows.size())
    for (auto& l : lines) {
      // Rows without an order part nowhere in particular.
      if (l.name != "rows" || l.status != verify::CheckLine::Status::failed) continue;
      l.detail = fmt::format("the output has {} rows, the input {} (one output row per input row is required)",
                             released->rows.size(), input.table.rows.size());
      l.row = l.line = 0;
    }
  return {files.output, std::move(lines), unordered && !job.cell_suppression};
}

Command add_verify_command(CLI::App& app, const bool& quiet) {
  struct Options {
    std::string job, input, output, result, json;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "verify", "Check a released table against its job with the independent verifier (docs/verify.md)");
  sub->add_option("job", opts->job, "Job file (YAML) the table was released with")->required()->check(CLI::ExistingFile);
  sub->add_option("--output", opts->output, "The released table (default: the job's output.path)");
  sub->add_option("--result", opts->result, "The JSON result of the run: its counts and SHA-256s are checked too");
  sub->add_option("--input", opts->input, "The input table (default: the job's input): CSV, or Parquet when named *.parquet");
  sub->add_option("--json", opts->json, "Also write the table of checks as JSON to this file");

  Command cmd;
  cmd.app = sub;
  cmd.run = [opts, &quiet]() -> int {
    Job job = read_job(opts->job);
    // Every file verify reads (the job, everything it names, the input,
    // the released table and the result) is safe from --json, which is
    // written whole or not at all like every other output.
    std::vector<FileUse> reads = job_reads(job);
    reads.push_back({"input data", opts->input.empty() ? job.input.path : opts->input});
    reads.push_back({"released table", opts->output.empty() ? job.output.path : opts->output});
    reads.push_back({"result", opts->result});
    const CheckedFiles checked = check_files(reads, {{"table of checks", opts->json}});
    const Verification v = verify_release(std::move(job), opts->input, opts->output, opts->result);
    const std::vector<verify::CheckLine>& lines = v.lines;
    const std::string& output = v.output;

    if (!opts->json.empty()) write_file_atomically(checked.output("table of checks"), to_json(v).dump(2) + "\n", "checks");
    print_table(lines, quiet);
    if (verify::all_hold(lines)) return kExitHold;
    const auto first = std::find_if(lines.begin(), lines.end(),
                                    [](const auto& l) { return l.status == verify::CheckLine::Status::failed; });
    fmt::print(stderr, "deid: verify: {} failed at {}: {}\n", first->name, where(*first, output, v.paired),
               first->detail);
    return kExitFailed;
  };
  return cmd;
}

}  // namespace deid::cli
