// deid serve's view of deid share (docs/web.md, "Sharing"): the recipients
// of the token store without their tokens, the sessions and the audit log
// (paged, filtered, indexed as it grows), revoking; and none of it without
// --share or without the server's token.
#include <fcntl.h>

#include "deid/share.h"
#include "serve_fixture.h"

namespace {

using namespace serve_test;

// A share's configuration, token store and audit log in a directory of the test.
class ServeShare : public Serve {
 protected:
  void SetUp() override {
    Serve::SetUp();
    dir_ = tmp_.path / "share";
    fs::create_directories(dir_);
    write(dir_ / "share.yaml", "upstream: {address: 127.0.0.1:5900}\ntokens: tokens.json\naudit: audit.jsonl\n");
    deid::share::TokenStore store(dir_ / "tokens.json");
    alice_ = store.add("alice", 0, 1'700'000'000).token;
    bob_ = store.add("bob", 1'700'000'100, 1'700'000'000).token;  // expired long ago
    store.add("carol", 0, 1'700'000'000);
    store.revoke("carol", 1'700'000'050);
  }

  deid::serve::ServeOptions share_options() const {
    auto o = options();
    o.share_config = (dir_ / "share.yaml").string();
    return o;
  }

  // Appends audit lines as the proxy writes them.
  void audit(const std::vector<json>& lines) const {
    std::ofstream out(dir_ / "audit.jsonl", std::ios::app);
    for (const json& l : lines) out << l.dump() << "\n";
  }

  static json line(const std::string& time, const std::string& session, const std::string& recipient,
                   const std::string& event, json extra = json::object()) {
    json l = {{"time", time}, {"session", session}};
    if (!recipient.empty()) l["recipient"] = recipient;
    l["event"] = event;
    for (auto& [k, v] : extra.items()) l[k] = v;
    return l;
  }

  // A refused connection, then alice's session s2: start, 3 keys, a clipboard
  // message dropped, its end.
  void two_sessions() const {
    audit({line("2026-11-29T08:00:00.000001Z", "s1", "", "connection", {{"peer", "127.0.0.1:1000"}}),
           line("2026-11-29T08:00:01.000001Z", "s1", "", "refused", {{"peer", "127.0.0.1:1000"}, {"reason", "unknown token"}}),
           line("2026-11-29T08:01:00.000001Z", "s2", "", "connection", {{"peer", "127.0.0.1:1001"}}),
           line("2026-11-29T08:01:00.100001Z", "s2", "alice", "session-start",
                {{"peer", "127.0.0.1:1001"}, {"width", 640}, {"height", 480}, {"recording", "/srv/rec/deid-share-x-1.mkv"}}),
           line("2026-11-29T08:01:01.000001Z", "s2", "alice", "key", {{"verdict", "forwarded"}, {"down", true}, {"keysym", "0x0061"}}),
           line("2026-11-29T08:01:02.000001Z", "s2", "alice", "key", {{"verdict", "forwarded"}, {"down", false}, {"keysym", "0x0061"}}),
           line("2026-11-29T08:01:03.000001Z", "s2", "alice", "key", {{"verdict", "rate-limited"}, {"down", true}, {"keysym", "0x0062"}}),
           line("2026-11-29T08:01:04.000001Z", "s2", "alice", "client-cut-text", {{"verdict", "dropped"}, {"length", 20}}),
           line("2026-11-29T08:02:00.000001Z", "s2", "alice", "session-end",
                {{"reason", "the client closed the connection"}, {"keys", 2}, {"keys-dropped", 1}})});
  }

  static json get(httplib::Client& c, const std::string& path, int status = 200) {
    const auto res = c.Get(path);
    if (!res) return nullptr;
    EXPECT_EQ(res->status, status) << path << ": " << res->body;
    return json::parse(res->body);
  }

  fs::path dir_;
  std::string alice_, bob_;
};

TEST_F(ServeShare, WithoutShareEveryPathIsNotFound) {
  LiveServer s(options());
  auto c = s.client();
  EXPECT_EQ(get(*c, "/api/v1/version")["share"], false);
  for (const char* path : {"/api/v1/share", "/api/v1/share/recipients", "/api/v1/share/sessions", "/api/v1/share/audit"})
    EXPECT_EQ(get(*c, path, 404)["error"].get<std::string>().find("--share") != std::string::npos, true) << path;
  const auto res = c->Post("/api/v1/share/revoke", R"({"recipient":"alice"})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
}

TEST_F(ServeShare, EveryPathNeedsTheServersToken) {
  LiveServer s(share_options());
  auto c = s.bare_client();
  for (const char* path : {"/api/v1/share", "/api/v1/share/recipients", "/api/v1/share/audit"}) {
    const auto res = c->Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 401) << path;
  }
  const auto res = c->Post("/api/v1/share/revoke", R"({"recipient":"alice"})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(deid::share::TokenStore(dir_ / "tokens.json").load()[0].revoked, 0);
}

TEST_F(ServeShare, RecipientsShowTheirStateAndNeverATokenOrThePath) {
  two_sessions();
  LiveServer s(share_options());
  auto c = s.client();
  const auto res = c->Get("/api/v1/share/recipients");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->body.find(alice_), std::string::npos);
  EXPECT_EQ(res->body.find(bob_), std::string::npos);
  EXPECT_EQ(res->body.find(dir_.string()), std::string::npos);
  const json r = json::parse(res->body)["recipients"];
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0]["name"], "alice");
  EXPECT_EQ(r[0]["state"], "valid");
  EXPECT_EQ(r[0]["sessions"], 1);
  EXPECT_EQ(r[0]["running"], false);
  EXPECT_EQ(r[0]["last_session"], "2026-11-29T08:01:00.100001Z");
  EXPECT_EQ(r[0]["tokens"][0]["expires"], nullptr);
  EXPECT_EQ(r[1]["name"], "bob");
  EXPECT_EQ(r[1]["state"], "expired");
  EXPECT_EQ(r[1]["tokens"][0]["expires"], "2023-11-14T22:15:00Z");
  EXPECT_EQ(r[2]["state"], "revoked");
  EXPECT_EQ(r[2]["tokens"][0]["revoked"], "2023-11-14T22:14:10Z");
  EXPECT_EQ(get(*c, "/api/v1/version")["share"], true);
  const json summary = get(*c, "/api/v1/share");
  EXPECT_EQ(summary["tokens"], "tokens.json");
  EXPECT_EQ(summary["audit_lines"], 9);
  EXPECT_EQ(summary["sessions"], 2);
}

TEST_F(ServeShare, SessionsAreSummedUpFromTheAuditLogNewestFirst) {
  two_sessions();
  LiveServer s(share_options());
  auto c = s.client();
  const json page = get(*c, "/api/v1/share/sessions");
  ASSERT_EQ(page["total"], 2);
  const json& s2 = page["sessions"][0];
  EXPECT_EQ(s2["id"], "s2");
  EXPECT_EQ(s2["recipient"], "alice");
  EXPECT_EQ(s2["state"], "ended");
  EXPECT_EQ(s2["start"], "2026-11-29T08:01:00.100001Z");
  EXPECT_EQ(s2["end"], "2026-11-29T08:02:00.000001Z");
  EXPECT_EQ(s2["reason"], "the client closed the connection");
  EXPECT_EQ(s2["recording"], "deid-share-x-1.mkv");  // its name, not the server's path
  EXPECT_EQ(s2["events"]["key"], 3);
  EXPECT_EQ(s2["events"]["client-cut-text"], 1);
  EXPECT_EQ(s2["counts"]["keys-dropped"], 1);
  const json& s1 = page["sessions"][1];
  EXPECT_EQ(s1["state"], "refused");
  EXPECT_EQ(s1["reason"], "unknown token");
  EXPECT_EQ(s1["recipient"], nullptr);
  EXPECT_EQ(get(*c, "/api/v1/share/sessions?state=refused")["total"], 1);
  EXPECT_EQ(get(*c, "/api/v1/share/sessions?recipient=alice&limit=0")["total"], 1);
  EXPECT_EQ(get(*c, "/api/v1/share/sessions?state=asleep", 400)["error"].is_string(), true);
}

TEST_F(ServeShare, AuditIsPagedNewestFirstAndFiltered) {
  two_sessions();
  LiveServer s(share_options());
  auto c = s.client();
  json page = get(*c, "/api/v1/share/audit?limit=2");
  EXPECT_EQ(page["total"], 9);
  ASSERT_EQ(page["lines"].size(), 2u);
  EXPECT_EQ(page["lines"][0]["line"], 9);
  EXPECT_EQ(page["lines"][0]["event"], "session-end");
  EXPECT_EQ(page["lines"][1]["line"], 8);
  page = get(*c, "/api/v1/share/audit?offset=8&limit=5");
  ASSERT_EQ(page["lines"].size(), 1u);
  EXPECT_EQ(page["lines"][0]["event"], "connection");
  page = get(*c, "/api/v1/share/audit?recipient=alice&event=key");
  ASSERT_EQ(page["total"], 3);
  EXPECT_EQ(page["lines"][2]["keysym"], "0x0061");
  EXPECT_EQ(page["lines"][2]["verdict"], "forwarded");
  EXPECT_EQ(get(*c, "/api/v1/share/audit?session=s1")["total"], 2);  // before authentication: no recipient
  EXPECT_EQ(get(*c, "/api/v1/share/audit?recipient=nobody")["total"], 0);
  EXPECT_EQ(get(*c, "/api/v1/share/audit?event=key&session=s1")["total"], 0);
  for (const char* bad : {"?limit=-1", "?limit=1001", "?offset=x", "?limit=", "?offset=99999999999"})
    EXPECT_TRUE(get(*c, std::string("/api/v1/share/audit") + bad, 400).contains("error")) << bad;
}

TEST_F(ServeShare, AuditGrowingIsReadIncrementallyAndAReplacedLogAgain) {
  two_sessions();
  LiveServer s(share_options());
  auto c = s.client();
  EXPECT_EQ(get(*c, "/api/v1/share/audit")["total"], 9);
  // Half a line (a writer in the middle of it) is not read yet; a line
  // that is not JSON is shown as unreadable, not skipped.
  {
    std::ofstream out(dir_ / "audit.jsonl", std::ios::app);
    out << "not json at all\n" << R"({"time":"2026-11-29T09:00:00Z","session":"s3","event":"conn)";
  }
  json page = get(*c, "/api/v1/share/audit");
  EXPECT_EQ(page["total"], 10);
  EXPECT_EQ(page["lines"][0]["event"], "unreadable");
  EXPECT_EQ(page["lines"][0]["text"], "not json at all");
  EXPECT_EQ(get(*c, "/api/v1/share")["unreadable_lines"], 1);
  {
    std::ofstream out(dir_ / "audit.jsonl", std::ios::app);
    out << R"(ection","peer":"127.0.0.1:9"})" << "\n";
  }
  page = get(*c, "/api/v1/share/audit?limit=1");
  EXPECT_EQ(page["total"], 11);
  EXPECT_EQ(page["lines"][0]["peer"], "127.0.0.1:9");
  EXPECT_EQ(get(*c, "/api/v1/share/sessions?state=connecting")["total"], 1);
  // Replaced by a new file (rotated): indexed from its start.
  fs::remove(dir_ / "audit.jsonl");
  audit({line("2026-11-29T10:00:00Z", "s9", "", "connection")});
  EXPECT_EQ(get(*c, "/api/v1/share/audit")["total"], 1);
  EXPECT_EQ(get(*c, "/api/v1/share/sessions")["sessions"][0]["id"], "s9");
  fs::remove(dir_ / "audit.jsonl");
  EXPECT_EQ(get(*c, "/api/v1/share/audit")["total"], 0);
}

