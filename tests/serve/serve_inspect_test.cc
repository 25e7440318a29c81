// deid serve's inspection (docs/web.md, "Inspection"): POST
// /api/v1/datasets/ID/inspect answers what `deid inspect` computes (the
// same JSON and the same starter job, byte for byte), its attributes run as
// a job unchanged, and bad requests get the API's errors.
#include "serve_fixture.h"

namespace {

using namespace serve_test;

httplib::Result inspect(httplib::Client& c, const std::string& id, const std::string& body) {
  return c.Post("/api/v1/datasets/" + id + "/inspect", body, "application/json");
}

TEST_F(Serve, InspectionIsTheCommandsAndItsAttributesRunAsAJob) {
  write(data_ / "small.csv", kSmallCsv);
  LiveServer s(options());
  auto c = s.client();
  const std::string id = open_file(*c, "small.csv");
  ASSERT_FALSE(id.empty());
  const auto res = inspect(*c, id, "");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const json answer = json::parse(res->body);
  const json& in = answer["inspection"];
  EXPECT_EQ(in["source"], "small.csv");
  EXPECT_EQ(in["records"], 8);
  ASSERT_EQ(in["columns"].size(), 5u);
  EXPECT_EQ(in["columns"][0]["name"], "name");
  EXPECT_EQ(in["columns"][0]["role"], "identifying");
  EXPECT_FALSE(in["columns"][0]["identifiers"].empty());
  EXPECT_EQ(in["columns"][1]["role"], "quasi-identifying");
  EXPECT_EQ(answer["requested_combination_size"], 3);
  // The starter job's attributes as JSON, as a job takes them.
  const json& attributes = answer["attributes"];
  EXPECT_EQ(attributes["name"], json({{"role", "identifying"}}));
  EXPECT_EQ(attributes["age"]["role"], "quasi-identifying");
  EXPECT_EQ(attributes["age"]["hierarchy"]["type"], "intervals");
  EXPECT_TRUE(attributes["age"]["hierarchy"]["widths"].is_array());
  EXPECT_TRUE(attributes["age"]["hierarchy"]["min"].is_number());

  // `deid inspect` beside the data writes the same inspection and job.
  ASSERT_EQ(run_in(data_,
                   std::string("'") + DEID_CLI_PATH +
                       "' -q inspect small.csv --json small-inspect.json --job small-job.yaml",
                   tmp_.path / "cli.log"),
            0)
      << slurp(tmp_.path / "cli.log");
  EXPECT_EQ(json::parse(slurp(data_ / "small-inspect.json")), in);
  EXPECT_EQ(slurp(data_ / "small-job.yaml"), answer["starter_job"].get<std::string>());

  // Accepted as they are, the attributes make a job that runs.
  const std::string job = run_job(*c, {{"dataset", id},
                                       {"attributes", attributes},
                                       {"privacy", {{{"k-anonymity", {{"k", 2}}}}}},
                                       {"suppression-limit", 0.05}});
  EXPECT_FALSE(job.empty());

  // Asked again: the same answer (kept beside the dataset).
  const auto again = inspect(*c, id, "{}");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body, res->body);
  // A smaller size measures fewer combinations.
  const auto one = inspect(*c, id, R"({"max_combination_size": 1})");
  ASSERT_TRUE(one);
  ASSERT_EQ(one->status, 200) << one->body;
  const json single = json::parse(one->body)["inspection"];
  EXPECT_EQ(single["max_combination_size"], 1);
  for (const json& combination : single["combinations"]) EXPECT_EQ(combination["columns"].size(), 1u);
  EXPECT_LT(single["combinations"].size(), in["combinations"].size());
}

TEST_F(Serve, InspectionRefusesBadRequestsWithTheApisErrors) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  for (const char* body : {R"({"max_combination_size": 0})", R"({"max_combination_size": 9})",
                           R"({"max_combination_size": "3"})", R"({"max_combination_size": 2.5})",
                           R"({"max_combination_size": 18446744073709551615})", R"({"size": 2})", "[3]", "3",
                           "{not json"}) {
    const auto res = inspect(*c, id, body);
    ASSERT_TRUE(res) << body;
    EXPECT_EQ(res->status, 400) << body << ": " << res->body;
    const json error = json::parse(res->body);
    EXPECT_TRUE(error["error"].is_string()) << body;
  }
  const auto unknown = inspect(*c, std::string(32, 'a'), "");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_TRUE(json::parse(unknown->body)["error"].is_string());
  const auto get = c->Get("/api/v1/datasets/" + id + "/inspect");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  EXPECT_EQ(s.bare_client()->Post("/api/v1/datasets/" + id + "/inspect", "", "application/json")->status, 401);
  // Deleted, the dataset has no inspection.
  ASSERT_EQ(c->Delete("/api/v1/datasets/" + id)->status, 204);
  EXPECT_EQ(inspect(*c, id, "")->status, 404);
}

}  // namespace
