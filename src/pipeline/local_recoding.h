#pragma once
// The result's `local_recoding` section (docs/job-file.md, "The JSON
// result"): the mode and its parameters, the records suppressed before and
// after, and each pass with its transformation, records and loss.

#include <nlohmann/json.hpp>

#include "deid/job.h"
#include "deid/pipeline.h"

namespace deid {

// Per quasi-identifier and level, the distinct values of its hierarchy over
// the values of the whole input (the column's own codes, not hierarchy rows
// absent from the data): ARX's GeneralizationHierarchy.getDistinctValues,
// which orders Flash's traversal (FLASHStrategy; search/arx_flash.h).
std::vector<std::vector<std::uint32_t>> arx_distinct_values(const PreparedJob& p);

nlohmann::json local_recoding_json(const Job::LocalRecoding& lr, const LocalRecodingOutcome& o, const Problem& pr,
                                   const Transformation& global);

}  // namespace deid
