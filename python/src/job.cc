// Jobs: parsed from YAML text or a file by the library's parser (so every
// message is the command line's), then adjusted as the Python call asks
// (the data given instead of input.path, hierarchies given in memory).
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "binding.h"
#include "deid/error.h"

namespace py = pybind11;

namespace deid::python {

void bind_job(py::module_& m) {
  py::class_<JobHandle, std::shared_ptr<JobHandle>>(m, "Job", "A parsed job (deid::Job).")
      .def_property_readonly("path", [](const JobHandle& j) { return j.job.path; })
      .def_property("input_path", [](const JobHandle& j) { return j.job.input.path; },
                    [](JobHandle& j, const std::string& p) { j.job.input.path = p; })
      .def_property_readonly("input_delimiter",
                             [](const JobHandle& j) -> std::optional<std::string> {
                               if (!j.job.input.delimiter) return std::nullopt;
                               return std::string(1, *j.job.input.delimiter);
                             })
      .def_property_readonly("output_delimiter",
                             [](const JobHandle& j) -> std::optional<std::string> {
                               if (!j.job.output.delimiter) return std::nullopt;
                               return std::string(1, *j.job.output.delimiter);
                             })
      .def_property_readonly("output_path", [](const JobHandle& j) { return j.job.output.path; })
      .def_property_readonly("has_privacy", [](const JobHandle& j) { return !j.job.privacy.empty(); })
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
                             })
      .def(
          "set_hierarchy_table",
          [](JobHandle& j, const std::string& attribute, std::vector<std::vector<std::string>> rows,
             const std::string& source) {
            AttributeSpec* spec = nullptr;
            for (auto& a : j.job.attributes)
              if (a.name == attribute) spec = &a;
            if (!spec)
              throw JobError(Location{j.job.path, 0, 0, {}},
                             fmt::format("hierarchies: '{}' is not an attribute of the job", attribute));
            auto t = std::make_shared<HierarchyTable>();
            t->source = source;
            t->rows = std::move(rows);
            for (std::size_t i = 0; i < t->rows.size(); ++i) t->lines.push_back(i + 1);
            spec->hierarchy_data = std::move(t);
            spec->hierarchy.clear();  // the placeholder the Python layer put in the job
            spec->hierarchy_builder.reset();
          },
          py::arg("attribute"), py::arg("rows"), py::arg("source"),
          "Gives `attribute` a hierarchy held in memory (one row per value, ARX's layout).");

  m.def(
      "parse_job",
      [](const std::string& text, const std::string& name, const std::string& base_dir) {
        auto j = std::make_shared<JobHandle>();
        j->job = parse_job(text, name, base_dir);
        return j;
      },
      py::arg("text"), py::arg("name"), py::arg("base_dir"),
      "Parses a job from YAML text; relative paths are resolved against base_dir.");
  m.def(
      "read_job",
      [](const std::string& path) {
        auto j = std::make_shared<JobHandle>();
        j->job = read_job(path);
        return j;
      },
      py::arg("path"), "Reads a job file.");
}

}  // namespace deid::python
