#include "verify_tables.h"

#include <fmt/format.h>

#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "deid/database.h"
#include "deid/error.h"
#include "deid/parquet.h"
#include "deid/pipeline.h"

namespace deid::cli {

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
  Source s;
  s.name = path;
  s.text = dataset_csv_text(read_parquet(path, what), ',');
  std::string why;
  auto table = verify::parse_csv(s.text, ',', true, &why);
  if (!table) throw InputError(Location{path, 0, 0, {}}, fmt::format("the {} cannot be read: {}", what, why));
  s.table = std::move(*table);
  s.table.lines.clear();
  return s;
}

verify::Table Hierarchies::of(const AttributeSpec& a) {
  if (a.hierarchy_data) {  // a table a front end holds in memory (deid.verify in Python)
    verify::Table t;
    t.rows = a.hierarchy_data->rows;
    return t;
  }
  if (!a.hierarchy_builder) return read_table(a.hierarchy, file_delimiter(a.hierarchy, "hierarchy"), false, "hierarchy");
  if (!data_)
    data_.emplace(!input_.text.empty() ? read_dataset_text(input_.text, input_.name, CsvOptions{',', true})
                                       : read_dataset(input_.name, CsvOptions{delimiter_, true}));
  verify::Table t;
  t.rows = hierarchy_table(job_, a, *data_).rows;
  return t;
}

std::string Hierarchies::name_of(const AttributeSpec& a) const {
  if (a.hierarchy_data) return a.hierarchy_data->source;
  if (!a.hierarchy_builder) return a.hierarchy;
  return fmt::format("(inline hierarchy at {}:{})", a.hierarchy_source.empty() ? job_.path : a.hierarchy_source,
                     a.hierarchy_line);
}

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
    // Local recoding: the release's counts are those after its passes, and
    // its records are at several transformations, none claimed.
    const bool recoded = r.contains("local_recoding") && r["local_recoding"].is_object();
    if (recoded) {
      const nlohmann::json& lr = r["local_recoding"];
      // deid verify counts every record shown as '*' in each
      // quasi-identifier as suppressed.
      c.suppressed_records = count(lr, "starred_records");
      c.classes = count(lr, "classes");
      c.smallest_class_size = count(lr, "smallest_class_size");
    }
    if (!recoded && r.contains("transformation") && r["transformation"].is_object()) {
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

}  // namespace deid::cli
