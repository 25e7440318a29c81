// Running the Store's jobs (store.h) on its workers: each job through the
// library call of its command, cancelled by throwing from its progress
// hooks, its failure its own; once done, its result and report name the
// dataset and the API's paths instead of the server's.
#include <string>
#include <utility>

#include <fmt/format.h>

#include "deid/cell_suppression_job.h"
#include "deid/error.h"
#include "deid/output.h"
#include "deid/report.h"
#include "deid/risk.h"
#include "deid/search.h"
#include "security.h"
#include "store.h"
#include "store_files.h"

namespace deid::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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

}  // namespace

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
