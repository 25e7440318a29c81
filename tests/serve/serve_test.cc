// deid serve (docs/web.md): a live server on a free loopback port inside
// the test process, spoken to over HTTP with httplib's client. Each test
// starts its own server and stops it when it ends, also when it fails.
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

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `command` in `dir` (a shell command line), its output to LOG; the
// exit status (-1 when it did not exit).
int run_in(const fs::path& dir, const std::string& command, const fs::path& log) {
  const std::string line = "cd '" + dir.string() + "' && " + command + " > '" + log.string() + "' 2>&1";
  const int status = std::system(line.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write(const fs::path& path, const std::string& text) {
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

const fs::path kAdult = fs::path(DEID_EXAMPLES_DIR) / "adult";

// A small table: every test that does not need adult uses it.
const char* const kSmallCsv =
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
json small_job(const std::string& dataset) {
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
std::string fmt_hierarchy(const std::string& name) { return "hierarchies/" + name + ".csv"; }

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
json adult_job() {
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

TEST(ServeSecurity, TokensAreEqualOnlyWhenEveryByteIs) {
  EXPECT_TRUE(deid::serve::tokens_equal("abc123", "abc123"));
  EXPECT_FALSE(deid::serve::tokens_equal("abc124", "abc123"));
  EXPECT_FALSE(deid::serve::tokens_equal("abc12", "abc123"));
  EXPECT_FALSE(deid::serve::tokens_equal("", ""));
  const std::string a = deid::serve::random_hex(32), b = deid::serve::random_hex(32);
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, b);
}

TEST(ServeSecurity, CookieValueIsFoundAmongOthers) {
  EXPECT_EQ(deid::serve::cookie_value("a=1; deid_token=xyz; b=2", "deid_token"), "xyz");
  EXPECT_EQ(deid::serve::cookie_value("deid_tokens=1", "deid_token"), "");
}

TEST_F(Serve, ConfineKeepsPathsInsideTheRootAndRefusesTheRest) {
  const fs::path root = fs::canonical(data_);
  EXPECT_EQ(deid::serve::confine(root, "hierarchies/age.csv"), root / "hierarchies" / "age.csv");
  for (const std::string& bad : std::vector<std::string>{"", ".", "../x", "a/../../x", "/etc/passwd", "link.csv"}) {
    try {
      deid::serve::confine(root, bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const deid::serve::HttpError& e) {
      EXPECT_EQ(e.status(), 403) << bad;
    }
  }
}

TEST_F(Serve, RequestWithoutTokenIsRefused) {
  LiveServer s(options());
  const auto res = s.bare_client()->Get("/api/v1/version");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(res->get_header_value("WWW-Authenticate"), "Bearer");
}

TEST_F(Serve, RequestWithWrongTokenIsRefused) {
  LiveServer s(options());
  auto c = s.bare_client();
  std::string wrong = s.server().token();
  wrong.back() = wrong.back() == 'a' ? 'b' : 'a';
  c->set_default_headers({{"Authorization", "Bearer " + wrong}});
  const auto res = c->Get("/api/v1/version");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  const auto res2 = c->Get("/?token=" + wrong);
  ASSERT_TRUE(res2);
  EXPECT_EQ(res2->status, 401);
  EXPECT_FALSE(res2->has_header("Set-Cookie"));
}

TEST_F(Serve, PageOpenedWithTokenSetsStrictHttpOnlyCookieThatAuthenticates) {
  LiveServer s(options());
  auto c = s.bare_client();
  const auto page = c->Get("/?token=" + s.server().token());
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200);
  const std::string cookie = page->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos) << cookie;
  // The web app, with no inline script: its one script is a file.
  EXPECT_NE(page->body.find("<script type=\"module\" src=\"/assets/app.js\"></script>"), std::string::npos);
  c->set_default_headers({{"Cookie", cookie.substr(0, cookie.find(';'))}});
  const auto res = c->Get("/api/v1/version");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST_F(Serve, RequestFromAnotherOriginIsForbidden) {
  LiveServer s(options());
  auto c = s.client();
  const auto res = c->Get("/api/v1/version", {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  const auto same = c->Get("/api/v1/version", {{"Origin", "http://127.0.0.1:" + std::to_string(s.port())}});
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 200);
}

TEST_F(Serve, RequestForAnotherHostIsForbidden) {
  LiveServer s(options());
  auto c = s.client();
  // DNS rebinding: a name of the attacker's that resolves to 127.0.0.1.
  const auto res = c->Get("/api/v1/version", {{"Host", "evil.example:" + std::to_string(s.port())}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
}

TEST_F(Serve, EveryResponseCarriesTheSecurityHeaders) {
  LiveServer s(options());
  for (const bool with_token : {true, false}) {
    const auto c = with_token ? s.client() : s.bare_client();
    const auto res = c->Get("/api/v1/version");
    ASSERT_TRUE(res);
    const std::string csp = res->get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'self'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(res->get_header_value("Referrer-Policy"), "no-referrer");
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
  }
}

TEST_F(Serve, UploadOverTheLimitIsRefused) {
  auto o = options();
  o.max_upload_bytes = 1024;
  LiveServer s(o);
  auto c = s.client();
  std::string csv = "a,b\n";
  while (csv.size() < 8192) csv += "1,2\n";
  const auto res = c->Post("/api/v1/datasets", csv, "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff");
  // Nothing of it is kept.
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "uploads"));
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "datasets"));
}

TEST_F(Serve, MalformedCsvIsRefusedWithTheLibrarysMessage) {
  LiveServer s(options());
  auto c = s.client();
  const auto res = c->Post("/api/v1/datasets", "a,b\n1,2\n3,4,5\n", "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  const std::string error = json::parse(res->body)["error"].get<std::string>();
  EXPECT_NE(error.find("dataset.csv:3"), std::string::npos) << error;
  EXPECT_NE(error.find("3 fields"), std::string::npos) << error;
  // The server's own paths are not in it.
  EXPECT_EQ(error.find(s.server().state_dir().string()), std::string::npos) << error;
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "datasets"));
}

TEST_F(Serve, DatasetSummaryListsColumnsWithDistinctCountsAndASample) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  const auto res = c->Get("/api/v1/datasets/" + id);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  const json d = json::parse(res->body);
  EXPECT_EQ(d["rows"], 8);
  ASSERT_EQ(d["columns"].size(), 5u);
  EXPECT_EQ(d["columns"][2]["name"], "sex");
  EXPECT_EQ(d["columns"][2]["distinct"], 2);
  EXPECT_EQ(d["columns"][1]["distinct"], 8);
  ASSERT_FALSE(d["sample"].empty());
  EXPECT_EQ(d["sample"][0], json({"a", "34", "male", "81675", "flu"}));
}

TEST_F(Serve, HierarchyPathsOutsideTheDataDirectoryAreForbidden) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  for (const std::string& path : std::vector<std::string>{"../outside.csv", "hierarchies/../../outside.csv",
                                 (tmp_.path / "outside.csv").string(), "/etc/passwd", "link.csv"}) {
    json job = small_job(id);
    job["attributes"]["sex"]["hierarchy"] = path;
    const auto res = c->Post("/api/v1/jobs", job.dump(), "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 403) << path << ": " << res->body;
  }
  // A path inside it is taken (and the job runs: adult's sex hierarchy
  // lacks 'male', so it fails on the data, not on the path).
  json job = small_job(id);
  job["attributes"]["sex"]["hierarchy"] = "hierarchies/sex.csv";
  const auto res = c->Post("/api/v1/jobs", job.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 202) << res->body;
}

TEST_F(Serve, ClientCannotChooseServerPaths) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  json job = small_job(id);
  job["output"] = {{"path", (tmp_.path / "evil.csv").string()}};
  auto res = c->Post("/api/v1/jobs", job.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  job = small_job(id);
  job["input"] = {{"path", "/etc/passwd"}};
  res = c->Post("/api/v1/jobs", job.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_FALSE(fs::exists(tmp_.path / "evil.csv"));
}

TEST_F(Serve, AdultJobOutputIsByteForByteTheCommandLinesOutput) {
  // The command line, on the same job written as a job file (JSON is YAML).
  json cli_job = adult_job();
  cli_job["input"] = {{"path", (kAdult / "adult.csv").string()}, {"delimiter", ";"}};
  for (auto& [name, a] : cli_job["attributes"].items())
    a["hierarchy"] = (data_ / a["hierarchy"].get<std::string>()).string();
  cli_job["output"] = {{"path", (tmp_.path / "cli.csv").string()}, {"result", (tmp_.path / "cli.json").string()}};
  write(tmp_.path / "job.yaml", cli_job.dump(2));
  ASSERT_EQ(run_in(tmp_.path, std::string("'") + DEID_CLI_PATH + "' -q anonymize job.yaml", tmp_.path / "cli.log"), 0)
      << slurp(tmp_.path / "cli.log");
  const std::string cli_output = slurp(tmp_.path / "cli.csv");
  const json cli_result = json::parse(slurp(tmp_.path / "cli.json"));
  ASSERT_FALSE(cli_output.empty());

  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, slurp(kAdult / "adult.csv"));
  ASSERT_FALSE(id.empty());
  json job = adult_job();
  job["dataset"] = id;
  job["input"] = {{"delimiter", ";"}};
  const std::string job_id = submit(*c, job);
  ASSERT_FALSE(job_id.empty());
  const json end = wait(*c, job_id);
  ASSERT_EQ(end["status"], "done") << end.dump();
  EXPECT_EQ(end["solution_found"], true);

  const auto output = c->Get("/api/v1/jobs/" + job_id + "/output");
  ASSERT_TRUE(output);
  ASSERT_EQ(output->status, 200);
  EXPECT_EQ(output->get_header_value("Content-Type").rfind("text/csv", 0), 0u);
  EXPECT_TRUE(output->body == cli_output) << "the API's output differs from deid anonymize's ("
                                          << output->body.size() << " and " << cli_output.size() << " bytes)";
  const auto result = c->Get("/api/v1/jobs/" + job_id + "/result");
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200);
  const json r = json::parse(result->body);
  EXPECT_EQ(r["transformation"], cli_result["transformation"]);
  EXPECT_EQ(r["information_loss"], cli_result["information_loss"]);
  EXPECT_EQ(r["suppressed_records"], cli_result["suppressed_records"]);

  const auto report = c->Get("/api/v1/jobs/" + job_id + "/report");
  ASSERT_TRUE(report);
  ASSERT_EQ(report->status, 200);
  EXPECT_NE(report->body.find("<html"), std::string::npos);
  EXPECT_NE(report->get_header_value("Content-Security-Policy").find("sandbox"), std::string::npos);

  // No path of the server in the result or the report: the input is the
  // upload's name, each output the API path that sends it, with the digest
  // of what it sends.
  const std::string state = s.server().state_dir().string();
  EXPECT_EQ(result->body.find(state), std::string::npos) << r["files"];
  EXPECT_EQ(report->body.find(state), std::string::npos);
  EXPECT_NE(report->body.find("<code>dataset.csv</code>"), std::string::npos);
  ASSERT_EQ(r["files"].size(), 3u) << r["files"];
  EXPECT_EQ(r["files"][0]["role"], "input");
  EXPECT_EQ(r["files"][0]["path"], "dataset.csv");
  EXPECT_EQ(r["files"][0]["sha256"], cli_result["files"][0]["sha256"]);
  for (const json& f : r["files"]) {
    if (f["role"] == "input") continue;
    const std::string path = f["path"].get<std::string>();
    EXPECT_EQ(path, "/api/v1/jobs/" + job_id + "/" + f["role"].get<std::string>());
    const auto sent = c->Get(path);
    ASSERT_TRUE(sent);
    EXPECT_EQ(f["sha256"], deid::sha256_hex(sent->body)) << path;
    EXPECT_EQ(f["bytes"], sent->body.size()) << path;
  }
}

