// The table of checks of `deid verify` (checks.h).
#include "checks.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

#include "release_check.h"
#include "sha256.h"

namespace verify {
namespace {

using Status = CheckLine::Status;
using Kind = Violation::Kind;

std::string number(double v, int precision = 6) {
  std::ostringstream s;
  s.precision(precision);
  s << v;
  return s.str();
}

// A line that fails with the first of `violations` for which `owns` holds,
// else holds with `detail`.
template <typename V, typename Owns>
CheckLine line_of(std::string name, const std::vector<V>& violations, Owns owns, std::string detail) {
  CheckLine line;
  line.name = std::move(name);
  for (const auto& v : violations) {
    if (!owns(v)) continue;
    line.status = Status::failed;
    line.detail = v.message;
    line.row = v.row;
    line.line = v.line;
    if constexpr (std::is_same_v<V, Violation>)
      line.column = v.column;
    else
      line.column = v.where;
    return line;
  }
  line.detail = std::move(detail);
  return line;
}

CheckLine skipped(std::string name, std::string why) {
  CheckLine line;
  line.name = std::move(name);
  line.status = Status::skipped;
  line.detail = std::move(why);
  return line;
}

CheckLine failed(std::string name, std::string detail) {
  CheckLine line;
  line.name = std::move(name);
  line.status = Status::failed;
  line.detail = std::move(detail);
  return line;
}

std::string requirement_name(const ClassRequirement& req) {
  return std::visit(
      [](const auto& r) -> std::string {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, DistinctLDiversity>) {
          return "l-diversity (distinct, l=" + std::to_string(r.l) + ", " + r.attribute + ")";
        } else if constexpr (std::is_same_v<R, EntropyLDiversity>) {
          return std::string("l-diversity (entropy") + (r.grassberger ? ", Grassberger" : "") + ", l=" + number(r.l) +
                 ", " + r.attribute + ")";
        } else if constexpr (std::is_same_v<R, RecursiveCLDiversity>) {
          return "l-diversity (recursive, c=" + number(r.c) + ", l=" + std::to_string(r.l) + ", " + r.attribute + ")";
        } else if constexpr (std::is_same_v<R, DeltaDisclosure>) {
          return "delta-disclosure (delta=" + number(r.delta) + ", " + r.attribute + ")";
        } else if constexpr (std::is_same_v<R, BetaLikeness>) {
          return std::string("beta-likeness (") + (r.enhanced ? "enhanced" : "basic") + ", beta=" + number(r.beta) +
                 ", " + r.attribute + ")";
        } else {
          const char* d = r.distance == TCloseness::Distance::equal          ? "equal"
                          : r.distance == TCloseness::Distance::hierarchical ? "hierarchical"
                                                                             : "ordered";
          return std::string("t-closeness (") + d + ", t=" + number(r.t) + ", " + r.attribute + ")";
        }
      },
      req);
}

const char* estimator_name(PopulationUniqueness::Estimator e) {
  switch (e) {
    case PopulationUniqueness::Estimator::dankar: return "dankar";
    case PopulationUniqueness::Estimator::pitman: return "pitman";
    case PopulationUniqueness::Estimator::zayatz: return "zayatz";
    case PopulationUniqueness::Estimator::snb: return "snb";
  }
  return "?";
}

// "claimed X, found Y" for each count that differs.
void compare(std::vector<std::string>& differences, const char* key, const std::optional<std::uint64_t>& claimed,
             std::uint64_t found, std::vector<std::string>& compared) {
  if (!claimed) return;
  compared.push_back(key);
  if (*claimed != found)
    differences.push_back(std::string(key) + ": the result says " + std::to_string(*claimed) + ", the output has " +
                          std::to_string(found));
}

CheckLine counts_line(const std::vector<std::string>& differences, const std::vector<std::string>& compared) {
  if (!differences.empty()) {
    std::string detail;
    for (const auto& d : differences) detail += (detail.empty() ? "" : "; ") + d;
    return failed("result counts", detail);
  }
  if (compared.empty()) return skipped("result counts", "the result has none of the counts");
  std::string detail;
  for (const auto& c : compared) detail += (detail.empty() ? "" : ", ") + c;
  return {"result counts", Status::ok, detail + " match", {}, 0, 0};
}

// The digest lines (see check_result in checks.h).
void file_lines(const ResultClaims& claims, const VerifiedFiles& files, std::vector<CheckLine>& lines) {
  if (!claims.files) {
    lines.push_back(skipped("sha256", "the result has no \"files\" key (an in-memory run, or a result written before deid recorded digests)"));
    return;
  }
  auto check_file = [&](const std::string& name, const FileClaim& claim, const std::string& path) {
    std::string error;
    const auto digest = sha256_file(path, &error);
    if (!digest) {
      lines.push_back(failed(name, error));
      return;
    }
    if (digest->sha256 != claim.sha256) {
      lines.push_back(failed(name, path + " has SHA-256 " + digest->sha256 + ", the result says " + claim.sha256 +
                                       " (for " + claim.path + "): not the file the result describes"));
      return;
    }
    if (claim.bytes && *claim.bytes != digest->bytes) {
      lines.push_back(failed(name, path + " has " + std::to_string(digest->bytes) + " bytes, the result says " +
                                       std::to_string(*claim.bytes)));
      return;
    }
    lines.push_back({name, Status::ok, path + " " + digest->sha256.substr(0, 16) + "... (" +
                                           std::to_string(digest->bytes) + " bytes) as in the result",
                     {}, 0, 0});
  };
  // A database table read by the verifier: the digest of the text received.
  auto check_table = [&](const std::string& name, const FileClaim& claim, const std::string& table,
                         const FileDigest& digest) {
    if (digest.sha256 != claim.sha256)
      lines.push_back(failed(name, table + " reads as SHA-256 " + digest.sha256 + ", the result says " + claim.sha256 +
                                       ": its rows (or their order) changed since the run"));
    else if (claim.bytes && *claim.bytes != digest.bytes)
      lines.push_back(failed(name, table + " reads as " + std::to_string(digest.bytes) + " bytes, the result says " +
                                       std::to_string(*claim.bytes)));
    else
      lines.push_back({name, Status::ok, table + " " + digest.sha256.substr(0, 16) + "... (" +
                                             std::to_string(digest.bytes) + " bytes) as in the result",
                       {}, 0, 0});
  };
  for (const char* role : {"input", "output"}) {
    const std::string name = std::string("sha256 ") + role;
    const bool input = std::string(role) == "input";
    const std::string& path = input ? files.input : files.output;
    const auto it = std::find_if(claims.files->begin(), claims.files->end(),
                                 [&](const FileClaim& f) { return f.role == role; });
    if (it == claims.files->end()) {
      lines.push_back(failed(name, std::string("the result lists no file of role \"") + role + "\""));
    } else if (it->pushdown == "histogram") {
      lines.push_back(skipped(name, "the run grouped the input in its database (pushdown): the result's digest is of "
                                    "the grouped text, not of the rows"));
    } else if (!input && files.output_table) {
      if (it->pushdown == "database" && it->rows && *it->rows != files.output_rows)
        lines.push_back(failed(name, path + " has " + std::to_string(files.output_rows) + " rows, the result says " +
                                         std::to_string(*it->rows) + " were written"));
      else if (it->pushdown == "database" && it->rows)
        lines.push_back({name, Status::ok, path + ": " + std::to_string(files.output_rows) +
                                               " rows, as the result says the database wrote",
                         {}, 0, 0});
      else
        lines.push_back(skipped(name, "a table is read back as the server renders it, not as the bytes the run "
                                      "sent; its rows are checked above"));
    } else if (it->pushdown == "database") {
      lines.push_back(failed(name, "the result says the database wrote the output (pushdown), but " + path +
                                       " is a file"));
    } else if (input && files.input_table) {
      check_table(name, *it, path, *files.input_table);
    } else {
      check_file(name, *it, path);
    }
  }
  for (const auto& f : *claims.files) {
    if (f.role == "input" || f.role == "output") continue;
    const std::string name = "sha256 " + f.role;
    std::error_code ec;
    if (!std::filesystem::exists(f.path, ec)) {
      lines.push_back(skipped(name, f.path + " not found"));
      continue;
    }
    check_file(name, f, f.path);
  }
}

}  // namespace

