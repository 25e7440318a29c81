#include "deid/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/html.h"

namespace deid {
namespace {

using html::Bar;
using html::bar_chart;
using html::esc;
using html::pct;

// Share of records per prosecutor-risk band (risk = 1 / class size).
std::vector<Bar> band_profile(const std::vector<std::uint64_t>& class_sizes, std::uint64_t records,
                              const std::vector<std::pair<double, std::string>>& bands) {
  std::vector<double> share(bands.size(), 0.0);
  for (std::uint64_t size : class_sizes) {
    const double risk = 1.0 / static_cast<double>(size);
    for (std::size_t b = 0; b < bands.size(); ++b)
      if (risk <= bands[b].first + 1e-12) {
        share[b] += static_cast<double>(size);
        break;
      }
  }
  std::vector<Bar> out;
  for (std::size_t b = 0; b < bands.size(); ++b) {
    const double s = records ? share[b] / static_cast<double>(records) : 0.0;
    out.push_back({s, pct(s)});
  }
  return out;
}

// The most frequent value of quasi-identifier `q` at its released `level`
// among the records that are not suppressed (the lowest code on ties, so
// the choice does not depend on the order of the classes), followed by the
// labels the hierarchy has above it up to its top: "35-39 → 20-39 → *".
// "none" when every record is suppressed.
std::string released_example(const Generalization& h, int level, const Classes& cls, std::size_t q) {
  if (q >= cls.width || level < 0 || level >= h.height()) return "none";
  std::vector<std::uint64_t> records(h.domain_size(level), 0);
  for (std::size_t c = 0; c < cls.size(); ++c) {
    if (cls.suppressed[c]) continue;
    const std::uint32_t code = cls.keys[c * cls.width + q];
    if (code < records.size()) records[code] += cls.counts[c];
  }
  std::uint32_t shown = 0;
  for (std::uint32_t v = 1; v < records.size(); ++v)
    if (records[v] > records[shown]) shown = v;
  if (records.empty() || records[shown] == 0) return "none";
  // A leaf under the shown value leads to its labels at the coarser levels.
  const auto& to_level = h.map(level);
  std::uint32_t leaf = 0;
  while (leaf < to_level.size() && to_level[leaf] != shown) ++leaf;
  std::string out = h.label(level, shown);
  if (leaf == to_level.size()) return out;
  for (int above = level + 1; above < h.height(); ++above) out += " → " + h.label(above, h.map(above)[leaf]);
  return out;
}


// Local recoding's passes (the result's local_recoding section): each
// pass's levels, records and loss after the global transformation's.
std::string local_recoding_section(const Problem& pr, const CheckResult& global, const nlohmann::json& lr) {
  std::string html = fmt::format(
      "<h2>Local recoding</h2><p>After the global transformation, local recoding ({}, gs-factor {}) searched "
      "the records it suppressed again, pass by pass: <b>{}</b> of {} records were released at a later pass's "
      "levels, {} remain suppressed ({} records show <code>*</code> in every quasi-identifier). Records of "
      "different passes are generalized to different levels, and a record's pass can be read from its labels "
      "(docs/search.md, \"What the release leaks\").</p>\n<table><tr><th>Pass</th><th>Records</th><th>Released"
      "</th><th>Information loss</th>",
      esc(lr["mode"].get<std::string>()), lr["gs_factor"].get<double>(), lr["recoded"].get<std::uint64_t>(),
      lr["suppressed_before"].get<std::uint64_t>(), lr["suppressed_after"].get<std::uint64_t>(),
      lr["starred_records"].get<std::uint64_t>());
  for (const std::string& q : pr.qi_names) html += fmt::format("<th>{}</th>", esc(q));
  html += "</tr>\n";
  html += fmt::format("<tr><td>global</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.6f}"
                      "</td>",
                      pr.rows, pr.rows - lr["suppressed_before"].get<std::uint64_t>(), global.quality.value);
  for (std::size_t q = 0; q < pr.qi_names.size(); ++q)
    html += fmt::format("<td class=\"num\">{}</td>", static_cast<int>(global.transformation[q]));
  html += "</tr>\n";
  for (const auto& pass : lr["passes"]) {
    const bool found = pass["solution_found"].get<bool>();
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                        pass["pass"].get<std::size_t>(), pass["records"].get<std::uint64_t>(),
                        pass["recoded"].get<std::uint64_t>(),
                        found ? fmt::format("{:.6f}", pass["information_loss"].get<double>()) : std::string("none"));
    for (const std::string& q : pr.qi_names)
      html += found ? fmt::format("<td class=\"num\">{}</td>", pass["transformation"][q].get<int>()) : "<td></td>";
    html += "</tr>\n";
  }
  html += fmt::format("</table><p>The release: {} classes, the smallest of {} records.</p>\n",
                      lr["classes"].get<std::uint64_t>(), lr["smallest_class_size"].get<std::uint64_t>());
  return html;
}

}  // namespace

