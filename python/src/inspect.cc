// deid.inspect: the inspection of `deid inspect` (include/deid/inspect.h)
// for a table given in memory (a DataFrame, an Arrow table) or read from a
// CSV file. The table is encoded by the same paths as for deid.anonymize
// (data.cc, arrow.cc) and inspected by the library's one inspect(), so the
// answer is the command's for the CSV text of the same values.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binding.h"
#include "deid/error.h"
#include "deid/inspect.h"
#include "deid/output.h"

namespace py = pybind11;

namespace deid::python {

void bind_inspect(py::module_& m) {
  py::class_<Inspection, std::shared_ptr<Inspection>>(m, "Inspection", "deid::Inspection")
      .def(
          "json", [](const Inspection& in, int indent) { return to_json(in).dump(indent); }, py::arg("indent") = -1)
      .def("text", [](const Inspection& in) { return to_text(in); })
      .def(
          "starter_job",
          [](const Inspection& in, const std::string& input_path, const std::string& output_stem) {
            StarterInput input;
            input.path = input_path;
            return starter_job(in, input, output_stem);
          },
          py::arg("input_path"), py::arg("output_stem"),
          "The starter job: reading the CSV file `input_path` (as written; empty: no input section, the table is "
          "given beside the job) and writing OUTPUT_STEM-deid.csv (empty: no output section).");

  m.def(
      "inspect",
      [](const std::shared_ptr<Table>& table, int max_combination_size, int threads) {
        // The same range as `deid inspect --max-combination-size`.
        if (max_combination_size < 1 || max_combination_size > 8)
          throw JobError(Location{}, fmt::format("max_combination_size {}: expected 1 to 8", max_combination_size));
        auto out = std::make_shared<Inspection>();
        InspectOptions options;
        options.max_combination_size = max_combination_size;
        // The table is read, not taken: it stays usable.
        run_released(threads, [&] { *out = inspect(table->get(), options); });
        return out;
      },
      py::arg("table"), py::arg("max_combination_size") = 3, py::arg("threads") = 0,
      "Profiles the table as `deid inspect` does.");

  m.def(
      "write_inspection_file",
      [](const std::string& path, const std::string& role, const std::string& text, const std::string& input_path) {
        // Never over the table inspected, as `deid inspect` checks.
        std::vector<FileUse> reads;
        if (!input_path.empty()) reads.push_back({"input data", input_path});
        const CheckedFiles checked = check_files(reads, {{role, path}});
        write_file_atomically(checked.output(role), text, role);
      },
      py::arg("path"), py::arg("role"), py::arg("text"), py::arg("input_path") = "",
      "Writes `text` (the inspection JSON, the starter job) atomically, never over `input_path`.");
}

}  // namespace deid::python
