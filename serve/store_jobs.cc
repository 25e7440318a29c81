// Building a job of the Store (store.h) from the JSON a client sends: its
// command, the sections the server allows, hierarchy and registry files
// confined to the data directory, inline hierarchies written beside the
// job, the job parsed by the library and queued.
#include <utility>

#include <fmt/format.h>

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

// A file of the data directory that a job names (`what`: a hierarchy, a
// registry's population table), confined to it: its path for the job.
// Throws HttpError(403) outside the directory or without one.
std::string data_file(const fs::path& data_dir, const std::string& what, const std::string& given,
                      const std::string& otherwise) {
  if (data_dir.empty())
    throw HttpError(403, fmt::format("{} '{}': the server was started without --data-dir, so no file may be named; {}",
                                     what, given, otherwise));
  try {
    return confine(data_dir, given).string();
  } catch (const HttpError& e) {
    throw HttpError(e.status(), fmt::format("{}: {}", what, e.what()));
  }
}

Command parse_command(const json& spec) {
  if (!spec.contains("command")) return Command::anonymize;
  const json& c = spec["command"];
  for (const Command command : {Command::anonymize, Command::risk, Command::suppress})
    if (c == to_string(command)) return command;
  throw HttpError(400, fmt::format("'command': {} is not a command of the server; send \"anonymize\" (the default), "
                                   "\"risk\" or \"suppress\"",
                                   c.dump()));
}

// An inline hierarchy: an array of rows, each an array of values (strings
// or numbers), in ARX's layout (value, level 1, ..., top).
HierarchyTable inline_hierarchy(const std::string& attribute, const json& rows) {
  HierarchyTable table;
  for (const json& row : rows) {
    if (!row.is_array() || row.empty())
      throw HttpError(400, fmt::format("attribute '{}': an inline hierarchy is an array of rows, each a non-empty "
                                       "array of values (value, level 1, ..., top)",
                                       attribute));
    std::vector<std::string> cells;
    for (const json& cell : row) {
      if (cell.is_string())
        cells.push_back(cell.get<std::string>());
      else if (cell.is_number())
        cells.push_back(cell.dump());
      else
        throw HttpError(400, fmt::format("attribute '{}': a hierarchy value must be a string or a number, not {}",
                                         attribute, cell.dump()));
    }
    table.rows.push_back(std::move(cells));
  }
  if (table.rows.empty()) throw HttpError(400, fmt::format("attribute '{}': the inline hierarchy has no rows", attribute));
  return table;
}

}  // namespace

bool keys_identifiers(const json& spec) {
  if (!spec.contains("attributes") || !spec["attributes"].is_object()) return false;
  for (const auto& [name, attribute] : spec["attributes"].items())
    if (attribute.is_object() && attribute.contains("action") &&
        (attribute["action"] == "pseudonym" || attribute["action"] == "date-shift"))
      return true;
  return false;
}

