// The HTML report of `deid inspect --report` (docs/inspect.md): the
// inspection as to_json of deid/inspect.h writes it, and the starter job's
// text, on one self-contained page. It reads only those two, so the page,
// `--json` and `--job` never disagree; every value from the data (column
// names, non-conforming values, evidence) is escaped.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "deid/report.h"
#include "report/html.h"

namespace deid {
namespace {

using html::Bar;
using html::esc;
using html::pct;
using nlohmann::json;

// The combinations charted and listed.
constexpr std::size_t kShown = 10;

std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::uint64_t count(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

const json& array(const json& j, const char* key) {
  static const json empty = json::array();
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

// At most `max` bytes of `s`, cut at a UTF-8 character's start, with "…"
// when cut: a chart label that fits its margin.
std::string shorten(const std::string& s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end) + "\u2026";
}

std::string joined(const json& names) {
  std::string out;
  for (const json& n : names)
    if (n.is_string()) out += (out.empty() ? "" : ", ") + n.get<std::string>();
  return out;
}

std::string columns_section(const json& in) {
  std::string h = "<h2>Columns</h2>\n<table id=\"columns\"><tr><th>Column</th><th>Type</th><th>Distinct</th>"
                  "<th>Missing</th><th>Uniqueness</th><th>Non-conforming</th><th>Suggested role</th></tr>\n";
  for (const json& c : array(in, "columns")) {
    std::string type = esc(str(c, "type"));
    if (!str(c, "date_format").empty()) type += fmt::format(" <code>{}</code>", esc(str(c, "date_format")));
    if (c.contains("range") && c["range"].is_object())
      type += fmt::format(" <span class=\"note\">({:.12g} to {:.12g})</span>", num(c["range"], "min"),
                          num(c["range"], "max"));
    std::string bad = fmt::format("{}", count(c, "non_conforming"));
    std::string examples;
    for (const json& e : array(c, "non_conforming_examples"))
      examples += fmt::format("{}<code>{}</code> (line {}, {}&times;)", examples.empty() ? "" : ", ",
                              esc(str(e, "value")), count(e, "line"), count(e, "count"));
    if (!examples.empty()) bad += ": " + examples;
    h += fmt::format("<tr><th>{}</th><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                     "<td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
                     esc(str(c, "name")), type, count(c, "distinct"), count(c, "missing"), pct(num(c, "uniqueness")),
                     bad, esc(str(c, "role")));
  }
  h += "</table>\n";
  // Uniqueness per column: the columns that single records out.
  std::vector<std::string> labels;
  std::vector<Bar> bars;
  for (const json& c : array(in, "columns")) {
    labels.push_back(shorten(str(c, "name"), 24));
    bars.push_back({num(c, "uniqueness"), pct(num(c, "uniqueness"))});
  }
  if (html::max_value({bars}) > 0)
    h += html::bar_chart("column-uniqueness", "Uniqueness per column (share of cells no other cell holds)", labels,
                         {bars}, {}, 1.0);
  return h;
}

std::string identifiers_section(const json& in) {
  std::string rows;
  for (const json& c : array(in, "columns"))
    for (const json& f : array(c, "identifiers")) {
      std::string lines;
      for (const json& l : array(f, "lines")) lines += (lines.empty() ? "" : ", ") + l.dump();
      if (f.contains("cells")) lines = fmt::format("{} cells{}{}", count(f, "cells"), lines.empty() ? "" : "; lines ", lines);
      rows += fmt::format("<tr><th>{}</th><td>({}) {}</td><td>{}</td><td class=\"num\">{:.0f} %</td><td>{}</td>"
                          "<td>{}</td></tr>\n",
                          esc(str(c, "name")), esc(str(f, "hipaa")), esc(str(f, "type")), esc(str(f, "method")),
                          100 * num(f, "confidence"), esc(str(f, "evidence")), lines.empty() ? "-" : lines);
    }
  std::string h = "<h2>HIPAA Safe Harbor identifiers found</h2>\n";
  if (rows.empty()) return h + "<p id=\"identifiers\">No column shows an identifier.</p>\n";
  return h + "<table id=\"identifiers\"><tr><th>Column</th><th>Identifier (45 CFR 164.514(b)(2)(i))</th>"
             "<th>Found by</th><th>Confidence</th><th>Evidence</th><th>Matching cells and first lines</th></tr>\n" +
         rows + "</table>\n<p class=\"note\">Lines are lines of the file, the header being line 1.</p>\n";
}

std::string roles_section(const json& in) {
  std::string h = "<h2>Suggested roles</h2>\n<table id=\"roles\"><tr><th>Column</th><th>Role</th><th>Reason</th></tr>\n";
  for (const json& c : array(in, "columns"))
    h += fmt::format("<tr><th>{}</th><td>{}</td><td>{}</td></tr>\n", esc(str(c, "name")), esc(str(c, "role")),
                     esc(str(c, "reason")));
  return h + "</table>\n";
}

std::string combinations_section(const json& in) {
  const json& combos = array(in, "combinations");
  std::string h = "<h2>Most identifying combinations of quasi-identifiers</h2>\n";
  const std::string qis = joined(array(in, "quasi_identifiers"));
  if (combos.empty())
    return h + "<p id=\"no-combinations\">No column was suggested as quasi-identifying: there is no combination "
               "to measure.</p>\n";
  const std::size_t shown = std::min(combos.size(), kShown);
  h += fmt::format("<p>{} combinations of 1 to {} of the suggested quasi-identifiers ({}) were measured; the {} most "
                   "unique are shown. <i>Distinction</i> is classes / records (1: the combination is a key), "
                   "<i>separation</i> the share of pairs of records that differ on it.</p>\n",
                   combos.size(), static_cast<int>(num(in, "max_combination_size")), esc(qis), shown);
  std::vector<std::string> labels;
  std::vector<Bar> distinction, separation;
  std::string table = "<table id=\"combinations-table\"><tr><th>Columns</th><th>Unique records</th><th>Classes</th>"
                      "<th>Distinction</th><th>Separation</th></tr>\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const json& c = combos[i];
    const std::string names = joined(array(c, "columns"));
    labels.push_back(shorten(names, 26));
    distinction.push_back({num(c, "distinction"), fmt::format("{:.4f}", num(c, "distinction"))});
    separation.push_back({num(c, "separation"), fmt::format("{:.4f}", num(c, "separation"))});
    table += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.6f}"
                         "</td><td class=\"num\">{:.6f}</td></tr>\n",
                         esc(names), count(c, "unique_records"), count(c, "classes"), num(c, "distinction"),
                         num(c, "separation"));
  }
  if (html::max_value({distinction, separation}) > 0)
    h += html::bar_chart("combinations", "Distinction and separation of the most identifying combinations", labels,
                         {distinction, separation}, {"distinction", "separation"}, 1.0);
  return h + table + "</table>\n";
}

}  // namespace

std::string render_html_inspection_report(const json& in, const std::string& starter_job) {
  std::string h = html::page_begin("Inspection of " + str(in, "source"));
  h += fmt::format("<p>Table <code>{}</code>: {} records, {} columns, delimiter <code>{}</code>. Every finding is a "
                   "suggestion with its reason: review the roles before a release.</p>\n",
                   esc(str(in, "source")), count(in, "records"), array(in, "columns").size(),
                   esc(str(in, "delimiter") == "\t" ? std::string("\\t") : str(in, "delimiter")));
  h += columns_section(in);
  h += identifiers_section(in);
  h += roles_section(in);
  h += combinations_section(in);
  h += "<h2>Starter job</h2>\n<p>The job <code>deid inspect --job</code> writes from these suggestions; "
       "<code>deid anonymize</code> runs it as it is.</p>\n<pre id=\"starter-job\"><code>" +
       esc(starter_job) + "</code></pre>\n";
  h += html::page_end();
  return h;
}

}  // namespace deid