TEST_F(Serve, InlineHierarchyRowsAreWrittenForTheJob) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  const std::string job_id = submit(*c, small_job(id));
  ASSERT_FALSE(job_id.empty());
  const json end = wait(*c, job_id);
  ASSERT_EQ(end["status"], "done") << end.dump();
  ASSERT_EQ(end["solution_found"], true);
  const auto output = c->Get("/api/v1/jobs/" + job_id + "/output");
  ASSERT_TRUE(output);
  ASSERT_EQ(output->status, 200);
  // The identifying column is gone; sex is released through the inline
  // hierarchy: as it is or as its top value.
  EXPECT_EQ(output->body.rfind("age,sex,zip,disease\n", 0), 0u) << output->body;
  const json r = json::parse(c->Get("/api/v1/jobs/" + job_id + "/result")->body);
  ASSERT_TRUE(r["transformation"].contains("sex"));
  const int sex = r["transformation"]["sex"].get<int>();
  EXPECT_NE(output->body.find(sex == 0 ? ",male," : ",*,"), std::string::npos) << output->body;
  EXPECT_TRUE(fs::exists(s.server().state_dir() / "datasets" / id / "jobs" / job_id / "hierarchy-1.csv"));
}

TEST_F(Serve, FailingJobFailsAloneWithItsMessage) {
  auto o = options();
  o.workers = 2;
  LiveServer s(o);
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  json bad = small_job(id);
  bad["attributes"]["no-such-column"] = {{"role", "quasi-identifying"},
                                         {"hierarchy", {{"type", "masking"}, {"levels", 1}}}};
  const std::string bad_id = submit(*c, bad);
  const std::string good_id = submit(*c, small_job(id));
  ASSERT_FALSE(bad_id.empty());
  ASSERT_FALSE(good_id.empty());
  const json bad_end = wait(*c, bad_id);
  const json good_end = wait(*c, good_id);
  ASSERT_EQ(bad_end["status"], "failed") << bad_end.dump();
  EXPECT_NE(bad_end["error"].get<std::string>().find("no-such-column"), std::string::npos) << bad_end.dump();
  EXPECT_EQ(good_end["status"], "done") << good_end.dump();
  const auto output = c->Get("/api/v1/jobs/" + bad_id + "/output");
  ASSERT_TRUE(output);
  EXPECT_EQ(output->status, 409);
}

