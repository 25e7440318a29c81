// deid.suppress: local cell suppression (`deid suppress`) on a table in
// memory; the released tables come back as the CSV text the command line
// writes to its files.
#include <pybind11/stl.h>

#include "binding.h"
#include "deid/cell_suppression.h"

namespace py = pybind11;

namespace deid::python {

void bind_suppress(py::module_& m) {
  m.def(
      "suppress",
      [](const std::shared_ptr<JobHandle>& job, const std::shared_ptr<Table>& table, int threads) {
        Dataset data = table->take();
        CellSuppressionTables tables;
        std::string result;
        run_released(threads, [&] {
          const CellSuppressionRun run = run_cell_suppression(job->job, std::move(data), tables);
          result = run.result.dump(2);
        });
        return py::make_tuple(result, py::bytes(tables.table), [&] {
          py::list samples;
          for (const std::string& s : tables.samples) samples.append(py::bytes(s));
          return samples;
        }());
      },
      py::arg("job"), py::arg("table"), py::arg("threads") = 0,
      "Runs the job's cell-suppression section on `table` (consumed): (result JSON, table CSV, [sample CSV]).");
}

}  // namespace deid::python
