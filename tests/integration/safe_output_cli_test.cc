// The promises of docs/reliability.md, on the built CLI as a process: the
// result ties the input and every output by SHA-256; a file-size limit or a
// signal during a run leaves the earlier outputs whole and no temporary
// behind; two runs writing one output never splice it; formula-like cells
// are warned about, and escaped only when asked.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "deid/output.h"
#include "support/reference.h"

namespace {

namespace fs = std::filesystem;
using deid::testing::slurp;

class SafeOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("deid_safe_output_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
  }
  // Every entry of the out/ directory (temporaries would show up here).
  std::vector<std::string> outputs() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ / "out")) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  // The adult example job with outputs under out/; `extra` is appended.
  std::string adult_job(const std::string& extra = "", const std::string& name = "adult.yaml") const {
    std::string text = slurp(deid::testing::example_path("adult.yaml"));
    text = text.substr(0, text.find("output:"));
    const std::string adult_dir = fs::path(deid::testing::example_path("adult")).string();
    for (std::string::size_type at = text.find("adult/"); at != std::string::npos;
         at = text.find("adult/", at + adult_dir.size() + 1))
      text.replace(at, 6, adult_dir + "/");
    text += "output: {path: out/adult.csv, result: out/adult.json, report: out/adult.html}\n" + extra;
    std::ofstream(dir_ / name) << text;
    return p(name);
  }

  // Whether process `pid` runs the CLI (it has exec'd) and catches SIGTERM,
  // i.e. has installed its signal handlers (Linux: SigCgt of /proc/PID/status).
  static bool runs_the_cli_with_handlers(pid_t pid) {
    const fs::path proc = fs::path("/proc") / std::to_string(pid);
    std::error_code ec;
    const fs::path exe = fs::read_symlink(proc / "exe", ec);
    if (ec || !fs::equivalent(exe, DEID_CLI_PATH, ec)) return false;
    std::ifstream status(proc / "status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (SIGTERM - 1)) & 1u;
    return false;
  }

  // Runs the CLI with `args` in a child process; `limit_bytes` > 0 sets
  // RLIMIT_FSIZE; `term_after_ms` > 0 sends SIGTERM that long after the CLI
  // has installed its signal handlers (waited for up to a minute: a
  // sanitizer build starts slowly; a fixed delay from the fork could come
  // before them). Returns the exit code, or 1000 + the signal when it was
  // killed by one (which must not happen: deid exits on its own).
  int run(const std::vector<std::string>& args, rlim_t limit_bytes = 0, int term_after_ms = 0) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (limit_bytes > 0) {
        rlimit rl{limit_bytes, limit_bytes};
        ::setrlimit(RLIMIT_FSIZE, &rl);
      }
      const std::string err = p("stderr"), out = p("stdout");
      if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) ::_exit(99);
      std::vector<char*> argv{const_cast<char*>(DEID_CLI_PATH)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(DEID_CLI_PATH, argv.data());
      ::_exit(98);
    }
    int status = 0;
    bool exited = false;
    if (term_after_ms > 0) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
      while (!runs_the_cli_with_handlers(pid) && std::chrono::steady_clock::now() < deadline) {
        exited = ::waitpid(pid, &status, WNOHANG) == pid;
        if (exited) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      if (!exited) {
        std::this_thread::sleep_for(std::chrono::milliseconds(term_after_ms));
        ::kill(pid, SIGTERM);
      }
    }
    if (!exited) ::waitpid(pid, &status, 0);
    err_ = slurp(p("stderr"));
    if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status);
    return WEXITSTATUS(status);
  }

  fs::path dir_;
  std::string err_;
};

TEST_F(SafeOutput, ResultTiesInputAndEveryOutputBySha256) {
  const std::string job = adult_job();
  ASSERT_EQ(run({"-q", "anonymize", job}), 0) << err_;
  const auto result = nlohmann::json::parse(slurp(p("out/adult.json")));
  ASSERT_EQ(result["files"].size(), 3u) << result["files"].dump();
  std::map<std::string, nlohmann::json> by_role;
  for (const auto& f : result["files"]) by_role[f["role"]] = f;
  ASSERT_EQ(by_role.count("input") + by_role.count("output") + by_role.count("report"), 3u);
  for (const auto& [role, f] : by_role) {
    const std::string path = f["path"];
    EXPECT_EQ(f["sha256"], deid::sha256_file(path)) << role;
    EXPECT_EQ(f["bytes"].get<std::uint64_t>(), fs::file_size(path)) << role;
  }
  EXPECT_EQ(fs::path(by_role["output"]["path"].get<std::string>()).filename(), "adult.csv");
  EXPECT_EQ(outputs(), (std::vector<std::string>{"adult.csv", "adult.html", "adult.json"}));
}

TEST_F(SafeOutput, FileSizeLimitDuringTheWriteLeavesTheEarlierOutputsAndNoTemporary) {
  const std::string job = adult_job();
  for (const char* f : {"out/adult.csv", "out/adult.json", "out/adult.html"}) write(f, "earlier run\n");
  // The table is about 2 MB: 64 KiB stops it in the middle.
  const int code = run({"-q", "anonymize", job}, 64 * 1024);
  EXPECT_EQ(code, 2) << err_;
  EXPECT_NE(err_.find("adult.csv"), std::string::npos) << err_;
  EXPECT_NE(err_.find("File too large"), std::string::npos) << err_;
  for (const char* f : {"out/adult.csv", "out/adult.json", "out/adult.html"})
    EXPECT_EQ(slurp(p(f)), "earlier run\n") << f;
  EXPECT_EQ(outputs(), (std::vector<std::string>{"adult.csv", "adult.html", "adult.json"}));
}

