// deid.verify: the independent verifier of `deid verify` (docs/verify.md),
// the command's own code (cli/verify_command.cc) on files.
#include <pybind11/stl.h>

#include "binding.h"
#include "checks.h"
#include "commands.h"

namespace py = pybind11;

namespace deid::python {

void bind_verify(py::module_& m) {
  m.def(
      "verify",
      [](const std::shared_ptr<JobHandle>& job, const std::string& input, const std::string& output,
         const std::string& result, const std::string& weights) {
        nlohmann::json out;
        Job j = job->job;
        run_released(0,
                     [&] { out = cli::to_json(cli::verify_release(std::move(j), input, output, result, weights)); });
        return out.dump();
      },
      py::arg("job"), py::arg("input"), py::arg("output"), py::arg("result"), py::arg("weights") = "",
      "The checks of `deid verify` as its --json writes them; `weights`: a file of the records each row of the two "
      "tables stands for, one count per line (grouped tables), or empty.");
  m.def(
      "check_text_for_identifiers",
      [](const std::string& what, const std::string& text, const std::vector<std::pair<std::string, std::string>>& values) {
        const verify::CheckLine line = verify::check_text_for_identifiers(what, text, values);
        return py::dict(py::arg("check") = line.name, py::arg("status") = verify::to_string(line.status),
                        py::arg("detail") = line.detail);
      },
      py::arg("what"), py::arg("text"), py::arg("values"),
      "The verifier's line on whether `text` (a report, a result) holds one of `values` (column, value): "
      "checks.h, check_text_for_identifiers.");
}

}  // namespace deid::python
