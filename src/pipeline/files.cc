// The files a job reads and writes, for check_files() (output.h).
#include <fmt/format.h>

#include "deid/error.h"
#include "deid/location.h"
#include "deid/output.h"
#include "deid/pipeline.h"

namespace deid {

// A Spark table (docs/spark.md) is read and written by deid.spark, in a
// Spark session; every command and library call that lists a job's files
// comes here first, so a job that names one is refused before any work.
static void refuse_spark_tables(const Job& job) {
  const char* key = !job.input.table.empty() ? "input.table" : !job.output.table.empty() ? "output.table" : nullptr;
  if (key)
    throw JobError(Location{job.path, 0, 0, {}},
                   fmt::format("{} names a table of a Spark session, which only deid.spark reads and writes: run "
                               "the job with 'python -m deid.spark' (docs/spark.md), or give a file",
                               key));
  // A URL (hdfs://, s3a://, ...) is a location of Spark's file systems.
  const bool in_url = is_url(job.input.path);
  if (in_url || is_url(job.output.path))
    throw JobError(Location{job.path, 0, 0, {}},
                   fmt::format("{} is a URL ({}), which only deid.spark reads and writes: run the job with "
                               "'python -m deid.spark' (docs/spark.md), or give a local file",
                               in_url ? "the input" : "the output", in_url ? job.input.path : job.output.path));
}

std::vector<FileUse> job_reads(const Job& job) {
  refuse_spark_tables(job);
  std::vector<FileUse> reads;
  reads.push_back({"job file", job.path});
  reads.push_back({"input data", job.input.path});
  for (const AttributeSpec& a : job.attributes)
    if (!a.hierarchy.empty()) reads.push_back({fmt::format("hierarchy of '{}'", a.name), a.hierarchy});
  if (job.subset && !job.subset->file.empty()) reads.push_back({"research subset", job.subset->file});
  if (job.identifiers) reads.push_back({"secret", job.identifiers->secret_file});
  for (const LinkedTable& t : job.linked) reads.push_back({fmt::format("linked table '{}'", t.name), t.path});
  if (job.cell_suppression && job.cell_suppression->registry)
    reads.push_back({"registry population table", job.cell_suppression->registry->population});
  return reads;
}

std::string linked_output_role(const LinkedTable& table) {
  return fmt::format("release of linked table '{}'", table.name);
}

std::vector<FileUse> job_writes(const Job& job) {
  refuse_spark_tables(job);
  std::vector<FileUse> writes;
  writes.push_back({"output table", job.output.path});
  writes.push_back({"result", job.output.result});
  writes.push_back({"report", job.output.report});
  writes.push_back({"linkage table", job.output.linkage});
  for (const LinkedTable& t : job.linked) writes.push_back({linked_output_role(t), t.output});
  if (job.cell_suppression)
    for (std::size_t i = 0; i < job.cell_suppression->samples.size(); ++i)
      writes.push_back({fmt::format("sample {}", i + 1), job.cell_suppression->samples[i].path});
  return writes;
}

}  // namespace deid
