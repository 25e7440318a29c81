// deid serve under a client it must not trust (docs/web.md, "Security"):
// tokens, origins and hosts, headers, upload limits, paths confined to the
// data directory, what a client may not choose.
#include "serve_fixture.h"

namespace {

using namespace serve_test;

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

}  // namespace
