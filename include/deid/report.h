// The HTML report of a run: one self-contained file (inline CSS and SVG, no
// script or font fetched from anywhere) that opens offline in any browser.
// It shows the job, the chosen transformation and how it compares with the
// other solutions the search found, information loss per attribute, the
// re-identification risk profile of input and output side by side,
// suppression by attribute, and the distribution of class sizes.
//
// The risk report of `deid risk` is a page of the same kind: the risk
// profile, the attacker models, the population-uniqueness estimates of every
// estimator (with those that did not converge marked as such), |PU|/|SU| by
// population size, the class-size distribution and the attacks of
// papers/003.
//
// Both the report of a run with a utility analysis and the page of `deid
// utility --report` draw it (docs/utility.md, "The HTML report").
//
// The page of `deid inspect --report` (docs/inspect.md) shows an
// inspection: each column's type, counts and non-conforming values, the
// identifiers found, the suggested roles, the most identifying
// combinations and the starter job.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "deid/pipeline.h"
#include "deid/risk.h"

namespace deid {

// Renders the report of `anonymization` on `prepared`. Pure: reads only its
// arguments; the caller writes the string to a file.
std::string render_html_report(const PreparedJob& prepared, const Anonymization& anonymization);

// Renders the report of `deid risk` for `report` (assess_risk()). Pure.
std::string render_html_risk_report(const RiskReport& report);

// Renders the page of `deid utility --report`: `utility` (the analysis as
// to_json of deid/utility.h writes it) under a header naming the job file,
// the input and the released table. Pure.
std::string render_html_utility_report(const nlohmann::json& utility, const std::string& job_file,
                                       const std::string& input, const std::string& released);

// Renders the page of `deid inspect --report`: `inspection` (as to_json of
// deid/inspect.h writes it) and `starter_job` (the text starter_job()
// writes). Every value is escaped. Pure.
std::string render_html_inspection_report(const nlohmann::json& inspection, const std::string& starter_job);

}  // namespace deid
