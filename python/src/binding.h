// Shared pieces of the deid._core module (python/src). Each bind_* adds one
// part of the API to the module; module.cc calls them all.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deid/dataset.h"
#include "deid/identifiers.h"
#include "deid/job.h"

namespace deid::python {

// An encoded table on its way to the library. The library takes the Dataset
// by value: a run moves it out (`consumed` is then true).
struct Table {
  Dataset data;
  bool consumed = false;
  // The Dataset, or a clear error when a run already took it.
  Dataset take();
  const Dataset& get() const;
};

// A parsed job (deid::Job), shared by the Python objects that hold it.
struct JobHandle {
  Job job;
};

// The actions of a job's released identifying columns with the secret,
// for values computed outside the library's pipeline (identifiers.cc,
// deid.spark): a job of those attributes and the identifiers section only.
struct IdentifierActions {
  Job job;
  Secret secret;
  std::string source;  // the input's name, for messages
};

// Runs `f` with the GIL released and TBB limited to `threads` (0: all
// cores) in an arena of its own, so that runs in two Python threads with
// different limits do not affect each other.
void run_released(int threads, const std::function<void()>& f);

// Codes as a NumPy array of the narrowest signed type that holds codes of
// `labels` labels (int8, int16 or int32: what pandas.Categorical takes).
pybind11::array narrow_codes(const Codes& codes, std::uint32_t labels);

// The checks of a table's column names, with the CSV reader's messages
// (no columns, an empty name, a name twice).
void check_header(const std::vector<std::string>& names, const std::string& source);

// An Arrow C stream (a PyCapsule "arrow_array_stream") encoded into a
// Dataset, batch by batch from the Arrow buffers (arrow.cc gives each
// type's text). `weights` names a column (int64, no nulls, every value
// ≥ 1) that is read into Dataset::weights instead of being encoded (a
// histogram grouped where the rows live, docs/spark.md); that column is
// left without codes.
Dataset encode_stream(const pybind11::capsule& stream, const std::string& source, const std::string& delimiter,
                      std::uint64_t rows_hint, const std::string& weights);

// A table from an Arrow C stream (the PyCapsule __arrow_c_stream__
// returns), encoded batch by batch from the Arrow buffers (arrow.cc);
// `source` names it in messages.
std::shared_ptr<Table> encode_arrow_stream(const pybind11::capsule& capsule, const std::string& source,
                                           const std::string& delimiter, std::uint64_t rows_hint);

void bind_arrow(pybind11::module_& m);
void bind_cli(pybind11::module_& m);
void bind_data(pybind11::module_& m);
void bind_job(pybind11::module_& m);
void bind_anonymize(pybind11::module_& m);
void bind_risk(pybind11::module_& m);
void bind_hierarchy(pybind11::module_& m);
void bind_suppress(pybind11::module_& m);
void bind_verify(pybind11::module_& m);
void bind_identifiers(pybind11::module_& m);
void bind_inspect(pybind11::module_& m);

}  // namespace deid::python
