// Safe outputs (include/deid/output.h): file identity checks, atomic
// replacement, digests, the signal-time cleanup and the formula rule.
#include "deid/output.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "deid/error.h"

namespace {

namespace fs = std::filesystem;

class Output : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("deid_output_test_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // The names in the directory (temporaries left behind show up here).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  // The message of the IoError that `f` throws ("" when none).
  template <typename F>
  static std::string error_of(F f) {
    try {
      f();
    } catch (const deid::IoError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(Output, OutputThatIsAnInputIsRefusedNamingBothRoles) {
  write("data.csv", "a\n1\n");
  const std::string msg = error_of(
      [&] { deid::check_files({{"input data", path("data.csv")}}, {{"output table", path("data.csv")}}); });
  EXPECT_NE(msg.find("output table"), std::string::npos) << msg;
  EXPECT_NE(msg.find("input data"), std::string::npos) << msg;
  EXPECT_NE(msg.find(path("data.csv")), std::string::npos) << msg;
}

TEST_F(Output, SymlinkAndHardLinkToAnInputAreTheSameFile) {
  write("data.csv", "a\n1\n");
  fs::create_symlink(path("data.csv"), path("link.csv"));
  fs::create_hard_link(path("data.csv"), path("hard.csv"));
  for (const char* out : {"link.csv", "hard.csv", "./data.csv"}) {
    const std::string msg =
        error_of([&] { deid::check_files({{"input data", path("data.csv")}}, {{"output table", path(out)}}); });
    EXPECT_NE(msg.find("input data"), std::string::npos) << out << ": " << msg;
  }
}

TEST_F(Output, TwoOutputsOnOnePathAreRefusedEvenBeforeTheyExist) {
  const std::string msg = error_of(
      [&] { deid::check_files({}, {{"output table", path("x.csv")}, {"result", path("sub/../x.csv")}}); });
  // sub/ does not exist: the directory check fires first for the second.
  EXPECT_FALSE(msg.empty());
  const std::string same = error_of([&] { deid::check_files({}, {{"output table", path("x")}, {"result", path("x")}}); });
  EXPECT_NE(same.find("output table"), std::string::npos) << same;
  EXPECT_NE(same.find("result"), std::string::npos) << same;
  EXPECT_FALSE(fs::exists(path("x")));
}

TEST_F(Output, MissingDirectoryAndDirectoryAsOutputAreRefused) {
  std::string msg = error_of([&] { deid::check_files({}, {{"output table", path("nowhere/out.csv")}}); });
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nowhere"), std::string::npos) << msg;
  fs::create_directories(path("adir"));
  msg = error_of([&] { deid::check_files({}, {{"output table", path("adir")}}); });
  EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
}

TEST_F(Output, ReadOnlyExistingOutputIsRefused) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write any file";
  write("out.csv", "old\n");
  fs::permissions(path("out.csv"), fs::perms::owner_read);
  const std::string msg = error_of([&] { deid::check_files({}, {{"output table", path("out.csv")}}); });
  EXPECT_NE(msg.find("read-only"), std::string::npos) << msg;
}

TEST_F(Output, RelativeOutputPathsResolveAgainstTheWorkingDirectory) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  std::string msg;
  try {
    deid::check_files({}, {{"output table", "new.csv"}});
    deid::write_file_atomically("new.csv", "output table", "x\n", "output");
    write("data.csv", "a\n");
    deid::check_files({{"input data", "data.csv"}}, {{"output table", "./data.csv"}});
  } catch (const deid::IoError& e) {
    msg = e.what();
  }
  fs::current_path(cwd);
  EXPECT_EQ(read("new.csv"), "x\n");
  EXPECT_NE(msg.find("input data"), std::string::npos) << msg;
}

TEST_F(Output, CharacterDevicesMayBeSeveralOutputs) {
  EXPECT_NO_THROW(deid::check_files({}, {{"result", "/dev/null"}, {"report", "/dev/null"}}));
  EXPECT_NO_THROW(deid::check_files({{"input data", path("absent.csv")}}, {{"output table", path("new.csv")}}));
}

TEST_F(Output, KnownSha256Vectors) {
  // FIPS 180-4 examples (NIST CSRC, "SHA256.pdf").
  EXPECT_EQ(deid::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(deid::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  write("abc", "abc");
  EXPECT_EQ(deid::sha256_file(path("abc")), deid::sha256_hex("abc"));
}

TEST_F(Output, PublishReplacesTheTargetWholeAndReportsItsDigest) {
  write("out.csv", "old content\n");
  ::chmod(path("out.csv").c_str(), 0640);
  deid::OutputFile f(path("out.csv"), "output table");
  std::string big(3 << 20, 'x');  // larger than the 1 MiB buffer
  f.stream() << "head\n" << big;
  EXPECT_EQ(read("out.csv"), "old content\n");  // untouched until published
  const deid::FileDigest d = f.finish("output");
  EXPECT_EQ(read("out.csv"), "old content\n");
  f.publish();
  EXPECT_EQ(read("out.csv"), "head\n" + big);
  EXPECT_EQ(d.sha256, deid::sha256_hex("head\n" + big));
  EXPECT_EQ(d.bytes, 5 + big.size());
  EXPECT_EQ(d.role, "output");
  struct stat st {};
  ASSERT_EQ(::stat(path("out.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the replaced file's permissions are kept
  EXPECT_EQ(names(), std::vector<std::string>{"out.csv"});
}

TEST_F(Output, UnpublishedOutputLeavesTheTargetAndNoTemporary) {
  write("out.csv", "old\n");
  {
    deid::OutputFile f(path("out.csv"), "output table");
    f.stream() << "half a tab";
    EXPECT_EQ(names().size(), 2u);  // the target and the temporary
  }
  EXPECT_EQ(read("out.csv"), "old\n");
  EXPECT_EQ(names(), std::vector<std::string>{"out.csv"});
}

TEST_F(Output, SymlinkTargetIsReplacedAndTheLinkKept) {
  write("real.csv", "old\n");
  fs::create_symlink("real.csv", path("link.csv"));
  deid::write_file_atomically(path("link.csv"), "output table", "new\n", "output");
  EXPECT_TRUE(fs::is_symlink(path("link.csv")));
  EXPECT_EQ(read("real.csv"), "new\n");
}

TEST_F(Output, DiskFullIsAnErrorWithTheSystemsReason) {
  const std::string msg =
      error_of([&] { deid::write_file_atomically("/dev/full", "hierarchy", std::string(1 << 21, 'x'), "h"); });
  EXPECT_NE(msg.find("/dev/full"), std::string::npos) << msg;
  EXPECT_NE(msg.find("No space left on device"), std::string::npos) << msg;
}

TEST_F(Output, SignalCleanupRemovesUnpublishedTemporaries) {
  deid::OutputFile a(path("a.csv"), "output table");
  deid::OutputFile b(path("b.csv"), "result");
  b.stream() << "x";
  b.finish("result");
  b.publish();
  EXPECT_EQ(names().size(), 2u);  // a's temporary and b
  deid::discard_unpublished_outputs();
  EXPECT_EQ(names(), std::vector<std::string>{"b.csv"});
}

TEST_F(Output, FormulaRule) {
  for (const char* f : {"=SUM(A1:A2)", "@cmd", "+A1", "-A1", "=1+1", "-", "+", "-inf", "--1", "-1-1"})
    EXPECT_TRUE(deid::looks_like_formula(f)) << f;
  for (const char* v : {"", "5", "-5", "+5", "-1.5e3", "-.5", "a=b", "1-2", "*", "Male"})
    EXPECT_FALSE(deid::looks_like_formula(v)) << v;
}

}  // namespace