TEST_F(ServeShare, RevokeRevokesEveryTokenOfTheRecipientOnly) {
  LiveServer s(share_options());
  auto c = s.client();
  auto res = c->Post("/api/v1/share/revoke", R"({"recipient":"alice"})", "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(json::parse(res->body)["revoked"], 1);
  const auto tokens = deid::share::TokenStore(dir_ / "tokens.json").load();
  EXPECT_NE(tokens[0].revoked, 0);   // alice
  EXPECT_EQ(tokens[1].revoked, 0);   // bob, expired, untouched
  EXPECT_EQ(get(*c, "/api/v1/share/recipients")["recipients"][0]["state"], "revoked");
  // Nothing left to revoke; nobody of that name; not a name; not the body asked for.
  res = c->Post("/api/v1/share/revoke", R"({"recipient":"alice"})", "application/json");
  EXPECT_EQ(res->status, 409);
  res = c->Post("/api/v1/share/revoke", R"({"recipient":"dave"})", "application/json");
  EXPECT_EQ(res->status, 404);
  res = c->Post("/api/v1/share/revoke", R"({"recipient":"../alice"})", "application/json");
  EXPECT_EQ(res->status, 400);
  for (const char* body : {R"({"recipient":1})", R"([])", R"({"recipient":"bob","x":1})", "nope"}) {
    res = c->Post("/api/v1/share/revoke", body, "application/json");
    EXPECT_EQ(res->status, 400) << body;
  }
  res = c->Get("/api/v1/share/revoke");
  EXPECT_EQ(res->status, 405);
  EXPECT_EQ(res->get_header_value("Allow"), "POST");
  EXPECT_EQ(deid::share::TokenStore(dir_ / "tokens.json").load()[1].revoked, 0);
}

TEST_F(ServeShare, RevokeFromAnotherSiteIsRefused) {
  LiveServer s(share_options());
  auto c = s.client();
  const auto res = c->Post("/api/v1/share/revoke", httplib::Headers{{"Origin", "http://evil.example"}},
                           R"({"recipient":"alice"})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_EQ(deid::share::TokenStore(dir_ / "tokens.json").load()[0].revoked, 0);
}

TEST_F(ServeShare, BrokenStoreIsAnErrorNamingItsFileOnly) {
  LiveServer s(share_options());
  write(dir_ / "tokens.json", "{broken");
  auto c = s.client();
  const json e = get(*c, "/api/v1/share/recipients", 500);
  const std::string message = e["error"];
  EXPECT_NE(message.find("tokens.json"), std::string::npos) << message;
  EXPECT_EQ(message.find(dir_.string()), std::string::npos) << message;
}

TEST_F(ServeShare, BadConfigurationStopsTheServerFromStarting) {
  write(dir_ / "share.yaml", "tokens: tokens.json\n");
  EXPECT_THROW(deid::serve::Server server(share_options()), deid::Error);
}

}  // namespace
