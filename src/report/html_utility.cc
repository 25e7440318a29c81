// The utility analysis as a section of an HTML report (html.h,
// utility_section): drawn from the result's "utility" JSON alone.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/report.h"
#include "report/html.h"

namespace deid::html {
namespace {

using json = nlohmann::json;

// Categories drawn per distribution chart, "other" included.
constexpr std::size_t kMaxCategories = 12;

// The number at `key` of `j`, nullopt when absent, null or not a number.
std::optional<double> number(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::uint64_t count_at(const json& j, const char* key) {
  if (!j.is_object()) return 0;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

std::string text_at(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  if (it == j.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string fixed(const std::optional<double>& v, int digits = 4) {
  return v ? fmt::format("{:.{}f}", *v, digits) : "n/a";
}

std::string general(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : "n/a"; }

// A bar chart, or a note when no bar would have a length (a chart of
// zeroes draws nothing the reader could see).
std::string chart_or_note(const std::string& id, const std::string& title, const std::vector<std::string>& labels,
                          const std::vector<std::vector<Bar>>& series, const std::vector<std::string>& names,
                          const std::string& note) {
  const double m = max_value(series);
  if (labels.empty() || !(m > 0)) return fmt::format("<p class=\"note\" id=\"{}\">{}</p>\n", id, esc(note));
  return bar_chart(id, title, labels, series, names, m);
}

// Shortens a name for an axis (the whole name is in the cell's tooltip).
std::string axis_name(const std::string& s) {
  constexpr std::size_t kMax = 18;
  if (s.size() <= kMax) return s;
  std::size_t cut = kMax - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return s.substr(0, cut) + "…";
}

// The colour of an association in [0, 1]: from near white to dark blue.
std::string heat_colour(double v) {
  v = std::clamp(v, 0.0, 1.0);
  const auto mix = [v](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * v)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(247, 8), mix(251, 48), mix(255, 107));
}

// A heat map of the square matrix `m` over `names` (<figure> with an inline
// <svg class="chart">): one <rect class="cell"> per pair, its value printed
// and in its tooltip; undefined (null) cells grey with "n/a".
std::string heat_map(const std::string& id, const std::string& title, const std::vector<std::string>& names,
                     const json& m) {
  // Room on the left for the row names and above (and to the right, where
  // the last one ends) for the column names, written at 45 degrees.
  const double cell = 44, left = 150, top = 120;
  const double n = static_cast<double>(names.size());
  const double width = left + cell * n + 110, height = top + cell * n + 10;
  std::string svg = fmt::format(
      "<figure><figcaption>{}</figcaption><svg class=\"chart\" id=\"{}\" role=\"img\" aria-label=\"{}\" "
      "width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\">",
      esc(title), id, esc(title), width, height, width, height);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double pos = static_cast<double>(i) * cell + cell / 2;
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\" class=\"label\">{}</text>", left - 6,
                       top + pos + 4, esc(axis_name(names[i])));
    svg += fmt::format("<text x=\"{0:.1f}\" y=\"{1:.0f}\" class=\"label\" transform=\"rotate(-45 {0:.1f} {1:.0f})\">"
                       "{2}</text>",
                       left + pos, top - 6, esc(axis_name(names[i])));
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = 0; j < names.size(); ++j) {
      std::optional<double> v;
      if (m.is_array() && i < m.size() && m[i].is_array() && j < m[i].size() && m[i][j].is_number())
        v = m[i][j].get<double>();
      const double x = left + static_cast<double>(j) * cell, y = top + static_cast<double>(i) * cell;
      const std::string value = v ? fmt::format("{:.2f}", *v) : "n/a";
      svg += fmt::format("<rect class=\"cell\" x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" "
                         "fill=\"{}\" stroke=\"#fff\"><title>{} × {}: {}</title></rect>",
                         x, y, cell, cell, v ? heat_colour(*v) : "#bdbdbd", esc(names[i]), esc(names[j]),
                         v ? fmt::format("{:.4f}", *v) : "undefined");
      svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\" class=\"value{}\">{}</text>",
                         x + cell / 2, y + cell / 2 + 4, v && *v > 0.5 ? " dark" : "", value);
    }
  svg += "</svg></figure>\n";
  return svg;
}

// One attribute's distribution before and after: the largest categories by
// input count, the rest summed as "other".
std::string distribution_chart(std::size_t index, const json& a, std::uint64_t records) {
  const std::string name = text_at(a, "name");
  const json& dist = a.contains("distribution") && a["distribution"].is_array() ? a["distribution"] : json::array();
  std::vector<std::size_t> order(dist.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return count_at(dist[x], "before") > count_at(dist[y], "before");
  });
  const std::size_t omitted = count_at(a, "distribution_omitted");
  // Categories withheld from the JSON (input values no released record
  // shows) join "other" too.
  const std::size_t withheld = a.contains("distribution_withheld") ? count_at(a["distribution_withheld"], "categories") : 0;
  const std::size_t total = dist.size() + omitted + withheld;
  const std::size_t shown = dist.size() + omitted > kMaxCategories ? kMaxCategories - 1 : dist.size();
  std::vector<std::string> labels;
  std::vector<Bar> before, after;
  std::uint64_t sum_before = 0, sum_after = 0;
  const auto bar = [records](std::uint64_t c) {
    const double share = records ? static_cast<double>(c) / static_cast<double>(records) : 0.0;
    return Bar{static_cast<double>(c), fmt::format("{} ({})", c, pct(share))};
  };
  for (std::size_t k = 0; k < shown && k < order.size(); ++k) {
    const json& c = dist[order[k]];
    labels.push_back(axis_name(text_at(c, "value")));
    const std::uint64_t b = count_at(c, "before"), f = count_at(c, "after");
    sum_before += b;
    sum_after += f;
    before.push_back(bar(b));
    after.push_back(bar(f));
  }
  std::string caption = fmt::format("{}: records per released category, input and release", name);
  if (total > shown) {
    // The categories left out of the JSON count too: "other" is the rest of
    // the records.
    const std::size_t rest = total - labels.size();
    labels.push_back(fmt::format("other ({} categories)", rest));
    before.push_back(bar(records > sum_before ? records - sum_before : 0));
    after.push_back(bar(records > sum_after ? records - sum_after : 0));
    caption += fmt::format(" (the {} largest of {} categories by input count; the other {} summed)",
                           labels.size() - 1, total, rest);
  }
  return chart_or_note(fmt::format("utility-distribution-{}", index), caption, labels, {before, after},
                       {"input", "release"}, fmt::format("{}: no record to chart.", name));
}

std::string numeric_table(std::size_t index, const json& a) {
  const json& num = a["numeric"];
  std::string html = fmt::format("<table id=\"utility-numeric-{}\"><caption>{} ({})</caption>"
                                 "<tr><th>Statistic</th><th>Input</th><th>Release</th><th>Deviation</th></tr>\n",
                                 index, esc(text_at(a, "name")), esc(text_at(num, "kind")));
  const json empty = json::object();
  const json& before = num.contains("before") ? num["before"] : empty;
  const json& after = num.contains("after") ? num["after"] : empty;
  const json& dev = num.contains("deviation") ? num["deviation"] : empty;
  html += fmt::format("<tr><td>values read</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td></td></tr>\n",
                      count_at(before, "count"), count_at(after, "count"));
  html += fmt::format("<tr><td>not a number</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td></td></tr>\n",
                      count_at(before, "missing"), count_at(after, "missing"));
  // Input statistics withheld because they would be a record's value
  // (utility.cc, to_json).
  const auto withheld = [&num](const char* s) {
    if (!num.contains("before_withheld") || !num["before_withheld"].is_array()) return false;
    for (const json& w : num["before_withheld"])
      if (w.is_string() && w.get<std::string>() == s) return true;
    return false;
  };
  for (const char* s : {"mean", "sd", "min", "q1", "median", "q3", "max", "skewness", "kurtosis"})
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                        "</tr>\n",
                        s, withheld(s) ? "withheld" : general(number(before, s)), general(number(after, s)),
                        withheld(s) ? "" : general(number(dev, s)));
  html += "</table>\n";
  return html;
}

