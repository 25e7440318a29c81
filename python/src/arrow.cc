// Arrow tables into the library without a Python object per cell: a
// consumer of the Arrow C stream interface (an ArrowArrayStream handed over
// in a PyCapsule named "arrow_array_stream", as `__arrow_c_stream__` gives
// it) that encodes each record batch's columns straight from the Arrow
// buffers into a Dataset, batch by batch, so the whole table is never
// copied. One column's values are encoded by arrow_column.cc; the structs
// of the Arrow C interfaces are arrow_abi.h.
//
// A value's text is the one the pandas path gives the same column
// (python/deid/_frame.py): strings as they are, integers in decimal, floats
// as Python's repr (3.0, 1e+20; NaN is missing), booleans True and False,
// dates YYYY-MM-DD; a null is the empty string, as an empty CSV field is. So
// a table gives the same answer from Arrow as from its pandas conversion.
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <tbb/parallel_for.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "arrow_abi.h"
#include "arrow_column.h"
#include "binding.h"
#include "deid/error.h"
#include "deid/formulas.h"

namespace py = pybind11;

namespace deid::python {
namespace {

// Owners that call the producer's release callback once (a released struct
// has release == nullptr).
struct SchemaOwner {
  ArrowSchema s{};
  SchemaOwner() = default;
  SchemaOwner(const SchemaOwner&) = delete;
  SchemaOwner& operator=(const SchemaOwner&) = delete;
  ~SchemaOwner() {
    if (s.release) s.release(&s);
  }
};
struct ArrayOwner {
  ArrowArray a{};
  ArrayOwner() = default;
  ArrayOwner(const ArrayOwner&) = delete;
  ArrayOwner& operator=(const ArrayOwner&) = delete;
  ~ArrayOwner() { reset(); }
  void reset() {
    if (a.release) a.release(&a);
    a = ArrowArray{};
  }
};
struct StreamOwner {
  ArrowArrayStream s{};
  StreamOwner() = default;
  StreamOwner(const StreamOwner&) = delete;
  StreamOwner& operator=(const StreamOwner&) = delete;
  ~StreamOwner() {
    if (s.release) s.release(&s);
  }
};

std::string last_error(ArrowArrayStream& s, int code) {
  const char* m = s.get_last_error ? s.get_last_error(&s) : nullptr;
  return m ? std::string(m) : fmt::format("error {} ({})", code, std::strerror(code));
}

std::string format_of(const ArrowSchema& s) { return s.format ? s.format : ""; }

}  // namespace

void check_header(const std::vector<std::string>& names, const std::string& source) {
  if (names.empty()) throw InputError(Location{source, 0, 0, {}}, "the table has no columns");
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (names[c].empty())
      throw InputError(Location{source, 1, c + 1, {}},
                       fmt::format("column {} has an empty name in the header row; every column needs a name", c + 1));
    for (std::size_t d = 0; d < c; ++d)
      if (names[d] == names[c])
        throw InputError(Location{source, 1, c + 1, names[c]},
                         fmt::format("duplicate column name '{}' in the header row (columns {} and {})", names[c],
                                     d + 1, c + 1));
  }
}

