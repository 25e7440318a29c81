// The HTML report of `deid risk` (papers/002, section VIII): what the text
// report says, with charts. Everything comes from the RiskReport and its JSON
// (to_json), so the page and `--json` never disagree.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "deid/report.h"
#include "report/html.h"

namespace deid {
namespace {

using html::Bar;
using html::bar_chart;
using html::esc;
using html::pct;

std::string count(double x) { return fmt::format("{:.0f}", x); }

std::string population_size(double n) {
  if (n >= 1e6) return fmt::format("{:.1f} M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.1f} k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

// A risk as a percentage, without trailing zeros ("0.5", "33.4", "100").
std::string risk_pct(double r) { return fmt::format("{:g}", 100.0 * r); }

// An estimate for the table: the number of population uniques and their
// share of the population, or why there is none.
std::string estimate_cell(const UniquenessEstimate& e, double population) {
  using S = UniquenessEstimate::Status;
  if (e.uniques) {
    std::string s = fmt::format("{} <span class=\"note\">({})</span>", count(*e.uniques), pct(*e.uniques / population));
    if (e.selected) s += fmt::format(" <span class=\"note\">by {}</span>", to_string(*e.selected));
    return s;
  }
  switch (e.status) {
    case S::not_converged: return "<span class=\"bad\">did not converge</span>";
    case S::no_sample_uniques: return "0 <span class=\"note\">(no sample uniques)</span>";
    case S::invalid: return "<span class=\"bad\">no valid estimate</span>";
    case S::ok: break;
  }
  return "-";
}

}  // namespace

std::string render_html_risk_report(const RiskReport& r) {
  const nlohmann::json j = to_json(r);
  std::string html = html::page_begin(r.custodian_only ? "Re-identification risk report: input, custodian only"
                                                       : "Re-identification risk report");
  if (r.custodian_only)
    html += "<p class=\"bad\" id=\"custodian-only\">Custodian only: this report measures the job's input, before "
            "de-identification, and may quote its values. It does not travel with a release; measure the released "
            "table for a report that may (<code>deid risk JOB --input RELEASED.csv</code>).</p>\n";
  std::string qis;
  for (const auto& q : r.quasi_identifiers) qis += fmt::format("{}<code>{}</code>", qis.empty() ? "" : ", ", esc(q));
  html += fmt::format("<p>Table <code>{}</code>: {} records ({} suppressed and ignored, as ARX ignores them), {} "
                      "equivalence classes over the quasi-identifiers {}.</p>\n",
                      esc(r.input), r.records, r.suppressed_records, r.frequencies.classes(),
                      qis.empty() ? "-" : qis);
  if (!r.warnings.empty()) {
    html += "<h2>Warnings</h2><ul>\n";
    for (const auto& w : r.warnings) html += fmt::format("<li class=\"bad\">{}</li>\n", esc(w));
    html += "</ul>\n";
  }
  if (r.records == 0) {
    html += "<p class=\"bad\">Every record is suppressed: there is no risk to measure.</p>\n";
    html += html::page_end();
    return html;
  }

  // Sample risks.
  html += "<h2>Sample risk</h2><table>";
  html += fmt::format("<tr><th>Highest prosecutor risk</th><td class=\"num\">{}</td><td>{} records ({})</td></tr>",
                      pct(r.sample.highest_risk), r.sample.records_affected_by_highest_risk,
                      pct(r.sample.fraction_affected_by_highest_risk));
  html += fmt::format("<tr><th>Lowest prosecutor risk</th><td class=\"num\">{}</td><td>{} records ({})</td></tr>",
                      pct(r.sample.lowest_risk), r.sample.records_affected_by_lowest_risk,
                      pct(r.sample.fraction_affected_by_lowest_risk));
  html += fmt::format("<tr><th>Average prosecutor risk</th><td class=\"num\">{}</td><td></td></tr>",
                      pct(r.sample.average_risk));
  html += fmt::format("<tr><th>Sample uniques</th><td class=\"num\">{}</td><td>{} records</td></tr></table>\n",
                      pct(r.sample_uniques_fraction), r.sample_uniques);

  // Risk profile (ARX's bins). Bins below 0.1 % are shown only when they
  // hold records: the rest of the low end would be a column of zeros.
  {
    std::vector<std::string> labels;
    std::vector<Bar> share, cumulative;
    for (const auto& b : r.profile) {
      if (b.upper < 0.01 && b.records <= 0) continue;
      labels.push_back(fmt::format("({}, {}] %", risk_pct(b.lower), risk_pct(b.upper)));
      share.push_back({b.records, pct(b.records)});
      cumulative.push_back({b.cumulative, pct(b.cumulative)});
    }
    html += "<h2>Risk profile</h2><p>Share of records by prosecutor risk (1 / the size of the record's class), "
            "and the share with at most that risk (papers/002, Figures 7 and 12).</p>\n";
    html += bar_chart("risk-profile", "Share of records by prosecutor risk", labels, {share, cumulative},
                      {"records", "cumulative"}, 1.0);
  }

  // Attacker models.
  {
    const auto& a = r.attackers;
    html += fmt::format("<h2>Attacker models</h2><p>A record is at risk when its risk is above the threshold "
                        "{}. Without a population table the prosecutor and the journalist see the same class "
                        "sizes (ARX), so their figures coincide.</p>\n",
                        pct(a.threshold));
    html += "<table><tr><th>Attacker</th><th>Records at risk</th><th>Highest risk</th><th>Success rate</th></tr>";
    auto row = [&](const char* name, const AttackerRisks::Model& m) {
      html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                          "</tr>",
                          name, pct(m.records_at_risk), pct(m.highest_risk), pct(m.success_rate));
    };
    row("prosecutor", a.prosecutor);
    row("journalist", a.journalist);
    html += fmt::format("<tr><td>marketer</td><td class=\"num\">-</td><td class=\"num\">-</td>"
                        "<td class=\"num\">{}</td></tr></table>\n",
                        pct(a.marketer_success_rate));
    const std::vector<std::string> labels = {"prosecutor", "journalist", "marketer"};
    const std::vector<Bar> at_risk = {{a.prosecutor.records_at_risk, pct(a.prosecutor.records_at_risk)},
                                      {a.journalist.records_at_risk, pct(a.journalist.records_at_risk)},
                                      {0, "-"}};
    const std::vector<Bar> highest = {{a.prosecutor.highest_risk, pct(a.prosecutor.highest_risk)},
                                      {a.journalist.highest_risk, pct(a.journalist.highest_risk)},
                                      {0, "-"}};
    const std::vector<Bar> success = {{a.prosecutor.success_rate, pct(a.prosecutor.success_rate)},
                                      {a.journalist.success_rate, pct(a.journalist.success_rate)},
                                      {a.marketer_success_rate, pct(a.marketer_success_rate)}};
    html += bar_chart("attacker-models", "Risk by attacker model", labels, {at_risk, highest, success},
                      {"records at risk", "highest risk", "success rate"}, 1.0);
  }

  // Population uniqueness.
  {
    html += "<h2>Population uniques</h2><p>The estimated number of individuals of each population whose "
            "combination of quasi-identifier values is unique in it (papers/002, VI-C), by every estimator; "
            "Dankar's rule picks Pitman for sampling fractions up to 10 %, else the smaller of Zayatz and SNB. "
            "An estimator whose Newton-Raphson solver found no root reports no number. |PU|/|SU| is the "
            "number of records of the table expected to be population unique (by Dankar's rule) per sample "
            "unique: the probability that a sample unique is unique in the population.</p>\n";
    html += "<table><tr><th>Population</th><th>N</th><th>Sampling fraction</th><th>Zayatz</th><th>Pitman</th>"
            "<th>SNB</th><th>Dankar</th><th>Expected population uniques in the table</th><th>|PU|/|SU|</th></tr>\n";
    for (const auto& p : r.populations) {
      html += fmt::format(
          "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
          esc(p.name), population_size(p.size), p.size > 0 ? pct(static_cast<double>(r.records) / p.size) : "-",
          estimate_cell(p.zayatz, p.size), estimate_cell(p.pitman, p.size), estimate_cell(p.snb, p.size),
          estimate_cell(p.dankar, p.size),
          p.expected_population_uniques ? fmt::format("{:.1f}", *p.expected_population_uniques) : "-",
          p.pu_su_ratio ? pct(*p.pu_su_ratio) : "-");
    }
    html += "</table>\n";

    // |PU|/|SU| by population size, smallest population first.
    std::vector<const RiskReport::Population*> by_size;
    for (const auto& p : r.populations)
      if (p.pu_su_ratio) by_size.push_back(&p);
    std::stable_sort(by_size.begin(), by_size.end(), [](auto* a, auto* b) { return a->size < b->size; });
    if (!by_size.empty()) {
      std::vector<std::string> labels;
      std::vector<Bar> ratio;
      for (const auto* p : by_size) {
        labels.push_back(fmt::format("{} ({})", p->name, population_size(p->size)));
        ratio.push_back({*p->pu_su_ratio, pct(*p->pu_su_ratio)});
      }
      html += bar_chart("pu-su", "|PU|/|SU| by population size (smallest population first)", labels, {ratio},
                        {"|PU|/|SU|"}, std::max(html::max_value({ratio}), 1e-12));
    } else {
      html += fmt::format("<p class=\"note\">No |PU|/|SU| to chart: {}.</p>\n",
                          r.sample_uniques == 0 ? "the table has no sample uniques"
                                                : "no population has an estimate by Dankar's rule");
    }

    // Every estimator's share of population uniques, per population.
    std::vector<std::string> labels;
    std::vector<std::vector<Bar>> series(4);
    bool any = false;
    for (const auto& p : r.populations) {
      labels.push_back(fmt::format("{} ({})", p.name, population_size(p.size)));
      const UniquenessEstimate* es[] = {&p.zayatz, &p.pitman, &p.snb, &p.dankar};
      for (std::size_t e = 0; e < 4; ++e) {
        const auto& est = *es[e];
        if (est.uniques) {
          const double f = *est.uniques / p.size;
          series[e].push_back({f, pct(f)});
          any = any || f > 0;
        } else {
          series[e].push_back({0, est.status == UniquenessEstimate::Status::not_converged ? "did not converge"
                                                                                         : "no estimate"});
        }
      }
    }
    if (any)
      html += bar_chart("population-uniques", "Estimated share of population uniques, by estimator", labels, series,
                        {"Zayatz", "Pitman", "SNB", "Dankar"}, html::max_value(series));
  }

  // Class sizes.
  {
    const std::vector<std::pair<std::uint64_t, std::string>> buckets = {
        {1, "1"}, {2, "2"}, {4, "3-4"}, {9, "5-9"}, {19, "10-19"}, {49, "20-49"}, {99, "50-99"},
        {999, "100-999"}, {UINT64_MAX, "≥ 1000"}};
    std::vector<double> classes(buckets.size(), 0), records(buckets.size(), 0);
    for (const auto& [size, n] : r.frequencies.sizes)
      for (std::size_t b = 0; b < buckets.size(); ++b)
        if (size <= buckets[b].first) {
          classes[b] += static_cast<double>(n);
          records[b] += static_cast<double>(size * n);
          break;
        }
    std::vector<std::string> labels;
    std::vector<Bar> share;
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      labels.push_back(buckets[b].second);
      const double f = records[b] / static_cast<double>(r.records);
      share.push_back({f, fmt::format("{} ({:.0f} classes)", pct(f), classes[b])});
    }
    html += "<h2>Equivalence classes</h2>\n";
    html += bar_chart("class-sizes", "Share of records by the size of their class", labels, {share}, {"records"},
                      std::max(html::max_value({share}), 1e-12));
  }