std::string classification(const json& list) {
  std::string html = "<h3>Classification</h3>";
  if (!list.is_array() || list.empty()) {
    return html + "<p class=\"note\" id=\"utility-classification\">No sensitive attribute: no classifier was "
                  "trained.</p>\n";
  }
  bool any_auc = false;
  for (const json& c : list) any_auc |= number(c, "auc_before") || number(c, "auc_after");
  html += "<p>A logistic regression per sensitive attribute (the target) from the quasi-identifiers, trained on "
          "the input and on the release; cross-validated accuracies against the baseline of predicting the most "
          "frequent class. Relative accuracy is (release − baseline) / (input − baseline).</p>"
          "<table id=\"utility-classification\"><tr><th>Target</th><th>Records</th><th>Folds</th><th>Baseline</th>"
          "<th>Accuracy, input</th><th>Accuracy, release</th><th>Relative accuracy</th>";
  if (any_auc) html += "<th>AUC, input</th><th>AUC, release</th>";
  html += "</tr>\n";
  for (const json& c : list) {
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                        esc(text_at(c, "target")), count_at(c, "records"), count_at(c, "folds"),
                        fixed(number(c, "baseline_accuracy")), fixed(number(c, "accuracy_before")),
                        fixed(number(c, "accuracy_after")), fixed(number(c, "relative_accuracy"), 3));
    if (any_auc) html += fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                                     fixed(number(c, "auc_before")), fixed(number(c, "auc_after")));
    html += "</tr>\n";
  }
  html += "</table>\n";
  for (std::size_t t = 0; t < list.size(); ++t) {
    const json& c = list[t];
    std::vector<std::string> labels;
    std::vector<Bar> bars;
    const auto add = [&](const char* label, const char* key) {
      const std::optional<double> v = number(c, key);
      if (!v) return;
      labels.emplace_back(label);
      bars.push_back({*v, fmt::format("{:.4f}", *v)});
    };
    add("baseline", "baseline_accuracy");
    add("accuracy, input", "accuracy_before");
    add("accuracy, release", "accuracy_after");
    add("AUC, input", "auc_before");
    add("AUC, release", "auc_after");
    const std::string target = text_at(c, "target");
    html += chart_or_note(fmt::format("utility-classification-{}", t),
                          fmt::format("Predicting {}: baseline, accuracy{} trained on the input and on the release",
                                      target, any_auc && (number(c, "auc_before") || number(c, "auc_after"))
                                                  ? " and AUC"
                                                  : ""),
                          labels, {bars}, {target}, fmt::format("Predicting {}: every measure is 0.", target));
  }
  return html;
}

}  // namespace

