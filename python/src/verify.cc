// deid.verify: the independent verifier of `deid verify` (docs/verify.md),
// the command's own code (cli/verify_command.cc) on files.
#include "binding.h"
#include "commands.h"

namespace py = pybind11;

namespace deid::python {

void bind_verify(py::module_& m) {
  m.def(
      "verify",
      [](const std::shared_ptr<JobHandle>& job, const std::string& input, const std::string& output,
         const std::string& result) {
        nlohmann::json out;
        Job j = job->job;
        run_released(0, [&] { out = cli::to_json(cli::verify_release(std::move(j), input, output, result)); });
        return out.dump();
      },
      py::arg("job"), py::arg("input"), py::arg("output"), py::arg("result"),
      "The checks of `deid verify` as its --json writes them.");
}

}  // namespace deid::python
