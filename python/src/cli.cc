// The command line in the Python process, and Parquet through pyarrow.
//
// `python -m deid ...` and the package's `deid` entry point run the
// command-line tool's own code (cli/app.cc) here, in the interpreter's
// process, with one thing the tool alone lacks: the Parquet codec
// (deid/parquet.h), which this module registers when it is imported, so
// that `input.parquet`, `output.parquet` and "*.parquet" files on the
// command line are read and written through pyarrow (deid/_parquet.py).
// The package's functions (deid.anonymize on a job file, ...) get the same
// codec.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "binding.h"
#include "commands.h"
#include "deid/error.h"
#include "deid/parquet.h"

namespace py = pybind11;

namespace deid::python {
namespace {

// The type and message of a Python exception, without its traceback.
std::string python_message(const py::error_already_set& e) {
  std::string type = "Error";
  std::string text;
  try {
    type = py::str(e.type().attr("__name__"));
    text = py::str(e.value());
  } catch (const std::exception&) {
    text = e.what();
  }
  return text.empty() ? type : type + ": " + text;
}

// A Python exception from pyarrow (not a Parquet file, a column type it
// cannot render, pyarrow missing) as an input error naming the file.
[[noreturn]] void rethrow_as_input_error(const py::error_already_set& e, const std::string& path, const char* what) {
  throw InputError(Location{path, 0, 0, {}}, fmt::format("cannot {} the Parquet file: {}", what, python_message(e)));
}

Dataset read_parquet_table(const std::string& path) {
  py::gil_scoped_acquire gil;
  py::object stream;
  std::uint64_t rows = 0;
  try {
    const py::tuple t = py::module_::import("deid._parquet").attr("read")(path);
    stream = t[0];
    rows = t[1].cast<std::uint64_t>();
  } catch (const py::error_already_set& e) {
    rethrow_as_input_error(e, path, "read");
  }
  return encode_arrow_stream(stream.cast<py::capsule>(), path, ",", rows)->take();
}

// The ostream of an output (OutputFile) as the file object pyarrow writes
// to: write, tell, flush and the attributes a writable binary file has.
struct Sink {
  std::ostream* out = nullptr;
  std::uint64_t written = 0;
};

void write_parquet_table(std::string_view csv, char delimiter, std::ostream& out) {
  py::gil_scoped_acquire gil;
  Sink sink{&out, 0};
  try {
    py::module_::import("deid._parquet")
        .attr("write")(py::memoryview::from_memory(csv.data(), static_cast<py::ssize_t>(csv.size())),
                       std::string(1, delimiter), py::cast(&sink, py::return_value_policy::reference));
  } catch (const py::error_already_set& e) {
    throw InputError(Location{}, fmt::format("cannot write the Parquet table: {}", python_message(e)));
  }
  if (!out) throw IoError(Location{}, "cannot write the Parquet table");
}

int run_cli(const std::vector<std::string>& args) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Python ignores SIGPIPE; the tool is ended by it like any command
  // (`python -m deid risk JOB | head`).
  std::signal(SIGPIPE, SIG_DFL);
  int code = 0;
  {
    py::gil_scoped_release release;
    code = cli::run(static_cast<int>(copy.size()), argv.data(), nullptr);
  }
  std::cout.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  return code;
}

}  // namespace

void bind_cli(py::module_& m) {
  py::class_<Sink>(m, "ParquetSink", "Where the Parquet codec writes an output (the run's temporary file).")
      .def("write",
           [](Sink& s, const py::buffer& b) {
             const py::buffer_info info = b.request();
             const auto n = static_cast<std::streamsize>(info.size * info.itemsize);
             s.out->write(static_cast<const char*>(info.ptr), n);
             if (!*s.out) throw py::value_error("write failed");
             s.written += static_cast<std::uint64_t>(n);
             return n;
           })
      .def("tell", [](const Sink& s) { return s.written; })
      .def("flush", [](Sink& s) { s.out->flush(); })
      .def("writable", [](const Sink&) { return true; })
      .def("readable", [](const Sink&) { return false; })
      .def("seekable", [](const Sink&) { return false; })
      .def("close", [](Sink&) {})
      .def_property_readonly("closed", [](const Sink&) { return false; })
      .def_property_readonly("mode", [](const Sink&) { return "wb"; });
  m.def("run_cli", &run_cli, py::arg("argv"),
        "Runs the command line `argv` (argv[0] the program's name) as the deid tool runs it, in this process, "
        "and returns its exit code.");
  set_parquet_codec(ParquetCodec{&read_parquet_table, &write_parquet_table});
}

}  // namespace deid::python
