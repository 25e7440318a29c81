#include "store.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "deid/cell_suppression.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/hierarchy.h"
#include "deid/hierarchy_builder.h"
#include "deid/output.h"
#include "deid/report.h"
#include "deid/risk.h"
#include "deid/search.h"
#include "security.h"

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kSampleRows = 5;

// Applies `change` to the job under its lock and wakes its event streams.
template <class F>
void update(JobState& job, F&& change) {
  {
    std::lock_guard lock(job.m);
    change();
    ++job.version;
  }
  job.changed.notify_all();
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `text` as the HTML reports write it (deid::html::esc).
std::string html_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

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

// Once a job is done, its result and its report name no path of the
// server: the input is the dataset's file name, each output the API path
// that sends it (in "files"; the report's digest follows its new text).
void publish_names(const JobState& job) {
  const fs::path result_path = job.dir / "result.json";
  json result = json::parse(read_file(result_path));
  std::string report;
  const fs::path report_path = job.dir / "report.html";
  if (job.command == Command::anonymize) {
    report = read_file(report_path);
    replace_all(report, html_text(job.job.input.path), html_text(job.input_name));
    write_file(report_path, report);
  }
  if (result.contains("files") && result["files"].is_array())
    for (json& file : result["files"]) {
      const std::string role = file.value("role", "");
      if (role == "input") {
        file["path"] = job.input_name;
        continue;
      }
      file["path"] = fmt::format("/api/v1/jobs/{}/{}", job.id, role);
      if (role == "report") {
        file["sha256"] = sha256_hex(report);
        file["bytes"] = report.size();
      }
    }
  write_file(result_path, dump_json(result, 2) + "\n");
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

// The type the values of a column look like (the empty value aside):
// "integer", "decimal", "date" (ISO YYYY-MM-DD) or "string"; "string" when
// every value is empty.
std::string detect_type(const std::vector<std::string>& values) {
  bool integer = true, decimal = true, date = true, any = false;
  for (const std::string& v : values) {
    if (v.empty()) continue;
    any = true;
    if (integer) {
      const std::size_t start = v[0] == '-' || v[0] == '+' ? 1 : 0;
      integer = v.size() > start && std::all_of(v.begin() + static_cast<std::ptrdiff_t>(start), v.end(),
                                                [](char c) { return c >= '0' && c <= '9'; });
    }
    if (decimal) {
      char* end = nullptr;
      errno = 0;
      const double x = std::strtod(v.c_str(), &end);
      decimal = end == v.c_str() + v.size() && errno == 0 && std::isfinite(x) &&
                v.find_first_of("xXnN") == std::string::npos;
    }
    if (date) {
      date = v.size() == 10 && v[4] == '-' && v[7] == '-';
      for (std::size_t i = 0; date && i < v.size(); ++i)
        if (i != 4 && i != 7) date = v[i] >= '0' && v[i] <= '9';
      if (date) {
        const int month = std::stoi(v.substr(5, 2)), day = std::stoi(v.substr(8, 2));
        date = month >= 1 && month <= 12 && day >= 1 && day <= 31;
      }
    }
    if (!integer && !decimal && !date) break;
  }
  if (!any) return "string";
  if (integer) return "integer";
  if (decimal) return "decimal";
  if (date) return "date";
  return "string";
}

// `text` without control characters: a file name as job.yaml and the app
// show it.
std::string printable(const std::string& text) {
  std::string out;
  for (const char c : text)
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
  return out;
}

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

const char* to_string(Command command) {
  switch (command) {
    case Command::anonymize: return "anonymize";
    case Command::risk: return "risk";
    case Command::suppress: return "suppress";
  }
  return "unknown";
}

const char* to_string(JobStatus status) {
  switch (status) {
    case JobStatus::queued: return "queued";
    case JobStatus::running: return "running";
    case JobStatus::done: return "done";
    case JobStatus::failed: return "failed";
    case JobStatus::cancelled: return "cancelled";
  }
  return "unknown";
}

json JobState::status_json() const {
  json j{{"id", id},
         {"dataset", dataset_id},
         {"command", to_string(command)},
         {"status", to_string(status)},
         {"progress", progress}};
  j["error"] = error.empty() ? json(nullptr) : json(error);
  if (status == JobStatus::done) j["solution_found"] = solution_found;
  return j;
}

Store::Store(StoreOptions options) : options_(std::move(options)) {
  fs::create_directories(options_.state_dir / "datasets");
  fs::create_directories(options_.state_dir / "uploads");
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options_.workers); ++i) workers_.emplace_back([this] { work(); });
}

