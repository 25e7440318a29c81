// The share configuration's data explorer (docs/share.md, "The data
// explorer"): desktop.table instead of desktop.url, and its errors.
#include <gtest/gtest.h>

#include <fstream>

#include "deid/share.h"
#include "share_fixture.h"

namespace deid::share {
namespace {

namespace fs = std::filesystem;

TEST(ShareConfig, ADesktopTableNamesTheExplorersTableRelativeToTheFile) {
  testing::TempDir dir;
  std::ofstream(dir.path / "release.csv") << "a,b\n1,2\n";
  std::ofstream(dir.path / "share.yaml") << "desktop: {table: release.csv, explorer-port: 8799}\n"
                                            "tokens: tokens.json\naudit: audit.jsonl\n";
  const ShareConfig config = read_share_config(dir.path / "share.yaml");
  ASSERT_TRUE(config.desktop);
  EXPECT_EQ(config.desktop->table, dir.path / "release.csv");
  EXPECT_EQ(config.desktop->explorer_port, 8799);
  EXPECT_TRUE(config.desktop->url.empty());
  std::ofstream(dir.path / "share.yaml") << "desktop: {table: release.csv}\ntokens: t\naudit: a\n";
  EXPECT_EQ(read_share_config(dir.path / "share.yaml").desktop->explorer_port, 0);
}

TEST(ShareConfig, ATableWithAUrlMissingOrABadPortIsAnErrorNamingTheLine) {
  testing::TempDir dir;
  std::ofstream(dir.path / "release.csv") << "a,b\n1,2\n";
  const fs::path path = dir.path / "share.yaml";
  auto error_of = [&](const std::string& desktop) {
    std::ofstream(path) << "tokens: t\naudit: a\ndesktop: " << desktop << "\n";
    try {
      read_share_config(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("{table: release.csv, url: 'http://127.0.0.1:1/'}").find(":3: desktop has both"),
            std::string::npos);
  EXPECT_NE(error_of("{table: gone.csv}").find("gone.csv' is not a file"), std::string::npos);
  EXPECT_NE(error_of("{table: release.csv, explorer-port: 70000}").find("explorer-port must be a port"),
            std::string::npos);
  EXPECT_NE(error_of("{explorer-port: 8799}").find("without desktop.table"), std::string::npos);
  EXPECT_NE(error_of("{size: 800x600}").find("no 'table'"), std::string::npos);
}

}  // namespace
}  // namespace deid::share
