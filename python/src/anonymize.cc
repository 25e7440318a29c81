// deid.anonymize: prepare and search with the GIL released, the result kept
// whole (the prepared job and the search's outcome) so that the released
// table, the classes, the CSV and the report are made from it on demand,
// by the library's own code.
#include <fmt/format.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <chrono>

#include "binding.h"
#include "deid/error.h"
#include "deid/formulas.h"
#include "deid/identifiers.h"
#include "deid/output.h"
#include "deid/pipeline.h"
#include "deid/report.h"

namespace py = pybind11;

namespace deid::python {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// What a run keeps: everything the CLI would write, to be asked for later.
struct Run {
  std::unique_ptr<PreparedJob> prepared;
  Anonymization a;
};

// Progress for Python: `callback(phase, checked, best_loss, elapsed_seconds,
// fraction_done)` (the search's figures are None outside the search), with
// the GIL held. With `check_signals` each call also runs Python's signal
// handlers: Ctrl-C raises KeyboardInterrupt there, which the search lets
// through (search.h, ProgressFn), so the run stops within about 100 ms.
RunOptions progress_hooks(const py::object& callback, bool check_signals) {
  RunOptions o;
  if (callback.is_none() && !check_signals) return o;
  auto cb = std::make_shared<py::object>(callback);
  auto call = [cb, check_signals](const char* phase, const SearchProgress* p) {
    py::gil_scoped_acquire gil;
    if (!cb->is_none()) {
      if (p)
        (*cb)(phase, p->checked, p->best_loss ? py::cast(*p->best_loss) : py::none(), p->elapsed_seconds,
              p->fraction_done ? py::cast(*p->fraction_done) : py::none());
      else
        (*cb)(phase, py::none(), py::none(), py::none(), py::none());
    }
    if (check_signals && PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  o.progress = [call](const SearchProgress& p) { call("search", &p); };
  o.phase = [call](Phase phase) { call(to_string(phase), nullptr); };
  // The caller keeps `o` (and so the callable) alive until it holds the
  // GIL again: copies made during the run never drop the last reference.
  return o;
}

// Linked tables (docs/identifiers.md) are files the deid command reads and
// writes beside the release; the package's results are DataFrames.
void refuse_linked(const Job& job) {
  if (!job.linked.empty())
    throw JobError(Location{job.path, job.linked.front().line, 0, {}},
                   "the job links tables (linked), which the deid command releases beside the job's table: run "
                   "it with 'deid anonymize' (python -m deid anonymize JOB)");
  // The released DataFrame, its classes and Spark's release are made from
  // one transformation's classes; local recoding's records are at several.
  if (job.local_recoding)
    throw JobError(Location{job.path, job.local_recoding->line, 0, {}},
                   "local-recoding releases records at several transformations, which the Python package's "
                   "DataFrames and deid.spark do not make yet: run it with 'deid anonymize' (python -m deid "
                   "anonymize JOB)");
}

// The counts deid.spark made of each released identifying column
// (name, distinct values, formulas, the first formula) on Spark.
std::vector<CountedIdentifier> counted_identifiers(const py::list& counted) {
  std::vector<CountedIdentifier> out;
  for (const py::handle& item : counted) {
    const auto t = item.cast<py::tuple>();
    if (t.size() != 4) throw std::invalid_argument("counted: expected (name, distinct, formulas, example) tuples");
    out.push_back({t[0].cast<std::string>(), t[1].cast<std::uint64_t>(),
                   FormulaCount{t[2].cast<std::uint64_t>(), t[3].cast<std::string>()}});
  }
  return out;
}

// `identifiers` (deid.spark, a table grouped on Spark): the driver's
// IdentifierActions, whose secret the result's summary names, and what
// Spark counted of each released column (`counted`), computed there;
// without it, a job with actions reads them from the rows (and a grouped
// table is refused, as release_identifiers refuses it).
std::shared_ptr<Run> anonymize(const std::shared_ptr<JobHandle>& job, const std::shared_ptr<Table>& table,
                               int threads, const py::object& progress, bool check_signals,
                               const std::shared_ptr<IdentifierActions>& identifiers, const py::list& counted) {
  if (job->job.privacy.empty())
    throw JobError(Location{job->job.path, 0, 0, {}},
                   "the job has no privacy model, only a 'cell-suppression' section: run 'deid suppress'");
  refuse_linked(job->job);
  auto run = std::make_shared<Run>();
  RunOptions options = progress_hooks(progress, check_signals);
  const std::vector<CountedIdentifier> counts = counted_identifiers(counted);
  Dataset data = table->take();
  run_released(threads, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    Timings timings;
    run->prepared = prepare(job->job, std::move(data), &timings, options.phase);
    if (identifiers && run->prepared->data.grouped())
      release_counted_identifiers(*run->prepared, identifiers->secret, counts);
    else
      release_identifiers(*run->prepared);
    run->a = run_search(*run->prepared, options);
    run->a.timings.read = 0;
    run->a.timings.encode = timings.encode;
    run->a.result["warnings"] = release_warnings(*run->prepared, run->a);
    if (nlohmann::json u = release_utility(*run->prepared, run->a); !u.is_null()) run->a.result["utility"] = std::move(u);
    run->a.timings.total = ms_since(t0);
    run->a.result["time_ms"] = {{"read", 0.0},
                                {"encode", run->a.timings.encode},
                                {"search", run->a.timings.search},
                                {"write", 0.0},
                                {"total", run->a.timings.total}};
    run->a.result["peak_rss_bytes"] = peak_rss_bytes();
  });
  // `options` holds the Python callable: released here, with the GIL held.
  return run;
}

// A job with a PostgreSQL table as input or output, run as `deid anonymize`
// runs it (docs/databases.md), by the same library call: the input table
// read (pushdown: grouped by the database), the output table written in
// its transaction; the files of the output section are not written. With
// no output table the rows are streamed (pushdown off) so that the
// released DataFrame can be made; with one, pushdown is decided as the
// command decides it for the job as written.
std::shared_ptr<Run> anonymize_job(const std::shared_ptr<JobHandle>& job, int threads, const py::object& progress,
                                   bool check_signals) {
  if (job->job.privacy.empty())
    throw JobError(Location{job->job.path, 0, 0, {}},
                   "the job has no privacy model, only a 'cell-suppression' section: run 'deid suppress'");
  refuse_linked(job->job);
  Job j = job->job;
  if (j.input.postgres) j.input.postgres->pushdown = j.output.postgres.has_value() && uses_pushdown(j);
  j.output.path.clear();
  j.output.result.clear();
  j.output.report.clear();
  auto run = std::make_shared<Run>();
  RunOptions options = progress_hooks(progress, check_signals);
  run_released(threads, [&] { run->a = deid::anonymize(j, options, &run->prepared); });
  return run;
}

const CheckResult& best(const Run& r) {
  if (!r.a.found) throw std::logic_error("no transformation satisfies the job: nothing was released");
  return *r.a.search.best;
}

// The released values of quasi-identifier q: per row a code into the
// labels (the hierarchy's labels at the chosen level, then "*" for
// suppressed records unless a label is "*" already).
py::tuple released_column(const Run& r, std::size_t q) {
  const PreparedJob& p = *r.prepared;
  const Problem& pr = p.problem;
  const CheckResult& b = best(r);
  const Classes& classes = *r.a.classes;
  const Generalization& h = pr.hierarchies.at(q);
  const int level = b.transformation[q];
  const bool escape = p.job.output.escape_formulas;
  std::vector<std::string> labels;
  std::uint32_t star = h.domain_size(level);
  for (std::uint32_t v = 0; v < h.domain_size(level); ++v) {
    const std::string& l = h.label(level, v);
    if (l == "*") star = v;
    labels.push_back(escape && looks_like_formula(l) ? "'" + l : l);
  }
  if (star == labels.size()) labels.push_back("*");
  std::vector<std::uint32_t> class_code(classes.size());
  for (std::size_t c = 0; c < classes.size(); ++c)
    class_code[c] = classes.suppressed[c] ? star : classes.keys[c * classes.width + q];
  Codes codes(p.data.rows, code_width(static_cast<std::uint32_t>(labels.size())));
  {
    py::gil_scoped_release release;
    codes.visit_mut([&](auto out) {
      using T = typename decltype(out)::value_type;
      for (std::size_t row = 0; row < out.size(); ++row)
        out[row] = static_cast<T>(class_code[classes.entry_class[pr.histogram.row_entry[row]]]);
    });
  }
  return py::make_tuple(narrow_codes(codes, static_cast<std::uint32_t>(labels.size())), labels);
}

// The release's map of quasi-identifier q for a table grouped where it
// lives (docs/spark.md, the counterpart of write_pushdown's maps): for each
// value of `stream` (one column: the distinct values of the input's column,
// as the engine holding the data has them), the code of its class at the
// chosen level and the label released for it (escaped as output.path
// would write it).
py::tuple release_map(const Run& r, std::size_t q, const py::capsule& stream) {
  const PreparedJob& p = *r.prepared;
  const Problem& pr = p.problem;
  const CheckResult& b = best(r);
  const Column& col = p.data.columns.at(static_cast<std::size_t>(pr.qi_columns.at(q)));
  const Generalization& h = pr.hierarchies.at(q);
  const std::vector<std::uint32_t>& map = h.map(b.transformation[q]);
  const bool escape = p.job.output.escape_formulas;
  const Dataset values = encode_stream(stream, col.name, ",", 0, {});
  if (values.columns.size() != 1) throw std::invalid_argument("release_map takes a stream of one column");
  const Column& given = values.columns[0];
  std::vector<std::int32_t> class_of(given.dictionary.size());
  std::vector<std::string> label_of(given.dictionary.size());
  for (std::uint32_t v = 0; v < given.dictionary.size(); ++v) {
    const std::int64_t code = col.dictionary.find(given.dictionary.value(v));
    if (code < 0)
      throw InputError(Location{p.data.source, 0, 0, col.name},
                       fmt::format("attribute '{}': value '{}' is not in the histogram the search ran on (the input "
                                   "changed between the two reads)",
                                   col.name, given.dictionary.value(v)));
    class_of[v] = static_cast<std::int32_t>(map[static_cast<std::size_t>(code)]);
    const std::string& l = h.label(b.transformation[q], map[static_cast<std::size_t>(code)]);
    label_of[v] = escape && looks_like_formula(l) ? "'" + l : l;
  }
  py::array_t<std::int32_t> classes(static_cast<py::ssize_t>(values.rows));
  py::list labels(static_cast<py::ssize_t>(values.rows));
  for (std::uint64_t row = 0; row < values.rows; ++row) {
    const std::uint32_t v = given.codes[row];
    classes.mutable_at(static_cast<py::ssize_t>(row)) = class_of[v];
    labels[static_cast<py::ssize_t>(row)] = label_of[v];
  }
  return py::make_tuple(classes, labels);
}

// The suppressed classes: one row per class, the class's code of each
// quasi-identifier at the chosen level.
py::array_t<std::int32_t> suppressed_classes(const Run& r) {
  best(r);
  const Classes& cl = *r.a.classes;
  std::size_t n = 0;
  for (std::size_t c = 0; c < cl.size(); ++c) n += cl.suppressed[c] ? 1 : 0;
  py::array_t<std::int32_t> out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(cl.width)});
  std::size_t row = 0;
  for (std::size_t c = 0; c < cl.size(); ++c) {
    if (!cl.suppressed[c]) continue;
    for (std::uint32_t q = 0; q < cl.width; ++q)
      out.mutable_at(static_cast<py::ssize_t>(row), static_cast<py::ssize_t>(q)) =
          static_cast<std::int32_t>(cl.keys[c * cl.width + q]);
    ++row;
  }
  return out;
}