Store::~Store() { stop(); }

void Store::stop() {
  {
    std::lock_guard lock(m_);
    if (stopping_.exchange(true)) return;
    for (auto& [id, job] : jobs_) job->cancel = true;
  }
  queue_changed_.notify_all();
  for (auto& w : workers_) w.join();
  std::lock_guard lock(m_);
  for (auto& [id, job] : jobs_) job->changed.notify_all();
}

fs::path Store::upload_path() { return options_.state_dir / "uploads" / random_hex(16); }

std::string Store::redact(std::string message) const {
  // Longest first: the data directory may lie under the state directory's
  // parent, or the other way round.
  std::vector<std::pair<std::string, std::string>> paths{{options_.state_dir.string() + "/", ""},
                                                         {options_.state_dir.string(), "."}};
  if (!options_.data_dir.empty()) {
    paths.emplace_back(options_.data_dir.string() + "/", "");
    paths.emplace_back(options_.data_dir.string(), ".");
  }
  std::sort(paths.begin(), paths.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [from, to] : paths) replace_all(message, from, to);
  return message;
}

std::string Store::scrub(std::string message, const fs::path& csv, const std::string& input_name,
                         const fs::path& job_dir) const {
  if (!csv.empty()) replace_all(message, csv.string(), input_name);
  if (!job_dir.empty()) replace_all(message, job_dir.string() + "/", "");
  return redact(std::move(message));
}

std::string Store::add_dataset(const fs::path& upload, const std::string& given_name) {
  if (!valid_utf8(given_name)) {
    std::error_code ec;
    fs::remove(upload, ec);
    throw HttpError(400, "the name (?name=) is not valid UTF-8");
  }
  std::string name = printable(fs::path(given_name).filename().string());
  if (name.empty() || name == "." || name == "..") name = "dataset.csv";
  return add_named_dataset(upload, name);
}

std::string Store::add_named_dataset(const fs::path& upload, const std::string& name) {
  {
    std::lock_guard lock(m_);
    if (datasets_.size() >= options_.max_datasets) {
      std::error_code ec;
      fs::remove(upload, ec);
      throw HttpError(409, fmt::format("the server holds {} datasets, its quota (--max-datasets): delete one first",
                                       datasets_.size()));
    }
  }
  const std::string id = random_hex(16);
  const fs::path dir = options_.state_dir / "datasets" / id;
  const fs::path csv = dir / "data.csv";
  try {
    fs::create_directories(dir / "jobs");
    fs::rename(upload, csv);
    json summary;
    {
      std::ifstream in(csv, std::ios::binary);
      if (!in) throw IoError(Location{name, 0, 0, {}}, "cannot open the uploaded file");
      const deid::Dataset data = read_dataset_stream(
          [&](char* dst, std::size_t n) {
            in.read(dst, static_cast<std::streamsize>(n));
            return static_cast<std::size_t>(in.gcount());
          },
          name, CsvOptions{});
      summary = {{"id", id}, {"rows", data.rows}, {"delimiter", std::string(1, data.delimiter)}};
      json columns = json::array();
      std::size_t index = 0;
      for (const Column& c : data.columns) {
        std::vector<std::string> distinct;
        distinct.reserve(c.dictionary.size());
        for (std::uint32_t code = 0; code < c.dictionary.size(); ++code) distinct.push_back(c.dictionary.value(code));
        columns.push_back({{"name", c.name}, {"distinct", c.dictionary.size()}, {"type", detect_type(distinct)}});
        write_file(dir / fmt::format("values-{}.json", index++), dump_json(json(distinct)));
      }
      summary["name"] = name;
      summary["columns"] = std::move(columns);
      json sample = json::array();
      for (std::uint64_t r = 0; r < std::min<std::uint64_t>(kSampleRows, data.rows); ++r) {
        json row = json::array();
        for (const Column& c : data.columns) row.push_back(c.dictionary.value(c.codes[r]));
        sample.push_back(std::move(row));
      }
      summary["sample"] = std::move(sample);
    }
    write_file(dir / "summary.json", dump_json(summary));
  } catch (const deid::Error& e) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::remove(upload, ec);
    throw HttpError(400, redact(e.what()));
  } catch (...) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::remove(upload, ec);
    throw;
  }
  std::lock_guard lock(m_);
  datasets_[id] = Dataset{dir, csv, name, {}};
  return id;
}

