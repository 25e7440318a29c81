// What the web app asks the Store besides running jobs (store.h): the rows
// an inline hierarchy builder makes of a column (checked by the job parser,
// built by the library), and a job as a job file in YAML.
#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "deid/error.h"
#include "deid/hierarchy.h"
#include "deid/hierarchy_builder.h"
#include "security.h"
#include "store.h"
#include "store_files.h"

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A JSON value as YAML: strings always double-quoted (so "5" or "true"
// stay strings), numbers as JSON writes them (shortest round trip).
void emit(YAML::Emitter& out, const json& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    // A builder's "type" first, as job-file.md writes it.
    if (value.contains("type")) {
      out << YAML::Key << "type" << YAML::Value;
      emit(out, value["type"]);
    }
    for (const auto& [key, item] : value.items()) {
      if (key == "type") continue;
      out << YAML::Key << key << YAML::Value;
      emit(out, item);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    // A list of plain values on one line: widths: [5, 10, 20].
    if (std::none_of(value.begin(), value.end(), [](const json& x) { return x.is_structured(); })) out << YAML::Flow;
    out << YAML::BeginSeq;
    for (const json& item : value) emit(out, item);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    out << YAML::DoubleQuoted << value.get<std::string>();
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();  // numbers and booleans
  }
}

}  // namespace

json Store::hierarchy_preview(const std::string& id, const std::string& column, const json& builder) const {
  fs::path csv, dir;
  std::string input_name;
  {
    std::lock_guard lock(m_);
    const auto it = datasets_.find(id);
    if (it == datasets_.end()) throw HttpError(404, fmt::format("no dataset '{}'", id));
    csv = it->second.csv;
    dir = it->second.dir;
    input_name = it->second.name;
  }
  std::vector<std::string> values;
  try {
    const json columns = json::parse(read_file(dir / "summary.json"))["columns"];
    std::size_t i = 0;
    while (i < columns.size() && columns[i]["name"] != column) ++i;
    if (i == columns.size()) throw HttpError(404, fmt::format("no column '{}' in the dataset", column));
    values = json::parse(read_file(dir / fmt::format("values-{}.json", i))).get<std::vector<std::string>>();
  } catch (const HttpError&) {
    throw;
  } catch (const std::exception&) {
    // Deleted while this request ran.
    throw HttpError(404, fmt::format("no dataset '{}'", id));
  }
  if (!builder.is_object())
    throw HttpError(400, "'builder' must be an inline hierarchy {\"type\": intervals|masking|dates|grouping, ...}");
  // The job parser checks the builder as it checks it in a job.
  json job{{"input", {{"path", csv.string()}}},
           {"attributes", {{column, {{"role", "quasi-identifying"}, {"hierarchy", builder}}}}},
           {"privacy", json::array({{{"k-anonymity", {{"k", 1}}}}})}};
  HierarchyTable table;
  try {
    const Job parsed = parse_job(job.dump(2), "builder", dir.string());
    const auto a = std::find_if(parsed.attributes.begin(), parsed.attributes.end(),
                                [&](const AttributeSpec& s) { return s.name == column; });
    if (a == parsed.attributes.end() || !a->hierarchy_builder) throw HttpError(400, "not an inline hierarchy");
    table = build_hierarchy(values, *a->hierarchy_builder);
  } catch (const deid::Error& e) {
    throw HttpError(400, scrub(e.what(), csv, input_name, dir));
  }
  constexpr std::size_t kMaxRows = 1000;
  json rows = json::array();
  std::size_t levels = 0;
  for (const auto& row : table.rows) {
    levels = std::max(levels, row.size());
    if (rows.size() < kMaxRows) rows.push_back(row);
  }
  return {{"column", column}, {"levels", levels}, {"total_rows", table.rows.size()}, {"rows", std::move(rows)}};
}

std::string Store::job_yaml(const std::string& id) const {
  const auto state = job(id);
  std::string name;
  {
    std::lock_guard lock(m_);
    const auto it = datasets_.find(state->dataset_id);
    if (it == datasets_.end()) throw HttpError(404, fmt::format("no dataset '{}'", state->dataset_id));
    name = it->second.name;
  }
  json spec;
  try {
    spec = json::parse(read_file(state->dir / "spec.json"));
  } catch (const std::exception&) {
    throw HttpError(404, fmt::format("no job '{}'", id));
  }
  if (spec.contains("attributes") && spec["attributes"].is_object())
    for (const auto& [attribute, value] : spec["attributes"].items())
      if (value.is_object() && value.contains("hierarchy") && value["hierarchy"].is_array())
        throw HttpError(409, fmt::format("attribute '{}': a job file cannot hold inline hierarchy rows; give a file "
                                         "or a builder",
                                         attribute));
  const std::string stem = (fs::path(name).parent_path() / fs::path(name).stem()).generic_string();
  json input = spec.contains("input") ? spec["input"] : json::object();
  input["path"] = name;
  json output = spec.contains("output") ? spec["output"] : json::object();
  std::string run;
  switch (state->command) {
    case Command::anonymize:
      output["path"] = stem + "-deid.csv";
      output["result"] = stem + "-deid.json";
      output["report"] = stem + "-deid.html";
      run = "deid anonymize job.yaml";
      break;
    case Command::suppress:
      output["path"] = stem + "-deid.csv";
      output["result"] = stem + "-deid.json";
      run = "deid suppress job.yaml";
      break;
    case Command::risk:
      // `deid risk` writes what its options name. Run beside the data, it
      // names the input as the server does, so its files are the server's.
      run = fmt::format("deid risk job.yaml --json {}-risk.json --report {}-risk.html", stem, stem);
      break;
  }
  // The server keyed pseudonyms and shifts with its secret, which the
  // file does not name: the run reads it from DEID_SECRET (the same secret
  // gives the same release).
  std::string secret_note;
  if (spec.contains("identifiers") || keys_identifiers(spec)) {
    spec["identifiers"]["secret"] = {{"env", "DEID_SECRET"}};
    secret_note = "# Pseudonyms and date shifts are keyed with the secret in DEID_SECRET: the server's\n"
                  "# secret file's bytes give this server's release.\n";
  }
  // input first, output last, the rest as sent.
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "input" << YAML::Value;
  emit(out, input);
  for (const auto& [key, value] : spec.items()) {
    if (key == "input" || key == "output" || key == "dataset" || key == "command") continue;
    out << YAML::Key << key << YAML::Value;
    emit(out, value);
  }
  if (!output.empty()) {
    out << YAML::Key << "output" << YAML::Value;
    emit(out, output);
  }
  out << YAML::EndMap;
  return fmt::format("# A deid job written by deid serve. Its paths are relative to this file: save it\n"
                     "# where {} is (the --data-dir of the server) and run there:\n#   {}\n{}{}\n",
                     name, run, secret_note, out.c_str());
}

}  // namespace deid::serve