Dataset encode_stream(const py::capsule& capsule, const std::string& source, const std::string& delimiter,
                      std::uint64_t rows_hint, const std::string& weights) {
  if (std::string_view(capsule.name() ? capsule.name() : "") != "arrow_array_stream")
    throw py::type_error("expected a PyCapsule named 'arrow_array_stream' (from __arrow_c_stream__)");
  auto* given = capsule.get_pointer<ArrowArrayStream>();
  if (!given || !given->release) throw py::value_error("the Arrow stream was already consumed");
  // Moved out of the capsule: the capsule's destructor then finds it released.
  StreamOwner stream;
  stream.s = *given;
  given->release = nullptr;

  SchemaOwner schema;
  if (int rc = stream.s.get_schema(&stream.s, &schema.s); rc != 0)
    throw InputError(Location{source, 0, 0, {}}, "cannot read the Arrow stream's schema: " + last_error(stream.s, rc));
  if (format_of(schema.s) != "+s")
    throw InputError(Location{source, 0, 0, {}},
                     fmt::format("the Arrow stream is not a table (its type is '{}', not a struct)", format_of(schema.s)));
  const auto ncols = static_cast<std::size_t>(schema.s.n_children);
  std::vector<std::string> names(ncols);
  std::vector<ColumnState> states(ncols);
  for (std::size_t c = 0; c < ncols; ++c) names[c] = schema.s.children[c]->name ? schema.s.children[c]->name : "";
  check_header(names, source);
  for (std::size_t c = 0; c < ncols; ++c) {
    const ArrowSchema& f = *schema.s.children[c];
    ColumnType& t = states[c].type;
    const ArrowSchema* values = &f;
    if (f.dictionary) {
      const auto index = kind_of(format_of(f));
      if (!index || !is_integer(*index))
        throw InputError(Location{source, 1, c + 1, names[c]},
                         fmt::format("the dictionary indices have Arrow type '{}', not an integer type", format_of(f)));
      t.dictionary = true;
      t.index = *index;
      values = f.dictionary;
    }
    const auto kind = kind_of(format_of(*values));
    if (!kind)
      throw InputError(Location{source, 1, c + 1, names[c]},
                       fmt::format("the column has Arrow type '{}', which deid does not read (it reads strings, "
                                   "integers, floats, booleans, dates, nulls and dictionaries of them); cast it "
                                   "to string first",
                                   format_of(*values)));
    t.kind = *kind;
  }
  std::size_t weight_column = ncols;
  if (!weights.empty()) {
    for (std::size_t c = 0; c < ncols; ++c)
      if (names[c] == weights) weight_column = c;
    if (weight_column == ncols)
      throw InputError(Location{source, 1, 0, weights}, fmt::format("the stream has no count column '{}'", weights));
    const ArrowSchema& f = *schema.s.children[weight_column];
    if (format_of(f) != "l")
      throw InputError(Location{source, 1, weight_column + 1, weights},
                       fmt::format("the count column has Arrow type '{}', not int64", format_of(f)));
  }

  Dataset ds;
  ds.source = source;
  ds.delimiter = delimiter.empty() ? ',' : delimiter[0];
  ds.columns.resize(ncols);
  for (std::size_t c = 0; c < ncols; ++c) {
    ds.columns[c].name = names[c];
    ds.columns[c].codes.widen(1, rows_hint);
    states[c].col = &ds.columns[c];
  }

  std::uint64_t rows = 0;
  for (;;) {
    ArrayOwner batch;
    // The producer may call into Python (a RecordBatchReader over a
    // generator): ask for the next batch with the GIL held.
    if (int rc = stream.s.get_next(&stream.s, &batch.a); rc != 0)
      throw InputError(Location{source, rows + 2, 0, {}},
                       "cannot read the next batch of the Arrow stream: " + last_error(stream.s, rc));
    if (!batch.a.release) break;  // the end of the stream
    const ArrowArray& b = batch.a;
    if (static_cast<std::size_t>(b.n_children) != ncols)
      throw InputError(Location{source, rows + 2, 0, {}},
                       fmt::format("a batch has {} columns, the schema {}", b.n_children, ncols));
    if (b.null_count > 0)
      throw InputError(Location{source, rows + 2, 0, {}}, "a batch has null rows (the struct itself is null)");
    const std::int64_t length = b.length;
    if (length == 0) continue;
    for (std::size_t c = 0; c < ncols; ++c) {
      const ArrowArray& a = *b.children[c];
      if (a.length < length + b.offset || (states[c].type.dictionary && !a.dictionary))
        throw InputError(Location{source, rows + 2, c + 1, names[c]}, "a batch's column does not match the schema");
    }
    if (weight_column < ncols) {
      // Reserved once for the hint: grown by doubling, the old and the new
      // array would both be resident at the peak.
      if (ds.weights.empty()) ds.weights.reserve(rows_hint);
      const ArrowArray& a = *b.children[weight_column];
      const std::int64_t off = a.offset + b.offset;
      if (a.null_count != 0)
        throw InputError(Location{source, rows + 2, weight_column + 1, weights}, "a count is null");
      const auto* counts = static_cast<const std::int64_t*>(a.buffers[1]);
      for (std::int64_t i = 0; i < length; ++i) {
        const std::int64_t n = counts[i + off];
        if (n < 1)
          throw InputError(Location{source, rows + 2 + static_cast<std::uint64_t>(i), weight_column + 1, weights},
                           fmt::format("a count {} that is not a positive integer", n));
        ds.weights.push_back(static_cast<std::uint64_t>(n));
        ds.grouped_records += static_cast<std::uint64_t>(n);
      }
    }
    std::vector<std::string> problems(ncols);
    {
      py::gil_scoped_release release;
      tbb::parallel_for(std::size_t{0}, ncols, [&](std::size_t c) {
        if (c == weight_column) return;
        ColumnState& s = states[c];
        s.scratch.resize(static_cast<std::size_t>(length));
        Encoder e(s, rows);
        try {
          if (s.type.dictionary)
            e.dictionary(*b.children[c], length, s.scratch.data(), b.offset);
          else
            e.values(*b.children[c], length, s.scratch.data(), b.offset);
        } catch (const std::exception& x) {
          problems[c] = x.what();
          return;
        }
        if (!e.bad.empty()) {
          problems[c] = e.bad;
          return;
        }
        Column& col = *s.col;
        const std::size_t old = col.codes.size();
        // Widened when the dictionary outgrows the codes' width; otherwise
        // resize grows the storage geometrically (a reserve per batch would
        // copy the codes at every batch).
        if (const unsigned w = code_width(col.dictionary.size()); w > col.codes.width())
          col.codes.widen(w, std::max<std::size_t>(rows_hint, old + s.scratch.size()));
        col.codes.resize(old + s.scratch.size());
        col.codes.visit_mut([&](auto out) {
          using C = typename decltype(out)::value_type;
          for (std::size_t r = 0; r < s.scratch.size(); ++r) out[old + r] = static_cast<C>(s.scratch[r]);
        });
      });
    }
    for (std::size_t c = 0; c < ncols; ++c)
      if (!problems[c].empty()) throw InputError(Location{source, rows + 2, c + 1, names[c]}, problems[c]);
    rows += static_cast<std::uint64_t>(length);
  }
  if (rows == 0) throw InputError(Location{source, 1, 0, {}}, "the table has a header but no rows");
  for (std::size_t c = 0; c < ncols; ++c) {
    ColumnState& s = states[c];
    std::vector<std::uint32_t>().swap(s.scratch);
    if (c == weight_column) {
      s.col->codes.clear();
      continue;
    }
    // Shrink what was reserved for a hint larger than the table.
    if (s.col->codes.size() < rows_hint) {
      Codes exact(0, s.col->codes.width());
      exact.widen(s.col->codes.width(), rows);
      exact.resize(rows);
      exact.visit_mut([&](auto out) {
        s.col->codes.visit([&](auto in) {
          for (std::size_t r = 0; r < rows; ++r) out[r] = static_cast<typename decltype(out)::value_type>(in[r]);
        });
      });
      s.col->codes = std::move(exact);
    }
  }
  ds.rows = rows;
  return ds;
}

