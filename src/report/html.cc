#include "report/html.h"

#include <fmt/format.h>

#include <algorithm>

namespace deid::html {

std::string esc(const std::string& s) {
  std::string o;
  o.reserve(s.size());
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

std::string pct(double fraction) { return fmt::format("{:.2f} %", 100.0 * fraction); }

double max_value(const std::vector<std::vector<Bar>>& series) {
  double m = 0;
  for (const auto& s : series)
    for (const auto& b : s) m = std::max(m, b.value);
  return m;
}

std::string bar_chart(const std::string& id, const std::string& title, const std::vector<std::string>& labels,
                      const std::vector<std::vector<Bar>>& series, const std::vector<std::string>& series_names,
                      double max_value) {
  static const char* kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759"};
  const double label_w = 170, bar_w = 420, text_w = 170, row_h = 18.0 * static_cast<double>(series.size()) + 8;
  const double legend_h = series.size() > 1 ? 22 : 0;
  const double height = 30 + legend_h + row_h * static_cast<double>(labels.size()) + 10;
  std::string svg = fmt::format(
      "<figure><figcaption>{}</figcaption><svg class=\"chart\" id=\"{}\" role=\"img\" aria-label=\"{}\" "
      "width=\"{}\" height=\"{:.0f}\" viewBox=\"0 0 {} {:.0f}\">",
      esc(title), id, esc(title), label_w + bar_w + text_w, height, label_w + bar_w + text_w, height);
  double y = 24;
  if (series.size() > 1) {
    double x = label_w;
    for (std::size_t s = 0; s < series.size(); ++s) {
      svg += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                         "<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"legend\">{}</text>",
                         x, y - 10, kColors[s % 4], x + 16, y, esc(s < series_names.size() ? series_names[s] : ""));
      x += 140;
    }
    y += legend_h;
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"end\" class=\"label\">{}</text>", label_w - 8,
                       y + row_h / 2, esc(labels[i]));
    for (std::size_t s = 0; s < series.size(); ++s) {
      if (i >= series[s].size()) continue;
      const Bar& b = series[s][i];
      const double w = max_value > 0 ? std::min(std::max(0.0, b.value) / max_value, 1.0) * bar_w : 0;
      const double by = y + 4 + 18.0 * static_cast<double>(s);
      svg += fmt::format("<rect class=\"bar\" x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"14\" fill=\"{}\">"
                         "<title>{}: {}</title></rect><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"value\">{}</text>",
                         label_w, by, w, kColors[s % 4], esc(labels[i]), esc(b.text), label_w + w + 4, by + 11,
                         esc(b.text));
    }
    y += row_h;
  }
  svg += "</svg></figure>\n";
  return svg;
}

std::string scatter_chart(const std::string& id, const std::string& title, const std::vector<Point>& points,
                          const std::string& x_label, const std::string& y_label, bool x_percent,
                          std::size_t highlight) {
  const double left = 96, top = 16, plot_w = 520, plot_h = 260, width = left + plot_w + 30,
               height = top + plot_h + 50;
  double max_x = 0, max_y = 0;
  for (const Point& p : points) {
    max_x = std::max(max_x, p.x);
    max_y = std::max(max_y, p.y);
  }
  if (max_x <= 0) max_x = 1;
  if (max_y <= 0) max_y = 1;
  const auto px = [&](double x) { return left + x / max_x * plot_w; };
  const auto py = [&](double y) { return top + plot_h - y / max_y * plot_h; };
  const auto x_text = [&](double x) { return x_percent ? pct(x) : fmt::format("{:.4g}", x); };
  std::string svg = fmt::format(
      "<figure><figcaption>{}</figcaption><svg class=\"chart\" id=\"{}\" role=\"img\" aria-label=\"{}\" "
      "width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\">",
      esc(title), id, esc(title), width, height, width, height);
  // Axes with three ticks each.
  svg += fmt::format("<path d=\"M{0:.0f} {1:.0f}V{2:.0f}H{3:.0f}\" fill=\"none\" stroke=\"#999\"/>", left, top,
                     top + plot_h, left + plot_w);
  for (int i = 0; i <= 2; ++i) {
    const double fx = max_x * i / 2, fy = max_y * i / 2;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"middle\" class=\"label\">{}</text>", px(fx),
                       top + plot_h + 16, esc(x_text(fx)));
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\" class=\"label\">{:.4g}</text>",
                       left - 6, py(fy) + 4, fy);
  }
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\" class=\"label\">{}</text>",
                     left + plot_w / 2, top + plot_h + 36, esc(x_label));
  svg += fmt::format("<text x=\"14\" y=\"{:.0f}\" text-anchor=\"middle\" class=\"label\" "
                     "transform=\"rotate(-90 14 {:.0f})\">{}</text>",
                     top + plot_h / 2, top + plot_h / 2, esc(y_label));
  if (points.size() > 1) {
    std::string d;
    for (const Point& p : points) d += fmt::format("{}{:.1f} {:.1f}", d.empty() ? "M" : "L", px(p.x), py(p.y));
    svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#4e79a7\" stroke-opacity=\"0.5\"/>", d);
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const bool hi = i == highlight;
    svg += fmt::format("<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>{}</title>"
                       "</circle>",
                       px(p.x), py(p.y), hi ? 6 : 4, hi ? "#e15759" : "#4e79a7", esc(p.text));
  }
  svg += "</svg></figure>\n";
  return svg;
}

std::string page_begin(const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>{0}</title><style>"
      "body{{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2rem auto;max-width:60rem;"
      "color:#222;padding:0 1rem}}h1{{font-size:1.6rem}}h2{{font-size:1.2rem;margin-top:2rem;"
      "border-bottom:1px solid #ddd}}"
      "table{{border-collapse:collapse;margin:.5rem 0}}td,th{{border:1px solid #ddd;padding:.25rem .6rem;"
      "text-align:left}}th{{background:#f4f4f4}}.num{{text-align:right;font-variant-numeric:tabular-nums}}"
      "figure{{margin:1rem 0}}figcaption{{font-weight:600;margin-bottom:.3rem}}"
      "svg text{{font-size:12px;fill:#333}}svg text.dark{{fill:#fff}}.ok{{color:#2e7d32}}.bad{{color:#c62828}}.note{{color:#666}}"
      ".chosen{{background:#fff8e1}}</style></head><body>\n<h1>{0}</h1>\n",
      esc(title));
}

std::string page_end() {
  // A self-check the browser runs on load: it counts the charts whose bars
  // have a drawn, non-empty box, so a test in a real browser can assert that
  // every chart shows data. It changes nothing a reader sees.
  return "<script>(function(){var c=document.querySelectorAll('svg.chart'),d=0;"
         "c.forEach(function(s){var ok=false;s.querySelectorAll('rect.bar,circle.point,rect.cell').forEach(function(b){"
         "var r=b.getBBox();if(r.width>0&&r.height>0)ok=true;});if(ok)d++;else s.setAttribute('data-empty','true');});"
         "document.documentElement.setAttribute('data-charts',c.length);"
         "document.documentElement.setAttribute('data-charts-drawn',d);})();</script>\n"
         "<footer><p><small>Generated by deid. All figures are computed from the data of this run; the file "
         "loads nothing from the network.</small></p></footer></body></html>\n";
}

}  // namespace deid::html
