// The job file's entry points (include/deid/job.h): the YAML is loaded
// here and each section is handed to its parser (sections.h), in an order
// that fixes which error a job with several reports first.
#include "deid/job.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "deid/error.h"
#include "job/sections.h"

namespace deid {

const char* to_string(Role role) {
  switch (role) {
    case Role::identifying: return "identifying";
    case Role::quasi_identifying: return "quasi-identifying";
    case Role::sensitive: return "sensitive";
    case Role::insensitive: return "insensitive";
  }
  return "?";
}

const char* to_string(Aggregate a) {
  switch (a) {
    case Aggregate::geometric_mean: return "geometric-mean";
    case Aggregate::arithmetic_mean: return "arithmetic-mean";
    case Aggregate::sum: return "sum";
    case Aggregate::max: return "max";
  }
  return "?";
}

const char* to_string(AggregationFunction f) {
  switch (f) {
    case AggregationFunction::mean: return "mean";
    case AggregationFunction::median: return "median";
    case AggregationFunction::mode: return "mode";
    case AggregationFunction::geometric_mean: return "geometric-mean";
    case AggregationFunction::interval: return "interval";
  }
  return "?";
}

const char* to_string(SearchSpec::Algorithm a) {
  switch (a) {
    case SearchSpec::Algorithm::automatic: return "auto";
    case SearchSpec::Algorithm::exhaustive: return "exhaustive";
    case SearchSpec::Algorithm::optimal: return "optimal";
    case SearchSpec::Algorithm::best_first: return "best-first";
    case SearchSpec::Algorithm::bottom_up: return "bottom-up";
    case SearchSpec::Algorithm::top_down: return "top-down";
    case SearchSpec::Algorithm::genetic: return "genetic";
    case SearchSpec::Algorithm::safepub: return "safepub";
  }
  return "?";
}

const char* to_string(PostgresTable::Mode mode) {
  switch (mode) {
    case PostgresTable::Mode::create: return "create";
    case PostgresTable::Mode::replace: return "replace";
    case PostgresTable::Mode::append: return "append";
  }
  return "?";
}

TableFormat table_format_of(std::string_view path) {
  constexpr std::string_view suffix = ".parquet";
  if (path.size() <= suffix.size()) return TableFormat::csv;
  const std::string_view end = path.substr(path.size() - suffix.size());
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(end[i])) != suffix[i]) return TableFormat::csv;
  return TableFormat::parquet;
}

void Job::Input::use_file(const std::string& file) {
  path = file;
  format = table_format_of(file);
  postgres.reset();
  table.clear();
}

void Job::Output::use_file(const std::string& file) {
  path = file;
  format = table_format_of(file);
  postgres.reset();
  table.clear();
  table_mode = "create";
}

const AttributeSpec* Job::attribute(const std::string& name) const {
  for (const auto& a : attributes)
    if (a.name == name) return &a;
  return nullptr;
}

namespace job_parse {
namespace {

Job parse(const Ctx& ctx, const YAML::Node& root) {
  Job job;
  job.path = ctx.file;
  job.base_dir = ctx.base_dir;
  if (!root || root.IsNull()) throw JobError(Location{ctx.file, 0, 0, {}}, "the job file is empty");
  ctx.keys(root, "the job", Section::job);
  parse_input(ctx, root, job);
  parse_attributes(ctx, root, job);
  parse_privacy(ctx, root, job);
  // Every command works on the quasi-identifiers; default-role cannot be
  // quasi-identifying, so they are those listed.
  if (std::none_of(job.attributes.begin(), job.attributes.end(),
                   [](const AttributeSpec& a) { return a.role == Role::quasi_identifying; })) {
    YAML::Node at = root;  // the key 'attributes' when there is one
    // reset(), not operator=: assigning to a Node writes into the node it
    // shares with root and rewrote root while it was iterated (a
    // heap-use-after-free found by fuzz_job).
    for (const auto& kv : root)
      if (kv.first.as<std::string>() == "attributes") at.reset(kv.first);
    ctx.fail(at, "the job has no quasi-identifying attribute: list at least one under 'attributes' with role: "
                 "quasi-identifying (and a hierarchy)");
  }

  if (root["suppression-limit"]) job.suppression_limit = ctx.fraction(root["suppression-limit"], "suppression-limit");
  parse_cost_benefit(ctx, root, job);
  parse_quality(ctx, root, job);
  parse_utility(ctx, root, job);
  parse_search(ctx, root, job);
  parse_output(ctx, root, job);
  parse_risk(ctx, root, job);
  parse_linked(ctx, root, job);
  parse_identifiers(ctx, root, job);
  parse_cell_suppression(ctx, root, job);
  parse_subset(ctx, root, job);
  // (First: differential privacy refuses those models whatever the subset.)
  check_differential_privacy(ctx, root, job);
  check_research_subset(ctx, root, job);
  share_cost_benefit(ctx, root, job);
  parse_local_recoding(ctx, root, job);
  return job;
}

}  // namespace
}  // namespace job_parse

Job parse_job(const std::string& text, const std::string& name, const std::string& base_dir,
              const std::vector<HierarchyOverride>& hierarchies) {
  const job_parse::Ctx ctx{name, base_dir, &hierarchies};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw JobError(Location{name, static_cast<std::uint64_t>(e.mark.line + 1),
                            static_cast<std::uint64_t>(e.mark.column + 1), {}},
                   job_parse::yaml_problem(e));
  }
  try {
    return job_parse::parse(ctx, root);
  } catch (const YAML::Exception& e) {
    throw JobError(Location{name, static_cast<std::uint64_t>(e.mark.line + 1), 0, {}}, "invalid job: " + e.msg);
  }
}

Job read_job(const std::string& path, const std::vector<HierarchyOverride>& hierarchies) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(Location{path, 0, 0, {}}, "cannot open the job file");
  // Read in pieces up to a bound: a job is a few kilobytes, and a path such
  // as /dev/zero must end in an error, not in reading until memory runs out.
  constexpr std::size_t kMaxJobBytes = std::size_t{8} << 20;
  std::string text;
  char piece[65536];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    const std::string_view got(piece, static_cast<std::size_t>(in.gcount()));
    if (const std::size_t nul = got.find('\0'); nul != std::string_view::npos)
      throw JobError(Location{path, static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n') +
                                                               std::count(got.begin(), got.begin() + nul, '\n') + 1),
                              0, {}},
                     "the job file is not text (a NUL byte): a job is a YAML file");
    text.append(got);
    if (text.size() > kMaxJobBytes)
      throw JobError(Location{path, 0, 0, {}},
                     fmt::format("the job file is larger than {} MiB: a job is a YAML file of a few kilobytes",
                                 kMaxJobBytes >> 20));
  }
  if (in.bad()) throw IoError(Location{path, 0, 0, {}}, "cannot read the job file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_job(text, path, dir, hierarchies);
}

}  // namespace deid
