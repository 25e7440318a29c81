// The Store's frame (store.h): its workers, job states, and the messages
// it hands clients without the server's directories. Datasets are
// store_datasets.cc, building and queueing jobs store_jobs.cc, running them
// store_run.cc, and the web app's helpers (hierarchy preview, job.yaml)
// store_helpers.cc.
#include "store.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "security.h"
#include "store_files.h"

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

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

}  // namespace deid::serve
