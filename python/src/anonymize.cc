// deid.anonymize: prepare and search with the GIL released, the result kept
// whole (the prepared job and the search's outcome) so that the released
// table, the classes, the CSV and the report are made from it on demand,
// by the library's own code.
#include <fmt/format.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <unordered_map>

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
}

// The labels quasi-identifier q shows in the release, each once: the
// hierarchy's labels at each level the release uses (the chosen one; with
// local recoding, each pass's too), escaped as output.path writes them,
// and "*" for suppressed records. code[level][v] is the label of value v at
// `level` (levels not used: empty); `star` the code of "*".
struct ReleasedLabels {
  std::vector<std::string> labels;
  std::vector<std::vector<std::uint32_t>> code;
  std::uint32_t star = 0;
};

ReleasedLabels released_labels(const Run& r, std::size_t q) {
  const PreparedJob& p = *r.prepared;
  const Generalization& h = p.problem.hierarchies.at(q);
  const Transformation& global = r.a.search.best->transformation;
  const bool escape = p.job.output.escape_formulas;
  std::vector<int> levels{global[q]};
  if (r.a.local)
    for (std::size_t pass = 1; pass <= r.a.local->passes.size(); ++pass)
      levels.push_back(r.a.local->transformation(static_cast<std::uint32_t>(pass), global)[q]);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  ReleasedLabels out;
  out.code.resize(static_cast<std::size_t>(h.height()));
  std::unordered_map<std::string, std::uint32_t> index;
  const auto intern = [&](std::string label) {
    const auto [it, inserted] = index.try_emplace(label, static_cast<std::uint32_t>(out.labels.size()));
    if (inserted) out.labels.push_back(std::move(label));
    return it->second;
  };
  for (const int level : levels)
    for (std::uint32_t v = 0; v < h.domain_size(level); ++v) {
      const std::string& l = h.label(level, v);
      out.code[static_cast<std::size_t>(level)].push_back(intern(escape && looks_like_formula(l) ? "'" + l : l));
    }
  out.star = intern("*");
  return out;
}

