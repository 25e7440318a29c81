// deid serve for the web app (docs/web.md): its assets and policy, the data
// directory's files, dataset summaries, hierarchy previews.
#include "serve_fixture.h"

namespace {

using namespace serve_test;

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

}  // namespace
