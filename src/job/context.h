// What every section parser of the job file shares (internal to src/job/):
// the parsing context `Ctx`, which names the job file in every message and
// reads scalars (strings, paths, numbers, choices, durations) with the
// checks and messages common to all sections. Every failure throws JobError
// with the file, line and column of the offending node.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "deid/job.h"
#include "job/keys.h"

namespace deid::job_parse {

// The largest count a job may ask for (k, l, max-checks, ...): larger values
// are typos, and casting them to 64-bit integers would overflow.
inline constexpr double kMaxCount = 1e18;
// The largest population size: a hundred times the world's population. The
// estimators of population uniqueness give no meaningful answer beyond.
inline constexpr double kMaxPopulation = 1e12;

// The message for YAML that yaml-cpp could not load.
std::string yaml_problem(const YAML::Exception& e);

// The 1-based line of a node (0 for a node without a mark).
inline std::uint64_t line_of(const YAML::Node& n) { return static_cast<std::uint64_t>(n.Mark().line + 1); }

struct Ctx {
  std::string file;      // names the job in messages
  std::string base_dir;  // relative paths are resolved against it
  // Hierarchies given beside the job (HierarchyOverride); null: none.
  const std::vector<HierarchyOverride>* given = nullptr;

  const HierarchyOverride* given_hierarchy(const std::string& attribute) const;

  [[noreturn]] void fail(const YAML::Node& node, const std::string& msg) const;

  // Rejects keys of `map` that `section` does not allow (keys.h) and keys
  // given twice (yaml-cpp keeps both silently), naming the key and its line;
  // `where` names the mapping in messages ("input", "attribute 'age'").
  void keys(const YAML::Node& map, const std::string& where, Section section) const;

  std::string str(const YAML::Node& n, const std::string& what) const;
  // A decimal number: from_chars, unlike stod, takes no hex, no leading
  // spaces and no locale.
  double num(const YAML::Node& n, const std::string& what) const;
  // A name used as a key (an attribute, a population): a non-empty string.
  std::string name(const YAML::Node& n, const std::string& what) const;
  double fraction(const YAML::Node& n, const std::string& what) const;
  std::uint64_t integer(const YAML::Node& n, const std::string& what, std::uint64_t min,
                        double max = kMaxCount) const;
  // A hierarchy level (cell suppression): an integer that fits an int.
  int level(const YAML::Node& n, const std::string& what) const;
  char delimiter(const YAML::Node& n) const;
  // A path, resolved against base_dir unless absolute.
  std::string path(const YAML::Node& n, const std::string& what) const;
  // A table's location: a path as path(), or a URL (is_url) kept as written.
  std::string location(const YAML::Node& n, const std::string& what) const;
  bool boolean(const YAML::Node& n, const std::string& what) const;
  Role role(const YAML::Node& n) const;
  // "60s", "2m", "1h", "500ms" or a plain number of seconds.
  double duration(const YAML::Node& n) const;

  // One of `options`, by its name; the message lists them in order.
  template <class E>
  E choice(const YAML::Node& n, const std::string& what,
           std::initializer_list<std::pair<const char*, E>> options) const {
    const std::string s = str(n, what);
    std::string list;
    for (const auto& [option, value] : options) {
      if (s == option) return value;
      list += (list.empty() ? "" : ", ") + std::string(option);
    }
    fail(n, fmt::format("{} must be one of {}, got '{}'", what, list, s));
  }
};

}  // namespace deid::job_parse