std::string render_html_report(const PreparedJob& p, const Anonymization& a) {
  const Problem& pr = p.problem;
  const Job& job = p.job;
  const auto& r = a.result;
  std::string html = html::page_begin("De-identification report");
  html += fmt::format("<p>Input <code>{}</code>: {} records, {} quasi-identifiers. ", esc(input_name(job)), pr.rows,
                      pr.qi_names.size());
  if (a.found) {
    html += fmt::format("<span class=\"ok\">A solution was found</span>{}.</p>\n",
                        r.value("optimal", false) ? " and proven optimal" : " (not proven optimal)");
  } else if (r["search"].value("stopped_by", nlohmann::json()).is_string()) {
    html += fmt::format("<span class=\"bad\">The search stopped at search.{} before it found a transformation that "
                        "satisfies the job</span>; the job may still be satisfiable.</p>\n",
                        esc(r["search"]["stopped_by"].get<std::string>()));
  } else {
    html += "<span class=\"bad\">No transformation satisfies the job.</span></p>\n";
  }

  // Warnings (cells a spreadsheet would run as formulas).
  if (r.contains("warnings") && !r["warnings"].empty()) {
    html += "<h2>Warnings</h2><ul>\n";
    for (const auto& w : r["warnings"]) html += fmt::format("<li class=\"bad\">{}</li>\n", esc(w.get<std::string>()));
    html += "</ul>\n";
  }

  // The job.
  // Generalization constraints and weights, when the job sets them.
  const bool bounded = !pr.min_levels.empty(), weighted = !pr.weights.empty();
  html += fmt::format("<h2>Job</h2><table><tr><th>Attribute</th><th>Role</th><th>Hierarchy levels</th>{}{}</tr>\n",
                      bounded ? "<th>Levels allowed</th>" : "", weighted ? "<th>Weight</th>" : "");
  for (std::size_t c = 0; c < p.data.columns.size(); ++c) {
    const std::string& name = p.data.columns[c].name;
    std::string levels = "", allowed = "", weight = "";
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q)
      if (pr.qi_names[q] == name) {
        levels = std::to_string(pr.hierarchies[q].height());
        if (bounded) allowed = fmt::format("{} to {}", pr.min_levels[q], pr.max_levels[q]);
        if (weighted) weight = fmt::format("{:.4g}", pr.weights[q]);
      }
    html += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td>{}{}</tr>\n", esc(name),
                        to_string(p.roles[c]), levels,
                        bounded ? fmt::format("<td class=\"num\">{}</td>", allowed) : "",
                        weighted ? fmt::format("<td class=\"num\">{}</td>", weight) : "");
  }
  html += "</table><table>";
  std::string models;
  for (const auto& m : pr.privacy) models += fmt::format("{}{}", models.empty() ? "" : ", ", m->describe());
  html += fmt::format("<tr><th>Privacy models</th><td>{}</td></tr>", esc(models));
  html += fmt::format("<tr><th>Suppression limit</th><td>{} ({} records)</td></tr>", pct(job.suppression_limit),
                      pr.max_suppressed);
  html += fmt::format("<tr><th>Quality model</th><td>{}</td></tr>", esc(pr.quality->describe()));
  html += fmt::format("<tr><th>Search</th><td>{}: {} of {} transformations checked</td></tr></table>\n",
                      esc(r["search"].value("algorithm", "")), r["search"].value("transformations_checked", 0ull),
                      esc(r["search"]["lattice_size"].dump()));

  // What became of the identifying columns, and the linked tables
  // (docs/identifiers.md): actions and counts, never a value.
  if (r.contains("identifiers") && r["identifiers"].is_object()) {
    const auto& ids = r["identifiers"];
    html += "<h2>Released identifiers</h2><table><tr><th>Column</th><th>Released as</th></tr>\n";
    for (const auto& c : ids["columns"])
      html += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", esc(c.value("name", "")), esc(c.value("action", "")));
    html += "</table>";
    if (ids["secret_fingerprint"].is_string())
      html += fmt::format("<p>Keyed with the secret of fingerprint <code>{}</code>{}.</p>\n",
                          esc(ids["secret_fingerprint"].get<std::string>()),
                          ids.contains("date_shift")
                              ? fmt::format("; dates moved by up to {} days per person (<code>{}</code>)",
                                            ids["date_shift"].value("days", 0),
                                            esc(ids["date_shift"].value("person", "")))
                              : std::string());
  }
  if (r.contains("linked") && r["linked"].is_array()) {
    html += "<h2>Linked tables</h2><p>Joined to the released table by the person column; the privacy models judge "
            "the released table only.</p><table><tr><th>Table</th><th>Rows</th><th>Released</th><th>Of suppressed "
            "people</th><th>Dropped</th><th>Columns</th></tr>\n";
    for (const auto& l : r["linked"]) {
      std::string columns;
      for (const auto& c : l["columns"]) {
        std::string as = c.value("released_as", "");
        if (as == "generalized") as = fmt::format("like {}, level {}", c.value("as", ""), c.value("level", 0));
        columns += fmt::format("{}{}: {}", columns.empty() ? "" : "; ", c.value("name", ""), as);
      }
      const auto& dropped = l["dropped_rows"];
      html += fmt::format(
          "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} ({})</td>"
          "<td class=\"num\">{} suppressed, {} orphans</td><td>{}</td></tr>\n",
          esc(l.value("name", "")), l.value("rows", 0ull), l.value("released_rows", 0ull),
          l.value("suppressed_rows", 0ull), esc(l.value("suppressed", "")), dropped.value("suppressed", 0ull),
          dropped.value("orphans", 0ull), esc(columns));
    }
    html += "</table>\n";
  }

  if (a.found) {
    const CheckResult& best = *a.search.best;
    const Classes& cls = *a.classes;
    // The example shows only what the release itself shows: the attribute's
    // most frequent released value (over the records not suppressed) and
    // the hierarchy's labels above it. An input value beside it would undo
    // the generalization of the records that had it (docs/reliability.md).
    html += "<h2>Transformation</h2><p>Example: each quasi-identifier's most frequent released value, then the "
            "coarser labels its hierarchy has above it.</p><table><tr><th>Quasi-identifier</th><th>Level</th>"
            "<th>Example</th><th>Information loss</th></tr>\n";
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
      const auto& h = pr.hierarchies[q];
      const std::string loss =
          q < best.quality.per_attribute.size() ? fmt::format("{:.4f}", best.quality.per_attribute[q]) : "";
      html += fmt::format("<tr><td>{}</td><td class=\"num\">{} of {}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
                          esc(pr.qi_names[q]), static_cast<int>(best.transformation[q]), h.height() - 1,
                          esc(released_example(h, best.transformation[q], cls, q)), loss);
    }
    html += fmt::format("</table><p>Information loss <b>{:.6f}</b> ({}); {} records suppressed; {} classes, the "
                        "smallest of {} records{}.</p>\n",
                        best.quality.value, esc(pr.quality->name()), best.suppressed_records,
                        r.value("classes", 0ull), r.value("smallest_class_size", 0ull),
                        a.local ? " (the global transformation's, before local recoding)" : "");
    if (a.local && r.contains("local_recoding")) html += local_recoding_section(pr, best, r["local_recoding"]);

    // Comparison with the other solutions found (result.search.best_solutions,
    // best first: the chosen transformation leads).
    if (r["search"].contains("best_solutions") && r["search"]["best_solutions"].size() > 1) {
      std::vector<std::string> labels;
      std::vector<Bar> loss;
      html += "<h2>Best solutions found</h2><p>The solutions with the least information loss among the "
              "transformations the search checked, best first; the first is the one chosen.</p>"
              "<table><tr><th>#</th><th>Transformation</th><th>Information loss</th><th>Suppressed records</th></tr>\n";
      for (const auto& s : r["search"]["best_solutions"]) {
        std::string lv;
        for (const auto& [name, level] : s["transformation"].items())
          lv += fmt::format("{}{}={}", lv.empty() ? "" : ", ", name, level.get<int>());
        const double v = s["information_loss"].get<double>();
        const auto sup = s["suppressed_records"].get<std::uint64_t>();
        labels.push_back(fmt::format("#{}", labels.size() + 1));
        loss.push_back({v, fmt::format("{:.4f}", v)});
        html += fmt::format("<tr{}><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{:.6f}</td>"
                            "<td class=\"num\">{}</td></tr>\n",
                            labels.size() == 1 ? " class=\"chosen\"" : "", labels.size(), esc(lv), v, sup);
      }
      html += "</table>\n";
      html += bar_chart("solutions", "Information loss of the best solutions found (#1 chosen)", labels, {loss},
                        {"loss"}, std::max(html::max_value({loss}), 1e-12));
    }

    // The risk-utility frontier (result.search.frontier, by increasing loss).
    if (r["search"].contains("frontier") && !r["search"]["frontier"].empty()) {
      const nlohmann::json& frontier = r["search"]["frontier"];
      const std::size_t total = r["search"].value("frontier_size", frontier.size());
      html += fmt::format(
          "<h2>Risk-utility frontier</h2><p>Of the solutions the search checked, those that no other beats in "
          "both information loss and average re-identification risk (prosecutor model: the released classes / "
          "the released records; highest: 1 / the smallest class), by increasing loss. {}Release another one "
          "with <code>deid anonymize JOB --transformation ...</code>; a pruning search checks few solutions far "
          "from the optimum (<code>search.algorithm: exhaustive</code> gives the whole lattice's frontier).</p>"
          "<table><tr><th>#</th><th>Transformation</th><th>Information loss</th><th>Average risk</th>"
          "<th>Highest risk</th><th>Suppressed records</th></tr>\n",
          total > frontier.size() ? fmt::format("{} of its {} points are shown, evenly spaced. ", frontier.size(), total)
                                  : "");
      std::vector<html::Point> points;
      std::size_t chosen = frontier.size();
      for (const auto& f : frontier) {
        std::string lv;
        for (const auto& [name, level] : f["transformation"].items())
          lv += fmt::format("{}{}={}", lv.empty() ? "" : ",", name, level.get<int>());
        const double loss = f["information_loss"].get<double>(), avg = f["average_risk"].get<double>();
        const bool is_chosen = f["transformation"] == r["transformation"];
        if (is_chosen) chosen = points.size();
        points.push_back({avg, loss, fmt::format("{}: loss {:.4f}, average risk {}", lv, loss, pct(avg))});
        html += fmt::format("<tr{}><td class=\"num\">{}</td><td><code>{}</code></td><td class=\"num\">{:.6f}</td>"
                            "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                            is_chosen ? " class=\"chosen\"" : "", points.size(), esc(lv), loss, pct(avg),
                            pct(f["highest_risk"].get<double>()), f["suppressed_records"].get<std::uint64_t>());
      }
      html += "</table>\n";
      html += html::scatter_chart("frontier", "Information loss against average re-identification risk (chosen in red)",
                                  points, "average risk", "information loss", true, chosen);
    }

    // Loss per attribute.
    if (!best.quality.per_attribute.empty()) {
      std::vector<Bar> bars;
      double mx = 0;
      for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
        const double v = best.quality.per_attribute[q];
        bars.push_back({v, fmt::format("{:.4f}", v)});
        mx = std::max(mx, v);
      }
      html += "<h2>Information loss by attribute</h2>\n";
      html += bar_chart("loss-per-attribute", fmt::format("Information loss per quasi-identifier ({})", pr.quality->name()),
                        pr.qi_names, {bars}, {"loss"}, mx > 0 ? mx : 1);
    }

    // Risk profile: input classes are the histogram entries.
    const std::vector<std::pair<double, std::string>> bands = {
        {0.01, "≤ 1 %"}, {0.02, "1-2 %"}, {0.05, "2-5 %"}, {0.1, "5-10 %"}, {0.2, "10-20 %"},
        {0.34, "20-34 %"}, {0.5, "34-50 %"}, {1.0, "50-100 %"}};
    std::vector<std::uint64_t> in_sizes(pr.histogram.counts.begin(), pr.histogram.counts.end());
    // The release's classes: with local recoding, its records grouped by
    // their released values, whatever their pass.
    std::vector<std::uint64_t> out_sizes;
    std::uint64_t kept = 0;
    if (a.local) {
      out_sizes = a.local->class_sizes;
      for (const std::uint64_t s : out_sizes) kept += s;
    } else {
      for (std::size_t c = 0; c < cls.size(); ++c)
        if (!cls.suppressed[c]) {
          out_sizes.push_back(cls.counts[c]);
          kept += cls.counts[c];
        }
    }
    std::vector<std::string> band_labels;
    for (const auto& b : bands) band_labels.push_back(b.second);
    auto in_profile = band_profile(in_sizes, pr.rows, bands);
    auto out_profile = band_profile(out_sizes, pr.rows, bands);
    double mx = 0;
    for (const auto& b : in_profile) mx = std::max(mx, b.value);
    for (const auto& b : out_profile) mx = std::max(mx, b.value);
    html += "<h2>Re-identification risk</h2><p>Prosecutor risk of a record is 1 / the size of its class. "
            "Suppressed records carry no risk in the output.</p>\n";
    html += bar_chart("risk-profile", "Share of records by prosecutor risk", band_labels, {in_profile, out_profile},
                      {"input", "output"}, mx > 0 ? mx : 1);
    const double in_max = in_sizes.empty() ? 0 : 1.0 / static_cast<double>(*std::min_element(in_sizes.begin(), in_sizes.end()));
    const double out_max =
        out_sizes.empty() ? 0 : 1.0 / static_cast<double>(*std::min_element(out_sizes.begin(), out_sizes.end()));
    std::uint64_t in_uniques = 0, out_uniques = 0;
    for (auto s : in_sizes) in_uniques += s == 1;
    for (auto s : out_sizes) out_uniques += s == 1;
    html += fmt::format("<table><tr><th></th><th>Input</th><th>Output</th></tr>"
                        "<tr><td>Highest prosecutor risk</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>"
                        "<tr><td>Average prosecutor risk</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>"
                        "<tr><td>Sample uniques (records)</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>"
                        "</table>\n",
                        pct(in_max), pct(out_max),
                        pct(static_cast<double>(in_sizes.size()) / static_cast<double>(std::max<std::uint64_t>(pr.rows, 1))),
                        pct(static_cast<double>(out_sizes.size()) / static_cast<double>(std::max<std::uint64_t>(kept, 1))),
                        in_uniques, out_uniques);

    // Suppression by attribute: record suppression blanks every quasi-identifier.
    {
      std::vector<Bar> bars;
      // With local recoding, the records the release shows suppressed.
      const std::uint64_t suppressed = a.local ? pr.rows - kept : best.suppressed_records;
      const double share = pr.rows ? static_cast<double>(suppressed) / static_cast<double>(pr.rows) : 0;
      for (std::size_t q = 0; q < pr.qi_names.size(); ++q) bars.push_back({share, pct(share)});
      html += "<h2>Suppression</h2>\n";
      if (suppressed == 0)
        html += "<p>No record is suppressed: every quasi-identifier keeps its generalized value.</p>\n";
      else
        html += bar_chart("suppression", "Share of records with a suppressed value, by attribute", pr.qi_names, {bars},
                        {"suppressed"}, std::max(share, 1e-9) * 1.2);
    }

    // Class sizes.
    {
      const std::vector<std::pair<std::uint64_t, std::string>> buckets = {
          {1, "1"}, {2, "2"}, {4, "3-4"}, {9, "5-9"}, {19, "10-19"}, {49, "20-49"}, {99, "50-99"},
          {999, "100-999"}, {UINT64_MAX, "≥ 1000"}};
      std::vector<double> n(buckets.size(), 0);
      for (auto s : out_sizes)
        for (std::size_t b = 0; b < buckets.size(); ++b)
          if (s <= buckets[b].first) {
            n[b] += 1;
            break;
          }
      std::vector<Bar> bars;
      std::vector<std::string> labels;
      double m = 0;
      for (std::size_t b = 0; b < buckets.size(); ++b) {
        labels.push_back(buckets[b].second);
        bars.push_back({n[b], fmt::format("{:.0f}", n[b])});
        m = std::max(m, n[b]);
      }
      html += "<h2>Equivalence classes</h2>\n";
      html += bar_chart("class-sizes", "Number of output classes by size (records)", labels, {bars}, {"classes"},
                        m > 0 ? m : 1);
    }
  }
  // The utility analysis of the release (docs/utility.md), when the result has one.
  if (r.contains("utility")) html += html::utility_section(r["utility"]);
  html += html::page_end();
  return html;
}

}  // namespace deid
