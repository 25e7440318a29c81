// deid serve runs jobs (docs/web.md): the command line's bytes, inline
// hierarchies, failures, cancellation, event streams, deletion, the
// command's lifecycle.
#include "serve_fixture.h"

namespace {

using namespace serve_test;

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
