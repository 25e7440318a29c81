// libFuzzer target: the job parser, and the job run against a small fixed
// table (docs/fuzzing.md).
//
// Input: the text of a YAML job file. parse_job() reads it with its paths
// resolved against a temporary directory that holds the hierarchy files of
// the fixed table (age.csv, sex.csv, zip.csv, diagnosis.csv, written once
// at start-up). A job that parses is prepared against the fixed table (the
// checks of "does the job fit the data": columns, roles, hierarchies
// covering the values, inline hierarchies built from the values, privacy
// models on their attributes), and when its lattice is small, searched, its
// result built and its HTML report rendered. Jobs that name any other
// hierarchy file are only parsed: the target reads no file but its own.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <variant>

#include "deid/dataset.h"
#include "deid/differential_privacy.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/pipeline.h"
#include "deid/report.h"
#include "fuzz_common.h"

namespace {

constexpr const char kData[] =
    "name,age,sex,zip,diagnosis,income,admitted\n"
    "Ann,34,F,81675,flu,low,2019-03-02\n"
    "Bob,45,M,81667,asthma,high,2019-11-30\n"
    "Cy,29,F,81925,flu,middle,2020-02-29\n"
    "Dee,34,M,81931,diabetes,low,2018-07-14\n"
    "Eve,61,F,81675,asthma,middle,2019-03-02\n"
    "Fay,45,F,81667,flu,high,2021-12-31\n"
    "Gus,29,M,81925,diabetes,low,2019-11-30\n"
    "Hal,61,M,81931,flu,middle,2020-01-01\n";

constexpr std::pair<const char*, const char*> kHierarchies[] = {
    {"age.csv", "29;20-39;*\n34;20-39;*\n45;40-59;*\n61;60-79;*\n70;60-79;*\n"},
    {"sex.csv", "F;*\nM;*\n"},
    {"zip.csv", "81675;8167*;816**;*\n81667;8166*;816**;*\n81925;8192*;819**;*\n81931;8193*;819**;*\n"},
    {"diagnosis.csv", "flu;respiratory;*\nasthma;respiratory;*\ndiabetes;metabolic;*\n"},
    // A research subset (job `subset: {file: subset.csv}`): two records of kData.
    {"subset.csv", "name,age,sex,zip,diagnosis,income,admitted\nAnn,34,F,81675,flu,low,2019-03-02\n"
                   "Eve,61,F,81675,asthma,middle,2019-03-02\n"},
};

// Lattices up to this size are searched (a few milliseconds each).
constexpr std::uint64_t kMaxLattice = 512;
// Differential privacy's parameters are computed up to this work (about
// 0.1 s here, under sanitizers; deid::kDpMaxWork is a minute).
constexpr std::uint64_t kMaxDpWork = 5'000'000;

struct Fixture {
  std::string dir;
  std::set<std::string> files;  // resolved as parse_job resolves them
  ~Fixture() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

Fixture& fixture() {
  static Fixture f = [] {
    Fixture fx;
    std::string tmpl = (std::filesystem::temp_directory_path() / "deid-fuzz-job-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) deid_fuzz::fuzz_fail("cannot create a temporary directory");
    fx.dir = tmpl;
    for (const auto& [name, text] : kHierarchies) {
      const auto path = (std::filesystem::path(fx.dir) / name).lexically_normal();
      std::ofstream(path, std::ios::binary) << text;
      fx.files.insert(path.string());
    }
    return fx;
  }();
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  deid_fuzz::single_thread();
  fixture();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Fixture& fx = fixture();
  const std::string text(reinterpret_cast<const char*>(data), size);
  deid::Job job;
  try {
    job = deid::parse_job(text, "job.yaml", fx.dir);
  } catch (const deid::Error&) {
    return 0;
  }
  for (const auto& a : job.attributes)
    if (!a.hierarchy.empty() && !fx.files.contains(a.hierarchy)) return 0;

  // k and beta of differential privacy take up to a minute for extreme
  // (epsilon, delta) (deid stops there with a JobError): beyond this
  // target's time per input, so such jobs are only parsed.
  for (const deid::PrivacySpec& p : job.privacy)
    if (const auto* dp = std::get_if<deid::DifferentialPrivacySpec>(&p)) {
      try {
        const double epsilon =
            deid::dp_anonymization_epsilon(dp->epsilon, dp->data_dependent() ? dp->search_budget : 0);
        deid::dp_parameters(epsilon, dp->delta, kMaxDpWork);
      } catch (const std::exception&) {
        return 0;
      }
    }

  std::unique_ptr<deid::PreparedJob> prepared;
  try {
    prepared = deid::prepare(job, deid::read_dataset_text(kData, "data.csv", {}));
  } catch (const deid::Error&) {
    return 0;  // the job does not fit the data
  }
  std::uint64_t lattice = 1;
  for (const auto& g : prepared->problem.hierarchies) lattice *= static_cast<std::uint64_t>(g.height());
  if (lattice > kMaxLattice) return 0;
  try {
    const deid::Anonymization result = deid::run_search(*prepared);
    const std::string json = result.result.dump();
    const std::string html = deid::render_html_report(*prepared, result);
  } catch (const deid::Error&) {
  }
  return 0;
}
