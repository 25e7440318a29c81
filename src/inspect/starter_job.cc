// The starter job (`deid inspect --job FILE`): a commented job file
// (docs/job-file.md) with the suggested roles, an inline hierarchy builder
// per quasi-identifier chosen from its type, and k-anonymity, each with its
// reason. It must run as it is, so every builder is one that accepts every
// value of the column:
//  - intervals for numbers, only when every cell is a number (the builder
//    refuses anything else); ages top-coded at 90 (Safe Harbor);
//  - dates (day, month, year, decade) for ISO dates, only when every cell is
//    one; released at the year or coarser (Safe Harbor keeps the year);
//  - masking for codes with digits (ZIP codes keep at most three digits),
//    for other date formats (masked to the year) and for numbers or dates
//    with empty or non-conforming cells;
//  - for categories (codes without digits, at most 100): every value or all
//    of them (a grouping with one group), since nothing says which values
//    are near each other.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "deid/inspect.h"
#include "inspect/detectors.h"
#include "inspect/profile.h"

namespace deid {
namespace {

// A YAML scalar: plain when it is safely plain, else double-quoted (a JSON
// string is a valid YAML double-quoted scalar).
std::string yaml_scalar(const std::string& s) {
  static const char* const kWords[] = {"y", "n", "yes", "no", "true", "false", "on", "off", "null", "~"};
  bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/');
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* w : kWords) plain = plain && lower != w;
  return plain ? s : nlohmann::json(s).dump();
}

std::string num(double x) { return fmt::format("{:.12g}", x); }

// The smallest of 1, 2, 5 times a power of ten that is at least x.
double nice(double x) {
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10 * p;
}

struct Choice {
  std::string hierarchy;  // the flow mapping
  std::string extra;      // ", min-level: N" or ""
  std::string why;        // the comment
};

Choice intervals(const ColumnProfile& p) {
  const bool age = inspect_detail::is_age_name(p.name) && p.type != ValueType::date;
  const bool top = age && p.range.max > 89;
  const double lo = p.range.min, hi = top ? 89.0 : p.range.max;
  const double span = std::max(hi - lo, 1.0);
  double base = nice(span / 8);
  if (p.type == ValueType::integer || p.type == ValueType::date) base = std::max(base, 1.0);
  const double min = std::floor(lo / base) * base;
  std::vector<double> widths{base};
  while (widths.back() * 2 < hi - min) widths.push_back(widths.back() * 2);
  const double max = top ? 90.0 : min + base * (std::floor((hi - min) / base) + 1);
  std::string w;
  for (double x : widths) w += (w.empty() ? "" : ", ") + num(x);
  Choice c;
  c.hierarchy = fmt::format("{{type: intervals, min: {}, max: {}, widths: [{}]{}}}", num(min), num(max), w,
                            top ? ", top-coding: true" : "");
  c.why = fmt::format("intervals of {} from {} (values {} to {})", w, num(min), num(p.range.min), num(p.range.max));
  if (top) {
    c.extra = ", min-level: 1";
    c.why += "; ages over 89 become >=90 on every released level (Safe Harbor), hence min-level 1";
  }
  return c;
}

Choice masking(const std::string& why) {
  Choice c;
  c.hierarchy = "{type: masking}";
  c.why = why;
  return c;
}

Choice choose(const ColumnProfile& p) {
  const bool clean = p.non_conforming == 0 && p.missing == 0;
  const std::string unclean =
      fmt::format("{} empty and {} non-conforming cells, which ", p.missing, p.non_conforming);
  if (p.type == ValueType::date && p.date_format != "%Y") {
    if (p.date_format == "%Y-%m-%d" && clean)
      return {"{type: dates}", ", min-level: 2",
              "dates: day, month, year, decade; min-level 2 releases the year or coarser (Safe Harbor)"};
    const bool iso = p.date_format == "%Y-%m-%d";
    Choice c;
    c.hierarchy = iso ? "{type: masking, levels: 6}" : "{type: masking, from-left: true, levels: 6}";
    c.extra = ", min-level: 5";
    c.why = iso ? unclean + "the dates builder refuses: masked from the right, min-level 5 keeps the year at most"
                : fmt::format("dates {} (the dates builder takes ISO dates only): masked from the left, min-level 5 "
                              "keeps the year at most",
                              p.date_format);
    return c;
  }
  if (p.type == ValueType::integer || p.type == ValueType::decimal || p.type == ValueType::date) {
    if (clean && p.range.valid) return intervals(p);
    return masking(unclean + "the intervals builder refuses: masked from the right; clean them to use intervals");
  }
  bool zip = false;
  for (const IdentifierFinding& f : p.findings) zip = zip || inspect_detail::is_zip_finding(f);
  if (zip) {
    // Masked from the right, the longest value keeps its first three
    // characters at level (length - 3): "12345" at 2, "12345-6789" at 7.
    const std::size_t level = p.max_length > 3 ? p.max_length - 3 : 0;
    Choice c = masking(fmt::format("ZIP codes masked digit by digit; min-level {} keeps at most the first three digits "
                                   "(Safe Harbor, where those cover more than 20,000 people; otherwise use 000)",
                                   level));
    c.extra = fmt::format(", min-level: {}", level);
    return c;
  }
  if (p.has_digits_in_codes || p.categories.empty())
    return masking(p.has_digits_in_codes ? "codes masked character by character from the right (the prefix of a "
                                              "code is usually its broader group)"
                                            : "more than 100 categories: masked from the right");
  std::string order;
  for (const std::string& v : p.categories) order += (order.empty() ? "" : ", ") + yaml_scalar(v);
  return {fmt::format("{{type: grouping, order: [{}], sizes: [{}]}}", order, p.categories.size()), "",
          "categories with no order known: each value, or all of them together"};
}

// The job's input section (docs/job-file.md, docs/databases.md), or a
// comment when the table is given beside the job.
std::string input_section(const Inspection& in, const StarterInput& input) {
  if (input.postgres) {
    const PostgresTable& t = *input.postgres;
    std::string y = "input:\n  postgres:\n";
    if (!t.connection.empty())
      y += fmt::format("    # without a password: libpq finds it in ~/.pgpass or PGPASSWORD\n"
                       "    connection: {}\n",
                       nlohmann::json(t.connection).dump());
    else
      y += "    # no connection: libpq's defaults (the PG* environment variables)\n";
    if (!t.schema.empty()) y += fmt::format("    schema: {}\n", yaml_scalar(t.schema));
    if (!t.query.empty())
      y += fmt::format("    query: {}\n", nlohmann::json(t.query).dump());
    else
      y += fmt::format("    table: {}\n", yaml_scalar(t.table));
    return y;
  }
  if (!input.path.empty())
    return fmt::format("input:\n  path: {}\n  delimiter: {}\n", yaml_scalar(input.path),
                       nlohmann::json(std::string(1, in.delimiter)).dump());
  return "# No input: the table is given beside the job (deid.anonymize(data, job) in Python).\n";
}

}  // namespace

