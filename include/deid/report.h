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
#pragma once

#include <string>

#include "deid/pipeline.h"
#include "deid/risk.h"

namespace deid {

// Renders the report of `anonymization` on `prepared`. Pure: reads only its
// arguments; the caller writes the string to a file.
std::string render_html_report(const PreparedJob& prepared, const Anonymization& anonymization);

// Renders the report of `deid risk` for `report` (assess_risk()). Pure.
std::string render_html_risk_report(const RiskReport& report);

}  // namespace deid
