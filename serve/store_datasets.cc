// The Store's datasets (store.h): an upload read with the library into a
// summary and each column's distinct values on disk, a file of the data
// directory copied in, the data directory's CSV files listed, a dataset
// described and deleted with its jobs.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "deid/dataset.h"
#include "deid/error.h"
#include "security.h"
#include "store.h"
#include "store_files.h"

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kSampleRows = 5;

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

}  // namespace

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

}  // namespace deid::serve