std::string Store::add_dataset_file(const std::string& relative) {
  if (options_.data_dir.empty())
    throw HttpError(403, "the server was started without --data-dir, so no file may be named; upload the table");
  if (!valid_utf8(relative)) throw HttpError(400, "'file' is not valid UTF-8");
  const fs::path path = confine(options_.data_dir, relative);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw HttpError(404, fmt::format("no file '{}' in the data directory", relative));
  const fs::path upload = upload_path();
  fs::copy_file(path, upload, ec);
  if (ec) {
    fs::remove(upload, ec);
    throw HttpError(400, fmt::format("cannot copy '{}'", relative));
  }
  // The job.yaml of its jobs names it by this path: saved in the data
  // directory, it finds the data and the hierarchy files the jobs named.
  return add_named_dataset(upload, printable(fs::path(relative).lexically_normal().generic_string()));
}

json Store::files() const {
  json list = json::array();
  if (options_.data_dir.empty()) return {{"files", list}};
  std::vector<std::string> names;
  std::error_code ec;
  // Links are not followed (neither into directories nor to files), so
  // nothing outside the data directory is listed.
  for (auto it = fs::recursive_directory_iterator(options_.data_dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    if (it->path().extension() != ".csv") continue;
    names.push_back(it->path().lexically_relative(options_.data_dir).generic_string());
    if (names.size() >= 10000) break;
  }
  std::sort(names.begin(), names.end());
  for (auto& n : names) list.push_back(std::move(n));
  return {{"files", list}};
}

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
                     "# where {} is (the --data-dir of the server) and run there:\n#   {}\n{}\n",
                     name, run, out.c_str());
}

json Store::dataset(const std::string& id) const {
  fs::path dir;
  std::vector<std::string> jobs;
  {
    std::lock_guard lock(m_);
    const auto it = datasets_.find(id);
    if (it == datasets_.end()) throw HttpError(404, fmt::format("no dataset '{}'", id));
    dir = it->second.dir;
    jobs = it->second.jobs;
  }
  json j;
  try {
    j = json::parse(read_file(dir / "summary.json"));
  } catch (const std::exception&) {
    throw HttpError(404, fmt::format("no dataset '{}'", id));  // deleted meanwhile
  }
  j["jobs"] = std::move(jobs);
  return j;
}

