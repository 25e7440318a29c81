// Tables between pandas and the library: a Dataset encoded from the codes
// and labels of DataFrame columns (no CSV in between), or read from a CSV
// file as the command line reads it; and a Dataset's columns handed back as
// codes and labels.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <cstdint>
#include <functional>

#include "binding.h"
#include "deid/csv.h"
#include "deid/error.h"
#include "deid/output.h"
#include "deid/pipeline.h"

namespace py = pybind11;

namespace deid::python {

Dataset Table::take() {
  if (consumed) throw std::logic_error("this table was already used by a run");
  consumed = true;
  return std::move(data);
}

const Dataset& Table::get() const {
  if (consumed) throw std::logic_error("this table was already used by a run");
  return data;
}

void run_released(int threads, const std::function<void()>& f) {
  py::gil_scoped_release release;
  if (threads > 0) {
    tbb::task_arena arena(threads);
    arena.execute(f);
  } else {
    f();
  }
}

namespace {

// One column on its way in: per row a code into `labels`, -1 for a missing
// value (pandas' NA sentinel), which is the empty string, as in the CSV
// pandas writes.
struct ColumnInput {
  std::string name;
  py::array codes;  // keeps the buffer alive
  const void* data = nullptr;
  char kind = 'i';  // 'i' signed, 'u' unsigned
  std::size_t item = 8;
  std::vector<std::string> labels;
};

// Encodes one column the way the CSV reader does: codes numbered in order of
// first appearance of the value's text (two labels with the same text, e.g.
// None and NaN, become one value), and for each code the line the CSV
// pandas writes would have it on (header on line 1, row i on line i + 2).
// Returns false when a code is out of range.
template <class T>
bool encode(const T* in, std::size_t rows, const std::vector<std::string>& labels, Column& col) {
  std::vector<std::int64_t> to_code(labels.size() + 1, -1);  // index: input code + 1 (0: missing)
  for (std::size_t r = 0; r < rows; ++r) {
    const std::int64_t u = static_cast<std::int64_t>(in[r]) + 1;
    if (u < 0 || u > static_cast<std::int64_t>(labels.size())) return false;
    auto& g = to_code[static_cast<std::size_t>(u)];
    if (g >= 0) continue;
    const std::string empty;
    g = col.dictionary.intern(u == 0 ? empty : labels[static_cast<std::size_t>(u - 1)]);
    if (static_cast<std::size_t>(g) == col.first_line.size()) col.first_line.push_back(r + 2);
  }
  col.codes = Codes(rows, code_width(col.dictionary.size()));
  col.codes.visit_mut([&](auto out) {
    using C = typename decltype(out)::value_type;
    for (std::size_t r = 0; r < rows; ++r)
      out[r] = static_cast<C>(to_code[static_cast<std::size_t>(static_cast<std::int64_t>(in[r]) + 1)]);
  });
  return true;
}

bool encode_any(const ColumnInput& c, std::size_t rows, Column& col) {
  if (c.kind == 'i') {
    switch (c.item) {
      case 1: return encode(static_cast<const std::int8_t*>(c.data), rows, c.labels, col);
      case 2: return encode(static_cast<const std::int16_t*>(c.data), rows, c.labels, col);
      case 4: return encode(static_cast<const std::int32_t*>(c.data), rows, c.labels, col);
      default: return encode(static_cast<const std::int64_t*>(c.data), rows, c.labels, col);
    }
  }
  switch (c.item) {
    case 1: return encode(static_cast<const std::uint8_t*>(c.data), rows, c.labels, col);
    case 2: return encode(static_cast<const std::uint16_t*>(c.data), rows, c.labels, col);
    case 4: return encode(static_cast<const std::uint32_t*>(c.data), rows, c.labels, col);
    default: return encode(static_cast<const std::uint64_t*>(c.data), rows, c.labels, col);
  }
}

// A table from columns of codes and labels. The checks of the header are the
// CSV reader's, with its messages, so a DataFrame and the CSV pandas writes
// from it fail alike.
std::shared_ptr<Table> encode_columns(const std::vector<std::string>& names, const py::list& codes,
                                      const py::list& labels, const std::string& source, const std::string& delimiter) {
  if (names.size() != codes.size() || names.size() != labels.size())
    throw std::invalid_argument("encode_columns: names, codes and labels differ in length");
  check_header(names, source);
  std::vector<ColumnInput> in(names.size());
  std::size_t rows = 0;
  for (std::size_t c = 0; c < names.size(); ++c) {
    ColumnInput& ci = in[c];
    ci.name = names[c];
    ci.codes = py::array::ensure(codes[c], py::array::c_style);
    if (!ci.codes || ci.codes.ndim() != 1 || (ci.codes.dtype().kind() != 'i' && ci.codes.dtype().kind() != 'u'))
      throw std::invalid_argument(fmt::format("encode_columns: the codes of column '{}' are not a 1-d integer array",
                                              names[c]));
    ci.kind = ci.codes.dtype().kind();
    ci.item = static_cast<std::size_t>(ci.codes.itemsize());
    ci.data = ci.codes.data();
    ci.labels = labels[c].cast<std::vector<std::string>>();
    const auto n = static_cast<std::size_t>(ci.codes.shape(0));
    if (c == 0) rows = n;
    if (n != rows) throw std::invalid_argument("encode_columns: columns differ in length");
  }
  if (rows == 0) throw InputError(Location{source, 1, 0, {}}, "the file has a header row but no data records");

  auto table = std::make_shared<Table>();
  Dataset& ds = table->data;
  ds.source = source;
  ds.delimiter = delimiter.empty() ? ',' : delimiter[0];
  ds.rows = rows;
  ds.columns.resize(names.size());
  std::atomic<bool> bad{false};
  {
    py::gil_scoped_release release;
    tbb::parallel_for(std::size_t{0}, in.size(), [&](std::size_t c) {
      ds.columns[c].name = in[c].name;
      if (!encode_any(in[c], rows, ds.columns[c])) bad = true;
    });
  }
  if (bad) throw std::invalid_argument("encode_columns: a code is outside its labels");
  return table;
}

// The codes of a column as a NumPy array of the narrowest signed type that
// holds them (what pandas.Categorical.from_codes takes).
py::array codes_array(const Codes& codes, std::uint32_t labels) {
  const std::size_t n = codes.size();
  auto fill = [&](auto tag) {
    using T = decltype(tag);
    py::array_t<T> out(static_cast<py::ssize_t>(n));
    T* dst = out.mutable_data();
    codes.visit([&](auto in) {
      for (std::size_t r = 0; r < n; ++r) dst[r] = static_cast<T>(in[r]);
    });
    return py::array(out);
  };
  if (labels <= 127) return fill(std::int8_t{});
  if (labels <= 32767) return fill(std::int16_t{});
  return fill(std::int32_t{});
}

std::vector<std::string> column_labels(const Column& col) {
  std::vector<std::string> out;
  out.reserve(col.dictionary.size());
  for (std::uint32_t v = 0; v < col.dictionary.size(); ++v) out.push_back(col.dictionary.value(v));
  return out;
}

}  // namespace

py::array narrow_codes(const Codes& codes, std::uint32_t labels) { return codes_array(codes, labels); }

void bind_data(py::module_& m) {
  py::class_<Table, std::shared_ptr<Table>>(m, "Table", "An encoded table (deid::Dataset).")
      .def_property_readonly("rows", [](const Table& t) { return t.get().rows; })
      .def_property_readonly("source", [](const Table& t) { return t.get().source; })
      .def_property_readonly("delimiter", [](const Table& t) { return std::string(1, t.get().delimiter); })
      .def_property_readonly("names",
                             [](const Table& t) {
                               std::vector<std::string> out;
                               for (const Column& c : t.get().columns) out.push_back(c.name);
                               return out;
                             })
      .def("codes", [](const Table& t, std::size_t c) {
        const Column& col = t.get().columns.at(c);
        return codes_array(col.codes, col.dictionary.size());
      })
      .def("labels", [](const Table& t, std::size_t c) { return column_labels(t.get().columns.at(c)); })
      .def(
          "write_csv",
          [](const Table& t, const std::string& path, const std::string& role) {
            // The text the engine reads from this table, as a CSV file that
            // reads back to the same table (the verifier's input).
            const Dataset& ds = t.get();
            py::gil_scoped_release release;
            const std::string text = dataset_csv_text(ds, ds.delimiter);
            write_file_atomically(path, role, text, role);
          },
          py::arg("path"), py::arg("role") = "input copy",
          "Writes the table as a CSV file (its delimiter) that reads back to the same table.");

  m.def("encode_columns", &encode_columns, py::arg("names"), py::arg("codes"), py::arg("labels"), py::arg("source"),
        py::arg("delimiter") = ",",
        "A table from per-column codes (-1: missing, the empty value) and labels; `delimiter` is the one its CSV "
        "would have (the output's default).");
  m.def(
      "read_table",
      [](const std::string& path, const std::optional<std::string>& delimiter) {
        CsvOptions options;
        if (delimiter && !delimiter->empty()) options.delimiter = (*delimiter)[0];
        auto t = std::make_shared<Table>();
        {
          py::gil_scoped_release release;
          t->data = read_dataset(path, options);
        }
        return t;
      },
      py::arg("path"), py::arg("delimiter") = std::nullopt, "Reads and encodes a CSV file as `deid anonymize` does.");
  m.def(
      "read_input",
      [](const std::shared_ptr<JobHandle>& job) {
        auto t = std::make_shared<Table>();
        {
          py::gil_scoped_release release;
          t->data = read_input(job->job);
        }
        return t;
      },
      py::arg("job"),
      "Reads and encodes the job's input (its CSV file, or its PostgreSQL table streamed with COPY) as `deid risk` "
      "does.");
}

}  // namespace deid::python
