// The fixture of the deid serve tests (docs/web.md): a live server on a free
// loopback port inside the test process, spoken to over HTTP with
// httplib's client; each test starts its own server and stops it when it
// ends, also when it fails. Shared by the tests/serve/*_test.cc files.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "httplib_include.h"

#include "deid/output.h"
#include "security.h"
#include "server.h"

namespace serve_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `command` in `dir` (a shell command line), its output to LOG; the
// exit status (-1 when it did not exit).
inline int run_in(const fs::path& dir, const std::string& command, const fs::path& log) {
  const std::string line = "cd '" + dir.string() + "' && " + command + " > '" + log.string() + "' 2>&1";
  const int status = std::system(line.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline void write(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A directory of its own under the system's temporary directory, removed
// with everything in it at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "deid-serve-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// A server listening on a free port of 127.0.0.1, in a thread of the test;
// the destructor stops it and waits for it (and its jobs) to end.
class LiveServer {
 public:
  explicit LiveServer(deid::serve::ServeOptions options) {
    options.host = "127.0.0.1";
    options.port = 0;
    server_ = std::make_unique<deid::serve::Server>(std::move(options));
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->listen(); });
    // Answered once listen() runs (the socket queues the connection):
    // from then on stop() ends it.
    auto c = client();
    const auto res = c->Get("/api/v1/version");
    if (!res || res->status != 200) {
      server_->stop();
      thread_.join();
      throw std::runtime_error("the server did not answer");
    }
  }
  ~LiveServer() {
    server_->stop();
    thread_.join();
  }
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  // A client that sends the token.
  std::unique_ptr<httplib::Client> client() const {
    auto c = bare_client();
    c->set_default_headers({{"Authorization", "Bearer " + server_->token()}});
    return c;
  }
  // A client that sends no token.
  std::unique_ptr<httplib::Client> bare_client() const {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
    c->set_read_timeout(120, 0);
    return c;
  }
  int port() const { return port_; }
  const deid::serve::Server& server() const { return *server_; }

 private:
  std::unique_ptr<deid::serve::Server> server_;
  int port_ = 0;
  std::thread thread_;
};

inline const fs::path kAdult = fs::path(DEID_EXAMPLES_DIR) / "adult";

// A small table: every test that does not need adult uses it.
inline const char* const kSmallCsv =
    "name,age,sex,zip,disease\n"
    "a,34,male,81675,flu\n"
    "b,35,female,81676,cold\n"
    "c,36,male,81677,flu\n"
    "d,37,female,81678,asthma\n"
    "e,52,male,81925,flu\n"
    "f,53,female,81926,cold\n"
    "g,54,male,81927,flu\n"
    "h,55,female,81928,asthma\n";

// A job on the small table: sex with an inline hierarchy (rows in ARX's
// layout), age and zip built from the data.
inline json small_job(const std::string& dataset) {
  return {{"dataset", dataset},
          {"attributes",
           {{"name", {{"role", "identifying"}}},
            {"age", {{"role", "quasi-identifying"},
                     {"hierarchy", {{"type", "intervals"}, {"min", 0}, {"max", 100}, {"widths", {10, 50}}}}}},
            {"sex", {{"role", "quasi-identifying"},
                     {"hierarchy", json::array({json::array({"male", "*"}), json::array({"female", "*"})})}}},
            {"zip", {{"role", "quasi-identifying"}, {"hierarchy", {{"type", "masking"}, {"levels", 5}}}}}}},
          {"default-role", "insensitive"},
          {"privacy", {{{"k-anonymity", {{"k", 2}}}}}},
          {"suppression-limit", 0}};
}

// The hierarchy of an adult column under the data directory.
inline std::string fmt_hierarchy(const std::string& name) { return "hierarchies/" + name + ".csv"; }

// A child process, killed and reaped when the test ends unless waited for.
struct Child {
  pid_t pid = -1;
  bool reaped = false;
  ~Child() {
    if (pid > 0 && !reaped) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

// The adult job of examples/adult.yaml, with hierarchies named under the
// data directory (examples/adult) and no input or output.
inline json adult_job() {
  json attributes = json::object();
  for (const char* name : {"age", "education", "marital-status", "native-country", "race", "salary-class", "sex",
                           "workclass", "occupation"})
    attributes[name] = {{"role", "quasi-identifying"}, {"hierarchy", fmt_hierarchy(name)}};
  return {{"attributes", attributes},
          {"default-role", "insensitive"},
          {"privacy", {{{"k-anonymity", {{"k", 5}}}}}},
          {"suppression-limit", 0.05},
          {"quality", {{"model", "loss"}, {"aggregate", "geometric-mean"}, {"gs-factor", 0.5}}},
          {"search", {{"algorithm", "auto"}}}};
}

// Holds each job that reaches the start of `phase` until release() (at
// most a minute): the test acts on a job known to be running there, with no
// race against a fast job. Release it before the server is stopped.
class PhaseGate {
 public:
  explicit PhaseGate(deid::Phase phase) : phase_(phase) {}
  // For ServeOptions::on_phase.
  std::function<void(const std::string&, deid::Phase)> hook() {
    return [this](const std::string&, deid::Phase phase) {
      if (phase != phase_) return;
      std::unique_lock lock(m_);
      reached_ = true;
      cv_.notify_all();
      cv_.wait_for(lock, std::chrono::seconds(60), [&] { return released_; });
    };
  }
  // Whether a job reached the phase within a minute.
  bool wait_reached() {
    std::unique_lock lock(m_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return reached_; });
  }
  void release() {
    {
      std::lock_guard lock(m_);
      released_ = true;
    }
    cv_.notify_all();
  }

 private:
  deid::Phase phase_;
  std::mutex m_;
  std::condition_variable cv_;
  bool reached_ = false, released_ = false;
};

class Serve : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = tmp_.path / "data";
    fs::create_directories(data_ / "hierarchies");
    for (const auto& e : fs::directory_iterator(kAdult / "hierarchies"))
      fs::copy_file(e.path(), data_ / "hierarchies" / e.path().filename());
    write(tmp_.path / "outside.csv", "male;*\nfemale;*\n");
    fs::create_symlink(tmp_.path / "outside.csv", data_ / "link.csv");
    fs::create_directories(tmp_.path / "state");
  }

  deid::serve::ServeOptions options() const {
    deid::serve::ServeOptions o;
    o.data_dir = data_.string();
    o.state_parent = (tmp_.path / "state").string();
    return o;
  }

  static std::string upload(httplib::Client& c, const std::string& csv) {
    const auto res = c.Post("/api/v1/datasets", csv, "text/csv");
    if (!res || res->status != 201) return {};
    return json::parse(res->body)["id"].get<std::string>();
  }

  // Opens the CSV file `file` of the data directory; the dataset's id
  // (empty when refused).
  static std::string open_file(httplib::Client& c, const std::string& file) {
    const auto res = c.Post("/api/v1/datasets", json{{"file", file}}.dump(), "application/json");
    if (!res || res->status != 201) return {};
    return json::parse(res->body)["id"].get<std::string>();
  }

  // Submits `job` and waits for it to end; its id, or empty when it was
  // refused or did not end done.
  static std::string run_job(httplib::Client& c, const json& job) {
    const std::string id = submit(c, job);
    if (id.empty()) return {};
    const json end = wait(c, id);
    return end.is_object() && end["status"] == "done" ? id : std::string();
  }

  // The body of GET /api/v1/jobs/ID/WHAT, which must answer 200 (else a
  // failure of the test, and an empty body).
  static std::string job_file(httplib::Client& c, const std::string& id, const std::string& what) {
    const auto res = c.Get("/api/v1/jobs/" + id + "/" + what);
    if (!res || res->status != 200) {
      ADD_FAILURE() << what << ": " << (res ? std::to_string(res->status) + " " + res->body : "no answer");
      return {};
    }
    return res->body;
  }

  static std::string submit(httplib::Client& c, const json& job) {
    const auto res = c.Post("/api/v1/jobs", job.dump(), "application/json");
    if (!res || res->status != 202) return {};
    return json::parse(res->body)["id"].get<std::string>();
  }

  // Polls the job until it has finished; its last status (null when the
  // server stopped answering or two minutes passed).
  static json wait(httplib::Client& c, const std::string& id) {
    for (int i = 0; i < 1200; ++i) {
      const auto res = c.Get("/api/v1/jobs/" + id);
      if (!res || res->status != 200) return nullptr;
      json s = json::parse(res->body);
      const std::string status = s["status"].get<std::string>();
      if (status == "done" || status == "failed" || status == "cancelled") return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return nullptr;
  }

  TempDir tmp_;
  fs::path data_;
};

}  // namespace serve_test