std::shared_ptr<Table> encode_arrow_stream(const py::capsule& capsule, const std::string& source,
                                           const std::string& delimiter, std::uint64_t rows_hint) {
  auto table = std::make_shared<Table>();
  table->data = encode_stream(capsule, source, delimiter, rows_hint, {});
  return table;
}

namespace {

// A histogram grouped where its rows live (docs/spark.md): a stream with one
// row per distinct combination of the grouped columns, in order of first
// appearance, and its count in the column `count`, as the grouped Dataset
// pushdown reads (include/deid/dataset.h, Dataset::weights). `columns`
// are the names of all the input's columns, in its order; those the stream
// does not hold have a name and nothing else.
std::shared_ptr<Table> encode_grouped_arrow_stream(const py::capsule& capsule, const std::string& source,
                                                   const std::vector<std::string>& columns, const std::string& count,
                                                   std::uint64_t rows_hint) {
  check_header(columns, source);
  Dataset g = encode_stream(capsule, source, ",", rows_hint, count);
  auto table = std::make_shared<Table>();
  Dataset& d = table->data;
  d.source = source;
  d.rows = g.rows;
  d.weights = std::move(g.weights);
  d.grouped_records = g.grouped_records;
  d.columns.resize(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) d.columns[c].name = columns[c];
  for (Column& col : g.columns) {
    if (col.name == count) continue;
    const int c = d.column_index(col.name);
    if (c < 0)
      throw InputError(Location{source, 1, 0, col.name},
                       fmt::format("the grouped stream has a column '{}' that the input does not", col.name));
    col.first_line.clear();  // rows of the histogram, not lines of the input
    d.columns[static_cast<std::size_t>(c)] = std::move(col);
  }
  return table;
}

}  // namespace

void bind_arrow(py::module_& m) {
  m.def("encode_arrow_stream", &encode_arrow_stream, py::arg("stream"), py::arg("source"),
        py::arg("delimiter") = ",", py::arg("rows_hint") = 0,
        "A table from an Arrow C stream (a PyCapsule 'arrow_array_stream', as __arrow_c_stream__ returns it), "
        "encoded batch by batch from the Arrow buffers; `rows_hint` reserves room for that many rows.");
  m.def("encode_grouped_arrow_stream", &encode_grouped_arrow_stream, py::arg("stream"), py::arg("source"),
        py::arg("columns"), py::arg("count"), py::arg("rows_hint") = 0,
        "A grouped table (a histogram: one row per distinct combination, in order of first appearance, with its "
        "count in the int64 column `count`) from an Arrow C stream; `columns` names all the input's columns; "
        "`rows_hint` (the histogram's rows, when known) reserves room for that many.");
  m.def(
      "add_formula_candidates",
      [](Table& t, std::size_t c, const std::vector<std::string>& values) {
        // As PostgresPushdown::read: an ungrouped column's dictionary holds
        // the values a spreadsheet would run, for formula_warnings and the
        // release's escaping.
        Column& col = t.data.columns.at(c);
        if (!col.codes.empty()) throw std::invalid_argument("add_formula_candidates: the column is grouped");
        for (const std::string& v : values)
          if (looks_like_formula(v)) col.dictionary.intern(v);
      },
      py::arg("table"), py::arg("column"), py::arg("values"),
      "Of a grouped table: adds to an ungrouped column's dictionary those of `values` that look like formulas.");
}

}  // namespace deid::python