void Store::delete_dataset(const std::string& id) {
  fs::path dir;
  {
    std::lock_guard lock(m_);
    const auto it = datasets_.find(id);
    if (it == datasets_.end()) throw HttpError(404, fmt::format("no dataset '{}'", id));
    for (const std::string& job_id : it->second.jobs) {
      const auto j = jobs_.find(job_id);
      if (j == jobs_.end()) continue;
      j->second->cancel = true;
      update(*j->second, [&] {
        if (j->second->status == JobStatus::queued) j->second->status = JobStatus::cancelled;
      });
      jobs_.erase(j);
    }
    dir = it->second.dir;
    datasets_.erase(it);
  }
  // A job still running fails when it writes (its directory is gone) and
  // removes what is left of its directory when it ends (run()).
  std::error_code ec;
  fs::remove_all(dir, ec);
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
    for (const char* key : {"path", "result", "report", "postgres"})
      if (output.contains(key))
        throw HttpError(400, fmt::format("'output.{}': the server chooses where a job's outputs go "
                                         "(GET /api/v1/jobs/ID/output, /result, /report)",
                                         key));
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

std::shared_ptr<JobState> Store::job(const std::string& id) const {
  std::lock_guard lock(m_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) throw HttpError(404, fmt::format("no job '{}'", id));
  return it->second;
}

bool Store::cancel_job(const std::string& id) {
  const auto j = job(id);
  bool accepted = false;
  update(*j, [&] {
    if (j->status == JobStatus::queued) j->status = JobStatus::cancelled;
    // The worker checks the flag at the job's next progress report.
    if (j->status == JobStatus::running) j->cancel = true;
    accepted = j->status == JobStatus::running || j->status == JobStatus::cancelled;
  });
  return accepted;
}

void Store::work() {
  for (;;) {
    std::shared_ptr<JobState> job;
    {
      std::unique_lock lock(m_);
      queue_changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    run(*job);
  }
}

bool Store::run_command(JobState& job, const RunOptions& options) const {
  switch (job.command) {
    case Command::anonymize:
      return anonymize(job.job, options).found;
    case Command::risk: {
      // What `deid risk JOB --json result.json --report report.html` writes,
      // the input named by the dataset's file name. Reading is the one
      // phase: no progress, cancelled only before it.
      options.phase(Phase::reading);
      RiskReport report = assess_risk(job.job, std::string(), risk_options(job.job));
      report.input = job.input_name;
      write_file(job.dir / "result.json", dump_json(to_json(report), 2) + "\n");
      write_file(job.dir / "report.html", render_html_risk_report(report));
      return true;
    }
    case Command::suppress:
      // `deid suppress JOB`: output.csv and result.json; no progress,
      // cancelled only before it starts.
      options.phase(Phase::reading);
      run_cell_suppression(job.job);
      return true;
  }
  return false;
}

void Store::run(JobState& job) {
  bool start = false;
  update(job, [&] {
    start = job.status == JobStatus::queued && !job.cancel;
    if (start) job.status = JobStatus::running;
  });
  if (!start) return;
  RunOptions options;
  options.phase = [&](Phase phase) {
    if (options_.on_phase) options_.on_phase(job.id, phase);
    if (job.cancel) throw Cancelled{};
    update(job, [&] { job.progress = {{"phase", deid::to_string(phase)}}; });
  };
  options.progress = [&](const SearchProgress& p) {
    if (job.cancel) throw Cancelled{};
    update(job, [&] {
      job.progress = {{"phase", "search"}, {"checked", p.checked}, {"elapsed_seconds", p.elapsed_seconds}};
      if (p.best_loss) job.progress["best_loss"] = *p.best_loss;
      if (p.fraction_done) job.progress["fraction_done"] = *p.fraction_done;
    });
  };
  JobStatus end = JobStatus::done;
  std::string error;
  bool found = false;
  try {
    found = run_command(job, options);
    // A cancel asked while the last step ran (a risk or suppress job has
    // no progress hooks to stop it): the job ends cancelled all the same,
    // its files not served.
    if (job.cancel) throw Cancelled{};
    if (job.command != Command::risk) publish_names(job);
  } catch (const Cancelled&) {
    end = JobStatus::cancelled;
    error = "cancelled";
  } catch (const deid::Error& e) {
    end = JobStatus::failed;
    error = scrub(e.what(), job.job.input.path, job.input_name, job.dir);
  } catch (const std::exception& e) {
    end = JobStatus::failed;
    error = fmt::format("internal error: {}", scrub(e.what(), job.job.input.path, job.input_name, job.dir));
  } catch (...) {
    end = JobStatus::failed;
    error = "internal error";
  }
  // A message may quote the data at length; the status keeps its start.
  constexpr std::size_t kMaxError = 4096;
  if (error.size() > kMaxError) error = error.substr(0, kMaxError) + "...";
  update(job, [&] {
    job.status = end;
    job.error = error;
    job.solution_found = found;
  });
  // The parsed job (inline hierarchies among it) is not needed once the
  // job has ended: the status, and the files on disk, are what is served.
  job.job = Job{};
  // The dataset was deleted while the job ran: remove what it wrote since.
  bool orphan = false;
  {
    std::lock_guard lock(m_);
    orphan = datasets_.find(job.dataset_id) == datasets_.end();
  }
  if (orphan) {
    std::error_code ec;
    fs::remove_all(job.dir, ec);
  }
}

}  // namespace deid::serve