TEST_F(Serve, JobRejectedByTheParserIsABadRequest) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  json job = small_job(id);
  job["suppression-limit"] = 2;
  const auto res = c->Post("/api/v1/jobs", job.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(json::parse(res->body)["error"].get<std::string>().find("suppression-limit"), std::string::npos)
      << res->body;
  const auto unknown = c->Post("/api/v1/jobs", small_job("0123456789abcdef0123456789abcdef").dump(), "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

TEST_F(Serve, RunningJobIsCancelled) {
  // The job stops at the start of its search until the test has asked to
  // cancel it: no race with a fast job.
  PhaseGate gate(deid::Phase::search);
  auto o = options();
  o.on_phase = gate.hook();
  LiveServer s(o);
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  const std::string job_id = id.empty() ? std::string() : submit(*c, small_job(id));
  const bool reached = !job_id.empty() && gate.wait_reached();
  const auto running = c->Get("/api/v1/jobs/" + job_id);
  const auto cancel = c->Delete("/api/v1/jobs/" + job_id);
  gate.release();
  ASSERT_TRUE(reached);
  ASSERT_TRUE(running);
  EXPECT_EQ(json::parse(running->body)["status"], "running");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202);
  const json end = wait(*c, job_id);
  EXPECT_EQ(end["status"], "cancelled") << end.dump();
  const auto output = c->Get("/api/v1/jobs/" + job_id + "/output");
  ASSERT_TRUE(output);
  EXPECT_EQ(output->status, 409);
  EXPECT_FALSE(fs::exists(s.server().state_dir() / "datasets" / id / "jobs" / job_id / "output.csv"));
}

TEST_F(Serve, QueuedJobIsCancelledAtOnceWhileOthersRun) {
  // One worker, held at the start of the first job's search: the second
  // job waits in the queue.
  PhaseGate gate(deid::Phase::search);
  auto o = options();
  o.workers = 1;
  o.on_phase = gate.hook();
  LiveServer s(o);
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  const std::string first = id.empty() ? std::string() : submit(*c, small_job(id));
  const std::string second = id.empty() ? std::string() : submit(*c, small_job(id));
  const bool reached = !first.empty() && gate.wait_reached();
  const auto queued = c->Get("/api/v1/jobs/" + second);
  const auto cancel = c->Delete("/api/v1/jobs/" + second);
  gate.release();
  ASSERT_TRUE(reached);
  ASSERT_TRUE(queued);
  EXPECT_EQ(json::parse(queued->body)["status"], "queued");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202);
  EXPECT_EQ(json::parse(cancel->body)["status"], "cancelled");
  EXPECT_EQ(wait(*c, first)["status"], "done");
  EXPECT_EQ(wait(*c, second)["status"], "cancelled");
  // A finished job cannot be cancelled.
  const auto again = c->Delete("/api/v1/jobs/" + first);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409);
}

TEST_F(Serve, EventStreamEndsWithTheFinalStatus) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  const std::string job_id = submit(*c, small_job(id));
  ASSERT_FALSE(job_id.empty());
  std::string stream;
  const auto res = c->Get("/api/v1/jobs/" + job_id + "/events", [&](const char* data, std::size_t n) {
    stream.append(data, n);
    return true;
  });
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type").rfind("text/event-stream", 0), 0u);
  const auto done = stream.rfind("event: done\ndata: ");
  ASSERT_NE(done, std::string::npos) << stream;
  const auto line_end = stream.find('\n', done + 18);
  const json last = json::parse(stream.substr(done + 18, line_end - done - 18));
  EXPECT_EQ(last["status"], "done");
  EXPECT_EQ(last["id"], job_id);
}

TEST_F(Serve, DeletingADatasetRemovesItsFilesAndJobs) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  const std::string job_id = submit(*c, small_job(id));
  ASSERT_FALSE(job_id.empty());
  ASSERT_EQ(wait(*c, job_id)["status"], "done");
  const fs::path dir = s.server().state_dir() / "datasets" / id;
  ASSERT_TRUE(fs::exists(dir / "data.csv"));
  ASSERT_TRUE(fs::exists(dir / "jobs" / job_id / "output.csv"));
  const auto res = c->Delete("/api/v1/datasets/" + id);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 204);
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_EQ(c->Get("/api/v1/datasets/" + id)->status, 404);
  EXPECT_EQ(c->Get("/api/v1/jobs/" + job_id)->status, 404);
  EXPECT_EQ(c->Get("/api/v1/jobs/" + job_id + "/output")->status, 404);
}

