// deid._core: the Python binding of the deid library (docs/python.md).
//
// A thin front end, like cli/: it builds the library's inputs (a Job, a
// Dataset) from what the pure-Python layer (python/deid) hands over, calls
// the library with the GIL released, and hands results back as JSON text,
// NumPy arrays of codes and lists of labels. No algorithm lives here.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "binding.h"

namespace py = pybind11;

namespace deid::python {
namespace {

// The Python exceptions, created once when the module is imported (and never
// freed: they live as long as the interpreter).
PyObject* g_input_error = nullptr;
PyObject* g_job_error = nullptr;
PyObject* g_internal_error = nullptr;

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const py::error_already_set&) {
    throw;  // a Python exception (KeyboardInterrupt, an error of a callback) goes back as it was
  } catch (const py::builtin_exception&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // MemoryError
  } catch (const JobError& e) {
    PyErr_SetString(g_job_error, e.what());
  } catch (const InputError& e) {  // also IoError: the CLI's exit code 2
    PyErr_SetString(g_input_error, e.what());
  } catch (const std::exception& e) {
    PyErr_SetString(g_internal_error, e.what());
  }
}

}  // namespace
}  // namespace deid::python

PYBIND11_MODULE(_core, m) {
  using namespace deid::python;
  m.doc() = "The compiled core of the deid package; use the functions of `deid`, not these.";
  g_input_error = PyErr_NewExceptionWithDoc(
      "deid.InputError",
      "Invalid input data: malformed values, hierarchies that do not cover the data, unreadable files. "
      "The message names the table, line, column and value at fault, as the command line's does (exit code 2).",
      PyExc_ValueError, nullptr);
  g_job_error = PyErr_NewExceptionWithDoc(
      "deid.JobError",
      "An invalid job, or a job that does not fit the data: unknown keys, wrong types, unknown columns. "
      "The message names the key, column and value at fault, as the command line's does (exit code 2).",
      g_input_error, nullptr);
  g_internal_error = PyErr_NewExceptionWithDoc(
      "deid.InternalError", "A failure inside deid that is not the input's fault (the command line's exit code 3).",
      PyExc_RuntimeError, nullptr);
  m.add_object("InputError", py::handle(g_input_error));
  m.add_object("JobError", py::handle(g_job_error));
  m.add_object("InternalError", py::handle(g_internal_error));
  py::register_exception_translator(&translate);

  bind_data(m);
  bind_arrow(m);
  bind_job(m);
  bind_anonymize(m);
  bind_risk(m);
  bind_hierarchy(m);
  bind_suppress(m);
  bind_verify(m);
  bind_identifiers(m);
  bind_inspect(m);
  bind_cli(m);
}