  // Attacks of papers/003.
  if (j.contains("attack_based") && j["attack_based"].is_object()) {
    const auto& ab = j["attack_based"];
    const auto& t = ab["targeted"];
    html += fmt::format("<h2>Attacks (papers/003)</h2><p>Targeted attack (attack 3) with the table's class sizes: "
                        "records in classes smaller than k = {} (risk above {}).</p><table>"
                        "<tr><th>Records at risk</th><td class=\"num\">{} ({})</td></tr>"
                        "<tr><th>Classes at risk</th><td class=\"num\">{}</td></tr>"
                        "<tr><th>Highest risk</th><td class=\"num\">{}</td></tr></table>\n",
                        ab["k"].get<std::uint64_t>(), pct(ab["threshold"].get<double>()),
                        t["records_at_risk"].get<std::uint64_t>(), pct(t["records_at_risk_fraction"].get<double>()),
                        t["classes_at_risk"].get<std::uint64_t>(), pct(t["highest_risk"].get<double>()));
    if (!ab["registry_matching"].empty()) {
      html += "<p>Matching every record against a registry of each population (attack 2, equation 3):</p>"
              "<table><tr><th>Population</th><th>Sampling fraction</th><th>Expected correct matches</th>"
              "<th>Share of records</th></tr>\n";
      for (const auto& m : ab["registry_matching"])
        html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1f}</td>"
                            "<td class=\"num\">{}</td></tr>\n",
                            esc(m["population"].get<std::string>()), pct(m["sampling_fraction"].get<double>()),
                            m["expected_matches"].get<double>(), pct(m["proportion"].get<double>()));
      html += "</table>\n";
    }
  }
  html += html::page_end();
  return html;
}

}  // namespace deid