// Checks, before any work, that `path` is none of the files the run read,
// and fixes where the output goes (OutputTarget).
OutputTarget check_target(const Run& r, const std::string& path, const char* role) {
  std::vector<FileUse> reads = job_reads(r.prepared->job);
  // A job given as text or a dict has no file; a table given in memory
  // neither: only files that exist are compared.
  return check_files(reads, {{role, path}}).output(role);
}

}  // namespace

void bind_anonymize(py::module_& m) {
  py::class_<Run, std::shared_ptr<Run>>(m, "Run", "The outcome of deid::anonymize, kept for the Result.")
      .def_property_readonly("found", [](const Run& r) { return r.a.found; })
      .def_property_readonly("escape_formulas", [](const Run& r) { return r.prepared->job.output.escape_formulas; })
      .def_property_readonly(
          "job", [](const Run& r) { return std::make_shared<JobHandle>(JobHandle{r.prepared->job}); },
          "A copy of the job the run ran (with the hierarchies given in memory).")
      .def(
          "result_json", [](const Run& r, int indent) { return r.a.result.dump(indent); }, py::arg("indent") = -1)
      .def_property_readonly("names",
                             [](const Run& r) {
                               std::vector<std::string> out;
                               for (const Column& c : r.prepared->data.columns) out.push_back(c.name);
                               return out;
                             })
      .def_property_readonly("roles",
                             [](const Run& r) {
                               std::vector<std::string> out;
                               for (Role role : r.prepared->roles) out.push_back(to_string(role));
                               return out;
                             })
      .def_property_readonly("rows", [](const Run& r) { return r.prepared->data.rows; })
      .def_property_readonly(
          "grouped", [](const Run& r) { return r.prepared->data.grouped(); },
          "Whether the database grouped the input (pushdown): the run holds no rows.")
      .def_property_readonly("qi_columns", [](const Run& r) { return r.prepared->problem.qi_columns; })
      .def("released_column", &released_column, py::arg("q"))
      .def("release_map", &release_map, py::arg("q"), py::arg("stream"),
           "For quasi-identifier q, the class code and released label of each value of an Arrow stream of one "
           "column.")
      .def(
          "formula_values",
          [](const Run& r, std::size_t c) {
            // The values of column c that output.escape-formulas escapes.
            std::vector<std::string> out;
            const Dictionary& d = r.prepared->data.columns.at(c).dictionary;
            for (std::uint32_t v = 0; v < d.size(); ++v)
              if (looks_like_formula(d.value(v))) out.push_back(d.value(v));
            return out;
          },
          py::arg("column"))
      .def("suppressed_classes", &suppressed_classes, "The suppressed classes' codes, one row per class.")
      .def_property_readonly("records", [](const Run& r) { return r.prepared->data.records(); })
      .def(
          "write_input_csv",
          [](const Run& r, const std::string& path) {
            // The text the run read (its encoded input), for the verifier:
            // an input that cannot be read again (a one-shot Arrow stream).
            const Dataset& ds = r.prepared->data;
            if (ds.grouped()) throw std::logic_error("the database grouped the input: the run holds no rows");
            py::gil_scoped_release release;
            write_file_atomically(path, "input copy", dataset_csv_text(ds, ds.delimiter), "input copy");
          },
          py::arg("path"))
      .def("column",
           [](const Run& r, std::size_t c) {
             const Column& col = r.prepared->data.columns.at(c);
             const bool escape = r.prepared->job.output.escape_formulas;
             std::vector<std::string> labels;
             for (std::uint32_t v = 0; v < col.dictionary.size(); ++v) {
               const std::string& l = col.dictionary.value(v);
               labels.push_back(escape && looks_like_formula(l) ? "'" + l : l);
             }
             return py::make_tuple(narrow_codes(col.codes, col.dictionary.size()), labels);
           })
      .def("released_identifiers",
           [](const Run& r) {
             // The identifying columns the release writes (pseudonyms,
             // masks, shifted dates: docs/identifiers.md).
             std::vector<std::size_t> out;
             for (std::size_t c = 0; c < r.prepared->data.columns.size(); ++c)
               if (r.prepared->roles[c] == Role::identifying && r.prepared->written(c)) out.push_back(c);
             return out;
           })
      .def("released_identifier",
           [](const Run& r, std::size_t c) {
             // Column c as released by its action: codes into labels, as
             // `column` gives them (escaped as output.path would write them).
             const PreparedJob& p = *r.prepared;
             if (!p.identifiers || !p.identifiers->released(c))
               throw std::invalid_argument("released_identifier: the column is not a released identifier");
             const bool escape = p.job.output.escape_formulas;
             auto shown = [&](const std::string& l) { return escape && looks_like_formula(l) ? "'" + l : l; };
             std::vector<std::string> labels;
             if (const std::vector<std::string>* values = p.identifiers->distinct_values(c)) {
               for (const std::string& v : *values) labels.push_back(shown(v));
               return py::make_tuple(narrow_codes(p.data.columns[c].codes, static_cast<std::uint32_t>(labels.size())),
                                     labels);
             }
             Dictionary d;
             Codes codes(0, 4);
             {
               py::gil_scoped_release release;
               for (std::uint64_t row = 0; row < p.data.rows; ++row) codes.push_back(d.intern(p.identifiers->value(c, row)));
             }
             for (std::uint32_t v = 0; v < d.size(); ++v) labels.push_back(shown(d.value(v)));
             return py::make_tuple(narrow_codes(codes, d.size()), labels);
           },
           py::arg("column"))
      .def("classes",
           [](const Run& r) {
             // Per class: the generalized label of each quasi-identifier,
             // its size and whether it was suppressed.
             const Problem& pr = r.prepared->problem;
             const CheckResult& b = best(r);
             const Classes& cl = *r.a.classes;
             std::vector<std::vector<std::string>> labels(pr.qi_columns.size());
             py::array_t<std::uint64_t> counts(static_cast<py::ssize_t>(cl.size()));
             py::array_t<bool> suppressed(static_cast<py::ssize_t>(cl.size()));
             for (std::size_t c = 0; c < cl.size(); ++c) {
               counts.mutable_at(c) = cl.counts[c];
               suppressed.mutable_at(c) = cl.suppressed[c] != 0;
               for (std::size_t q = 0; q < labels.size(); ++q)
                 labels[q].push_back(pr.hierarchies[q].label(b.transformation[q], cl.keys[c * cl.width + q]));
             }
             return py::make_tuple(pr.qi_names, labels, counts, suppressed);
           })
      .def(
          "write_csv",
          [](const Run& r, const std::string& path) {
            const CheckResult& b = best(r);
            const OutputTarget target = check_target(r, path, "output table");
            py::gil_scoped_release release;
            OutputFile out(target);
            write_output(*r.prepared, b.transformation, *r.a.classes, out.stream());
            out.finish("output");
            out.publish();
          },
          py::arg("path"), "Writes the released table as `deid anonymize` writes output.path.")
      .def("report_html",
           [](const Run& r) {
             py::gil_scoped_release release;
             return render_html_report(*r.prepared, r.a);
           })
      .def(
          "save_report",
          [](const Run& r, const std::string& path) {
            const OutputTarget target = check_target(r, path, "report");
            py::gil_scoped_release release;
            OutputFile out(target);
            out.stream() << render_html_report(*r.prepared, r.a);
            out.finish("report");
            out.publish();
          },
          py::arg("path"));

  m.def("anonymize", &anonymize, py::arg("job"), py::arg("table"), py::arg("threads") = 0,
        py::arg("progress") = py::none(), py::arg("check_signals") = true, py::arg("identifiers") = py::none(),
        py::arg("counted") = py::list(),
        "Prepares and searches `job` on `table` (which the run consumes). For a grouped table (deid.spark), "
        "`identifiers` (IdentifierActions) and `counted` ((name, distinct values, formulas, first formula) per "
        "released identifying column, in the job's order) give the released identifiers computed on Spark.");
  m.def("anonymize_job", &anonymize_job, py::arg("job"), py::arg("threads") = 0, py::arg("progress") = py::none(),
        py::arg("check_signals") = true,
        "Runs a job with a PostgreSQL input or output table as `deid anonymize` does; writes its output table.");
}

}  // namespace deid::python
