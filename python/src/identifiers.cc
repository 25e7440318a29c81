// deid.spark's released identifiers (docs/spark.md, "Identifiers"): the
// job's actions applied to a column of values that Spark hands over as an
// Arrow stream, one batch at a time, by the library's own code (pseudonym,
// Masker, and IdentifierRelease for date shifts), so that every value is
// the one `deid anonymize` writes. The object is made on the driver, which
// reads the secret (load_secret); pickled, it carries the secret's bytes
// to the executors in a broadcast.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "binding.h"
#include "deid/error.h"
#include "deid/formulas.h"
#include "deid/identifiers.h"

namespace py = pybind11;

namespace deid::python {
namespace {

IdentifierAction action_named(const std::string& name) {
  for (IdentifierAction a : {IdentifierAction::remove, IdentifierAction::pseudonym, IdentifierAction::mask,
                             IdentifierAction::date_shift})
    if (name == to_string(a)) return a;
  throw std::invalid_argument("IdentifierActions: unknown action '" + name + "'");
}

const AttributeSpec& released_attribute(const IdentifierActions& a, const std::string& column) {
  for (const AttributeSpec& s : a.job.attributes)
    if (s.name == column) return s;
  throw std::invalid_argument(fmt::format("'{}' is not an identifying column the job releases", column));
}

// The batch's values of `column`: an Arrow stream of that column and, for a
// date shift, the person column, both named as in the job. Lines are
// those of the batch, not of the input: messages leave them out.
struct Batch {
  Dataset data;
  std::size_t column = 0;
};

Batch read_batch(const IdentifierActions& a, const std::string& column, const py::capsule& stream) {
  Batch b;
  b.data = encode_stream(stream, a.source, ",", 0, {});
  const int c = b.data.column_index(column);
  if (c < 0) throw std::invalid_argument(fmt::format("the stream has no column '{}'", column));
  b.column = static_cast<std::size_t>(c);
  return b;
}

// The released value of each row of the batch, as IdentifierRelease gives
// it (not escaped): pseudonyms and masks once per distinct value of the
// batch, date shifts by IdentifierRelease itself (parsing, the person's
// offset, the checks), on a job of that one attribute. Throws as
// IdentifierRelease does, but for the pseudonyms' collisions, which only
// the whole column shows (deid.spark counts them on Spark).
std::vector<std::string> released_values(const IdentifierActions& a, const AttributeSpec& spec, const Batch& b) {
  const Column& col = b.data.columns[b.column];
  std::vector<std::string> out(b.data.rows);
  std::vector<std::string> per_code;
  switch (spec.identifier.action) {
    case IdentifierAction::pseudonym: {
      Hmac keyed(a.secret.bytes);
      for (std::uint32_t code = 0; code < col.dictionary.size(); ++code)
        per_code.push_back(pseudonym(keyed, col.dictionary.value(code), spec.identifier.length));
      break;
    }
    case IdentifierAction::mask: {
      const Masker mask(spec.identifier.mask);
      for (std::uint32_t code = 0; code < col.dictionary.size(); ++code)
        per_code.push_back(mask(col.dictionary.value(code)));
      break;
    }
    case IdentifierAction::date_shift: {
      Job one = a.job;
      one.attributes = {spec};
      const IdentifierRelease release(one, b.data, &a.secret);
      for (std::uint64_t row = 0; row < b.data.rows; ++row) out[row] = release.value(b.column, row);
      return out;
    }
    case IdentifierAction::remove: throw std::invalid_argument("released_values: a removed column");
  }
  for (std::uint64_t row = 0; row < b.data.rows; ++row) out[row] = per_code[col.codes[row]];
  return out;
}

// An error of a batch without the batch's line (the stream's rows are not
// the input's lines), and the row of the batch it names.
std::pair<std::uint64_t, std::string> batch_error(const IdentifierActions& a, const InputError& e) {
  const std::uint64_t line = e.where().line;
  const std::uint64_t row = line >= 2 ? line - 2 : 0;  // encode_stream numbers row r as line r + 2
  return {row, InputError(Location{a.source, 0, 0, e.where().column_name}, e.problem()).what()};
}

py::list released(const IdentifierActions& a, const std::string& column, const py::capsule& stream) {
  const AttributeSpec& spec = released_attribute(a, column);
  const Batch b = read_batch(a, column, stream);
  std::vector<std::string> values;
  try {
    run_released(1, [&] { values = released_values(a, spec, b); });
  } catch (const JobError&) {
    throw;
  } catch (const InputError& e) {
    throw InputError(Location{a.source, 0, 0, e.where().column_name}, e.problem());
  }
  const bool escape = a.job.output.escape_formulas;
  py::list out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    out[i] = py::str(escape && looks_like_formula(values[i]) ? "'" + values[i] : values[i]);
  return out;
}

// What deid.spark counts of a batch before the search (the checks the
// command makes before it): per row the value's text as the engine reads
// it, its released value (None for a date shift: its value depends on the
// person) and whether that looks like a formula; and the batch's first
// error as (row, message), or None.
py::tuple check(const IdentifierActions& a, const std::string& column, const py::capsule& stream) {
  const AttributeSpec& spec = released_attribute(a, column);
  const Batch b = read_batch(a, column, stream);
  const Column& col = b.data.columns[b.column];
  std::vector<std::string> values;
  std::optional<std::pair<std::uint64_t, std::string>> error;
  try {
    run_released(1, [&] { values = released_values(a, spec, b); });
  } catch (const JobError&) {
    throw;
  } catch (const InputError& e) {
    error = batch_error(a, e);
  }
  const bool shifted = spec.identifier.action == IdentifierAction::date_shift;
  py::list texts(b.data.rows), out(b.data.rows), formulas(b.data.rows);
  for (std::uint64_t row = 0; row < b.data.rows; ++row) {
    const auto i = static_cast<py::ssize_t>(row);
    texts[i] = py::str(col.dictionary.value(col.codes[row]));
    // Shifted dates are never counted as formulas (as release_warnings).
    const bool have = !error && !shifted;
    out[i] = have ? py::object(py::str(values[row])) : py::object(py::none());
    formulas[i] = py::bool_(have && looks_like_formula(values[row]));
  }
  return py::make_tuple(texts, out, formulas, error ? py::cast(*error) : py::object(py::none()));
}

// The pickled state: the released attributes and the identifiers section
// as JSON, and the secret's bytes beside it.
py::tuple get_state(const IdentifierActions& a) {
  nlohmann::json attributes = nlohmann::json::array();
  for (const AttributeSpec& s : a.job.attributes) {
    const IdentifierActionSpec& i = s.identifier;
    nlohmann::json mask = {{"keep_first", i.mask.keep_first}, {"keep_last", i.mask.keep_last},
                           {"symbol", i.mask.symbol},         {"replacement", i.mask.replacement}};
    if (i.mask.digits) mask["digits"] = *i.mask.digits;
    if (i.mask.letters) mask["letters"] = *i.mask.letters;
    if (i.mask.regex) mask["regex"] = *i.mask.regex;
    attributes.push_back({{"name", s.name},
                          {"line", s.line},
                          {"action", to_string(i.action)},
                          {"length", i.length},
                          {"mask", mask},
                          {"date_format", i.date_format},
                          {"action_line", i.line}});
  }
  const IdentifiersSpec& ids = *a.job.identifiers;
  const nlohmann::json state = {{"path", a.job.path},
                                {"escape_formulas", a.job.output.escape_formulas},
                                {"attributes", attributes},
                                {"person", ids.person},
                                {"shift_days", ids.shift_days},
                                {"line", ids.line},
                                {"fingerprint", a.secret.fingerprint},
                                {"source", a.source}};
  return py::make_tuple(state.dump(), py::bytes(a.secret.bytes));
}

std::shared_ptr<IdentifierActions> set_state(const py::tuple& t) {
  if (t.size() != 2) throw std::invalid_argument("IdentifierActions: a bad pickled state");
  const nlohmann::json state = nlohmann::json::parse(t[0].cast<std::string>());
  auto a = std::make_shared<IdentifierActions>();
  a->job.path = state.at("path").get<std::string>();
  a->job.output.escape_formulas = state.at("escape_formulas").get<bool>();
  IdentifiersSpec ids;
  ids.person = state.at("person").get<std::string>();
  ids.shift_days = state.at("shift_days").get<int>();
  ids.line = state.at("line").get<std::uint64_t>();
  a->job.identifiers = ids;
  for (const nlohmann::json& j : state.at("attributes")) {
    AttributeSpec s;
    s.name = j.at("name").get<std::string>();
    s.role = Role::identifying;
    s.line = j.at("line").get<std::uint64_t>();
    IdentifierActionSpec& i = s.identifier;
    i.action = action_named(j.at("action").get<std::string>());
    i.length = j.at("length").get<int>();
    i.date_format = j.at("date_format").get<std::string>();
    i.line = j.at("action_line").get<std::uint64_t>();
    const nlohmann::json& m = j.at("mask");
    i.mask.keep_first = m.at("keep_first").get<int>();
    i.mask.keep_last = m.at("keep_last").get<int>();
    i.mask.symbol = m.at("symbol").get<std::string>();
    i.mask.replacement = m.at("replacement").get<std::string>();
    if (m.contains("digits")) i.mask.digits = m["digits"].get<std::string>();
    if (m.contains("letters")) i.mask.letters = m["letters"].get<std::string>();
    if (m.contains("regex")) i.mask.regex = m["regex"].get<std::string>();
    a->job.attributes.push_back(std::move(s));
  }
  a->secret.bytes = t[1].cast<std::string>();
  a->secret.fingerprint = state.at("fingerprint").get<std::string>();
  a->source = state.at("source").get<std::string>();
  return a;
}

std::shared_ptr<IdentifierActions> make_identifier_actions(const Job& job, const std::string& source) {
  auto a = std::make_shared<IdentifierActions>();
  a->source = source;
  a->job.path = job.path;
  a->job.output.escape_formulas = job.output.escape_formulas;
  a->job.identifiers = job.identifiers;
  for (const AttributeSpec& s : job.attributes)
    if (s.role == Role::identifying && s.identifier.action != IdentifierAction::remove) a->job.attributes.push_back(s);
  if (a->job.attributes.empty()) throw std::invalid_argument("IdentifierActions: the job releases no identifier");
  a->secret = load_secret(job);
  return a;
}

}  // namespace

void bind_identifiers(py::module_& m) {
  py::class_<IdentifierActions, std::shared_ptr<IdentifierActions>>(
      m, "IdentifierActions",
      "The job's identifier actions (pseudonym, mask, date-shift), applied to columns of values by the library "
      "(deid.spark). Made on the driver, which reads the secret; pickling carries the secret's bytes.")
      .def(py::init([](const std::shared_ptr<JobHandle>& job, const std::string& source) {
             return make_identifier_actions(job->job, source);
           }),
           py::arg("job"), py::arg("source"))
      .def_property_readonly("columns",
                             [](const IdentifierActions& a) {
                               std::vector<std::tuple<std::string, std::string, int>> out;
                               for (const AttributeSpec& s : a.job.attributes)
                                 out.emplace_back(s.name, to_string(s.identifier.action), s.identifier.length);
                               return out;
                             },
                             "The released identifying columns as (name, action, pseudonym length), in the job's "
                             "order.")
      .def_property_readonly("person", [](const IdentifierActions& a) { return a.job.identifiers->person; })
      .def_property_readonly("fingerprint", [](const IdentifierActions& a) { return a.secret.fingerprint; })
      .def("released", &released, py::arg("column"), py::arg("stream"),
           "The released values of `column` for the rows of an Arrow stream (the column and, for a date shift, the "
           "person column, named as in the job), as output.path writes them.")
      .def("check", &check, py::arg("column"), py::arg("stream"),
           "Per row: the value's text, its released value (None for a date shift) and whether it looks like a "
           "formula; and the first error (row, message) or None.")
      .def(py::pickle(&get_state, &set_state));
}

}  // namespace deid::python