std::string Store::add_job(json spec) {
  if (!spec.is_object()) throw HttpError(400, "the job must be a JSON object (the keys of a job file)");
  if (!spec.contains("dataset") || !spec["dataset"].is_string())
    throw HttpError(400, "the job needs \"dataset\": the id of an uploaded dataset (POST /api/v1/datasets)");
  const std::string dataset_id = spec["dataset"].get<std::string>();
  const Command command = parse_command(spec);
  spec.erase("command");
  json original = spec;
  original.erase("dataset");
  if (spec.contains("input")) {
    const json& input = spec["input"];
    if (!input.is_object()) throw HttpError(400, "'input' must be a mapping (only 'delimiter' may be given)");
    for (const auto& [key, value] : input.items())
      if (key != "delimiter")
        throw HttpError(400, fmt::format("'input.{}': the input is the dataset; only 'input.delimiter' may be given", key));
  }
  if (command == Command::suppress) {
    if (!spec.contains("cell-suppression") || !spec["cell-suppression"].is_object())
      throw HttpError(400, "a suppress job needs a 'cell-suppression' section, a mapping (docs/cell-suppression.md)");
    if (spec["cell-suppression"].contains("samples"))
      throw HttpError(400, "'cell-suppression.samples': the server draws no samples (each would be a file of its own); "
                           "draw them with deid suppress from the job's job.yaml");
  } else if (spec.contains("cell-suppression")) {
    throw HttpError(400, fmt::format("'cell-suppression': a job with this section runs as deid suppress: send "
                                     "\"command\": \"suppress\" (this one is \"{}\")",
                                     to_string(command)));
  }
  if (spec.contains("output")) {
    const json& output = spec["output"];
    if (!output.is_object()) throw HttpError(400, "'output' must be a mapping");
    for (const char* key : {"path", "result", "report", "postgres", "linkage"})
      if (output.contains(key))
        throw HttpError(400, fmt::format("'output.{}': the server chooses where a job's outputs go "
                                         "(GET /api/v1/jobs/ID/output, /result, /report)",
                                         key));
  }

  // The secret of pseudonyms and date shifts is the custodian's, never a
  // client's to name (a file or variable of the server: docs/identifiers.md).
  if (spec.contains("linked"))
    throw HttpError(400, "'linked': linked tables are files of the custodian, joined by a person column released "
                         "with the custodian's secret; run the job with deid anonymize");
  // Pseudonyms and date shifts are keyed with the server's secret
  // (--secret-file), never a client's: the client may name the person and
  // the shift's range, the server adds where its secret is.
  const bool keyed = keys_identifiers(spec);
  if (spec.contains("identifiers")) {
    if (!spec["identifiers"].is_object()) throw HttpError(400, "'identifiers' must be a mapping");
    if (spec["identifiers"].contains("secret"))
      throw HttpError(400, "'identifiers.secret': pseudonyms and date shifts are keyed with the server's secret "
                           "(deid serve --secret-file), never one a client names; leave it out");
  }
  if (keyed || spec.contains("identifiers")) {
    if (options_.secret_file.empty())
      throw HttpError(400, "'identifiers': this server has no secret to key pseudonyms and date shifts with (start "
                           "it with deid serve --secret-file FILE), or run the job with deid anonymize where the "
                           "secret is kept; masks need none");
    spec["identifiers"]["secret"] = {{"file", options_.secret_file.string()}};
  }
  fs::path csv, dataset_dir;
  std::string input_name;
  {
    std::lock_guard lock(m_);
    const auto it = datasets_.find(dataset_id);
    if (it == datasets_.end()) throw HttpError(404, fmt::format("no dataset '{}'", dataset_id));
    if (jobs_.size() >= options_.max_jobs)
      throw HttpError(409, fmt::format("the server holds {} jobs, its quota (--max-jobs): delete a dataset (and so "
                                       "its jobs) first",
                                       jobs_.size()));
    csv = it->second.csv;
    dataset_dir = it->second.dir;
    input_name = it->second.name;
  }
  const std::string id = random_hex(16);
  const fs::path dir = dataset_dir / "jobs" / id;
  fs::create_directories(dir);
  try {
    if (spec.contains("attributes") && spec["attributes"].is_object()) {
      std::size_t n = 0;
      for (auto& [name, attribute] : spec["attributes"].items()) {
        if (!attribute.is_object() || !attribute.contains("hierarchy")) continue;
        json& h = attribute["hierarchy"];
        if (h.is_string()) {
          h = data_file(options_.data_dir, fmt::format("attribute '{}': hierarchy", name), h.get<std::string>(),
                        "give the hierarchy inline");
        } else if (h.is_array()) {
          const std::string file = fmt::format("hierarchy-{}.csv", ++n);
          write_file(dir / file, hierarchy_to_csv(inline_hierarchy(name, h)));
          h = file;
        }
      }
    }
    // A research subset's file, like a hierarchy's, must be a file of the
    // data directory (a path elsewhere would let a client read the server's
    // files through the error messages).
    if (spec.contains("subset") && spec["subset"].is_object() && spec["subset"].contains("file") &&
        spec["subset"]["file"].is_string())
      spec["subset"]["file"] = data_file(options_.data_dir, "'subset.file'", spec["subset"]["file"].get<std::string>(),
                                         "give 'column' and 'value' instead");
    if (command == Command::suppress && spec["cell-suppression"].contains("registry")) {
      json& registry = spec["cell-suppression"]["registry"];
      if (registry.is_object() && registry.contains("population") && registry["population"].is_string())
        registry["population"] = data_file(options_.data_dir, "'cell-suppression.registry.population'",
                                           registry["population"].get<std::string>(),
                                           "leave it out and give 'sampling-fraction'");
    }
    spec.erase("dataset");
    spec["input"]["path"] = csv.string();
    // A risk job writes what the server asks of assess_risk() (run()).
    if (command != Command::risk) {
      spec["output"]["path"] = "output.csv";
      spec["output"]["result"] = "result.json";
    }
    if (command == Command::anonymize) spec["output"]["report"] = "report.html";
    const std::string text = dump_json(spec, 2);
    write_file(dir / "job.json", text);
    write_file(dir / "spec.json", dump_json(original));
    auto state = std::make_shared<JobState>();
    try {
      state->job = parse_job(text, "job.json", dir.string());
    } catch (const deid::Error& e) {
      throw HttpError(400, scrub(e.what(), csv, input_name, dir));
    }
    if (command == Command::anonymize && state->job.privacy.empty())
      throw HttpError(400, "the job has no privacy model");
    state->id = id;
    state->command = command;
    state->input_name = input_name;
    state->dataset_id = dataset_id;
    state->dir = dir;
    {
      std::lock_guard lock(m_);
      const auto it = datasets_.find(dataset_id);
      if (it == datasets_.end()) throw HttpError(404, fmt::format("no dataset '{}'", dataset_id));
      it->second.jobs.push_back(id);
      jobs_[id] = state;
      queue_.push_back(state);
    }
    queue_changed_.notify_one();
  } catch (...) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    throw;
  }
  return id;
}

}  // namespace deid::serve