std::string starter_job(const Inspection& in, const std::string& input_path, const std::string& output_stem) {
  StarterInput input;
  input.path = input_path;
  return starter_job(in, input, output_stem);
}

std::string starter_job(const Inspection& in, const StarterInput& input, const std::string& output_stem) {
  std::string source = in.source;  // in a comment: a line break in a name would end it
  std::replace_if(source.begin(), source.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  std::string y;
  y += fmt::format("# Starter job written by `deid inspect` for {} ({} records, {} columns).\n", source, in.records,
                   in.columns.size());
  y += "# Every choice below is a suggestion with its reason (docs/inspect.md): review the\n";
  y += input.path.empty() && !input.postgres ? "# roles before a release.\n"
                                             : "# roles before a release. Run it with: deid anonymize THIS-FILE\n";
  y += input_section(in, input);
  y += "attributes:\n";
  for (const ColumnProfile& p : in.columns) {
    y += fmt::format("  # {}\n", p.reason);
    if (p.role != SuggestedRole::quasi_identifying) {
      y += fmt::format("  {}: {{role: {}}}\n", yaml_scalar(p.name), role_name(p.role));
      continue;
    }
    const Choice c = choose(p);
    y += fmt::format("  # hierarchy: {}\n", c.why);
    y += fmt::format("  {}: {{role: quasi-identifying{}, hierarchy: {}}}\n", yaml_scalar(p.name), c.extra, c.hierarchy);
  }
  const int k = in.records >= 50 ? 5 : 2;
  y += "privacy:\n";
  if (k == 5)
    y += "  # k-anonymity: every record shares its quasi-identifiers with at least k - 1 others. k = 5 is a\n"
         "  # common choice for a release to known recipients under a data use agreement; raise it\n"
         "  # (e.g. to 11) for a wider release.\n";
  else
    y += fmt::format("  # k-anonymity with k = 2 only because the table has {} records; a real release needs\n"
                     "  # more records and a larger k (5 or more).\n",
                     in.records);
  if (in.quasi_identifiers.empty())
    y += "  # No column was suggested as quasi-identifying: give at least one a hierarchy and\n"
         "  # role: quasi-identifying before running this job.\n";
  y += fmt::format("  - k-anonymity: {{k: {}}}\n", k);
  y += "# Up to 5 % of the records may be suppressed instead of generalizing every record further.\n"
       "suppression-limit: 0.05\n";
  y += "# Information loss as ARX's Loss model measures it.\nquality: {model: loss}\n";
  if (!output_stem.empty())
    y += fmt::format("output:\n  path: {}\n  result: {}\n", yaml_scalar(output_stem + "-deid.csv"),
                     yaml_scalar(output_stem + "-deid.json"));
  return y;
}

}  // namespace deid
