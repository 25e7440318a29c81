// Safe outputs (include/deid/output.h): file identity checks, atomic
// replacement, digests, the signal-time cleanup and the formula rule.
#include "deid/formulas.h"
#include "deid/output.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

// By its permission bits: refused for root as well, who may write any file.
TEST_F(Output, ReadOnlyExistingOutputIsRefused) {
  write("out.csv", "old\n");
  fs::permissions(path("out.csv"), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::string msg = error_of([&] { deid::check_files({}, {{"output table", path("out.csv")}}); });
  EXPECT_NE(msg.find("read-only"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0444"), std::string::npos) << msg;
  // Made read-only after the check: refused when the output is opened.
  write("late.csv", "old\n");
  const deid::CheckedFiles checked = deid::check_files({}, {{"output table", path("late.csv")}});
  fs::permissions(path("late.csv"), fs::perms::owner_read);
  const std::string late = error_of([&] { deid::OutputFile f(checked.output("output table")); });
  EXPECT_NE(late.find("read-only"), std::string::npos) << late;
  EXPECT_EQ(read("late.csv"), "old\n");
}

// The race of a hostile or careless neighbour: the output path becomes a
// symbolic link (or a hard link) to the input after the check, during the
// search. The write goes where the check looked: the link is replaced, the
// input is untouched.
TEST_F(Output, LinkSwappedInAfterTheCheckIsReplacedNotFollowed) {
  write("in.csv", "the only copy\n");
  for (const bool hard : {false, true}) {
    const std::string name = hard ? "hard.csv" : "soft.csv";
    const deid::CheckedFiles checked =
        deid::check_files({{"input data", path("in.csv")}}, {{"output table", path(name)}});
    if (hard)
      fs::create_hard_link(path("in.csv"), path(name));
    else
      fs::create_symlink(path("in.csv"), path(name));
    deid::OutputFile f(checked.output("output table"));
    f.stream() << "released\n";
    f.finish("output");
    f.publish();
    EXPECT_EQ(read("in.csv"), "the only copy\n") << name;
    EXPECT_EQ(read(name), "released\n") << name;
    EXPECT_FALSE(fs::is_symlink(path(name))) << name;
  }
}

// The output's directory renamed and replaced by a link to the input's
// directory after the check: the output still lands in the directory that
// was checked (now under its new name), never beside or over the input.
TEST_F(Output, DirectorySwappedAfterTheCheckKeepsTheWriteWhereItWasChecked) {
  fs::create_directories(path("in"));
  fs::create_directories(path("out"));
  write("in/data.csv", "the only copy\n");
  const deid::CheckedFiles checked =
      deid::check_files({{"input data", path("in/data.csv")}}, {{"output table", path("out/data.csv")}});
  fs::rename(path("out"), path("moved"));
  fs::create_directory_symlink(path("in"), path("out"));
  deid::OutputFile f(checked.output("output table"));
  f.stream() << "released\n";
  f.finish("output");
  f.publish();
  EXPECT_EQ(read("in/data.csv"), "the only copy\n");
  EXPECT_EQ(read("moved/data.csv"), "released\n");
}

// A terminating signal while a run publishes its outputs waits until all
// are in place: never a new table beside an old result. In a child process,
// with a handler as the CLI's.
namespace signals {
void on_signal(int sig) {
  if (deid::defer_signal_while_publishing(sig)) return;
  deid::discard_unpublished_outputs();
  ::_exit(deid::outputs_published() ? 100 + sig : 50 + sig);
}
void install() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
}
}  // namespace signals

TEST_F(Output, SignalDuringPublishingWaitsUntilEveryOutputIsInPlace) {
  write("table.csv", "old table\n");
  write("result.json", "old result\n");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signals::install();
    deid::OutputFile table(path("table.csv"), "output table"), result(path("result.json"), "result");
    table.stream() << "new table\n";
    result.stream() << "new result\n";
    table.finish("output");
    result.finish("result");
    {
      deid::PublishBatch batch;
      table.publish();
      ::raise(SIGTERM);  // between the two renames: deferred
      result.publish();
    }  // the signal comes now
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 100 + SIGTERM);  // by the handler, after both were published
  EXPECT_EQ(read("table.csv"), "new table\n");
  EXPECT_EQ(read("result.json"), "new result\n");
}

// Outside a batch the handler ends the run at once and no output changes.
TEST_F(Output, SignalBeforePublishingChangesNothing) {
  write("table.csv", "old table\n");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signals::install();
    deid::OutputFile table(path("table.csv"), "output table");
    table.stream() << "new table\n";
    table.finish("output");
    ::raise(SIGTERM);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  // By the handler (whether an earlier test of this process published
  // something is inherited by the child, so both codes are the handler's).
  EXPECT_TRUE(WEXITSTATUS(status) == 50 + SIGTERM || WEXITSTATUS(status) == 100 + SIGTERM) << WEXITSTATUS(status);
  EXPECT_EQ(read("table.csv"), "old table\n");
  EXPECT_EQ(names(), std::vector<std::string>{"table.csv"});
}

TEST_F(Output, BlockDeviceIsRefused) {
  std::string device;
  for (const char* d : {"/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1"}) {
    struct stat st {};
    if (::stat(d, &st) == 0 && S_ISBLK(st.st_mode)) {
      device = d;
      break;
    }
  }
  if (device.empty()) GTEST_SKIP() << "no block device here";
  const std::string msg = error_of([&] { deid::check_files({}, {{"output table", device}}); });
  EXPECT_NE(msg.find("block device"), std::string::npos) << msg;
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
