// The share's `web` section (docs/share.md, "Access from a browser"):
// websockify's settings and command line. websockify itself, noVNC and a
// browser are tests/share/novnc_test.mjs (ctest share_novnc).
#include <gtest/gtest.h>

#include <fstream>

#include "deid/share.h"
#include "share_fixture.h"

namespace deid::share {
namespace {

namespace fs = std::filesystem;

const std::string kBase = "upstream: {address: 127.0.0.1:5900}\ntokens: t.json\naudit: a.jsonl\n";

std::string fmt_web(const std::string& listen) { return "web: {listen: '" + listen + "'}\n"; }

TEST(ShareWeb, TheSectionIsOptionalAndTakesDefaultsAndPathsRelativeToTheFile) {
  testing::TempDir dir;
  const fs::path path = dir.path / "share.yaml";
  std::ofstream(path) << kBase;
  EXPECT_FALSE(read_share_config(path).web);
  std::ofstream(path) << kBase << "web:\n";
  ShareConfig c = read_share_config(path);
  ASSERT_TRUE(c.web);
  EXPECT_EQ(c.web->listen, "127.0.0.1:6080");
  EXPECT_EQ(c.web->novnc, "/usr/share/novnc");
  EXPECT_EQ(c.web->command, std::vector<std::string>{"websockify"});
  EXPECT_TRUE(c.web->log.empty());
  std::ofstream(path) << kBase
                      << "web: {listen: '0.0.0.0:0', novnc: novnc, log: ws.log, websockify: [python3, -m, websockify]}\n";
  c = read_share_config(path);
  EXPECT_EQ(c.web->listen, "0.0.0.0:0");
  EXPECT_EQ(c.web->novnc, dir.path / "novnc");
  EXPECT_EQ(c.web->log, dir.path / "ws.log");
  EXPECT_EQ(c.web->command, (std::vector<std::string>{"python3", "-m", "websockify"}));
}

TEST(ShareWeb, ErrorsNameTheLine) {
  testing::TempDir dir;
  const fs::path path = dir.path / "share.yaml";
  auto error_of = [&](const std::string& web) {
    std::ofstream(path) << kBase << web;
    try {
      read_share_config(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const char* bad : {"[::1]:6080", "unix:/tmp/s", "6080", "host:", ":6080", "host:80x"})
    EXPECT_NE(error_of(fmt_web(bad)).find(":4: web.listen"), std::string::npos) << bad << ": " << error_of(fmt_web(bad));
  EXPECT_NE(error_of("web: {port: 6080}\n").find(":4: unknown key 'port' in web"), std::string::npos);
  EXPECT_NE(error_of("web: {websockify: []}\n").find("web.websockify must be a list"), std::string::npos);
  EXPECT_NE(error_of("web: 6080\n").find("web must be a mapping"), std::string::npos);
}

TEST(ShareWeb, WebsockifyTakesDeidsSocketAndBridgesToTheProxy) {
  WebOptions o;
  o.command = {"websockify"};
  o.novnc = "/usr/share/novnc";
  EXPECT_EQ(websockify_command(o, "127.0.0.1:5910"),
            (std::vector<std::string>{"websockify", "--inetd", "--web", "/usr/share/novnc", "127.0.0.1:5910"}));
  // A proxy on every address is reached on loopback; a Unix socket as such.
  EXPECT_EQ(websockify_command(o, "0.0.0.0:5910").back(), "127.0.0.1:5910");
  EXPECT_EQ(websockify_command(o, "[::]:5910").back(), "[::1]:5910");
  EXPECT_EQ(websockify_command(o, "unix:/run/share.sock").back(), "--unix-target=/run/share.sock");
}

TEST(ShareWeb, MissingNoVncOrWebsockifyIsAnErrorAndLeavesNothing) {
  testing::TempDir dir;
  WebOptions o;
  o.listen = "127.0.0.1:0";
  o.novnc = dir.path / "none";
  WebAccess missing_files(o);
  EXPECT_THROW(missing_files.start("127.0.0.1:5910"), IoError);
  std::ofstream(dir.path / "vnc.html") << "<html></html>";
  o.novnc = dir.path;
  o.command = {"deid-no-such-websockify"};
  WebAccess missing_command(o);
  try {
    missing_command.start("127.0.0.1:5910");
    ADD_FAILURE() << "started";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot start websockify"), std::string::npos) << e.what();
  }
  EXPECT_EQ(missing_command.pid(), -1);
  EXPECT_FALSE(missing_command.wait_exit(std::chrono::milliseconds(0)));
}

}  // namespace
}  // namespace deid::share
