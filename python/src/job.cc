// Jobs: parsed from YAML text or a file by the library's parser (so every
// message is the command line's, with the lines of the job's own text),
// with the hierarchies the Python call gives beside the job
// (deid::HierarchyOverride), then adjusted as the call asks (the data given
// instead of input.path).
#include <pybind11/stl.h>

#include <stdexcept>

#include "binding.h"
#include "deid/hierarchy.h"
#include "deid/identifiers.h"

namespace py = pybind11;

namespace deid::python {
namespace {

// The hierarchies given beside a job: (attribute, kind, value, source).
std::vector<HierarchyOverride> given_hierarchies(const py::list& hierarchies) {
  std::vector<HierarchyOverride> out;
  for (const py::handle& item : hierarchies) {
    const auto t = item.cast<py::tuple>();
    if (t.size() != 4) throw std::invalid_argument("hierarchies: expected (attribute, kind, value, source) tuples");
    HierarchyOverride h;
    h.attribute = t[0].cast<std::string>();
    const auto kind = t[1].cast<std::string>();
    h.source = t[3].cast<std::string>();
    if (kind == "table") {
      auto table = std::make_shared<HierarchyTable>();
      table->source = h.source;
      table->rows = t[2].cast<std::vector<std::vector<std::string>>>();
      for (std::size_t i = 0; i < table->rows.size(); ++i) table->lines.push_back(i + 1);
      h.table = std::move(table);
    } else if (kind == "builder") {
      h.builder = t[2].cast<std::string>();
    } else if (kind == "path") {
      h.path = t[2].cast<std::string>();
    } else {
      throw std::invalid_argument("hierarchies: kind must be 'table', 'builder' or 'path', not '" + kind + "'");
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

void bind_job(py::module_& m) {
  py::class_<JobHandle, std::shared_ptr<JobHandle>>(m, "Job", "A parsed job (deid::Job).")
      .def_property_readonly("path", [](const JobHandle& j) { return j.job.path; })
      .def("copy", [](const JobHandle& j) { return std::make_shared<JobHandle>(j); }, "A copy to adjust.")
      // Setting a path makes the input that file, also in a job with a table:
      // Parquet when its name ends in ".parquet" (as on the command line).
      .def_property("input_path", [](const JobHandle& j) { return j.job.input.path; },
                    [](JobHandle& j, const std::string& p) { j.job.input.use_file(p); })
      .def_property_readonly("input_parquet",
                             [](const JobHandle& j) {
                               return j.job.input.format == TableFormat::parquet && !j.job.input.postgres;
                             })
      .def_property(
          "input_delimiter",
          [](const JobHandle& j) -> std::optional<std::string> {
            if (!j.job.input.delimiter) return std::nullopt;
            return std::string(1, *j.job.input.delimiter);
          },
          [](JobHandle& j, const std::optional<std::string>& d) {
            if (d && d->size() != 1) throw std::invalid_argument("input_delimiter: one character or None");
            j.job.input.delimiter = d ? std::optional<char>((*d)[0]) : std::nullopt;
          })
      .def_property_readonly("output_delimiter",
                             [](const JobHandle& j) -> std::optional<std::string> {
                               if (!j.job.output.delimiter) return std::nullopt;
                               return std::string(1, *j.job.output.delimiter);
                             })
      .def_property_readonly("output_path", [](const JobHandle& j) { return j.job.output.path; })
      .def_property_readonly("output_parquet", [](const JobHandle& j) { return j.job.output.format == TableFormat::parquet; })
      .def_property_readonly("output_result", [](const JobHandle& j) { return j.job.output.result; })
      .def_property_readonly("output_report", [](const JobHandle& j) { return j.job.output.report; })
      .def_property_readonly("output_linkage", [](const JobHandle& j) { return j.job.output.linkage; })
      .def_property_readonly("releases_identifiers", [](const JobHandle& j) { return releases_identifiers(j.job); },
                             "Whether an identifying attribute has an action other than remove.")
      .def_property_readonly("input_table", [](const JobHandle& j) { return j.job.input.table; })
      .def_property_readonly("output_table", [](const JobHandle& j) { return j.job.output.table; })
      .def_property_readonly("output_mode", [](const JobHandle& j) { return j.job.output.table_mode; })
      .def_property_readonly("input_postgres", [](const JobHandle& j) { return j.job.input.postgres.has_value(); })
      .def_property_readonly("output_postgres", [](const JobHandle& j) { return j.job.output.postgres.has_value(); })
      .def_property_readonly("has_privacy", [](const JobHandle& j) { return !j.job.privacy.empty(); })
      .def_property_readonly("local_recoding_line",
                             [](const JobHandle& j) -> py::object {
                               if (!j.job.local_recoding) return py::none();
                               return py::int_(j.job.local_recoding->line);
                             })
      .def_property_readonly("has_cell_suppression", [](const JobHandle& j) { return j.job.cell_suppression.has_value(); })
      .def_property_readonly("escape_formulas", [](const JobHandle& j) { return j.job.output.escape_formulas; })
      .def_property_readonly("attributes",
                             [](const JobHandle& j) {
                               std::vector<std::pair<std::string, std::string>> out;
                               for (const auto& a : j.job.attributes) out.emplace_back(a.name, to_string(a.role));
                               return out;
                             })
      .def_property_readonly("default_role",
                             [](const JobHandle& j) -> std::optional<std::string> {
                               if (!j.job.default_role) return std::nullopt;
                               return std::string(to_string(*j.job.default_role));
                             });

  m.def(
      "parse_job",
      [](const std::string& text, const std::string& name, const std::string& base_dir, const py::list& hierarchies) {
        auto given = given_hierarchies(hierarchies);
        auto j = std::make_shared<JobHandle>();
        j->job = parse_job(text, name, base_dir, given);
        return j;
      },
      py::arg("text"), py::arg("name"), py::arg("base_dir"), py::arg("hierarchies") = py::list(),
      "Parses a job from YAML text; relative paths are resolved against base_dir. `hierarchies`: see read_job.");
  m.def(
      "read_job",
      [](const std::string& path, const py::list& hierarchies) {
        auto given = given_hierarchies(hierarchies);
        auto j = std::make_shared<JobHandle>();
        j->job = read_job(path, given);
        return j;
      },
      py::arg("path"), py::arg("hierarchies") = py::list(),
      "Reads a job file. `hierarchies`: (attribute, kind, value, source) tuples that replace the job's hierarchies "
      "(deid::HierarchyOverride): kind 'table' with value the rows (value, level 1, ...), 'builder' with value "
      "YAML text, 'path' with value a file path; source names it in messages.");
}

}  // namespace deid::python
