// The warnings a run gives about released values a spreadsheet would run
// as formulas (formulas.h), one per column of a Dataset.
#pragma once

#include <string>
#include <vector>

#include "deid/dataset.h"
#include "deid/formulas.h"

namespace deid {

// Warnings, one per column of `data` whose written values a spreadsheet
// would run as formulas (looks_like_formula, formulas.h). `written[c]`
// false skips column c (identifying); `released_labels[c]`, when not null,
// are the values written for column c (a quasi-identifier's labels at its
// released level) instead of its dictionary; `counted[c]`, when not null,
// what was counted of them instead of either. Any vector may be shorter than
// the columns (then: written, dictionary values).
std::vector<std::string> formula_warnings(const Dataset& data, const std::vector<bool>& written,
                                          const std::vector<const std::vector<std::string>*>& released_labels,
                                          const std::vector<const FormulaCount*>& counted = {});

}  // namespace deid