const char* to_string(CheckLine::Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::failed: return "FAILED";
    case Status::skipped: return "skipped";
  }
  return "?";
}

bool all_hold(const std::vector<CheckLine>& lines) {
  return std::none_of(lines.begin(), lines.end(), [](const CheckLine& l) { return l.status == Status::failed; });
}

std::vector<CheckLine> summarize(const Options& options, const Report& report) {
  std::vector<CheckLine> lines;
  const auto& v = report.violations;
  auto kind_is = [](std::initializer_list<Kind> kinds) {
    return [kinds](const Violation& x) { return std::find(kinds.begin(), kinds.end(), x.kind) != kinds.end(); };
  };

  std::string removed;
  for (const auto& name : options.identifying) removed += (removed.empty() ? "" : ", ") + name;
  lines.push_back(line_of("identifying columns", v, kind_is({Kind::identifying_column_present}),
                          removed.empty() ? "none in the job" : "absent from the output: " + removed));
  lines.push_back(line_of("columns", v, kind_is({Kind::column_missing, Kind::unexpected_column}),
                          "every other input column is in the output, once"));
  lines.push_back(line_of("rows", v, kind_is({Kind::row_count}),
                          std::to_string(report.input_rows) + " input rows, " + std::to_string(report.output_rows) +
                              " output rows"));
  const bool aligned = report.input_rows == report.output_rows;
  if (aligned) {
    lines.push_back(line_of("copied columns", v, kind_is({Kind::value_changed}),
                            "sensitive and insensitive values identical to the input, row by row"));
    if (!options.released_identifiers.empty()) {
      std::string columns;
      for (const auto& r : options.released_identifiers)
        columns += (columns.empty() ? "" : ", ") + r.name + " (" +
                   (r.action == ReleasedIdentifier::Action::pseudonym ? "pseudonym"
                    : r.action == ReleasedIdentifier::Action::mask    ? "mask"
                                                                      : "date shift") +
                   ")";
      lines.push_back(line_of("released identifiers", v, kind_is({Kind::identifier_wrong}),
                              "each value recomputed from the input's with the secret: " + columns));
    }
    if (!options.identifying.empty() || !options.released_identifiers.empty())
      lines.push_back(line_of("identifier values", v, kind_is({Kind::identifier_leaked}),
                              "no input value of an identifying column in any row of the output (a date: in its "
                              "own row)"));
    std::string levels;
    for (std::size_t q = 0; q < options.quasi_identifiers.size(); ++q)
      levels += (levels.empty() ? "" : ", ") + options.quasi_identifiers[q].name + "=" +
                (report.levels[q] ? std::to_string(*report.levels[q]) : std::string("?"));
    lines.push_back(line_of("generalization", v, kind_is({Kind::not_single_level, Kind::level_outside_bounds, Kind::value_not_in_hierarchy}),
                            options.local_recoding
                                ? std::string("local recoding: each value at a level of its input value") +
                                      (options.pass_column.empty() ? "" : ", one level per pass (column " +
                                                                              options.pass_column + ")")
                                : "one level per quasi-identifier: " + (levels.empty() ? "none" : levels)));
    if (!options.microaggregated.empty()) {
      std::string columns;
      for (const auto& m : options.microaggregated)
        columns += (columns.empty() ? "" : ", ") + m.name + " (" + m.function + ")";
      if (report.microaggregation_skipped.empty())
        lines.push_back(line_of("microaggregation", v, kind_is({Kind::wrong_aggregate}),
                                "each record shows its class's aggregate: " + columns));
      else
        lines.push_back(skipped("microaggregation", report.microaggregation_skipped));
    }
  } else {
    lines.push_back(skipped("copied columns", "the rows do not align"));
    if (!options.released_identifiers.empty()) lines.push_back(skipped("released identifiers", "the rows do not align"));
    lines.push_back(skipped("generalization", "the rows do not align"));
    if (!options.microaggregated.empty()) lines.push_back(skipped("microaggregation", "the rows do not align"));
  }
  lines.push_back(line_of("suppression", v, kind_is({Kind::too_many_suppressed}),
                          std::to_string(report.suppressed_records) + " of limit " +
                              std::to_string(report.max_suppressed) + " records suppressed"));
  const std::string classes = std::to_string(report.classes) + " classes, smallest " +
                              std::to_string(report.smallest_class);
  lines.push_back(line_of(options.k > 1 ? "k-anonymity (k=" + std::to_string(options.k) + ")" : std::string("classes"),
                          v, kind_is({Kind::class_too_small}), classes));
  for (std::size_t i = 0; i < options.class_requirements.size(); ++i)
    lines.push_back(line_of(
        requirement_name(options.class_requirements[i]), v,
        [i](const Violation& x) { return x.kind == Kind::class_requirement && x.requirement == i; },
        "all " + std::to_string(report.classes) + " classes hold"));
  if (options.population_uniqueness) {
    const PopulationUniqueness& pu = *options.population_uniqueness;
    lines.push_back(line_of(std::string("population uniqueness (") + estimator_name(pu.estimator) +
                                ", threshold " + number(pu.threshold) + ")",
                            v, kind_is({Kind::population_uniqueness}),
                            "estimated " + number(100.0 * report.population_uniqueness.value_or(0), 4) +
                                " % of a population of " + number(pu.population_size, 10) + " unique"));
  }
  if (options.average_risk) {
    const AverageRisk& ar = *options.average_risk;
    std::string name = "average risk (threshold " + number(ar.threshold);
    if (ar.highest_risk)
      name += ", highest risk " + number(*ar.highest_risk) + ", records at risk " + number(ar.records_at_risk);
    lines.push_back(line_of(name + ")", v, kind_is({Kind::average_risk}),
                            "average risk " + number(report.average_risk.value_or(0))));
  }
  if (!options.subset.empty())
    lines.push_back(line_of("research subset", v, kind_is({Kind::outside_subset_released}),
                            std::to_string(report.subset_records.value_or(0)) + " of " +
                                std::to_string(report.input_rows) + " records; the others suppressed"));
  if (options.delta_presence)
    lines.push_back(line_of("delta-presence (" + number(options.delta_presence->min, 10) + ", " +
                                number(options.delta_presence->max, 10) + ")",
                            v, kind_is({Kind::delta_presence}),
                            "every class's share of its input records in the subset is within the bounds"));
  if (options.population_k > 0)
    lines.push_back(line_of("population classes (k=" + std::to_string(options.population_k) + ")", v,
                            kind_is({Kind::population_class_too_small}),
                            "every released class has at least k records in the input"));
  if (options.profitability)
    lines.push_back(line_of(std::string("profitability (attack, ") +
                                (options.profitability->journalist ? "journalist" : "prosecutor") + ")",
                            v, kind_is({Kind::unprofitable_class}),
                            "every released class has a positive publisher payout"));
  if (options.k_map)
    lines.push_back(line_of("k-map (k=" + std::to_string(options.k_map->k) + ", " +
                                (options.k_map->zero_truncated ? "zero-truncated Poisson" : "Poisson") +
                                ", population " + number(options.k_map->population_size, 10) + ")",
                            v, kind_is({Kind::k_map}),
                            "every class has at least k' = " + std::to_string(report.k_map_derived_k.value_or(0)) +
                                " records"));
  if (options.sample_uniqueness)
    lines.push_back(line_of("sample uniqueness (threshold " + number(options.sample_uniqueness->threshold) + ")", v,
                            kind_is({Kind::sample_uniqueness}),
                            number(100.0 * report.sample_uniqueness.value_or(0), 4) + " % of the records unique"));
  return lines;
}

