// Released identifiers through deid serve (docs/web.md, docs/identifiers.md):
// pseudonyms and date shifts keyed with the server's secret
// (--secret-file), never a client's; masks without one; the job file the
// server writes runs with the command line and the same secret to the same
// bytes.
#include <sys/stat.h>

#include "deid/error.h"
#include "deid/identifiers.h"
#include "deid/job.h"
#include "serve_fixture.h"

namespace {

using namespace serve_test;

constexpr const char* kSecret = "correct horse battery staple";

constexpr const char* kPatients =
    "mrn,name,admitted,age\n"
    "P-0001,Ann Smith,2024-02-25,34\n"
    "P-0002,Bob Jones,2023-12-30,37\n"
    "P-0003,Cid Brown,2024-05-01,52\n"
    "P-0004,Dee White,2022-07-14,58\n";

json patients_job(const std::string& dataset) {
  json job = {{"dataset", dataset},
              {"attributes",
               {{"mrn", {{"role", "identifying"}, {"action", "pseudonym"}}},
                {"name", {{"role", "identifying"}}},
                {"admitted", {{"role", "identifying"}, {"action", "date-shift"}}},
                {"age",
                 {{"role", "quasi-identifying"},
                  {"hierarchy", {{"type", "intervals"}, {"min", 0}, {"max", 100}, {"widths", {10, 50}}}}}}}},
              {"identifiers", {{"person", "mrn"}, {"shift-days", 30}}},
              {"privacy", {{{"k-anonymity", {{"k", 2}}}}}}};
  return job;
}

std::string refusal(httplib::Client& c, const json& job) {
  const auto res = c.Post("/api/v1/jobs", job.dump(), "application/json");
  if (!res) return "no answer";
  return std::to_string(res->status) + " " + res->body;
}

TEST_F(Serve, TheServersSecretKeysPseudonymsAndDateShifts) {
  const fs::path secret = tmp_.path / "secret.key";
  write(secret, std::string(kSecret) + "\n");
  ::chmod(secret.c_str(), 0600);
  auto o = options();
  o.secret_file = secret.string();
  LiveServer s(o);
  auto c = s.client();
  // The fingerprint says which secret, never the secret.
  const json version = json::parse(c->Get("/api/v1/version")->body);
  deid::Job probe;
  probe.identifiers.emplace();
  probe.identifiers->secret_file = secret.string();
  EXPECT_EQ(version["secret_fingerprint"], deid::load_secret(probe).fingerprint);

  write(data_ / "patients.csv", kPatients);
  const std::string dataset = open_file(*c, "patients.csv");
  ASSERT_FALSE(dataset.empty());
  const std::string id = run_job(*c, patients_job(dataset));
  ASSERT_FALSE(id.empty());
  const std::string output = job_file(*c, id, "output");
  EXPECT_NE(output.find(deid::pseudonym(kSecret, "P-0001", 16) + ",2024-03-07,"), std::string::npos) << output;
  EXPECT_EQ(output.find("P-000"), std::string::npos) << output;
  const json result = json::parse(job_file(*c, id, "result"));
  EXPECT_EQ(result["identifiers"]["secret_fingerprint"], version["secret_fingerprint"]);
  EXPECT_EQ(result.dump().find(secret.string()), std::string::npos) << "the server's path in the result";

  // The job file names no secret: with the same one in DEID_SECRET the
  // command line writes the same table.
  const std::string yaml = job_file(*c, id, "job.yaml");
  EXPECT_NE(yaml.find("DEID_SECRET"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find(secret.string()), std::string::npos) << yaml;
  write(data_ / "job.yaml", yaml);
  ASSERT_EQ(run_in(data_, std::string("DEID_SECRET='") + kSecret + "' '" + DEID_CLI_PATH + "' anonymize job.yaml",
                   tmp_.path / "cli.log"),
            0)
      << slurp(tmp_.path / "cli.log") << yaml;
  EXPECT_EQ(slurp(data_ / "patients-deid.csv"), output);

  // A client's secret is refused, whatever it names.
  json named = patients_job(dataset);
  named["identifiers"]["secret"] = {{"file", secret.string()}};
  EXPECT_NE(refusal(*c, named).find("400 {\n  \"error\": \"'identifiers.secret'"), std::string::npos)
      << refusal(*c, named);
  named["identifiers"]["secret"] = {{"env", "HOME"}};
  EXPECT_NE(refusal(*c, named).find("'identifiers.secret'"), std::string::npos);
}

TEST_F(Serve, WithoutASecretOnlyMasksAreReleased) {
  LiveServer s(options());
  auto c = s.client();
  EXPECT_TRUE(json::parse(c->Get("/api/v1/version")->body)["secret_fingerprint"].is_null());
  const std::string dataset = upload(*c, kPatients);
  ASSERT_FALSE(dataset.empty());
  EXPECT_NE(refusal(*c, patients_job(dataset)).find("this server has no secret"), std::string::npos);
  json masked = patients_job(dataset);
  masked.erase("identifiers");
  masked["attributes"]["mrn"] = {{"role", "identifying"}, {"action", "mask"}, {"keep-last", 2}};
  masked["attributes"]["admitted"] = {{"role", "identifying"}};
  const std::string id = run_job(*c, masked);
  ASSERT_FALSE(id.empty()) << refusal(*c, masked);
  const std::string output = job_file(*c, id, "output");
  EXPECT_NE(output.find("****01,"), std::string::npos) << output;
  EXPECT_EQ(output.find("P-000"), std::string::npos) << output;
}

TEST_F(Serve, ASecretOthersCanReadIsNotServed) {
  const fs::path secret = tmp_.path / "secret.key";
  write(secret, std::string(kSecret) + "\n");
  ::chmod(secret.c_str(), 0644);
  auto o = options();
  o.secret_file = secret.string();
  EXPECT_THROW(LiveServer s(o), deid::IoError);
  write(secret, "short\n");
  ::chmod(secret.c_str(), 0600);
  EXPECT_THROW(LiveServer s(o), deid::JobError);
}

}  // namespace
