#include "deid/parquet.h"

#include <fmt/format.h>

#include <filesystem>
#include <utility>

#include "deid/digest.h"
#include "deid/error.h"

namespace deid {
namespace {

ParquetCodec& codec() {
  static ParquetCodec c;
  return c;
}

}  // namespace

void set_parquet_codec(ParquetCodec c) { codec() = std::move(c); }

bool have_parquet_codec() { return codec().read && codec().write; }

void require_parquet(const std::string& path, const std::string& role) {
  if (have_parquet_codec()) return;
  throw InputError(Location{path, 0, 0, {}},
                   fmt::format("the {} is a Parquet file: deid reads and writes Parquet through its Python package; "
                               "run this command as `python -m deid ...` in an environment where the package is "
                               "installed (pip install; docs/python.md)",
                               role));
}

void require_table_formats(const Job& job) {
  if (job.input.format == TableFormat::parquet && !job.input.postgres) require_parquet(job.input.path, "input data");
  if (job.output.format == TableFormat::parquet && !job.output.path.empty() && !job.output.postgres)
    require_parquet(job.output.path, "output table");
}

Dataset read_parquet(const std::string& path, const std::string& role) {
  require_parquet(path, role);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw IoError(Location{path, 0, 0, {}}, fmt::format("cannot open the {}: No such file or directory", role));
  // The digest first: the result names the bytes the table was read from.
  std::string digest = sha256_file(path);
  const auto size = std::filesystem::file_size(path, ec);
  Dataset data = codec().read(path);
  data.source = path;
  data.sha256 = std::move(digest);
  data.bytes = ec ? 0 : static_cast<std::uint64_t>(size);
  return data;
}

Dataset read_table_file(const std::string& path, TableFormat format, const CsvOptions& csv, const std::string& role) {
  if (format == TableFormat::parquet) return read_parquet(path, role);
  return read_dataset(path, csv);
}

void write_parquet(std::string_view csv, char delimiter, std::ostream& out, const std::string& path,
                   const std::string& role) {
  require_parquet(path, role);
  codec().write(csv, delimiter, out);
}

}  // namespace deid