std::vector<CheckLine> summarize(const CellOptions& options, const CellReport& report) {
  using CK = CellViolation::Kind;
  std::vector<CheckLine> lines;
  const auto& v = report.violations;
  auto kind_is = [](CK kind) { return [kind](const CellViolation& x) { return x.kind == kind; }; };
  std::string removed;
  for (const auto& name : options.removed) removed += (removed.empty() ? "" : ", ") + name;
  lines.push_back(line_of("identifying columns", v, kind_is(CK::removed_column_present),
                          removed.empty() ? "none in the job" : "absent from the output: " + removed));
  lines.push_back(line_of("rows", v, kind_is(CK::row_count),
                          std::to_string(report.input_rows) + " input rows, " + std::to_string(report.output_rows) +
                              " output rows"));
  if (std::any_of(v.begin(), v.end(), kind_is(CK::row_count))) {
    for (const char* name : {"columns", "copied columns", "released values", "propagation", "k-anonymity"})
      lines.push_back(skipped(name, "the rows do not align"));
    return lines;
  }
  lines.push_back(line_of("columns", v, kind_is(CK::column_missing),
                          std::to_string(options.released.size()) + " released columns, the others copied"));
  lines.push_back(line_of("copied columns", v, kind_is(CK::value_changed),
                          "identical to the input, row by row"));
  lines.push_back(line_of("released values", v, kind_is(CK::wrong_value),
                          "each the input value at its level or the marker '" + options.marker + "' (" +
                              std::to_string(report.suppressed_cells) + " cells suppressed)"));
  lines.push_back(line_of("propagation", v, kind_is(CK::not_propagated),
                          "a suppressed coarser level is suppressed in every finer released level"));
  std::uint64_t smallest = 0;
  for (std::uint64_t s : report.smallest_class)
    if (s > 0 && (smallest == 0 || s < smallest)) smallest = s;
  lines.push_back(line_of("k-anonymity (k=" + std::to_string(options.k) + ", " +
                              std::to_string(options.combinations.size()) + " combinations)",
                          v, kind_is(CK::class_too_small),
                          "smallest class " + std::to_string(smallest) + " in every combination"));
  return lines;
}