TEST_F(Serve, CommandPrintsTheAddressServesAndCleansUpOnSigterm) {
  const std::string state = (tmp_.path / "state").string();
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  Child child;
  child.pid = ::fork();
  ASSERT_GE(child.pid, 0);
  if (child.pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execl(DEID_CLI_PATH, "deid", "serve", "--port", "0", "--state-dir", state.c_str(), "--token", "t0ken-of-test",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  FILE* text = ::fdopen(out[0], "r");
  ASSERT_NE(text, nullptr);
  char line[1024];
  const std::string address = std::fgets(line, sizeof line, text) ? line : "";
  const std::string kept = std::fgets(line, sizeof line, text) ? line : "";
  std::fclose(text);
  const std::string prefix = "deid serve: open http://127.0.0.1:";
  ASSERT_EQ(address.rfind(prefix, 0), 0u) << address;
  EXPECT_NE(address.find("/?token=t0ken-of-test"), std::string::npos) << address;
  const int port = std::stoi(address.substr(prefix.size()));
  const auto in = kept.find(" in "), until = kept.find(" until ");
  ASSERT_TRUE(in != std::string::npos && until != std::string::npos) << kept;
  const fs::path state_dir = kept.substr(in + 4, until - in - 4);
  EXPECT_TRUE(fs::is_directory(state_dir)) << state_dir;

  httplib::Client c("127.0.0.1", port);
  c.set_default_headers({{"Authorization", "Bearer t0ken-of-test"}});
  const auto res = c.Post("/api/v1/datasets", kSmallCsv, "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201);

  ASSERT_EQ(::kill(child.pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child.pid, &status, 0), child.pid);
  child.reaped = true;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_FALSE(fs::exists(state_dir)) << state_dir;
}

TEST_F(Serve, StateDirectoryIsRemovedWhenTheServerStops) {
  fs::path state;
  {
    LiveServer s(options());
    state = s.server().state_dir();
    auto c = s.client();
    ASSERT_FALSE(upload(*c, kSmallCsv).empty());
    EXPECT_TRUE(fs::exists(state));
    EXPECT_EQ(state.parent_path(), fs::canonical(tmp_.path / "state"));
  }
  EXPECT_FALSE(fs::exists(state));
}

}  // namespace

namespace {

// Whether `text` has an inline script, an inline event handler or an inline
// style (none passes the Content-Security-Policy).
bool has_inline_code(const std::string& text) {
  for (std::size_t at = text.find("<script"); at != std::string::npos; at = text.find("<script", at + 1)) {
    const std::size_t end = text.find('>', at);
    if (text.compare(end + 1, 9, "</script>") != 0 || text.substr(at, end - at).find(" src=") == std::string::npos)
      return true;
  }
  for (const char* bad : {" onclick=", " onload=", " onchange=", " oninput=", " onsubmit=", " style=", "<style",
                          "javascript:"})
    if (text.find(bad) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_F(Serve, WebAppAssetsAreServedWithTheirTypesAndTheStrictPolicy) {
  LiveServer s(options());
  auto c = s.client();
  const auto page = c->Get("/");
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_FALSE(has_inline_code(page->body));
  EXPECT_NE(page->body.find("/assets/app.css"), std::string::npos);
  for (const auto& [name, type] : std::vector<std::pair<std::string, std::string>>{
           {"app.js", "text/javascript; charset=utf-8"}, {"app.css", "text/css; charset=utf-8"},
           {"index.html", "text/html; charset=utf-8"}}) {
    const auto res = c->Get("/assets/" + name);
    ASSERT_TRUE(res) << name;
    EXPECT_EQ(res->status, 200) << name;
    EXPECT_EQ(res->get_header_value("Content-Type"), type) << name;
    EXPECT_FALSE(res->body.empty()) << name;
    const std::string csp = res->get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
  }
  // The served bytes are the files of serve/web; every module app.js
  // imports is served as JavaScript too.
  EXPECT_EQ(c->Get("/assets/app.js")->body, slurp(fs::path(DEID_SOURCE_DIR) / "serve" / "web" / "app.js"));
  std::size_t modules = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(DEID_SOURCE_DIR) / "serve" / "web")) {
    if (entry.path().extension() != ".js") continue;
    ++modules;
    const std::string name = entry.path().filename().string();
    const auto res = c->Get("/assets/" + name);
    ASSERT_TRUE(res) << name;
    EXPECT_EQ(res->status, 200) << name;
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/javascript; charset=utf-8") << name;
    EXPECT_EQ(res->body, slurp(entry.path())) << name;
  }
  EXPECT_GT(modules, 1u);
  EXPECT_EQ(c->Get("/assets/nothing.js")->status, 404);
  EXPECT_EQ(c->Get("/assets/../server.cc")->status, 404);
  EXPECT_EQ(s.bare_client()->Get("/assets/app.js")->status, 401);
}

TEST_F(Serve, FilesOfTheDataDirectoryAreListedAndOpened) {
  write(data_ / "small.csv", kSmallCsv);
  LiveServer s(options());
  auto c = s.client();
  const auto list = c->Get("/api/v1/files");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200);
  const json files = json::parse(list->body)["files"];
  EXPECT_NE(std::find(files.begin(), files.end(), "small.csv"), files.end()) << files;
  EXPECT_NE(std::find(files.begin(), files.end(), "hierarchies/age.csv"), files.end()) << files;
  // The link to a file outside the data directory is not listed.
  EXPECT_EQ(std::find(files.begin(), files.end(), "link.csv"), files.end()) << files;

  const auto res = c->Post("/api/v1/datasets", json{{"file", "small.csv"}}.dump(), "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 201) << res->body;
  const std::string id = json::parse(res->body)["id"];
  const json summary = json::parse(c->Get("/api/v1/datasets/" + id)->body);
  EXPECT_EQ(summary["name"], "small.csv");
  EXPECT_EQ(summary["rows"], 8);
  ASSERT_EQ(summary["columns"].size(), 5u);
  EXPECT_EQ(summary["columns"][0]["type"], "string");
  EXPECT_EQ(summary["columns"][1]["type"], "integer");
  EXPECT_EQ(summary["columns"][3]["type"], "integer");

  for (const char* bad : {"link.csv", "../outside.csv", "/etc/passwd"}) {
    const auto r = c->Post("/api/v1/datasets", json{{"file", bad}}.dump(), "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << bad;
  }
  const auto missing = c->Post("/api/v1/datasets", json{{"file", "none.csv"}}.dump(), "application/json");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(Serve, SummaryDetectsDecimalsAndDates) {
  LiveServer s(options());
  auto c = s.client();
  const auto res = c->Post("/api/v1/datasets?name=dir%2Fx.csv", "a,b,c,d\n1.5,2020-01-31,x,\n-2,2021-12-01,3,\n",
                           "text/csv");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 201);
  const json summary = json::parse(c->Get("/api/v1/datasets/" + json::parse(res->body)["id"].get<std::string>())->body);
  EXPECT_EQ(summary["name"], "x.csv");
  // A name is kept without control characters (it goes into job.yaml).
  const auto named = c->Post("/api/v1/datasets?name=a%0Ainput%3A%20b.csv", "a\n1\n", "text/csv");
  ASSERT_TRUE(named);
  ASSERT_EQ(named->status, 201);
  EXPECT_EQ(json::parse(c->Get("/api/v1/datasets/" + json::parse(named->body)["id"].get<std::string>())->body)["name"],
            "ainput: b.csv");
  EXPECT_EQ(summary["columns"][0]["type"], "decimal");
  EXPECT_EQ(summary["columns"][1]["type"], "date");
  EXPECT_EQ(summary["columns"][2]["type"], "string");
  EXPECT_EQ(summary["columns"][3]["type"], "string");
}

TEST_F(Serve, HierarchyPreviewBuildsTheRowsOfTheColumnsValues) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  const std::string path = "/api/v1/datasets/" + id + "/hierarchy-preview";
  const auto res = c->Post(path,
                           json{{"column", "age"},
                                {"builder", {{"type", "intervals"}, {"min", 0}, {"max", 100}, {"widths", {10, 50}}}}}
                               .dump(),
                           "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const json preview = json::parse(res->body);
  EXPECT_EQ(preview["total_rows"], 8);
  EXPECT_EQ(preview["levels"], 4);
  EXPECT_EQ(preview["rows"][0], json({"34", "[30, 40)", "[0, 50)", "*"}));
  // Masking, in the order the values first occur.
  const auto zip = c->Post(path, json{{"column", "zip"}, {"builder", {{"type", "masking"}, {"levels", 2}}}}.dump(),
                           "application/json");
  ASSERT_TRUE(zip);
  ASSERT_EQ(zip->status, 200) << zip->body;
  EXPECT_EQ(json::parse(zip->body)["rows"][1], json({"81676", "8167*", "816**", "*"}));
  // The job parser's checks, and its message.
  const auto bad = c->Post(path,
                           json{{"column", "age"}, {"builder", {{"type", "intervals"}, {"min", 0}, {"max", 100}}}}.dump(),
                           "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("widths"), std::string::npos) << bad->body;
  const auto outside = c->Post(
      path, json{{"column", "age"}, {"builder", {{"type", "intervals"}, {"min", 0}, {"max", 50}, {"widths", {10}}}}}.dump(),
      "application/json");
  ASSERT_TRUE(outside);
  EXPECT_EQ(outside->status, 400) << outside->body;
  const auto column = c->Post(path, json{{"column", "nope"}, {"builder", {{"type", "masking"}}}}.dump(),
                              "application/json");
  ASSERT_TRUE(column);
  EXPECT_EQ(column->status, 404);
}

TEST_F(Serve, JobYamlRunsUnchangedWithTheCommandLine) {
  fs::copy_file(kAdult / "adult.csv", data_ / "adult.csv");
  LiveServer s(options());
  auto c = s.client();
  const auto opened = c->Post("/api/v1/datasets", json{{"file", "adult.csv"}}.dump(), "application/json");
  ASSERT_TRUE(opened);
  ASSERT_EQ(opened->status, 201) << opened->body;
  json job = adult_job();
  job["dataset"] = json::parse(opened->body)["id"];
  job["attributes"]["age"]["hierarchy"] = {{"type", "intervals"}, {"min", 0}, {"max", 100}, {"widths", {10, 20}}};
  job["attributes"]["native-country"] = {{"role", "insensitive"}};
  job["attributes"]["occupation"] = {{"role", "sensitive"}};
  job["privacy"].push_back({{"l-diversity", {{"attribute", "occupation"}, {"l", 2}}}});
  job["search"]["transformation"] = {{"age", 2}, {"education", 2}, {"marital-status", 2}, {"race", 1},
                                     {"salary-class", 1}, {"sex", 1}, {"workclass", 2}};
  job["output"] = {{"escape-formulas", true}};
  const std::string id = submit(*c, job);
  ASSERT_FALSE(id.empty());
  const json status = wait(*c, id);
  ASSERT_EQ(status["status"], "done") << status;
  ASSERT_TRUE(status["solution_found"].get<bool>());
  const auto yaml = c->Get("/api/v1/jobs/" + id + "/job.yaml");
  ASSERT_TRUE(yaml);
  ASSERT_EQ(yaml->status, 200);
  EXPECT_EQ(yaml->get_header_value("Content-Type"), "application/yaml; charset=utf-8");
  EXPECT_EQ(yaml->body.find(data_.string()), std::string::npos) << "no path of the machine";
  // Saved in the data directory, run by deid anonymize: the same table.
  write(data_ / "job.yaml", yaml->body);
  ASSERT_EQ(run_in(data_, std::string("'") + DEID_CLI_PATH + "' anonymize job.yaml", tmp_.path / "cli.log"), 0)
      << slurp(tmp_.path / "cli.log") << yaml->body;
  EXPECT_EQ(slurp(data_ / "adult-deid.csv"), c->Get("/api/v1/jobs/" + id + "/output")->body);
  EXPECT_TRUE(fs::exists(data_ / "adult-deid.json"));
  EXPECT_TRUE(fs::exists(data_ / "adult-deid.html"));

  // A job with inline hierarchy rows has no job file.
  const std::string small = upload(*c, kSmallCsv);
  const std::string inline_job = submit(*c, small_job(small));
  ASSERT_FALSE(inline_job.empty());
  const auto refused = c->Get("/api/v1/jobs/" + inline_job + "/job.yaml");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 409);
}

TEST_F(Serve, RiskJobResultAndReportAreTheCommandLinesByteForByte) {
  fs::copy_file(kAdult / "adult.csv", data_ / "adult.csv");
  LiveServer s(options());
  auto c = s.client();
  json job = adult_job();
  job["dataset"] = open_file(*c, "adult.csv");
  job["command"] = "risk";
  job["attributes"]["native-country"] = {{"role", "insensitive"}};
  job["attributes"]["age"]["hierarchy"] = {{"type", "intervals"}, {"min", 0}, {"max", 100}, {"widths", {10, 20}}};
  job["risk"] = {{"threshold", 0.1}, {"populations", {{"USA", 318.9e6}, {"Region", 2e6}}}};
  const std::string id = run_job(*c, job);
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(json::parse(c->Get("/api/v1/jobs/" + id)->body)["command"], "risk");
  const std::string result = job_file(*c, id, "result"), report = job_file(*c, id, "report"),
                    yaml = job_file(*c, id, "job.yaml");
  ASSERT_FALSE(result.empty() || report.empty() || yaml.empty());
  EXPECT_EQ(json::parse(result)["input"], "adult.csv");
  EXPECT_EQ(result.find(s.server().state_dir().string()), std::string::npos);
  // A risk job releases no table.
  const auto output = c->Get("/api/v1/jobs/" + id + "/output");
  ASSERT_TRUE(output);
  EXPECT_EQ(output->status, 404);
  EXPECT_NE(json::parse(output->body)["error"].get<std::string>().find("risk job"), std::string::npos);

  // The command its job.yaml names, run beside the data: the same bytes.
  EXPECT_NE(yaml.find("deid risk job.yaml --json adult-risk.json --report adult-risk.html"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("command"), std::string::npos) << yaml;
  write(data_ / "job.yaml", yaml);
  ASSERT_EQ(run_in(data_, std::string("'") + DEID_CLI_PATH + "' -q risk job.yaml --json adult-risk.json --report adult-risk.html",
                   tmp_.path / "cli.log"),
            0)
      << slurp(tmp_.path / "cli.log") << yaml;
  EXPECT_TRUE(result == slurp(data_ / "adult-risk.json"))
      << "the API's risk JSON differs from deid risk's (" << result.size() << " and "
      << slurp(data_ / "adult-risk.json").size() << " bytes)";
  EXPECT_TRUE(report == slurp(data_ / "adult-risk.html")) << "the API's risk report differs from deid risk's";
}

// The discharge example of deid suppress (examples/discharge) as an API
// job on `dataset`, without its samples and outputs; its hierarchies and
// census under the data directory.
json discharge_job(const std::string& dataset) {
  json attributes = {{"abstract_id", {{"role", "identifying"}}},
                     {"sex", {{"role", "quasi-identifying"}}},
                     {"discharge", {{"role", "sensitive"}}}};
  for (const char* name : {"province", "age_group", "diagnosis", "intervention", "los"})
    attributes[name] = {{"role", "quasi-identifying"}, {"hierarchy", std::string("discharge/") + name + ".csv"}};
  json cs = {{"tau", 0.2},
             {"weights", {{"province", 1}, {"age_group", 1}, {"sex", 1}, {"diagnosis", 0.5}, {"intervention", 0.5},
                          {"los", 0.8}}},
             {"release-levels",
              {{"province", {{"levels", {1}}, {"names", {"region"}}}},
               {"diagnosis", {{"levels", {0, 1, 2, 3}},
                              {"names", {"mrdx", "cmg", "diag_block", "diag_chapter"}},
                              {"known-level", 1},
                              {"evaluate", {1, 2}}}},
               {"intervention", {{"levels", {0, 1}}, {"names", {"cci", "short_cci"}}, {"known-level", 1}}},
               {"los", {{"levels", {1}}, {"names", {"los_weeks"}}}}}},
             {"combinations", {{"province", "age_group", "sex", "diagnosis", "intervention"},
                               {"age_group", "sex", "diagnosis", "los"}}},
             {"compare-complete", true},
             {"missingness", {{{"variable", "cmg"}, {"by", "region"}}}},
             {"registry", {{"attributes", {"province", "age_group", "sex"}}, {"population", "discharge/census.csv"}}}};
  return {{"dataset", dataset}, {"command", "suppress"}, {"attributes", attributes}, {"cell-suppression", cs}};
}

TEST_F(Serve, SuppressJobOutputIsTheCommandLinesByteForByte) {
  const fs::path discharge = fs::path(DEID_EXAMPLES_DIR) / "discharge";
  fs::create_directories(data_ / "discharge");
  for (const auto& e : fs::directory_iterator(discharge / "hierarchies"))
    fs::copy_file(e.path(), data_ / "discharge" / e.path().filename());
  fs::copy_file(discharge / "census.csv", data_ / "discharge" / "census.csv");
  fs::copy_file(discharge / "discharge.csv", data_ / "discharge.csv");
  LiveServer s(options());
  auto c = s.client();
  const std::string id = run_job(*c, discharge_job(open_file(*c, "discharge.csv")));
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(json::parse(c->Get("/api/v1/jobs/" + id)->body)["command"], "suppress");
  const std::string output = job_file(*c, id, "output"), result = job_file(*c, id, "result"),
                    yaml = job_file(*c, id, "job.yaml");
  ASSERT_FALSE(output.empty() || result.empty() || yaml.empty());
  // deid suppress writes no report.
  const auto report = c->Get("/api/v1/jobs/" + id + "/report");
  ASSERT_TRUE(report);
  EXPECT_EQ(report->status, 404);

  // The result names no path of the server: the input by its name, the
  // output by the API path that sends it, with that file's digest.
  EXPECT_EQ(result.find(s.server().state_dir().string()), std::string::npos) << result;
  const json r = json::parse(result);
  ASSERT_EQ(r["files"].size(), 2u) << r["files"];
  EXPECT_EQ(r["files"][0]["path"], "discharge.csv");
  EXPECT_EQ(r["files"][1]["role"], "output");
  EXPECT_EQ(r["files"][1]["path"], "/api/v1/jobs/" + id + "/output");
  EXPECT_EQ(r["files"][1]["sha256"], deid::sha256_hex(output));

  // Its job.yaml, run by deid suppress beside the data: the same table.
  EXPECT_NE(yaml.find("deid suppress job.yaml"), std::string::npos) << yaml;
  write(data_ / "job.yaml", yaml);
  ASSERT_EQ(run_in(data_, std::string("'") + DEID_CLI_PATH + "' -q suppress job.yaml", tmp_.path / "cli.log"), 0)
      << slurp(tmp_.path / "cli.log") << yaml;
  EXPECT_TRUE(output == slurp(data_ / "discharge-deid.csv"))
      << "the API's table differs from deid suppress's (" << output.size() << " and "
      << slurp(data_ / "discharge-deid.csv").size() << " bytes)";
  const json cli = json::parse(slurp(data_ / "discharge-deid.json"));
  EXPECT_EQ(r["information_loss"], cli["information_loss"]);
  EXPECT_EQ(r["registry"], cli["registry"]);
}

TEST_F(Serve, JobKindAndItsSectionsMustAgree) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  // The message of a refused job (empty when it was not refused with `status`).
  const auto refused = [&](const json& job, int status) -> std::string {
    const auto res = c->Post("/api/v1/jobs", job.dump(), "application/json");
    if (!res || res->status != status) return {};
    return json::parse(res->body)["error"].get<std::string>();
  };
  json job = small_job(id);
  job["command"] = "frobnicate";
  EXPECT_NE(refused(job, 400).find("'command': \"frobnicate\" is not a command"), std::string::npos);
  job["command"] = 3;
  EXPECT_NE(refused(job, 400).find("'command': 3"), std::string::npos);

  job = small_job(id);
  job["command"] = "suppress";
  EXPECT_NE(refused(job, 400).find("needs a 'cell-suppression' section"), std::string::npos);
  job = small_job(id);
  job["cell-suppression"] = {{"k", 2}};
  EXPECT_NE(refused(job, 400).find("\"command\": \"suppress\""), std::string::npos);
  job["command"] = "risk";
  EXPECT_NE(refused(job, 400).find("(this one is \"risk\")"), std::string::npos);

  job = small_job(id);
  job.erase("privacy");
  job["command"] = "suppress";
  job["cell-suppression"] = {{"k", 0}};
  EXPECT_NE(refused(job, 400).find("k must be an integer >= 1, got 0"), std::string::npos);
  job["cell-suppression"] = {{"k", 2}, {"samples", {{"draws", {{{"fraction", 0.5}, {"path", "s.csv"}}}}}}};
  EXPECT_NE(refused(job, 400).find("'cell-suppression.samples'"), std::string::npos);
  job["cell-suppression"] = {{"k", 2}, {"registry", {{"attributes", {"sex"}}, {"population", "../outside.csv"}}}};
  EXPECT_NE(refused(job, 403).find("'cell-suppression.registry.population': '../outside.csv'"), std::string::npos);

  // A research subset's file is confined to the data directory too.
  job = small_job(id);
  job["subset"] = {{"file", "/etc/passwd"}};
  EXPECT_NE(refused(job, 403).find("'subset.file': '/etc/passwd'"), std::string::npos);

  // No secret of the server's, and no linkage table, through a job.
  job = small_job(id);
  job["identifiers"] = {{"secret", {{"file", "/etc/passwd"}}}};
  EXPECT_NE(refused(job, 400).find("'identifiers': pseudonyms and date shifts are keyed"), std::string::npos);
  job = small_job(id);
  job["output"] = {{"linkage", "l.csv"}};
  EXPECT_NE(refused(job, 400).find("'output.linkage': the server chooses"), std::string::npos);

  job = small_job(id);
  job["command"] = "risk";
  job["risk"] = {{"threshold", 2}};
  EXPECT_NE(refused(job, 400).find("risk.threshold must be in"), std::string::npos);
  job.erase("risk");
  job.erase("privacy");
  EXPECT_NE(refused(job, 400).find("needs at least one privacy model"), std::string::npos);

  // None of them left a job behind.
  EXPECT_TRUE(json::parse(c->Get("/api/v1/datasets/" + id)->body)["jobs"].empty());
}

TEST_F(Serve, SmallSuppressAndRiskJobsRunFromTheSameAttributes) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  json suppress = small_job(id);
  suppress.erase("privacy");
  suppress["command"] = "suppress";
  suppress["cell-suppression"] = {{"k", 2}, {"marker", "?"}};
  json risk = small_job(id);
  risk["command"] = "risk";
  const std::string suppress_id = run_job(*c, suppress), risk_id = run_job(*c, risk);
  ASSERT_FALSE(suppress_id.empty());
  ASSERT_FALSE(risk_id.empty());
  const auto output = c->Get("/api/v1/jobs/" + suppress_id + "/output");
  ASSERT_TRUE(output);
  ASSERT_EQ(output->status, 200);
  // The identifying column is gone; every quasi-identifier is unique in
  // the small table, so cells are suppressed with the job's marker.
  EXPECT_EQ(output->body.rfind("age,sex,zip,disease\n", 0), 0u) << output->body;
  EXPECT_NE(output->body.find('?'), std::string::npos) << output->body;
  const json r = json::parse(c->Get("/api/v1/jobs/" + risk_id + "/result")->body);
  EXPECT_EQ(r["input"], "dataset.csv");
  EXPECT_EQ(r["records"], 8);
  EXPECT_EQ(r["sample_uniques"]["records"], 8);
}

TEST_F(Serve, RunningRiskJobIsCancelled) {
  // The risk job is held as it starts reading until the test has asked to
  // cancel it; it then ends cancelled, and its result is not served.
  PhaseGate gate(deid::Phase::reading);
  auto o = options();
  o.on_phase = gate.hook();
  LiveServer s(o);
  auto c = s.client();
  json job = small_job(upload(*c, kSmallCsv));
  job["command"] = "risk";
  const std::string job_id = submit(*c, job);
  const bool reached = !job_id.empty() && gate.wait_reached();
  const auto cancel = c->Delete("/api/v1/jobs/" + job_id);
  gate.release();
  ASSERT_TRUE(reached);
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202);
  EXPECT_EQ(json::parse(cancel->body)["status"], "running");
  const json end = wait(*c, job_id);
  EXPECT_EQ(end["status"], "cancelled") << end.dump();
  const auto result = c->Get("/api/v1/jobs/" + job_id + "/result");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 409);
}

namespace {

// A request head to `s` with its token: "METHOD PATH HTTP/1.1", Host,
// Authorization, `extra` (lines ending in CRLF), the blank line.
std::string fmt_request(const std::string& method, const std::string& path, const LiveServer& s,
                        const std::string& extra) {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(s.port()) +
         "\r\nAuthorization: Bearer " + s.server().token() + "\r\n" + extra + "\r\n";
}

// A connection spoken to byte by byte: half-sent requests, raw heads.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    timeval tv{60, 0};
    if (fd_ >= 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  bool connected() const { return fd_ >= 0; }
  bool send(const std::string& text) {
    return fd_ >= 0 && ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // What arrives until `needle` has arrived (empty: the end of the
  // stream), a minute passed or the connection failed.
  std::string read_until(const std::string& needle = {}) {
    char buffer[4096];
    while (fd_ >= 0 && (needle.empty() || got_.find(needle) == std::string::npos)) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        reset_ = n < 0 && errno == ECONNRESET;
        break;
      }
      got_.append(buffer, static_cast<std::size_t>(n));
    }
    return got_;
  }
  bool reset() const { return reset_; }

 private:
  int fd_ = -1;
  std::string got_;
  bool reset_ = false;
};

// The status of a raw response ("HTTP/1.1 413 ..."), 0 when there is none.
int raw_status(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.substr(9, 3).c_str());
}

