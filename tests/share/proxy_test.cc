// The RFB proxy (include/deid/share.h) between a fake VNC client and a fake
// VNC server, over sockets on 127.0.0.1: who is admitted, what reaches the
// other side, what the audit log says, and that revocation ends a session.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <thread>

#include "deid/share.h"
#include "rfb.h"
#include "share_fixture.h"

namespace deid::share {
namespace {

using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;

class ProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.listen = "127.0.0.1:0";
    options_.upstream = server_.address();
    options_.upstream_password = "upstream";
    options_.tokens = dir_.path / "tokens.json";
    options_.audit = dir_.path / "audit.jsonl";
    options_.handshake_timeout = 2s;
    options_.auth_failure_delay = 0ms;
    options_.watch_interval = 50ms;
  }
  void TearDown() override {
    if (proxy_) proxy_->stop();
    if (runner_.joinable()) runner_.join();
  }
  void start() {
    proxy_ = std::make_unique<Proxy>(options_);
    proxy_->bind();
    runner_ = std::thread([this] { proxy_->run(); });
  }
  std::string add_token(const std::string& recipient, std::int64_t expires = 0) {
    return TokenStore(options_.tokens).add(recipient, expires, testing::unix_now()).token;
  }

  testing::TempDir dir_;
  testing::FakeVncServer server_{"upstream"};
  ProxyOptions options_;
  std::unique_ptr<Proxy> proxy_;
  std::thread runner_;
};

TEST_F(ProxyTest, ARecipientWithoutATokenIsRefused) {
  start();
  testing::FakeVncClient client(proxy_->address());
  EXPECT_EQ(client.handshake_without_auth(), "security type 1 was not offered (only VNC Authentication, 2)");
  EXPECT_EQ(server_.connections(), 0);
  EXPECT_TRUE(client.closed_within(2s));
}

TEST_F(ProxyTest, AWrongTokenIsRefusedAndLogged) {
  add_token("alice");
  start();
  testing::FakeVncClient client(proxy_->address());
  EXPECT_EQ(client.handshake("wrong123"), "unknown token");
  EXPECT_EQ(server_.connections(), 0);
  proxy_->stop();
  runner_.join();
  const auto lines = testing::audit_lines(options_.audit);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back()["event"], "refused");
  EXPECT_EQ(lines.back()["reason"], "unknown token");
}

TEST_F(ProxyTest, ExpiredAndRevokedTokensAreRefused) {
  const std::string expired = add_token("bob", testing::unix_now() - 1);
  const std::string revoked = add_token("carol");
  TokenStore(options_.tokens).revoke("carol", testing::unix_now());
  start();
  EXPECT_EQ(testing::FakeVncClient(proxy_->address()).handshake(expired), "token expired");
  EXPECT_EQ(testing::FakeVncClient(proxy_->address()).handshake(revoked), "token revoked");
  EXPECT_EQ(server_.connections(), 0);
}

TEST_F(ProxyTest, RefusalsWaitTheFailureDelay) {
  options_.auth_failure_delay = 300ms;
  start();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(testing::FakeVncClient(proxy_->address()).handshake("guess123"), "unknown token");
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 300ms);
}

TEST_F(ProxyTest, AValidTokenReachesTheDesktopUnderTheProxysName) {
  const std::string token = add_token("alice");
  start();
  testing::FakeVncClient client(proxy_->address());
  ASSERT_EQ(client.handshake(token), "");
  const ServerInit init = client.server_init();
  EXPECT_EQ(init.width, 64);
  EXPECT_EQ(init.height, 48);
  EXPECT_EQ(init.name, "deid share");  // not the server's "secret-host:0"
  EXPECT_EQ(server_.connections(), 1);
}

TEST_F(ProxyTest, RfbThreeThreeClientsAreServed) {
  const std::string token = add_token("alice");
  start();
  testing::FakeVncClient client(proxy_->address());
  ASSERT_EQ(client.handshake(token, 3), "");
  EXPECT_EQ(client.server_init().width, 64);
}

TEST_F(ProxyTest, ClipboardNeverCrossesAndInputIsAudited) {
  const std::string token = add_token("alice");
  start();
  testing::FakeVncClient client(proxy_->address());
  ASSERT_EQ(client.handshake(token), "");
  client.server_init();
  client.send(testing::cut_text(rfb::kClientCutText, "pasted rows"));
  client.send(testing::key_event(true, 'q'));
  client.send(testing::key_event(false, 'q'));
  client.send(testing::pointer_event(1, 3, 4));
  client.send(testing::pointer_event(0, 3, 4));
  ASSERT_TRUE(server_.wait_for_bytes(8 + 8 + 6 + 6, 3s));
  EXPECT_EQ(server_.received(), testing::concat({testing::key_event(true, 'q'), testing::key_event(false, 'q'),
                                                 testing::pointer_event(1, 3, 4), testing::pointer_event(0, 3, 4)}));
  server_.send(testing::concat({testing::cut_text(rfb::kServerCutText, "copied cells"), Bytes{rfb::kBell}}));
  EXPECT_EQ(client.receive(1, 3s), Bytes{rfb::kBell});
  client.close();
  ASSERT_TRUE(testing::eventually([&] { return proxy_->ended_sessions().size() == 1; }, 3s));
  const SessionSummary s = proxy_->ended_sessions()[0];
  EXPECT_EQ(s.recipient, "alice");
  EXPECT_EQ(s.client_cut_text_dropped, 1u);
  EXPECT_EQ(s.server_cut_text_dropped, 1u);
  EXPECT_EQ(s.end_reason, "the recipient disconnected");

  std::vector<std::string> events;
  for (const auto& line : testing::audit_lines(options_.audit)) {
    EXPECT_TRUE(line.contains("time"));
    if (line["event"] == "connection") continue;
    EXPECT_EQ(line["recipient"], "alice");
    events.push_back(line["event"].get<std::string>() + (line.contains("verdict") ? "/" + line["verdict"].get<std::string>() : ""));
  }
  EXPECT_EQ(events, (std::vector<std::string>{"session-start", "client-cut-text/dropped", "key/forwarded",
                                              "key/forwarded", "pointer/forwarded", "pointer/forwarded",
                                              "server-cut-text/dropped", "session-end"}));
}

