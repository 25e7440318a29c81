#include "deid/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace deid {
namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o.push_back(c);
    }
  }
  return o;
}

struct Bar {
  std::string label;
  double value;
  std::string text;  // shown at the end of the bar
};

// A horizontal bar chart. `series` holds one or more value sets over the same
// labels (drawn as grouped bars); values are in [0, max_value].
std::string bar_chart(const std::string& id, const std::string& title, const std::vector<std::string>& labels,
                      const std::vector<std::vector<Bar>>& series, const std::vector<std::string>& series_names,
                      double max_value) {
  static const char* kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759"};
  const double label_w = 170, bar_w = 420, row_h = 18.0 * static_cast<double>(series.size()) + 8;
  const double legend_h = series.size() > 1 ? 22 : 0;
  const double height = 30 + legend_h + row_h * static_cast<double>(labels.size()) + 10;
  std::string svg = fmt::format(
      "<figure><figcaption>{}</figcaption><svg class=\"chart\" id=\"{}\" role=\"img\" aria-label=\"{}\" "
      "width=\"{}\" height=\"{:.0f}\" viewBox=\"0 0 {} {:.0f}\">",
      esc(title), id, esc(title), label_w + bar_w + 110, height, label_w + bar_w + 110, height);
  double y = 24;
  if (series.size() > 1) {
    double x = label_w;
    for (std::size_t s = 0; s < series.size(); ++s) {
      svg += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                         "<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"legend\">{}</text>",
                         x, y - 10, kColors[s % 4], x + 16, y, esc(series_names[s]));
      x += 140;
    }
    y += legend_h;
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"end\" class=\"label\">{}</text>", label_w - 8,
                       y + row_h / 2, esc(labels[i]));
    for (std::size_t s = 0; s < series.size(); ++s) {
      const Bar& b = series[s][i];
      const double w = max_value > 0 ? std::max(0.0, b.value) / max_value * bar_w : 0;
      const double by = y + 4 + 18.0 * static_cast<double>(s);
      svg += fmt::format("<rect class=\"bar\" x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"14\" fill=\"{}\">"
                         "<title>{}: {}</title></rect><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"value\">{}</text>",
                         label_w, by, std::max(w, 0.0), kColors[s % 4], esc(labels[i]), esc(b.text),
                         label_w + w + 4, by + 11, esc(b.text));
    }
    y += row_h;
  }
  svg += "</svg></figure>\n";
  return svg;
}

std::string pct(double x) { return fmt::format("{:.2f} %", 100.0 * x); }

// Share of records per prosecutor-risk band (risk = 1 / class size).
std::vector<Bar> risk_profile(const std::vector<std::uint64_t>& class_sizes, std::uint64_t records,
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
    out.push_back({bands[b].second, s, pct(s)});
  }
  return out;
}

}  // namespace

