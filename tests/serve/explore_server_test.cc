// `deid serve --explore` over HTTP (serve/explore.h, docs/share.md "The data
// explorer"): a live explorer on a free port of 127.0.0.1 in the test
// process, stopped when each test ends (also on failure). Only the
// explorer's routes exist, every answer is bounded and never a file, bad
// requests are 400 with a JSON error, the token is spent once the page is
// opened; and the command's exit codes.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "httplib_include.h"

#include "explore.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kTable =
    "age,sex,zip\n"
    "34,male,81675\n35,female,81676\n36,male,81677\n37,female,81678\n"
    "52,male,81925\n53,female,81926\n54,male,81927\n55,female,81928\n";

class LiveExplorer {
 public:
  explicit LiveExplorer(bool link_once = false) {
    std::string pattern = (fs::temp_directory_path() / "deid-explore-http-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    dir_ = pattern;
    std::ofstream(dir_ / "release.csv") << kTable;
    deid::serve::ExploreOptions o;
    o.table = (dir_ / "release.csv").string();
    o.port = 0;
    o.link_once = link_once;
    o.limits.max_page_size = 5;
    server_ = std::make_unique<deid::serve::ExploreServer>(o);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->listen(); });
  }
  ~LiveExplorer() {
    server_->stop();
    thread_.join();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::unique_ptr<httplib::Client> client(bool token = true) const {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
    c->set_read_timeout(30, 0);
    if (token) c->set_default_headers({{"Authorization", "Bearer " + server_->token()}});
    return c;
  }
  const deid::serve::ExploreServer& server() const { return *server_; }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  std::unique_ptr<deid::serve::ExploreServer> server_;
  int port_ = 0;
  std::thread thread_;
};

json body(const httplib::Result& res) { return json::parse(res->body); }

TEST(ExploreServer, ServesThePageAndTheApiWithSecurityHeadersAndNoAttachment) {
  LiveExplorer e;
  auto c = e.client();
  for (const char* path : {"/", "/assets/explore.js", "/assets/explore.css", "/assets/explore_charts.js",
                           "/api/v1/table", "/api/v1/rows", "/api/v1/frequencies?column=sex",
                           "/api/v1/crosstab?row=sex&column=age"}) {
    const auto res = c->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path << ": " << res->body;
    EXPECT_FALSE(res->has_header("Content-Disposition")) << path;
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store") << path;
    EXPECT_NE(res->get_header_value("Content-Security-Policy").find("default-src 'self'"), std::string::npos);
    EXPECT_EQ(res->get_header_value("X-Frame-Options"), "DENY");
  }
  EXPECT_NE(c->Get("/")->body.find("deid data explorer"), std::string::npos);
  const json table = body(c->Get("/api/v1/table"));
  EXPECT_EQ(table["rows"], 8);
  EXPECT_EQ(table["limits"]["max_page_size"], 5);
}

TEST(ExploreServer, RoutesOfTheFullServerAndOtherAssetsAreAbsent) {
  LiveExplorer e;
  auto c = e.client();
  for (const char* path : {"/api/v1/version", "/api/v1/files", "/api/v1/datasets", "/api/v1/jobs",
                           "/api/v1/jobs/0123456789abcdef0123456789abcdef/output",
                           "/api/v1/jobs/0123456789abcdef0123456789abcdef/report", "/assets/app.js",
                           "/assets/index.html", "/release.csv", "/api/v1/table/export"}) {
    const auto res = c->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path;
    EXPECT_TRUE(body(res).contains("error")) << path;
  }
  const auto post = c->Post("/api/v1/datasets", "a,b\n1,2\n", "text/csv");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 404);
  const auto del = c->Delete("/api/v1/rows");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 405);
  EXPECT_EQ(del->get_header_value("Allow"), "GET, HEAD");
}