TEST_F(ProxyTest, RevokingTheTokenEndsTheRunningSessionWithinASecond) {
  const std::string token = add_token("alice");
  start();
  testing::FakeVncClient client(proxy_->address());
  ASSERT_EQ(client.handshake(token), "");
  client.server_init();
  const auto t0 = std::chrono::steady_clock::now();
  TokenStore(options_.tokens).revoke("alice", testing::unix_now());
  EXPECT_TRUE(client.closed_within(1s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  ASSERT_TRUE(testing::eventually([&] { return proxy_->ended_sessions().size() == 1; }, 2s));
  EXPECT_EQ(proxy_->ended_sessions()[0].end_reason, "token revoked");
  EXPECT_TRUE(server_.wait_closed(2s));
}

TEST_F(ProxyTest, ATokenThatExpiresEndsItsSession) {
  const std::string token = add_token("alice", testing::unix_now() + 1);
  start();
  testing::FakeVncClient client(proxy_->address());
  ASSERT_EQ(client.handshake(token), "");
  client.server_init();
  EXPECT_TRUE(client.closed_within(3s));
  ASSERT_TRUE(testing::eventually([&] { return proxy_->ended_sessions().size() == 1; }, 2s));
  EXPECT_EQ(proxy_->ended_sessions()[0].end_reason, "token expired");
}

TEST_F(ProxyTest, ASecondSessionIsRefusedWhileOneRuns) {
  const std::string alice = add_token("alice"), bob = add_token("bob");
  start();
  testing::FakeVncClient first(proxy_->address());
  ASSERT_EQ(first.handshake(alice), "");
  first.server_init();
  EXPECT_EQ(testing::FakeVncClient(proxy_->address()).handshake(bob), "another session is running");
}

TEST_F(ProxyTest, AHostileClientEndsItsSessionOnlyAndTheProxyServesTheNext) {
  const std::string token = add_token("alice");
  start();
  {
    testing::FakeVncClient client(proxy_->address());
    ASSERT_EQ(client.handshake(token), "");
    client.server_init();
    client.send(Bytes{250, 0, 0, 0, 0, 0, 0, 0});  // xvp, never offered
    EXPECT_TRUE(client.closed_within(2s));
  }
  ASSERT_TRUE(testing::eventually([&] { return proxy_->ended_sessions().size() == 1; }, 2s));
  EXPECT_EQ(proxy_->ended_sessions()[0].end_reason,
            "the recipient broke the protocol: the client sent a message of type 250, which the proxy does not pass");
  testing::FakeVncClient next(proxy_->address());
  ASSERT_EQ(next.handshake(token), "");
  EXPECT_EQ(next.server_init().width, 64);
}

TEST_F(ProxyTest, AClientThatSaysNothingIsDroppedAfterTheHandshakeTimeout) {
  options_.handshake_timeout = 300ms;
  start();
  testing::FakeVncClient client(proxy_->address());
  EXPECT_TRUE(client.closed_within(2s));
}

TEST_F(ProxyTest, GarbageInsteadOfAVersionIsRefused) {
  start();
  testing::FakeVncClient client(proxy_->address());
  client.send(Bytes(12, 'A'));
  EXPECT_TRUE(client.closed_within(2s));
  EXPECT_EQ(server_.connections(), 0);
}

TEST_F(ProxyTest, AnUnavailableDesktopIsARefusalWithAReason) {
  options_.upstream = "127.0.0.1:1";
  const std::string token = add_token("alice");
  start();
  EXPECT_EQ(testing::FakeVncClient(proxy_->address()).handshake(token), "the shared desktop is not available");
}

TEST_F(ProxyTest, StoppingTheProxyEndsItsSessions) {
  const std::string token = add_token("alice");
  start();
  testing::FakeVncClient client(proxy_->address());
  ASSERT_EQ(client.handshake(token), "");
  client.server_init();
  proxy_->stop();
  runner_.join();
  EXPECT_TRUE(client.closed_within(1s));
  ASSERT_EQ(proxy_->ended_sessions().size(), 1u);
  EXPECT_EQ(proxy_->ended_sessions()[0].end_reason, "the proxy stopped");
  EXPECT_EQ(proxy_->active_sessions(), 0u);
}

}  // namespace
}  // namespace deid::share
