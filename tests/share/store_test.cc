// The token store, the audit log and the share's configuration
// (include/deid/share.h).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "deid/share.h"
#include "share_fixture.h"

namespace deid::share {
namespace {

namespace fs = std::filesystem;

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mode & 0777;
}

TEST(TokenStore, AddGivesDistinctEightCharacterTokensInAPrivateFile) {
  testing::TempDir dir;
  TokenStore store(dir.path / "tokens.json");
  EXPECT_TRUE(store.load().empty());
  std::set<std::string> seen;
  for (int i = 0; i < 20; ++i) {
    const RecipientToken t = store.add("alice", 0, 1000);
    EXPECT_EQ(t.token.size(), 8u);
    EXPECT_EQ(t.token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
              std::string::npos);
    seen.insert(t.token);
  }
  EXPECT_EQ(seen.size(), 20u);
  EXPECT_EQ(store.load().size(), 20u);
  EXPECT_EQ(mode_of(store.path()), 0600u);
}

TEST(TokenStore, RevokeMarksEveryTokenOfTheRecipientAndKeepsOthers) {
  testing::TempDir dir;
  TokenStore store(dir.path / "tokens.json");
  store.add("alice", 0, 1000);
  store.add("alice", 5000, 1000);
  store.add("bob", 0, 1000);
  const std::string before = store.fingerprint();
  EXPECT_EQ(store.revoke("alice", 2000), 2u);
  EXPECT_NE(store.fingerprint(), before);
  EXPECT_EQ(store.revoke("alice", 3000), 0u);
  for (const RecipientToken& t : store.load()) {
    if (t.recipient == "alice") {
      EXPECT_EQ(t.revoked, 2000);
      EXPECT_EQ(t.refusal(2500), "token revoked");
    } else {
      EXPECT_EQ(t.refusal(2500), std::nullopt);
    }
  }
}

TEST(TokenStore, ExpiryIsExclusiveAndNeverMeansNever) {
  RecipientToken t{"alice", "abcdefgh", 0, 100, 0};
  EXPECT_EQ(t.refusal(99), std::nullopt);
  EXPECT_EQ(t.refusal(100), "token expired");
  t.expires = 0;
  EXPECT_EQ(t.refusal(1'000'000'000), std::nullopt);
}

TEST(TokenStore, ABrokenFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  const fs::path path = dir.path / "tokens.json";
  std::ofstream(path) << "{\"tokens\": [{\"recipient\": \"alice\"}]}";
  try {
    TokenStore(path).load();
    FAIL();
  } catch (const IoError& e) {
    EXPECT_EQ(e.where().file, path.string());
    EXPECT_NE(std::string(e.what()).find("token 1 of the store"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "not json";
  EXPECT_THROW(TokenStore(path).load(), IoError);
}

TEST(TokenStore, RecipientNamesAreChecked) {
  testing::TempDir dir;
  TokenStore store(dir.path / "tokens.json");
  EXPECT_THROW(store.add("", 0, 0), InputError);
  EXPECT_THROW(store.add("alice smith", 0, 0), InputError);
  EXPECT_THROW(store.add("a\"b", 0, 0), InputError);
  EXPECT_NO_THROW(store.add("alice.smith@example-org_1", 0, 0));
}

TEST(Expiry, DurationsTimesAndNever) {
  EXPECT_EQ(parse_expiry("30m", 1000), 1000 + 1800);
  EXPECT_EQ(parse_expiry("8h", 1000), 1000 + 8 * 3600);
  EXPECT_EQ(parse_expiry("7d", 0), 7 * 86400);
  EXPECT_EQ(parse_expiry("never", 5), 0);
  EXPECT_EQ(parse_expiry("2026-12-01T18:00:00Z", 0), 1796148000);
  EXPECT_EQ(utc_text(1796148000), "2026-12-01T18:00:00Z");
  for (const char* bad : {"", "8", "0h", "h", "-1h", "8 h", "2026-12-01 18:00:00", "2026-12-01T18:00:00", "tomorrow"})
    EXPECT_THROW(parse_expiry(bad, 0), InputError) << bad;
}

TEST(AuditLog, AppendsJsonLinesWithTheTimeFirstAndKeepsWhatWasThere) {
  testing::TempDir dir;
  const fs::path path = dir.path / "audit.jsonl";
  std::ofstream(path) << "{\"earlier\": true}\n";
  {
    AuditLog log(path);
    log.append({{"event", "key"}, {"recipient", "alice"}});
    log.append({{"event", "pointer"}, {"x", 3}});
    log.sync();
  }
  std::ifstream in(path);
  std::string first, second, third;
  std::getline(in, first);
  std::getline(in, second);
  std::getline(in, third);
  EXPECT_EQ(first, "{\"earlier\": true}");
  EXPECT_EQ(second.rfind("{\"time\":\"", 0), 0u) << second;
  EXPECT_NE(second.find("\"event\":\"key\",\"recipient\":\"alice\"}"), std::string::npos) << second;
  EXPECT_EQ(nlohmann::json::parse(third)["x"], 3);
  const fs::path fresh = dir.path / "fresh.jsonl";
  AuditLog(fresh).append({{"event", "x"}});
  EXPECT_EQ(mode_of(fresh), 0600u);
}

TEST(ShareConfig, ReadsEverySettingWithPathsBesideTheFile) {
  testing::TempDir dir;
  std::ofstream(dir.path / "upstream.pass") << "s3cret\n";
  fs::permissions(dir.path / "upstream.pass", fs::perms::owner_read | fs::perms::owner_write);
  std::ofstream(dir.path / "share.yaml") << "listen: 127.0.0.1:5999\n"
                                            "upstream: {address: unix:/run/x11vnc.sock, password-file: upstream.pass}\n"
                                            "tokens: tokens.json\n"
                                            "audit: logs/audit.jsonl\n"
                                            "sessions: 2\n"
                                            "limits:\n"
                                            "  keys: {burst: 4, per-second: 2, per-minute: 60}\n"
                                            "  buttons: {burst: 3}\n"
                                            "  moves-per-second: 12\n"
                                            "  max-clipboard-bytes: 4096\n";
  const ShareConfig config = read_share_config(dir.path / "share.yaml");
  EXPECT_FALSE(config.desktop);
  const ProxyOptions& o = config.proxy;
  EXPECT_EQ(o.listen, "127.0.0.1:5999");
  EXPECT_EQ(o.upstream, "unix:/run/x11vnc.sock");
  EXPECT_EQ(o.upstream_password, "s3cret");
  EXPECT_EQ(o.tokens, dir.path / "tokens.json");
  EXPECT_EQ(o.audit, dir.path / "logs/audit.jsonl");
  EXPECT_EQ(o.max_sessions, 2u);
  EXPECT_EQ(o.limits.keys.burst, 4);
  EXPECT_EQ(o.limits.keys.per_second, 2);
  EXPECT_EQ(o.limits.keys.per_minute, 60);
  EXPECT_EQ(o.limits.buttons.burst, 3);
  EXPECT_EQ(o.limits.buttons.per_second, InputLimits{}.buttons.per_second);
  EXPECT_EQ(o.limits.moves_per_second, 12);
  EXPECT_EQ(o.limits.max_cut_text, 4096u);
}

TEST(ShareConfig, ADesktopSectionReplacesTheUpstream) {
  testing::TempDir dir;
  std::ofstream(dir.path / "share.yaml") << "desktop:\n"
                                            "  size: 800x600\n"
                                            "  url: http://127.0.0.1:8787/explorer\n"
                                            "  browser: [chromium, --lang=en]\n"
                                            "  recordings: videos\n"
                                            "tokens: tokens.json\n"
                                            "audit: audit.jsonl\n";
  const ShareConfig config = read_share_config(dir.path / "share.yaml");
  ASSERT_TRUE(config.desktop);
  EXPECT_EQ(config.desktop->width, 800u);
  EXPECT_EQ(config.desktop->height, 600u);
  EXPECT_EQ(config.desktop->url, "http://127.0.0.1:8787/explorer");
  EXPECT_EQ(config.desktop->browser, (std::vector<std::string>{"chromium", "--lang=en"}));
  EXPECT_EQ(config.desktop->recordings, dir.path / "videos");
  EXPECT_TRUE(config.proxy.upstream.empty());
}

TEST(KioskPolicy, AllowsTheOriginOfThePageOnlyAndLocksTheBrowserDown) {
  EXPECT_EQ(url_origin("http://127.0.0.1:8787/explorer?table=1"), "http://127.0.0.1:8787");
  EXPECT_EQ(url_origin("https://share.example.org"), "https://share.example.org");
  for (const char* bad : {"file:///etc/passwd", "data:text/html,x", "javascript:alert(1)", "http://", "127.0.0.1:8787"})
    EXPECT_THROW(url_origin(bad), InputError) << bad;
  const nlohmann::json policy = kiosk_policy("http://127.0.0.1:8787/explorer");
  EXPECT_EQ(policy["URLBlocklist"][0], "*");
  for (const char* scheme : {"chrome://*", "devtools://*", "view-source:*", "file://*"})
    EXPECT_NE(std::find(policy["URLBlocklist"].begin(), policy["URLBlocklist"].end(), scheme),
              policy["URLBlocklist"].end())
        << scheme;
  EXPECT_EQ(policy["URLAllowlist"], nlohmann::json::array({"http://127.0.0.1:8787"}));
  EXPECT_EQ(policy["DeveloperToolsAvailability"], 2);
  EXPECT_EQ(policy["DownloadRestrictions"], 3);
  EXPECT_EQ(policy["PrintingEnabled"], false);
  EXPECT_EQ(policy["AllowFileSelectionDialogs"], false);
}

TEST(ShareConfig, ErrorsNameTheFileLineAndKey) {
  testing::TempDir dir;
  const fs::path path = dir.path / "share.yaml";
  auto error_of = [&](const std::string& text) {
    std::ofstream(path) << text;
    try {
      read_share_config(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string base = "upstream: {address: 127.0.0.1:5900}\ntokens: t.json\naudit: a.jsonl\n";
  EXPECT_NE(error_of(base + "limit: {}\n").find(":4: unknown key 'limit'"), std::string::npos)
      << error_of(base + "limit: {}\n");
  EXPECT_NE(error_of(base + "limits: {keys: {burst: 0}}\n").find("burst must be at least 1"), std::string::npos);
  EXPECT_NE(error_of(base + "limits: {keys: {per-second: fast}}\n").find("must be a number"), std::string::npos);
  EXPECT_NE(error_of("tokens: t.json\naudit: a.jsonl\n").find("no 'upstream'"), std::string::npos);
  EXPECT_NE(error_of(base + "desktop: {url: 'http://127.0.0.1:8787/'}\n").find(":4: a configuration has either"),
            std::string::npos);
  EXPECT_NE(error_of("desktop: {url: 'http://h/', size: 100x100}\ntokens: t\naudit: a\n").find("desktop.size '100x100'"),
            std::string::npos);
  EXPECT_NE(error_of("desktop: {url: 'file:///etc/passwd'}\ntokens: t\naudit: a\n").find("not an http://"),
            std::string::npos);
  std::ofstream(dir.path / "open.pass") << "pw";
  fs::permissions(dir.path / "open.pass", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  EXPECT_NE(error_of("upstream: {address: x:1, password-file: open.pass}\ntokens: t\naudit: a\n").find("chmod 600"),
            std::string::npos);
}

}  // namespace
}  // namespace deid::share