TEST(ExploreServer, BadRequestsAre400WithAJsonError) {
  LiveExplorer e;
  auto c = e.client();
  for (const char* path :
       {"/api/v1/rows?limit=6", "/api/v1/rows?limit=0", "/api/v1/rows?limit=x", "/api/v1/rows?offset=9",
        "/api/v1/rows?sort=age", "/api/v1/rows?sort=up:age", "/api/v1/rows?sort=asc:nope", "/api/v1/rows?bogus=1",
        "/api/v1/rows?min.sex=3", "/api/v1/rows?min.age=old", "/api/v1/rows?like.age=3", "/api/v1/frequencies",
        "/api/v1/frequencies?column=nope", "/api/v1/frequencies?column=sex&column=age", "/api/v1/crosstab?row=sex",
        "/api/v1/table?limit=5"}) {
    const auto res = c->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 400) << path;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << path;
    EXPECT_FALSE(body(res)["error"].get<std::string>().empty()) << path;
  }
}

TEST(ExploreServer, PagesSortsAndFiltersOverHttp) {
  LiveExplorer e;
  auto c = e.client();
  const json page = body(c->Get("/api/v1/rows?sort=desc:sex&sort=desc:age&limit=3&offset=1&min.age=35"));
  EXPECT_EQ(page["total"], 7);
  ASSERT_EQ(page["rows"].size(), 3u);
  EXPECT_EQ(page["rows"][0], json({"52", "male", "81925"}));
  EXPECT_EQ(page["rows"][2], json({"55", "female", "81928"}));
  const json freq = body(c->Get("/api/v1/frequencies?column=sex&has.zip=819"));
  EXPECT_EQ(freq["total"], 4);
  EXPECT_EQ(freq["values"][0]["count"], 2);
  const json cross = body(c->Get("/api/v1/crosstab?row=sex&column=sex"));
  EXPECT_EQ(cross["counts"], json({{4, 0}, {0, 4}}));
}

TEST(ExploreServer, TheTokenIsNeededAndTheLinkOpensOnceThenOnlyTheCookie) {
  LiveExplorer e(/*link_once=*/true);
  auto bare = e.client(false);
  EXPECT_EQ(bare->Get("/api/v1/table")->status, 401);
  EXPECT_EQ(bare->Get("/?token=wrong")->status, 401);
  const auto opened = bare->Get("/?token=" + e.server().token());
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->status, 200);
  const std::string cookie = opened->get_header_value("Set-Cookie");
  ASSERT_EQ(cookie.rfind("deid_explore=", 0), 0u) << cookie;
  EXPECT_EQ(cookie.find(e.server().token()), std::string::npos) << "the cookie is not the token";
  // The link is spent: the token opens nothing any more, the cookie does.
  EXPECT_EQ(bare->Get("/?token=" + e.server().token())->status, 401);
  EXPECT_EQ(e.client()->Get("/api/v1/table")->status, 401);
  const std::string value = cookie.substr(0, cookie.find(';'));
  const auto with_cookie = bare->Get("/api/v1/table", {{"Cookie", value}});
  ASSERT_TRUE(with_cookie);
  EXPECT_EQ(with_cookie->status, 200);
  // Another site's page, and another Host, are refused even with the cookie.
  EXPECT_EQ(bare->Get("/api/v1/table", {{"Cookie", value}, {"Origin", "http://evil.example"}})->status, 403);
  EXPECT_EQ(bare->Get("/api/v1/table", {{"Cookie", value}, {"Host", "evil.example"}})->status, 403);
}

int run(const std::string& args, const fs::path& log) {
  const std::string line = std::string(DEID_CLI_PATH) + " " + args + " > '" + log.string() + "' 2>&1";
  const int status = std::system(line.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ExploreCommand, ABadTableIsExitCode2NamingTheFileAndLine) {
  LiveExplorer e;  // for its directory
  std::ofstream(e.dir() / "ragged.csv") << "a,b\n1,2\n3\n";
  const fs::path log = e.dir() / "log";
  EXPECT_EQ(run("serve --explore '" + (e.dir() / "ragged.csv").string() + "' --port 0", log), 2);
  EXPECT_NE(slurp(log).find("ragged.csv:3"), std::string::npos) << slurp(log);
  // The options of the full server do not go with --explore.
  EXPECT_NE(run("serve --explore '" + (e.dir() / "release.csv").string() + "' --workers 3", log), 0);
  EXPECT_NE(slurp(log).find("excludes"), std::string::npos) << slurp(log);
}

}  // namespace
