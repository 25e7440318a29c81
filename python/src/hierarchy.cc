// deid.hierarchy: the builders of `deid hierarchy` and of inline
// definitions, on a list of values.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <algorithm>

#include "binding.h"
#include "deid/output.h"
#include "deid/pipeline.h"
#include "deid/hierarchy_builder.h"

namespace py = pybind11;

namespace deid::python {
namespace {

// Runs a builder; a bad parameter is named as the Python keyword argument
// (the command line names its option, "--widths: ...").
std::vector<std::vector<std::string>> build(const std::vector<std::string>& values, const HierarchyBuilderSpec& spec) {
  try {
    return build_hierarchy(values, spec).rows;
  } catch (const HierarchyParameterError& e) {
    std::string name = e.parameter();
    std::replace(name.begin(), name.end(), '-', '_');
    throw JobError(Location{}, fmt::format("{}: {}", name, e.problem()));
  }
}

}  // namespace

void bind_hierarchy(py::module_& m) {
  m.def(
      "build_intervals",
      [](const std::vector<std::string>& values, double min, double max, std::vector<double> widths,
         bool bottom_coding, bool top_coding) {
        return build(values, IntervalSpec{min, max, std::move(widths), bottom_coding, top_coding});
      },
      py::arg("values"), py::arg("min"), py::arg("max"), py::arg("widths"), py::arg("bottom_coding"),
      py::arg("top_coding"));
  m.def(
      "build_masking",
      [](const std::vector<std::string>& values, const std::string& mask_char, bool from_left, int levels) {
        if (mask_char.size() != 1)
          throw HierarchyParameterError("mask-char", fmt::format("mask-char must be a single character, got '{}'",
                                                                 mask_char));
        return build(values, MaskingSpec{mask_char[0], from_left, levels});
      },
      py::arg("values"), py::arg("mask_char"), py::arg("from_left"), py::arg("levels"));
  m.def(
      "build_dates",
      [](const std::vector<std::string>& values, bool month, bool year, bool decade) {
        return build(values, DateSpec{month, year, decade});
      },
      py::arg("values"), py::arg("month"), py::arg("year"), py::arg("decade"));
  m.def(
      "build_grouping",
      [](const std::vector<std::string>& values, std::vector<std::string> order, std::vector<std::size_t> sizes) {
        return build(values, GroupingSpec{std::move(order), std::move(sizes)});
      },
      py::arg("values"), py::arg("order"), py::arg("sizes"));
  m.def(
      "hierarchy_to_csv",
      [](std::vector<std::vector<std::string>> rows, const std::string& delimiter) {
        HierarchyTable t;
        t.rows = std::move(rows);
        return hierarchy_to_csv(t, delimiter.empty() ? ';' : delimiter[0]);
      },
      py::arg("rows"), py::arg("delimiter") = ";");
  m.def(
      "write_file",
      [](const std::string& path, const std::string& role, const std::string& text,
         const std::shared_ptr<JobHandle>& job) {
        // Never over a file the job reads (its input, hierarchies, subset
        // table, the job file itself), as the command line checks.
        const std::vector<FileUse> reads = job ? job_reads(job->job) : std::vector<FileUse>{};
        const CheckedFiles checked = check_files(reads, {{role, path}});
        write_file_atomically(checked.output(role), text, role);
      },
      py::arg("path"), py::arg("role"), py::arg("text"), py::arg("job") = nullptr,
      "Writes `text` to `path` atomically, never over a file `job` reads.");
}

}  // namespace deid::python
