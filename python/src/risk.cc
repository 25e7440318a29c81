// deid.risk: the risk report of `deid risk` for a table given in memory or
// read from a file.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "binding.h"
#include "deid/error.h"
#include "deid/output.h"
#include "deid/pipeline.h"
#include "deid/report.h"
#include "deid/risk.h"

namespace py = pybind11;

namespace deid::python {

void bind_risk(py::module_& m) {
  py::class_<RiskReport, std::shared_ptr<RiskReport>>(m, "RiskReport", "deid::RiskReport")
      .def(
          "json", [](const RiskReport& r, int indent) { return to_json(r).dump(indent); }, py::arg("indent") = -1)
      .def("text", [](const RiskReport& r) { return to_text(r); })
      .def("html",
           [](const RiskReport& r) {
             py::gil_scoped_release release;
             return render_html_risk_report(r);
           })
      .def(
          "save_report",
          [](const RiskReport& r, const std::string& path, const std::shared_ptr<JobHandle>& job) {
            std::vector<FileUse> reads = job ? job_reads(job->job) : std::vector<FileUse>{};
            reads.push_back({"input data", r.input});
            const OutputTarget target = check_files(reads, {{"HTML risk report", path}}).output("HTML risk report");
            py::gil_scoped_release release;
            OutputFile out(target);
            out.stream() << render_html_risk_report(r);
            out.finish("report");
            out.publish();
          },
          py::arg("path"), py::arg("job") = nullptr);

  m.def(
      "risk",
      [](const std::shared_ptr<JobHandle>& job, const std::shared_ptr<Table>& table, std::optional<double> threshold,
         std::optional<std::vector<std::pair<std::string, double>>> populations, int threads, bool of_input) {
        // The same ranges as `deid risk --threshold` and `--population`.
        if (threshold && !(*threshold >= 1e-18 && *threshold <= 1.0))
          throw JobError(Location{}, fmt::format("threshold {}: expected a number in (0, 1], at least 1e-18",
                                                 *threshold));
        RiskOptions options = risk_options(job->job);
        if (threshold) options.threshold = *threshold;
        if (populations) {
          for (const auto& [name, size] : *populations)
            if (name.empty() || !(size >= 1 && size <= 1e12))
              throw JobError(Location{}, fmt::format("population '{}={}': expected a name and a size from 1 to "
                                                     "1e12, e.g. USA=318.9e6",
                                                     name, size));
          options.populations = *populations;
        }
        auto report = std::make_shared<RiskReport>();
        run_released(threads, [&] { *report = assess_risk(job->job, table->get(), options); });
        // The job's input (the caller passed no table of its own): the
        // report is for the custodian only (docs/reliability.md).
        report->custodian_only = of_input;
        return report;
      },
      py::arg("job"), py::arg("table"), py::arg("threshold") = std::nullopt, py::arg("populations") = std::nullopt,
      py::arg("threads") = 0, py::arg("of_input") = false);
}

}  // namespace deid::python