std::vector<CheckLine> check_result(const ResultClaims& claims, const Options& options, const Report& report,
                                    const VerifiedFiles& files) {
  std::vector<CheckLine> lines;
  if (claims.solution_found && !*claims.solution_found) {
    lines.push_back(failed("result counts", "the result says no transformation satisfies the job, yet there is an output"));
  } else {
    std::vector<std::string> differences, compared;
    compare(differences, "records", claims.records, report.subset_records.value_or(report.input_rows), compared);
    compare(differences, "suppressed_records", claims.suppressed_records, report.suppressed_records, compared);
    compare(differences, "classes", claims.classes, report.classes, compared);
    compare(differences, "smallest_class_size", claims.smallest_class_size, report.smallest_class, compared);
    if (claims.transformation) {
      compared.push_back("transformation");
      std::map<std::string, int> claimed(claims.transformation->begin(), claims.transformation->end());
      for (std::size_t q = 0; q < options.quasi_identifiers.size(); ++q) {
        const std::string& name = options.quasi_identifiers[q].name;
        const auto it = claimed.find(name);
        if (it == claimed.end()) {
          differences.push_back("transformation: the result has no level for " + quote(name));
          continue;
        }
        const auto& fit = report.fitting_levels[q];
        if (std::find(fit.begin(), fit.end(), it->second) == fit.end())
          differences.push_back("transformation: the result says " + name + "=" + std::to_string(it->second) +
                                ", the output is at " +
                                (report.levels[q] ? "level " + std::to_string(*report.levels[q]) : std::string("no single level")));
        claimed.erase(it);
      }
      // A column microaggregated after generalization has a level in the
      // result too, but its released values are aggregates, which show no
      // level; the microaggregation line checks its classes.
      for (const auto& m : options.microaggregated)
        if (!m.hierarchy_path.empty()) claimed.erase(m.name);
      for (const auto& [name, level] : claimed)
        differences.push_back("transformation: the result has a level for " + quote(name) +
                              ", which is not a quasi-identifier of the job");
    }
    lines.push_back(counts_line(differences, compared));
  }
  file_lines(claims, files, lines);
  return lines;
}

std::vector<CheckLine> check_result(const ResultClaims& claims, const CellOptions& options, const CellReport& report,
                                    const VerifiedFiles& files) {
  std::vector<CheckLine> lines;
  std::vector<std::string> differences, compared;
  compare(differences, "records", claims.records, report.input_rows, compared);
  compare(differences, "k", claims.k, options.k, compared);
  compare(differences, "suppressed_cells", claims.suppressed_cells, report.suppressed_cells, compared);
  lines.push_back(counts_line(differences, compared));
  file_lines(claims, files, lines);
  return lines;
}

}  // namespace verify