std::string render_html_report(const PreparedJob& p, const Anonymization& a) {
  const Problem& pr = p.problem;
  const Job& job = p.job;
  const auto& r = a.result;
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
          "<title>deid report</title><style>"
          "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2rem auto;max-width:60rem;"
          "color:#222;padding:0 1rem}h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}"
          "table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.25rem .6rem;text-align:left}"
          "th{background:#f4f4f4}.num{text-align:right;font-variant-numeric:tabular-nums}"
          "figure{margin:1rem 0}figcaption{font-weight:600;margin-bottom:.3rem}"
          "svg text{font-size:12px;fill:#333}.ok{color:#2e7d32}.bad{color:#c62828}"
          ".chosen{background:#fff8e1}</style></head><body>\n";
  html += "<h1>De-identification report</h1>\n";
  html += fmt::format("<p>Input <code>{}</code>: {} records, {} quasi-identifiers. ", esc(job.input.path), pr.rows,
                      pr.qi_names.size());
  if (a.found) {
    html += fmt::format("<span class=\"ok\">A solution was found</span>{}.</p>\n",
                        r.value("optimal", false) ? " and proven optimal" : " (not proven optimal)");
  } else {
    html += "<span class=\"bad\">No transformation satisfies the job.</span></p>\n";
  }

  // The job.
  html += "<h2>Job</h2><table><tr><th>Attribute</th><th>Role</th><th>Hierarchy levels</th></tr>\n";
  for (std::size_t c = 0; c < p.data.columns.size(); ++c) {
    const std::string& name = p.data.columns[c].name;
    std::string levels = "";
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q)
      if (pr.qi_names[q] == name) levels = std::to_string(pr.hierarchies[q].height());
    html += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n", esc(name),
                        to_string(p.roles[c]), levels);
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

  if (a.found) {
    const CheckResult& best = *a.search.best;
    const Classes& cls = *a.classes;
    html += "<h2>Transformation</h2><table><tr><th>Quasi-identifier</th><th>Level</th><th>Example</th>"
            "<th>Information loss</th></tr>\n";
    for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
      const auto& h = pr.hierarchies[q];
      const std::uint32_t code = pr.histogram.keys.empty() ? 0 : pr.histogram.keys[q];
      const std::string example =
          fmt::format("{} → {}", h.label(0, code), h.label(best.transformation[q], h.map(best.transformation[q])[code]));
      const std::string loss =
          q < best.quality.per_attribute.size() ? fmt::format("{:.4f}", best.quality.per_attribute[q]) : "";
      html += fmt::format("<tr><td>{}</td><td class=\"num\">{} of {}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
                          esc(pr.qi_names[q]), static_cast<int>(best.transformation[q]), h.height() - 1, esc(example),
                          loss);
    }
    html += fmt::format("</table><p>Information loss <b>{:.6f}</b> ({}); {} records suppressed; {} classes, the "
                        "smallest of {} records.</p>\n",
                        best.quality.value, esc(pr.quality->name()), best.suppressed_records,
                        r.value("classes", 0ull), r.value("smallest_class_size", 0ull));

    // Comparison with the other solutions found.
    if (r["search"].contains("best_solutions")) {
      const auto& sols = r["search"]["best_solutions"];
      std::vector<std::string> labels;
      std::vector<Bar> bars;
      double mx = 0;
      for (const auto& s : sols) {
        std::string lv;
        for (const auto& x : s["levels"]) lv += fmt::format("{}{}", lv.empty() ? "" : ",", x.get<int>());
        labels.push_back(fmt::format("[{}]", lv));
        const double v = s["information_loss"].get<double>();
        bars.push_back({labels.back(), v, fmt::format("{:.4f}", v)});
        mx = std::max(mx, v);
      }
      if (!bars.empty())
        html += bar_chart("solutions", "Information loss of the best solutions found (chosen first)", labels, {bars},
                          {"loss"}, mx > 0 ? mx : 1);
    }

    // Loss per attribute.
    if (!best.quality.per_attribute.empty()) {
      std::vector<Bar> bars;
      double mx = 0;
      for (std::size_t q = 0; q < pr.qi_names.size(); ++q) {
        const double v = best.quality.per_attribute[q];
        bars.push_back({pr.qi_names[q], v, fmt::format("{:.4f}", v)});
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
    std::vector<std::uint64_t> out_sizes;
    std::uint64_t kept = 0;
    for (std::size_t c = 0; c < cls.size(); ++c)
      if (!cls.suppressed[c]) {
        out_sizes.push_back(cls.counts[c]);
        kept += cls.counts[c];
      }
    std::vector<std::string> band_labels;
    for (const auto& b : bands) band_labels.push_back(b.second);
    auto in_profile = risk_profile(in_sizes, pr.rows, bands);
    auto out_profile = risk_profile(out_sizes, pr.rows, bands);
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
      const double share = pr.rows ? static_cast<double>(best.suppressed_records) / static_cast<double>(pr.rows) : 0;
      for (const auto& q : pr.qi_names) bars.push_back({q, share, pct(share)});
      html += "<h2>Suppression</h2>\n";
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
        bars.push_back({buckets[b].second, n[b], fmt::format("{:.0f}", n[b])});
        m = std::max(m, n[b]);
      }
      html += "<h2>Equivalence classes</h2>\n";
      html += bar_chart("class-sizes", "Number of output classes by size (records)", labels, {bars}, {"classes"},
                        m > 0 ? m : 1);
    }
  }
  // A self-check the browser runs on load: it counts the charts whose bars
  // have a drawn, non-empty box, so a test in a real browser can assert that
  // every chart shows data. It changes nothing a reader sees.
  html += "<script>(function(){var c=document.querySelectorAll('svg.chart'),d=0;"
          "c.forEach(function(s){var ok=false;s.querySelectorAll('rect.bar').forEach(function(b){"
          "var r=b.getBBox();if(r.width>0&&r.height>0)ok=true;});if(ok)d++;else s.setAttribute('data-empty','true');});"
          "document.documentElement.setAttribute('data-charts',c.length);"
          "document.documentElement.setAttribute('data-charts-drawn',d);})();</script>\n";
  html += "<footer><p><small>Generated by deid. All figures are computed from the data of this run; the file "
          "loads nothing from the network.</small></p></footer></body></html>\n";
  return html;
}

}  // namespace deid
