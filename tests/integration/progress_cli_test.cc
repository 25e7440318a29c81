// The progress display of `deid anonymize` (cli/progress.h) appears only on
// a terminal: with standard error redirected to a file nothing is written
// there; on a pseudo-terminal with --quiet nothing at all is written; on a
// pseudo-terminal without --quiet a run longer than a second draws the
// line and erases it before the summary.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/reference.h"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) { return deid::testing::slurp(path.string()); }

struct PtyRun {
  int exit_code = -1;
  std::string output;  // standard output and standard error, as the terminal saw them
  double seconds = 0;
};

// Runs the CLI with `args` on a new pseudo-terminal (standard input, output
// and error), 100 columns wide.
PtyRun run_on_pty(const std::vector<std::string>& args) {
  PtyRun r;
  winsize ws{};
  ws.ws_col = 100;
  ws.ws_row = 30;
  int master = -1;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = forkpty(&master, nullptr, nullptr, &ws);
  if (pid < 0) return r;
  if (pid == 0) {
    std::vector<char*> argv;
    std::string name = "deid";
    argv.push_back(name.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(DEID_CLI_PATH, argv.data());
    _exit(127);
  }
  char buf[4096];
  for (;;) {
    const ssize_t n = read(master, buf, sizeof buf);
    if (n > 0) {
      r.output.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO once the child has closed the terminal
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

class ProgressCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("deid-progress-{}", ::getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The bundled example (adult, 5-anonymity), writing into the test's directory.
  std::vector<std::string> example_args(bool quiet) const {
    std::vector<std::string> a;
    if (quiet) a.push_back("--quiet");
    for (const std::string& s : {std::string("anonymize"), deid::testing::example_path("adult.yaml"),
                                 std::string("--output"), (dir_ / "out.csv").string(), std::string("--result"),
                                 (dir_ / "out.json").string()})
      a.push_back(s);
    return a;
  }

  fs::path dir_;
};

TEST_F(ProgressCli, NothingOnStandardErrorWhenItIsNotATerminal) {
  std::string cmd = std::string("'") + DEID_CLI_PATH + "'";
  for (const auto& a : example_args(false)) cmd += fmt::format(" '{}'", a);
  cmd += fmt::format(" >'{}' 2>'{}'", (dir_ / "stdout").string(), (dir_ / "stderr").string());
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(slurp(dir_ / "stderr"), "") << "no progress in a file";
  const std::string out = slurp(dir_ / "stdout");
  EXPECT_NE(out.find("Transformation   "), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos) << "no progress on standard output either";
}

TEST_F(ProgressCli, NothingAtAllOnATerminalWithQuiet) {
  const PtyRun r = run_on_pty(example_args(true));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  EXPECT_TRUE(fs::exists(dir_ / "out.csv"));
  // --quiet after the subcommand works too.
  std::vector<std::string> after = example_args(false);
  after.push_back("--quiet");
  const PtyRun q = run_on_pty(after);
  ASSERT_EQ(q.exit_code, 0) << q.output;
  EXPECT_EQ(q.output, "");
}

TEST_F(ProgressCli, OnATerminalALongRunDrawsTheLineAndErasesIt) {
  // The example with exhaustive search (12,960 checks, a few seconds): long
  // enough for the line, and the search can tell how far it is.
  std::string job = slurp(deid::testing::example_path("adult.yaml"));
  const std::string algorithm = "algorithm: auto", adult = " adult/";
  ASSERT_NE(job.find(algorithm), std::string::npos);
  job.replace(job.find(algorithm), algorithm.size(), "algorithm: exhaustive");
  for (auto at = job.find(adult); at != std::string::npos; at = job.find(adult, at + 1))
    job.replace(at, adult.size(), fmt::format(" {}", deid::testing::example_path("adult/")));
  std::ofstream(dir_ / "job.yaml") << job;
  std::vector<std::string> args = example_args(false);
  args[1] = (dir_ / "job.yaml").string();
  // The line from the start (not one second in), redrawn four times a
  // second: any run of half a second or more must draw it, however fast the
  // search becomes.
  ::setenv("DEID_PROGRESS_AFTER", "0", 1);
  const PtyRun r = run_on_pty(args);
  ::unsetenv("DEID_PROGRESS_AFTER");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto summary = r.output.find("Transformation   ");
  ASSERT_NE(summary, std::string::npos) << r.output;
  const auto drawn = r.output.find("\rdeid: ");
  if (drawn == std::string::npos) {
    EXPECT_LT(r.seconds, 0.5) << "a run of " << r.seconds << " s drew no progress:\n" << r.output;
    return;
  }
  EXPECT_LT(drawn, summary);
  // Erased (carriage return, erase to the end of the line) before the summary.
  const auto erased = r.output.rfind("\r\033[K", summary);
  ASSERT_NE(erased, std::string::npos);
  EXPECT_GT(erased, drawn);
  EXPECT_NE(r.output.find("\rdeid: search   ["), std::string::npos) << "a bar in the exhaustive search";
  EXPECT_NE(r.output.find("ETA "), std::string::npos);
  // Each drawn line fits the 100 columns.
  for (auto at = drawn; at != std::string::npos && at < summary; at = r.output.find("\rdeid: ", at + 1)) {
    const auto end = r.output.find('\033', at);
    EXPECT_LE(end - at - 1, 99u) << r.output.substr(at, end - at);
  }
}

}  // namespace
