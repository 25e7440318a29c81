#pragma once
// The result's `local_recoding` section (docs/job-file.md, "The JSON
// result"): the mode and its parameters, the records suppressed before and
// after, and each pass with its transformation, records and loss.

#include <nlohmann/json.hpp>

#include "deid/job.h"
#include "deid/pipeline.h"

namespace deid {

nlohmann::json local_recoding_json(const Job::LocalRecoding& lr, const LocalRecodingOutcome& o, const Problem& pr,
                                   const Transformation& global);

}  // namespace deid