std::string utility_section(const json& u) {
  std::string html = "<h2 id=\"utility\">Utility</h2>\n";
  if (!u.is_object()) return html + "<p class=\"note\">No utility analysis.</p>\n";
  if (u.contains("skipped")) {
    return html + fmt::format("<p class=\"note\" id=\"utility-skipped\">The utility analysis was skipped: {}</p>\n",
                              esc(text_at(u, "skipped")));
  }
  const std::uint64_t records = count_at(u, "records");
  const json& attrs = u.contains("attributes") && u["attributes"].is_array() ? u["attributes"] : json::array();
  html += fmt::format("<p>How much the released table still tells, compared with its input: {} records, {} of them "
                      "suppressed. Total variation is ½ Σ |p − q| and Jensen-Shannon the divergence in bits (both "
                      "from 0, the same distribution, to 1) between the frequencies of the released categories "
                      "before and after.</p>\n",
                      records, count_at(u, "suppressed_records"));

  // Per attribute: the table and the distances.
  html += "<table id=\"utility-attributes\"><tr><th>Attribute</th><th>Role</th><th>Level</th>"
          "<th>Suppressed cells</th><th>Total variation</th><th>Jensen-Shannon</th></tr>\n";
  std::vector<std::string> names;
  std::vector<Bar> tvd, jsd;
  for (const json& a : attrs) {
    const std::string name = text_at(a, "name");
    const std::optional<double> level = number(a, "level"), tv = number(a, "total_variation"),
                                js = number(a, "jensen_shannon");
    const std::uint64_t sup = count_at(a, "suppressed_cells");
    html += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{} ({})</td>"
                        "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                        esc(name), esc(text_at(a, "role")), level ? fmt::format("{:.0f}", *level) : "copied", sup,
                        pct(records ? static_cast<double>(sup) / static_cast<double>(records) : 0.0), fixed(tv),
                        fixed(js));
    names.push_back(axis_name(name));
    tvd.push_back({tv.value_or(0), fixed(tv)});
    jsd.push_back({js.value_or(0), fixed(js)});
  }
  html += "</table>\n";
  html += chart_or_note("utility-distances", "Distance between the distributions before and after, per attribute",
                        names, {tvd, jsd}, {"total variation", "Jensen-Shannon"},
                        "Every distance is 0: each attribute has the same distribution before and after.");

  // Distributions.
  html += fmt::format("<h3>Distributions</h3><p>Records per category of the released level, in the input (its "
                      "values mapped to that level) and in the release (suppressed cells under *). At most {} "
                      "categories per attribute: the largest by input count, the rest summed as \"other\".</p>\n",
                      kMaxCategories);
  for (std::size_t i = 0; i < attrs.size(); ++i) html += distribution_chart(i, attrs[i], records);

  // Numeric attributes.
  bool numeric = false;
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    if (!attrs[i].is_object() || !attrs[i].contains("numeric") || !attrs[i]["numeric"].is_object()) continue;
    if (!numeric)
      html += "<h3>Numeric attributes</h3><p>Summary statistics of the values before and after (generalized labels "
              "read back as numbers; dates as days since 1970-01-01), and the deviation (after − before).</p>\n";
    numeric = true;
    html += numeric_table(i, attrs[i]);
  }

  // Dependencies.
  const json& dep = u.contains("dependencies") && u["dependencies"].is_object() ? u["dependencies"] : json::object();
  std::vector<std::string> dep_names;
  if (dep.contains("attributes") && dep["attributes"].is_array())
    for (const json& n : dep["attributes"]) dep_names.push_back(n.is_string() ? n.get<std::string>() : n.dump());
  html += "<h3>Dependencies</h3>";
  if (dep_names.empty()) {
    html += "<p class=\"note\" id=\"utility-dependencies\">No quasi-identifier or sensitive attribute: no "
            "association to compare.</p>\n";
  } else {
    html += "<p>Cramér's V between every pair of quasi-identifiers and sensitive attributes, from 0 (independent) "
            "to 1 (one determines the other), before and after; grey cells (n/a) are undefined: an attribute with "
            "fewer than two categories.</p>\n";
    html += heat_map("utility-cramers-before", "Cramér's V in the input", dep_names,
                     dep.contains("before") ? dep["before"] : json());
    html += heat_map("utility-cramers-after", "Cramér's V in the release", dep_names,
                     dep.contains("after") ? dep["after"] : json());
  }

  html += classification(u.contains("classification") ? u["classification"] : json());
  return html;
}

}  // namespace deid::html

namespace deid {

std::string render_html_utility_report(const nlohmann::json& utility, const std::string& job_file,
                                       const std::string& input, const std::string& released) {
  std::string page = html::page_begin("Utility report");
  page += fmt::format("<p>Job <code>{}</code>: the released table <code>{}</code> compared with its input "
                      "<code>{}</code>.</p>\n",
                      html::esc(job_file), html::esc(released), html::esc(input));
  page += html::utility_section(utility);
  page += html::page_end();
  return page;
}

}  // namespace deid
