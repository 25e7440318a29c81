// Building blocks shared by the HTML reports (html_report.cc for
// `deid anonymize`, html_risk_report.cc for `deid risk`): escaping, the page
// frame with its inline style, horizontal bar charts in inline SVG, and the
// self-check script that lets a test in a real browser count the charts that
// drew data. Internal to src/report/.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace deid::html {

// `s` with & < > " escaped, for text and attribute values.
std::string esc(const std::string& s);

// "12.34 %" for 0.1234.
std::string pct(double fraction);

// One bar: its value (in the chart's scale) and the text at its end.
struct Bar {
  double value = 0;
  std::string text;
};

// A horizontal bar chart (<figure> with an inline <svg class="chart">).
// `series` holds one or more value sets over the same `labels` (drawn as
// grouped bars, with a legend of `series_names` when there are several);
// bars are scaled so that `max_value` fills the width (values below 0 draw
// nothing). `id` must be unique in the page.
std::string bar_chart(const std::string& id, const std::string& title, const std::vector<std::string>& labels,
                      const std::vector<std::vector<Bar>>& series, const std::vector<std::string>& series_names,
                      double max_value);

// One point of a scatter chart, with the text of its tooltip.
struct Point {
  double x = 0, y = 0;
  std::string text;
};

// A scatter chart (<figure> with an inline <svg class="chart">) of `points`
// joined by a line in their order, both axes from 0 to the largest value
// (labelled with `x_label` and `y_label`, values formatted with
// `x_percent`: as percentages or plain); the point `highlight` (an index,
// or points.size() for none) is drawn larger in another colour. `id` must
// be unique in the page.
std::string scatter_chart(const std::string& id, const std::string& title, const std::vector<Point>& points,
                          const std::string& x_label, const std::string& y_label, bool x_percent,
                          std::size_t highlight);

// The largest value of `series` (0 when empty), for bar_chart's max_value.
double max_value(const std::vector<std::vector<Bar>>& series);

// The utility analysis (the "utility" section of a result, as to_json of
// deid/utility.h writes it, or {"skipped": reason}) as an HTML section: a
// table and a chart of the distances per attribute, each attribute's
// distribution before and after, the summaries of numeric attributes, the
// association matrices as heat maps and the classification accuracies.
// Reads only the JSON, so it serves `deid anonymize`'s report and `deid
// utility --report` alike; keys it does not find are shown as "n/a".
// Element ids start with "utility-" (html_utility.cc).
std::string utility_section(const nlohmann::json& utility);

// The start of a page: doctype, head with the inline style, <body> and <h1>.
std::string page_begin(const std::string& title);

// The end of a page: the self-check script (it marks the page with
// data-charts, the number of charts, and data-charts-drawn, those with at
// least one bar, point or heat-map cell of non-empty size), a footer and
// </html>.
std::string page_end();

}  // namespace deid::html