// The error message of a JSON error response; fails the test when there is none.
std::string error_of(const httplib::Result& res) {
  if (!res) {
    ADD_FAILURE() << "no answer";
    return {};
  }
  const json body = json::parse(res->body, nullptr, false);
  if (!body.is_object() || !body.contains("error") || !body["error"].is_string()) {
    ADD_FAILURE() << "no error message in " << res->status << " " << res->body;
    return {};
  }
  return body["error"].get<std::string>();
}

}  // namespace

TEST_F(Serve, UnsupportedMethodsAre405WithAllow) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id(32, 'a');
  struct Case {
    std::string method, path, allow;
  };
  for (const Case& k : {Case{"PUT", "/api/v1/jobs", "POST"}, Case{"PATCH", "/api/v1/datasets/" + id, "GET, HEAD, DELETE"},
                        Case{"GET", "/api/v1/jobs", "POST"}, Case{"DELETE", "/api/v1/version", "GET, HEAD"},
                        Case{"OPTIONS", "/", "GET, HEAD"}, Case{"PUT", "/api/v1/jobs/" + id + "/output", "GET, HEAD"}}) {
    httplib::Request req;
    req.method = k.method;
    req.path = k.path;
    req.headers = {{"Authorization", "Bearer " + s.server().token()}};
    if (k.method == "PUT" || k.method == "PATCH") req.body = "{}";
    const auto res = c->send(req);
    ASSERT_TRUE(res) << k.method << " " << k.path;
    EXPECT_EQ(res->status, 405) << k.method << " " << k.path;
    EXPECT_EQ(res->get_header_value("Allow"), k.allow) << k.method << " " << k.path;
    EXPECT_NE(error_of(res).find(k.method), std::string::npos);
  }
  // Methods httplib does not parse (found by the API fuzzer): 405 too.
  for (const char* method : {"QUERY", "TRACE", "FOO"}) {
    RawConnection raw(s.port());
    ASSERT_TRUE(raw.send(fmt_request(method, "/api/v1/jobs/" + id + "/result", s, "")));
    const std::string response = raw.read_until();
    EXPECT_EQ(raw_status(response), 405) << method;
    EXPECT_NE(response.find("Allow: GET, HEAD\r\n"), std::string::npos) << response;
    EXPECT_NE(response.find("\"error\""), std::string::npos);
  }
  // Without the token the method is not looked at: 401.
  auto bare = s.bare_client();
  const auto res = bare->Put("/api/v1/jobs", "{}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
}

