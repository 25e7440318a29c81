// deid.suppress: local cell suppression (`deid suppress`) on a table in
// memory; the released tables come back as the CSV text the command line
// writes to its files, and as columns of codes and labels for the
// DataFrames.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "binding.h"
#include "deid/cell_suppression_job.h"

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
        py::list samples, columns, sample_rows;
        for (const std::string& s : tables.samples) samples.append(py::bytes(s));
        for (const auto& c : tables.columns)
          columns.append(py::make_tuple(
              c.name, c.input_column, narrow_codes(c.codes, static_cast<std::uint32_t>(c.labels.size())), c.labels));
        for (const auto& rows : tables.sample_rows)
          sample_rows.append(py::array_t<std::uint64_t>(static_cast<py::ssize_t>(rows.size()), rows.data()));
        return py::make_tuple(result, py::bytes(tables.table), samples, columns, sample_rows);
      },
      py::arg("job"), py::arg("table"), py::arg("threads") = 0,
      "Runs the job's cell-suppression section on `table` (consumed): (result JSON, table CSV, [sample CSV], "
      "[(name, input column or -1, codes, labels)] of the table's columns, [rows of each sample]).");
}

}  // namespace deid::python
