// The research subset of a job (Job::subset; docs/privacy-models.md,
// "Research subset"): which rows of the input the release keeps.
#pragma once

#include <cstdint>
#include <vector>

#include "deid/dataset.h"
#include "deid/job.h"

namespace deid {

// One flag per row of `data` (1: in the subset). With `subset.file`, each
// record of the file (a header naming the input's columns, in any order;
// every column of the input) is matched to the first row of the input with
// the same values that no earlier record matched (ARX's
// DataSubset.create(data, subset)); with `subset.column`, the rows whose
// column holds `subset.value`. Throws JobError for a column the input
// lacks, and InputError naming the file's line for a record no row
// matches, or that matches only rows already taken, and for an empty
// subset.
std::vector<std::uint8_t> research_subset(const Job& job, const Dataset& data);

}  // namespace deid