TEST_F(SafeOutput, SigtermStopsTheRunWithExit143AndChangesNothing) {
  // An exhaustive search of adult takes over a second: the signal, 300 ms
  // after the CLI has installed its handlers, comes while it runs.
  const std::string job = adult_job("", "adult.yaml");
  {
    std::string text = slurp(job);
    text.replace(text.find("algorithm: auto"), 15, "algorithm: exhaustive");
    std::ofstream(job) << text;
  }
  write("out/adult.csv", "earlier run\n");
  const auto t0 = std::chrono::steady_clock::now();
  const int code = run({"-q", "--threads", "1", "anonymize", job}, 0, 300);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (code == 0) GTEST_SKIP() << "the run finished before the signal (" << ms << " ms)";
  EXPECT_EQ(code, 143) << err_;
  EXPECT_NE(err_.find("interrupted"), std::string::npos) << err_;
  EXPECT_EQ(slurp(p("out/adult.csv")), "earlier run\n");
  EXPECT_EQ(outputs(), std::vector<std::string>{"adult.csv"});
}

TEST_F(SafeOutput, ConcurrentRunsOnOneOutputNeverSpliceIt) {
  // Two jobs with different outputs write the same path at once: the file
  // must be exactly one of the two.
  const std::string j5 = adult_job("", "k5.yaml");
  std::string text = slurp(j5);
  text.replace(text.find("k: 5"), 4, "k: 50");
  std::ofstream(p("k50.yaml")) << text;
  ASSERT_EQ(run({"-q", "anonymize", j5}), 0) << err_;
  const std::string out5 = slurp(p("out/adult.csv"));
  ASSERT_EQ(run({"-q", "anonymize", p("k50.yaml")}), 0) << err_;
  const std::string out50 = slurp(p("out/adult.csv"));
  ASSERT_NE(out5, out50);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> runs;
    std::vector<int> codes(2, -1);
    for (int i = 0; i < 2; ++i)
      runs.emplace_back([&, i] {
        const std::string cmd = std::string("'") + DEID_CLI_PATH + "' -q anonymize '" + (i ? p("k50.yaml") : j5) +
                                "' 2>/dev/null";
        const int status = std::system(cmd.c_str());
        codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      });
    for (auto& t : runs) t.join();
    EXPECT_EQ(codes, (std::vector<int>{0, 0}));
    const std::string now = slurp(p("out/adult.csv"));
    EXPECT_TRUE(now == out5 || now == out50) << "round " << round << ": " << now.size() << " bytes";
    EXPECT_EQ(outputs(), (std::vector<std::string>{"adult.csv", "adult.html", "adult.json"}));
  }
}

TEST_F(SafeOutput, FormulaCellsAreWarnedAboutAndEscapedOnlyWhenAsked) {
  write("data.csv",
        "sex;note;score\n"
        "Male;\"=HYPERLINK(\"\"http://x\"\")\";-5\n"
        "Male;plain;@SUM(1)\n"
        "Female;+1+1;7\n"
        "Female;ok;-3\n");
  write("sex.csv", "Male;*\nFemale;*\n");
  const std::string base =
      "input: {path: data.csv}\n"
      "attributes:\n"
      "  sex: {role: quasi-identifying, hierarchy: sex.csv}\n"
      "default-role: insensitive\n"
      "privacy: [{k-anonymity: {k: 2}}]\n";
  write("plain.yaml", base + "output: {path: out/plain.csv, result: out/plain.json}\n");
  write("escaped.yaml", base + "output: {path: out/escaped.csv, result: out/escaped.json, escape-formulas: true}\n");

  ASSERT_EQ(run({"anonymize", p("plain.yaml")}), 0) << err_;
  EXPECT_NE(err_.find("warning: column 'note': 2 distinct values"), std::string::npos) << err_;
  EXPECT_NE(err_.find("column 'score': 1 distinct value"), std::string::npos) << err_;  // -5, -3 are numbers
  EXPECT_EQ(slurp(p("out/plain.csv")),
            "sex;note;score\nMale;\"=HYPERLINK(\"\"http://x\"\")\";-5\nMale;plain;@SUM(1)\nFemale;+1+1;7\nFemale;ok;-3\n");
  const auto plain = nlohmann::json::parse(slurp(p("out/plain.json")));
  EXPECT_EQ(plain["warnings"].size(), 2u);

  ASSERT_EQ(run({"anonymize", p("escaped.yaml")}), 0) << err_;
  EXPECT_EQ(err_.find("warning"), std::string::npos) << err_;
  EXPECT_EQ(slurp(p("out/escaped.csv")),
            "sex;note;score\nMale;\"'=HYPERLINK(\"\"http://x\"\")\";-5\nMale;plain;'@SUM(1)\nFemale;'+1+1;7\nFemale;ok;-3\n");

  // deid risk warns too (text, JSON).
  ASSERT_EQ(run({"risk", p("plain.yaml"), "--json", p("out/risk.json")}), 0) << err_;
  EXPECT_NE(slurp(p("stdout")).find("Warning: column 'note'"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(slurp(p("out/risk.json")))["warnings"].size(), 2u);
}

TEST_F(SafeOutput, HierarchyToAFullDeviceOrAClosedStdoutIsExitTwo) {
  EXPECT_EQ(run({"hierarchy", "masking", "--values", "12345,12399", "-o", "/dev/full"}), 2);
  EXPECT_NE(err_.find("No space left on device"), std::string::npos) << err_;
  const std::string cmd = std::string("'") + DEID_CLI_PATH + "' hierarchy masking --values 12345 > /dev/full 2>/dev/null";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace
