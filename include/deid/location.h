// Table locations that are URLs of a file system rather than local paths.
#pragma once

#include <string_view>

namespace deid {

// Whether a table's location is a URL of a file system (`hdfs://…`,
// `s3a://…`, `file://…`: a scheme of letters, digits, `+`, `-` or `.` and
// "://"). Such a location is kept as written (never resolved against the
// job's directory) and read and written only by deid.spark, through
// Spark's file systems (docs/spark.md); the deid command refuses it.
bool is_url(std::string_view location);

}  // namespace deid
