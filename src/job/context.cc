#include "job/context.h"

#include <yaml-cpp/depthguard.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>

#include "deid/error.h"
#include "deid/location.h"

namespace deid::job_parse {

// yaml-cpp's depth guard says only "bad file"; a job nested that deep is no
// job (a few levels are).
std::string yaml_problem(const YAML::Exception& e) {
  if (const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&e))
    return fmt::format("invalid YAML: nested more than {} levels deep (a job file needs a few)", deep->depth() - 1);
  return "invalid YAML: " + e.msg;
}

const HierarchyOverride* Ctx::given_hierarchy(const std::string& attribute) const {
  if (given)
    for (const auto& h : *given)
      if (h.attribute == attribute) return &h;
  return nullptr;
}

void Ctx::fail(const YAML::Node& node, const std::string& msg) const {
  const auto m = node.Mark();
  throw JobError(Location{file, m.is_null() ? 0 : static_cast<std::uint64_t>(m.line + 1),
                          m.is_null() ? 0 : static_cast<std::uint64_t>(m.column + 1), {}},
                 msg);
}

void Ctx::keys(const YAML::Node& map, const std::string& where, Section section) const {
  if (!map.IsMap()) fail(map, fmt::format("{} must be a mapping", where));
  const auto& allowed = keys_of(section).keys;
  std::set<std::string> seen;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) fail(kv.first, fmt::format("a key of {} must be a name, not a list or mapping", where));
    const std::string key = kv.first.as<std::string>();
    if (!seen.insert(key).second) fail(kv.first, fmt::format("key '{}' is given twice in {}", key, where));
    bool ok = false;
    for (const auto& a : allowed) ok = ok || key == a;
    if (!ok) {
      std::string list;
      for (const auto& a : allowed) {
        if (!list.empty()) list += ", ";
        list += a;
      }
      fail(kv.first, fmt::format("unknown key '{}' in {} (allowed: {})", key, where, list));
    }
  }
}

std::string Ctx::str(const YAML::Node& n, const std::string& what) const {
  if (!n.IsScalar()) fail(n, fmt::format("{} must be a string", what));
  return n.as<std::string>();
}

double Ctx::num(const YAML::Node& n, const std::string& what) const {
  if (!n.IsScalar()) fail(n, fmt::format("{} must be a number", what));
  const std::string s = n.as<std::string>();
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    fail(n, fmt::format("{} must be a number, got '{}'", what, s));
  return v;
}

std::string Ctx::name(const YAML::Node& n, const std::string& what) const {
  if (!n.IsScalar()) fail(n, fmt::format("{} must be a name, not a list or mapping", what));
  const std::string s = n.as<std::string>();
  if (s.empty()) fail(n, fmt::format("{} must not be empty", what));
  return s;
}

double Ctx::fraction(const YAML::Node& n, const std::string& what) const {
  const double v = num(n, what);
  if (v < 0 || v > 1) fail(n, fmt::format("{} must be in [0, 1], got {}", what, v));
  return v;
}

std::uint64_t Ctx::integer(const YAML::Node& n, const std::string& what, std::uint64_t min, double max) const {
  const double v = num(n, what);
  if (v != std::floor(v) || v < static_cast<double>(min))
    fail(n, fmt::format("{} must be an integer >= {}, got {}", what, min, n.as<std::string>()));
  if (v > max) fail(n, fmt::format("{} must be at most {}, got {}", what, max, n.as<std::string>()));
  return static_cast<std::uint64_t>(v);
}

int Ctx::level(const YAML::Node& n, const std::string& what) const {
  return static_cast<int>(integer(n, what, 0, 1e6));
}

char Ctx::delimiter(const YAML::Node& n) const {
  std::string s = str(n, "delimiter");
  if (s == "\\t" || s == "tab") s.assign(1, '\t');
  if (s.size() != 1 || s == "\"" || s == "\n" || s == "\r")
    fail(n, fmt::format("delimiter must be a single character (or \\t), got '{}'", s));
  return s[0];
}

std::string Ctx::path(const YAML::Node& n, const std::string& what) const {
  const std::string p = str(n, what);
  if (p.empty()) fail(n, fmt::format("{} must not be empty", what));
  std::filesystem::path fp(p);
  if (fp.is_absolute() || base_dir.empty()) return p;
  return (std::filesystem::path(base_dir) / fp).lexically_normal().string();
}

std::string Ctx::location(const YAML::Node& n, const std::string& what) const {
  const std::string p = str(n, what);
  return is_url(p) ? p : path(n, what);
}

bool Ctx::boolean(const YAML::Node& n, const std::string& what) const {
  const std::string b = str(n, what);
  if (b != "true" && b != "false") fail(n, fmt::format("{} must be true or false, got '{}'", what, b));
  return b == "true";
}

Role Ctx::role(const YAML::Node& n) const {
  return choice<Role>(n, "role",
                      {{"identifying", Role::identifying},
                       {"quasi-identifying", Role::quasi_identifying},
                       {"sensitive", Role::sensitive},
                       {"insensitive", Role::insensitive}});
}

double Ctx::duration(const YAML::Node& n) const {
  const std::string s = str(n, "time-limit");
  double scale = 1;
  std::string digits = s;
  auto ends = [&](const char* suffix) {
    const std::string suf(suffix);
    return s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (ends("ms")) { scale = 1e-3; digits = s.substr(0, s.size() - 2); }
  else if (ends("s")) { digits = s.substr(0, s.size() - 1); }
  else if (ends("m")) { scale = 60; digits = s.substr(0, s.size() - 1); }
  else if (ends("h")) { scale = 3600; digits = s.substr(0, s.size() - 1); }
  double v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || !(v > 0) || !std::isfinite(v))
    fail(n, fmt::format("time-limit must be a positive duration such as 60s, 5m, 1h, 500ms or 90 (seconds), "
                        "got '{}'",
                        s));
  // A year is the most a search is worth waiting for; beyond, the value
  // is a typo (and 1e308h would be infinite).
  if (v * scale > 365.0 * 24 * 3600) fail(n, fmt::format("time-limit must be at most a year (8760h), got '{}'", s));
  return v * scale;
}

}  // namespace deid::job_parse
