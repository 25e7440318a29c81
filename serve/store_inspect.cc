// The inspection of a dataset (store.h, POST /api/v1/datasets/ID/inspect):
// the library's deid::inspect() and starter_job() on the upload, as `deid
// inspect` computes them, with the starter job's attributes as JSON for the
// web app's attribute step. The work is bounded by the size of the
// combinations measured; the answer is kept beside the dataset, so asking
// again costs a file read.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/inspect.h"
#include "security.h"
#include "store.h"
#include "store_files.h"

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Records visited by the attribute risk of one inspection (about
// combinations x records): the combinations measured are lowered to fit.
constexpr std::uint64_t kRecordVisits = 500'000'000;

// A YAML node of the starter job as JSON: a quoted scalar stays a string;
// a plain one is a number when it reads as one whole, true or false, else
// a string (starter_job() quotes every value that could read otherwise).
json to_json_value(const YAML::Node& node) {
  if (node.IsMap()) {
    json out = json::object();
    for (const auto& item : node) out[item.first.as<std::string>()] = to_json_value(item.second);
    return out;
  }
  if (node.IsSequence()) {
    json out = json::array();
    for (const auto& item : node) out.push_back(to_json_value(item));
    return out;
  }
  if (!node.IsScalar()) return nullptr;
  const std::string s = node.Scalar();
  if (node.Tag() != "?") return s;  // quoted ("!")
  if (s == "true") return true;
  if (s == "false") return false;
  if (!s.empty() && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
    const char* end = s.data() + s.size();
    std::int64_t i = 0;
    if (auto [p, ec] = std::from_chars(s.data(), end, i); ec == std::errc() && p == end) return i;
    double d = 0;
    if (auto [p, ec] = std::from_chars(s.data(), end, d); ec == std::errc() && p == end) return d;
  }
  return s;
}

}  // namespace

json Store::inspect(const std::string& id, int max_combination_size) const {
  if (max_combination_size < 1 || max_combination_size > 8)
    throw HttpError(400, fmt::format("'max_combination_size' {}: expected 1 to 8", max_combination_size));
  fs::path csv, dir;
  std::string name;
  {
    std::lock_guard lock(m_);
    const auto it = datasets_.find(id);
    if (it == datasets_.end()) throw HttpError(404, fmt::format("no dataset '{}'", id));
    csv = it->second.csv;
    dir = it->second.dir;
    name = it->second.name;
  }
  const fs::path cached = dir / fmt::format("inspection-{}.json", max_combination_size);
  try {
    return json::parse(read_file(cached));
  } catch (const std::exception&) {
    // Not computed yet (or being written): compute it.
  }
  json answer;
  try {
    std::ifstream in(csv, std::ios::binary);
    if (!in) throw HttpError(404, fmt::format("no dataset '{}'", id));  // deleted meanwhile
    // Read as `deid inspect` reads it, named by its file name.
    CsvOptions csv_options;
    csv_options.header = true;
    const deid::Dataset data = read_dataset_stream(
        [&](char* dst, std::size_t n) {
          in.read(dst, static_cast<std::streamsize>(n));
          return static_cast<std::size_t>(in.gcount());
        },
        name, csv_options);
    InspectOptions options;
    options.max_combination_size = max_combination_size;
    options.max_combinations = std::max<std::uint64_t>(1, kRecordVisits / std::max<std::uint64_t>(1, data.records()));
    const Inspection inspection = deid::inspect(data, options);
    // The job as `deid inspect --job` writes it beside the data.
    const std::string stem = (fs::path(name).parent_path() / fs::path(name).stem()).generic_string();
    const std::string job = starter_job(inspection, name, stem);
    answer = {{"inspection", to_json(inspection)},
              {"requested_combination_size", max_combination_size},
              {"starter_job", job},
              {"attributes", to_json_value(YAML::Load(job)["attributes"])}};
  } catch (const HttpError&) {
    throw;
  } catch (const deid::Error& e) {
    throw HttpError(400, scrub(e.what(), csv, name, dir));
  }
  // Written aside and renamed: a concurrent request reads it whole or not.
  const fs::path aside = dir / fmt::format(".inspection-{}.json", random_hex(8));
  try {
    write_file(aside, dump_json(answer));
    fs::rename(aside, cached);
  } catch (const std::exception&) {
    std::error_code ec;
    fs::remove(aside, ec);  // the dataset was deleted meanwhile: nothing kept
  }
  return answer;
}

}  // namespace deid::serve