// Per row, the code of quasi-identifier q's released value in
// released_labels(r, q).
std::vector<std::uint32_t> released_codes(const Run& r, std::size_t q, const ReleasedLabels& l) {
  const PreparedJob& p = *r.prepared;
  const Problem& pr = p.problem;
  const Classes& classes = *r.a.classes;
  const Generalization& h = pr.hierarchies.at(q);
  const Transformation& global = r.a.search.best->transformation;
  const std::vector<std::uint32_t>& global_code = l.code[static_cast<std::size_t>(global[q])];
  std::vector<std::uint32_t> class_code(classes.size());
  for (std::size_t c = 0; c < classes.size(); ++c)
    class_code[c] = classes.suppressed[c] ? l.star : global_code[classes.keys[c * classes.width + q]];
  std::vector<std::uint32_t> out(p.data.rows);
  const Histogram& hist = pr.histogram;
  for (std::uint64_t row = 0; row < p.data.rows; ++row) {
    const std::uint32_t entry = hist.row_entry[row];
    const std::uint32_t pass = r.a.local ? r.a.local->row_pass[row] : 0;
    if (pass == 0) {
      out[row] = class_code[classes.entry_class[entry]];
    } else if (pass == LocalRecodingOutcome::kSuppressed) {
      out[row] = l.star;
    } else {
      // A record of a later pass: its own value at the pass's level.
      const int level = r.a.local->transformation(pass, global)[q];
      out[row] = l.code[static_cast<std::size_t>(level)][h.map(level)[hist.keys[std::size_t{entry} * hist.width + q]]];
    }
  }
  return out;
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
// labels (released_labels).
py::tuple released_column(const Run& r, std::size_t q) {
  best(r);
  const ReleasedLabels l = released_labels(r, q);
  Codes codes(r.prepared->data.rows, code_width(static_cast<std::uint32_t>(l.labels.size())));
  {
    py::gil_scoped_release release;
    const std::vector<std::uint32_t> code = released_codes(r, q, l);
    codes.visit_mut([&](auto out) {
      using T = typename decltype(out)::value_type;
      for (std::size_t row = 0; row < out.size(); ++row) out[row] = static_cast<T>(code[row]);
    });
  }
  return py::make_tuple(narrow_codes(codes, static_cast<std::uint32_t>(l.labels.size())), l.labels);
}

// Microaggregated attribute m's released values (its classes' aggregates,
// '*' for suppressed records): per row a code into the labels, as
// write_output writes them.
py::tuple released_aggregate_column(const Run& r, std::size_t m) {
  best(r);
  if (m >= r.prepared->problem.microaggregated.size())
    throw std::invalid_argument("released_aggregates: no such microaggregated attribute");
  ReleasedAggregates a;
  {
    py::gil_scoped_release release;
    a = released_aggregates(*r.prepared, *r.a.classes, r.a.local ? &*r.a.local : nullptr, m);
  }
  const auto n = static_cast<std::uint32_t>(a.labels.size());
  Codes codes(a.codes.size(), code_width(n));
  codes.visit_mut([&](auto out) {
    using T = typename decltype(out)::value_type;
    for (std::size_t row = 0; row < out.size(); ++row) out[row] = static_cast<T>(a.codes[row]);
  });
  return py::make_tuple(narrow_codes(codes, n), a.labels);
}

// Local recoding's column naming each record's pass (local-recoding.column,
// written last): per row a code into the labels "0" (the global
// transformation), "1", ... and "*" (suppressed).
py::tuple pass_column(const Run& r) {
  best(r);
  if (!r.a.local) throw std::logic_error("pass_column: the run did no local recoding");
  const LocalRecodingOutcome& local = *r.a.local;
  const auto passes = static_cast<std::uint32_t>(local.passes.size());
  std::vector<std::string> labels;
  for (std::uint32_t pass = 0; pass <= passes; ++pass) labels.push_back(std::to_string(pass));
  labels.push_back("*");
  Codes codes(local.row_pass.size(), code_width(passes + 2));
  codes.visit_mut([&](auto out) {
    using T = typename decltype(out)::value_type;
    for (std::size_t row = 0; row < out.size(); ++row) {
      const std::uint32_t pass = local.row_pass[row];
      out[row] = static_cast<T>(pass == LocalRecodingOutcome::kSuppressed ? passes + 1 : pass);
    }
  });
  return py::make_tuple(narrow_codes(codes, passes + 2), labels);
}

// The classes of the release: per class the released label of each
// quasi-identifier, its size and whether it is suppressed. Without local
// recoding, the chosen transformation's classes; with it, the records
// grouped by their released labels as the result's local_recoding counts
// them (two passes may show one label at different levels), in order of
// first appearance, the records with "*" in every quasi-identifier one
// suppressed class.
py::tuple classes_of_release(const Run& r) {
  const Problem& pr = r.prepared->problem;
  const CheckResult& b = best(r);
  const Classes& cl = *r.a.classes;
  const std::size_t w = pr.qi_columns.size();
  std::vector<std::vector<std::string>> labels(w);
  std::vector<std::uint64_t> counts;
  std::vector<bool> suppressed;
  if (!r.a.local) {
    for (std::size_t c = 0; c < cl.size(); ++c) {
      counts.push_back(cl.counts[c]);
      suppressed.push_back(cl.suppressed[c] != 0);
      for (std::size_t q = 0; q < w; ++q)
        labels[q].push_back(pr.hierarchies[q].label(b.transformation[q], cl.keys[c * cl.width + q]));
    }
  } else {
    std::vector<ReleasedLabels> names;
    std::vector<std::vector<std::uint32_t>> codes;
    for (std::size_t q = 0; q < w; ++q) {
      names.push_back(released_labels(r, q));
      codes.push_back(released_codes(r, q, names.back()));
    }
    // One code per label (released_labels): equal codes, equal labels.
    std::unordered_map<std::string, std::size_t> index;
    std::string key(w * sizeof(std::uint32_t), '\0');
    const std::size_t rows = r.a.local->row_pass.size();
    for (std::size_t row = 0; row < rows; ++row) {
      bool starred = true;
      for (std::size_t q = 0; q < w; ++q) {
        starred = starred && codes[q][row] == names[q].star;
        std::memcpy(key.data() + q * sizeof(std::uint32_t), &codes[q][row], sizeof(std::uint32_t));
      }
      const auto [it, inserted] = index.try_emplace(key, counts.size());
      if (inserted) {
        counts.push_back(0);
        suppressed.push_back(starred);
        for (std::size_t q = 0; q < w; ++q) labels[q].push_back(names[q].labels[codes[q][row]]);
      }
      ++counts[it->second];
    }
  }
  py::array_t<std::uint64_t> count_array(static_cast<py::ssize_t>(counts.size()));
  py::array_t<bool> suppressed_array(static_cast<py::ssize_t>(counts.size()));
  for (std::size_t c = 0; c < counts.size(); ++c) {
    count_array.mutable_at(static_cast<py::ssize_t>(c)) = counts[c];
    suppressed_array.mutable_at(static_cast<py::ssize_t>(c)) = suppressed[c];
  }
  return py::make_tuple(pr.qi_names, labels, count_array, suppressed_array);
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
      .def_property_readonly("microaggregated_columns",
                             [](const Run& r) {
                               // The dataset column of each microaggregated attribute.
                               std::vector<int> out;
                               for (const MicroaggregatedAttribute& m : r.prepared->problem.microaggregated)
                                 out.push_back(m.column);
                               return out;
                             })
      .def("released_aggregates", &released_aggregate_column, py::arg("m"),
           "Microaggregated attribute m's released values: per row a code into the labels.")
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
      .def("classes", &classes_of_release,
           "Per class of the release: the label of each quasi-identifier, its size and whether it is suppressed.")
      .def("pass_column", &pass_column)
      .def_property_readonly("local_recoding_column",
                             [](const Run& r) -> py::object {
                               const auto& lr = r.prepared->job.local_recoding;
                               if (!r.a.local || !lr || lr->column.empty()) return py::none();
                               return py::str(lr->column);
                             })
      .def(
          "write_csv",
          [](const Run& r, const std::string& path) {
            const CheckResult& b = best(r);
            const OutputTarget target = check_target(r, path, "output table");
            py::gil_scoped_release release;
            OutputFile out(target);
            write_output(*r.prepared, b.transformation, *r.a.classes, out.stream(), r.a.local ? &*r.a.local : nullptr);
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
