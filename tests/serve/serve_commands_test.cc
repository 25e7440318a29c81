// deid serve runs every command as the command line does (docs/web.md):
// job.yaml, risk and suppress jobs byte for byte, job kinds and sections.
#include "serve_fixture.h"

namespace {

using namespace serve_test;

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
  EXPECT_NE(refused(job, 400).find("'identifiers.secret': pseudonyms and date shifts are keyed with the server's"),
            std::string::npos);
  job = small_job(id);
  job["linked"] = {{{"path", "/etc/passwd"}, {"key", "id"}, {"output", "o.csv"}, {"columns", nlohmann::json::object()}}};
  EXPECT_NE(refused(job, 400).find("'linked': linked tables are files of the custodian"), std::string::npos);
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

}  // namespace