TEST_F(Serve, ChunkedBodiesOverTheLimitAre413AndNothingIsStored) {
  auto o = options();
  o.max_upload_bytes = 64 << 10;
  LiveServer s(o);
  auto c = s.client();
  // A chunked body (no Content-Length): 1 MiB in 4 KiB chunks, sixteen
  // times the limit.
  auto chunked = [](std::size_t total) {
    return [total, sent = std::size_t{0}](std::size_t, httplib::DataSink& sink) mutable {
      if (sent >= total) {
        sink.done();
        return true;
      }
      const std::string chunk(4096, '1');
      sent += chunk.size();
      return sink.write(chunk.data(), chunk.size());
    };
  };
  auto res = c->Post("/api/v1/datasets", chunked(1 << 20), "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_NE(error_of(res).find("limit"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "uploads"));
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "datasets"));
  res = c->Post("/api/v1/jobs", chunked(1 << 20), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  // Within the limit a chunked upload is taken.
  std::string csv = "a,b\n";
  for (int i = 0; i < 100; ++i) csv += std::to_string(i) + ",x\n";
  res = c->Post(
      "/api/v1/datasets",
      [&csv, done = false](std::size_t, httplib::DataSink& sink) mutable {
        if (done) {
          sink.done();
          return true;
        }
        done = true;
        return sink.write(csv.data(), csv.size());
      },
      "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;
}

TEST_F(Serve, ContentLengthOverTheLimitIs413WithoutAReset) {
  auto o = options();
  o.max_upload_bytes = 1024;
  LiveServer s(o);
  RawConnection raw(s.port());
  ASSERT_TRUE(raw.connected());
  ASSERT_TRUE(raw.send(fmt_request("POST", "/api/v1/datasets", s, "Content-Type: text/csv\r\nContent-Length: 100000000\r\n") +
                       std::string(4096, 'x')));
  const std::string response = raw.read_until();
  EXPECT_EQ(raw_status(response), 413) << response;
  EXPECT_NE(response.find("\"error\""), std::string::npos);
  EXPECT_FALSE(raw.reset());
}

TEST_F(Serve, DeeplyNestedJsonIsRefusedBeforeParsing) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  // 25,000 arrays deep inside a job: refused by the pre-scan, no job made.
  const std::string deep = std::string(25000, '[') + std::string(25000, ']');
  auto res = c->Post("/api/v1/jobs", "{\"dataset\": \"" + id + "\", \"attributes\": " + deep + "}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(error_of(res).find("deep"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "datasets" / id / "jobs"));
  res = c->Post("/api/v1/datasets/" + id + "/hierarchy-preview", deep, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  res = c->Post("/api/v1/datasets", "{\"file\": " + deep + "}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  // Too many values: 413.
  std::string wide = "[";
  for (int i = 0; i < 300000; ++i) wide += i ? ",1" : "1";
  wide += "]";
  res = c->Post("/api/v1/jobs", "{\"dataset\": \"" + id + "\", \"attributes\": " + wide + "}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "datasets" / id / "jobs"));
}

TEST_F(Serve, InvalidUtf8IsAClientErrorWithAMessage) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  const std::string bad = "\xff\xfe\xc3";
  httplib::Headers host{{"Host", "a" + bad}};
  auto res = c->Get("/api/v1/version", host);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_FALSE(error_of(res).empty());
  res = c->Get("/api/v1/version", httplib::Headers{{"Origin", "http://" + bad}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_FALSE(error_of(res).empty());
  // In a job: a string, and a key.
  json job = small_job(id);
  std::string text = job.dump();
  text.insert(text.find("\"identifying\"") + 1, bad);
  res = c->Post("/api/v1/jobs", text, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_FALSE(error_of(res).empty());
  // The upload's name.
  res = c->Post("/api/v1/datasets?name=%FF%FE.csv", kSmallCsv, "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_NE(error_of(res).find("UTF-8"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "uploads"));
  res = c->Post("/api/v1/datasets", "{\"file\": \"a\xff.csv\"}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  // A table with invalid UTF-8 in a column name: the library's message.
  res = c->Post("/api/v1/datasets", "caf\xe9,b\n1,2\n", "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_FALSE(error_of(res).empty());
}

TEST_F(Serve, StatusAnswersWhileEventStreamsAndHalfSentRequestsAreOpen) {
  PhaseGate gate(deid::Phase::search);
  auto o = options();
  o.on_phase = gate.hook();
  LiveServer s(o);
  auto c = s.client();
  const std::string dataset = upload(*c, kSmallCsv);
  ASSERT_FALSE(dataset.empty());
  const std::string job = submit(*c, small_job(dataset));
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(gate.wait_reached());
  // 20 event streams of a job that does not end while the test runs.
  std::vector<std::unique_ptr<RawConnection>> streams, heads, bodies;
  for (int i = 0; i < 20; ++i) {
    streams.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(streams.back()->send(fmt_request("GET", "/api/v1/jobs/" + job + "/events", s, "")));
  }
  for (auto& stream : streams) EXPECT_EQ(raw_status(stream->read_until("event: status")), 200);
  // 20 heads half sent, without a token; 20 requests with a token whose
  // bodies are half sent.
  for (int i = 0; i < 20; ++i) {
    heads.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(heads.back()->send("POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"));
    bodies.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(bodies.back()->send(fmt_request("POST", "/api/v1/jobs", s, "Content-Length: 1000\r\n") + "{\"data"));
  }
  for (int i = 0; i < 10; ++i) {
    const auto res = c->Get("/api/v1/jobs/" + job);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(json::parse(res->body)["status"], "running");
  }
  gate.release();
  const json end = wait(*c, job);
  ASSERT_TRUE(end.is_object());
  EXPECT_EQ(end["status"], "done");
  for (auto& stream : streams) EXPECT_NE(stream->read_until("event: done").find("event: done"), std::string::npos);
}

TEST_F(Serve, EventStreamsBeyondTheirShareOfThreadsAre503AndOthersStillAnswer) {
  PhaseGate gate(deid::Phase::search);
  auto o = options();
  o.on_phase = gate.hook();
  o.max_threads = 8;  // streams may hold 4, 2 of them per client
  LiveServer s(o);
  auto c = s.client();
  const std::string dataset = upload(*c, kSmallCsv);
  const std::string job = submit(*c, small_job(dataset));
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(gate.wait_reached());
  std::vector<std::unique_ptr<RawConnection>> streams;
  int open = 0, refused = 0;
  for (int i = 0; i < 12; ++i) {
    streams.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(streams.back()->send(fmt_request("GET", "/api/v1/jobs/" + job + "/events", s, "")));
    const std::string head = streams.back()->read_until("\r\n\r\n");
    if (raw_status(head) == 200) ++open;
    if (raw_status(head) == 503) {
      ++refused;
      EXPECT_NE(streams.back()->read_until().find("poll GET"), std::string::npos);
    }
  }
  EXPECT_EQ(open, 2);
  EXPECT_EQ(refused, 10);
  const auto res = c->Get("/api/v1/jobs/" + job);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  gate.release();
}

TEST_F(Serve, HundredConcurrentConnectionsAreAllAnswered) {
  LiveServer s(options());
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 100; ++i)
    threads.emplace_back([&] {
      auto c = s.client();
      const auto res = c->Get("/api/v1/version");
      if (res && res->status == 200) ++answered;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(answered, 100);
}

TEST_F(Serve, AHeadThatDoesNotArriveIs408) {
  auto o = options();
  o.request_timeout = std::chrono::milliseconds(300);
  LiveServer s(o);
  RawConnection raw(s.port());
  ASSERT_TRUE(raw.send("GET /api/v1/version HTTP/1.1\r\nHost: 12"));
  const std::string response = raw.read_until();
  EXPECT_EQ(raw_status(response), 408) << response;
  EXPECT_NE(response.find("\"error\""), std::string::npos);
  // A head larger than the limit: 431.
  RawConnection big(s.port());
  ASSERT_TRUE(big.send("GET /api/v1/version HTTP/1.1\r\nX-A: " + std::string(70000, 'a')));
  EXPECT_EQ(raw_status(big.read_until()), 431);
}

TEST_F(Serve, NoServerDirectoryInAnyErrorMessage) {
  write(data_ / "hierarchies" / "bad.csv", "34;*\n35;*;extra\n");
  LiveServer s(options());
  auto c = s.client();
  const std::string dataset = upload(*c, kSmallCsv);
  ASSERT_FALSE(dataset.empty());
  const std::string root = tmp_.path.string();
  std::vector<std::string> messages;
  // The message of a refused job, or of the job's failure.
  auto message_of = [&](const json& job) {
    const auto res = c->Post("/api/v1/jobs", job.dump(), "application/json");
    if (!res) return std::string("no answer");
    if (res->status != 202) {
      EXPECT_GE(res->status, 400);
      EXPECT_LT(res->status, 500);
      return error_of(res);
    }
    const json end = wait(*c, json::parse(res->body)["id"].get<std::string>());
    EXPECT_TRUE(end.is_object() && end["status"] == "failed") << end;
    return end.is_object() && end["error"].is_string() ? end["error"].get<std::string>() : std::string();
  };
  for (const std::string file : {"hierarchies/missing.csv", "hierarchies/bad.csv", "hierarchies"}) {
    json job = small_job(dataset);
    job["attributes"]["age"]["hierarchy"] = file;
    messages.push_back(message_of(job));
  }
  // A subset file that is not there, an attribute not in the table.
  json job = small_job(dataset);
  job["subset"] = {{"file", "nothing.csv"}};
  messages.push_back(message_of(job));
  job = small_job(dataset);
  job["attributes"]["nope"] = {{"role", "quasi-identifying"}, {"hierarchy", {{"type", "masking"}, {"levels", 1}}}};
  messages.push_back(message_of(job));
  for (const std::string& m : messages) {
    EXPECT_FALSE(m.empty());
    EXPECT_EQ(m.find(root), std::string::npos) << m;
    EXPECT_EQ(m.find(s.server().state_dir().string()), std::string::npos) << m;
    EXPECT_EQ(m.find("deid-serve-"), std::string::npos) << m;
  }
}

TEST_F(Serve, DatasetQuotaAndMetadataOnDisk) {
  auto o = options();
  o.max_datasets = 2;
  LiveServer s(o);
  auto c = s.client();
  const std::string a = upload(*c, kSmallCsv);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(upload(*c, kSmallCsv).empty());
  const auto res = c->Post("/api/v1/datasets", kSmallCsv, "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);
  EXPECT_NE(error_of(res).find("--max-datasets"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "uploads"));
  // The summary and each column's distinct values are files of the dataset.
  const fs::path dir = s.server().state_dir() / "datasets" / a;
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  EXPECT_EQ(json::parse(slurp(dir / "values-2.json")), json::array({"male", "female"}));
  // Deleting one makes room.
  EXPECT_EQ(c->Delete("/api/v1/datasets/" + a)->status, 204);
  EXPECT_FALSE(upload(*c, kSmallCsv).empty());
}
