// The released identifying columns of a job's data (docs/identifiers.md):
// pseudonyms and masks computed once per distinct value, date shifts once
// per distinct date and person, all checked before anything is written.
#include <fmt/format.h>

#include <absl/container/flat_hash_map.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "deid/csv.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/identifiers.h"
#include "deid/job.h"

namespace deid {

struct IdentifierRelease::ColumnRelease {
  std::size_t column = 0;
  const AttributeSpec* spec = nullptr;
  // pseudonym and mask: the released value per code of the column.
  std::vector<std::string> values;
  // date-shift: per code of the column its day (or kNoDate for an empty
  // cell) and what follows the date; per code of the person column its
  // offset.
  std::vector<std::int64_t> days;
  std::vector<std::string> rests;
  std::optional<DateFormat> format;
  // The column's distinct input values (the summary), and for a release
  // built from counts its formulas.
  std::uint64_t distinct = 0;
  std::optional<FormulaCount> formulas;
};

namespace {
constexpr std::int64_t kNoDate = INT64_MIN;
// The days of 0001-01-01 and 9999-12-31, the dates DateFormat writes.
const std::int64_t kFirstDay =
    std::chrono::sys_days{std::chrono::year{1} / 1 / 1}.time_since_epoch().count();
const std::int64_t kLastDay =
    std::chrono::sys_days{std::chrono::year{9999} / 12 / 31}.time_since_epoch().count();

// f(code) for every code in [0, n), on every core; each call writes only
// its own slot, so the result does not depend on the number of threads.
template <class F>
void for_each_code(std::uint32_t n, F&& f) {
  tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, n, 1024), [&](const tbb::blocked_range<std::uint32_t>& r) {
    for (std::uint32_t code = r.begin(); code != r.end(); ++code) f(code);
  });
}

// The same with the secret's Hmac, one per chunk of codes: f(hmac, code).
template <class F>
void for_each_code_keyed(std::uint32_t n, const std::string& secret, F&& f) {
  tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, n, 4096), [&](const tbb::blocked_range<std::uint32_t>& r) {
    Hmac keyed(secret);
    for (std::uint32_t code = r.begin(); code != r.end(); ++code) f(keyed, code);
  });
}
}  // namespace

std::size_t person_column(const Job& job, const Dataset& data) {
  const std::string& person = job.identifiers ? job.identifiers->person : std::string();
  const int c = data.column_index(person);
  if (c < 0)
    throw JobError(Location{job.path, job.identifiers ? job.identifiers->line : 0, 0, {}},
                   fmt::format("identifiers.person '{}' {}", person, data.not_a_column()));
  return static_cast<std::size_t>(c);
}

IdentifierRelease::IdentifierRelease(const Job& job, const Dataset& data, const Secret* secret) : data_(&data) {
  by_column_.assign(data.columns.size(), -1);
  std::vector<const AttributeSpec*> released;
  for (const AttributeSpec& a : job.attributes)
    if (a.role == Role::identifying && a.identifier.action != IdentifierAction::remove) released.push_back(&a);
  if (released.empty()) return;
  // Masks need no secret; the parser refuses a keyed action without the
  // section.
  const bool keyed = std::any_of(released.begin(), released.end(), [](const AttributeSpec* a) {
    return a->identifier.action == IdentifierAction::pseudonym || a->identifier.action == IdentifierAction::date_shift;
  });
  if (keyed) {
    if (!job.identifiers) throw std::logic_error("IdentifierRelease: a keyed action without an identifiers section");
    secret_ = secret ? *secret : load_secret(job);
    shift_days_ = job.identifiers->shift_days;
    person_ = job.identifiers->person;
  }

  std::vector<std::int32_t> offsets;  // per code of the person column
  int person = -1;
  for (const AttributeSpec* a : released) {
    if (a->identifier.action != IdentifierAction::date_shift || person >= 0) continue;
    person = static_cast<int>(person_column(job, data));
    const Column& pc = data.columns[static_cast<std::size_t>(person)];
    offsets.resize(pc.dictionary.size());
    for_each_code_keyed(pc.dictionary.size(), secret_.bytes, [&](Hmac& keyed, std::uint32_t code) {
      offsets[code] = date_offset(keyed, pc.dictionary.value(code), shift_days_);
    });
  }

  for (const AttributeSpec* a : released) {
    const int c = data.column_index(a->name);
    if (c < 0) continue;  // prepare() names an attribute that is not a column
    auto r = std::make_unique<ColumnRelease>();
    r->column = static_cast<std::size_t>(c);
    r->spec = a;
    const Column& col = data.columns[r->column];
    const std::uint32_t n = col.dictionary.size();
    r->distinct = n;
    auto data_at = [&](std::uint32_t code, const Column& column) {
      return Location{data.source, first_line_of(column, code), 0, column.name};
    };
    switch (a->identifier.action) {
      case IdentifierAction::pseudonym: {
        r->values.resize(n);
        for_each_code_keyed(n, secret_.bytes, [&](Hmac& keyed, std::uint32_t code) {
          r->values[code] = pseudonym(keyed, col.dictionary.value(code), a->identifier.length);
        });
        // The first collision in code order (the order of first appearance).
        absl::flat_hash_map<std::string_view, std::uint32_t> seen;
        seen.reserve(n);
        for (std::uint32_t code = 0; code < n; ++code) {
          const auto [it, fresh] = seen.emplace(r->values[code], code);
          if (!fresh)
            throw InputError(data_at(code, col),
                             fmt::format("two values of '{}' have the same pseudonym {}{} and here: give the "
                                         "pseudonyms more digits (length, now {}) so that none collide",
                                         col.name, r->values[code], data_line_note(first_line_of(col, it->second)),
                                         a->identifier.length));
        }
        break;
      }
      case IdentifierAction::mask: {
        const Masker mask(a->identifier.mask);
        r->values.resize(n);
        for_each_code(n, [&](std::uint32_t code) { r->values[code] = mask(col.dictionary.value(code)); });
        break;
      }
      case IdentifierAction::date_shift: {
        r->format.emplace(a->identifier.date_format);
        r->days.resize(n);
        r->rests.resize(n);
        for (std::uint32_t code = 0; code < n; ++code) {
          const std::string& v = col.dictionary.value(code);
          if (v.empty()) {
            r->days[code] = kNoDate;
            continue;
          }
          const auto day = r->format->parse(v, &r->rests[code]);
          if (!day)
            throw InputError(data_at(code, col), fmt::format("'{}' is not a date of the form {} (action: date-shift)",
                                                             v, a->identifier.date_format));
          r->days[code] = *day;
        }
        // Every date has a person, and every shifted date can be written.
        const Column& pc = data.columns[static_cast<std::size_t>(person)];
        for (std::uint64_t row = 0; row < data.rows; ++row) {
          const std::uint32_t code = col.codes[row];
          if (r->days[code] == kNoDate) continue;
          const std::uint32_t who = pc.codes[row];
          if (pc.dictionary.value(who).empty())
            throw InputError(data_at(who, pc), fmt::format("the person column '{}' is empty in a row with a date "
                                                           "in '{}': its date cannot be shifted",
                                                           pc.name, col.name));
          // Checked by its day number, not by writing it (value() writes
          // each date once); format() gives the message of one that fails.
          const std::int64_t shifted = r->days[code] + offsets[who];
          if (shifted < kFirstDay || shifted > kLastDay) {
            try {
              (void)r->format->format(shifted);
            } catch (const std::out_of_range& e) {
              throw InputError(data_at(code, col), fmt::format("'{}' shifted: {}", col.dictionary.value(code), e.what()));
            }
          }
        }
        break;
      }
      case IdentifierAction::remove: break;
    }
    by_column_[r->column] = static_cast<int>(columns_.size());
    columns_.push_back(std::move(r));
  }
  if (person >= 0) {
    // Kept per row through the person column's codes.
    person_offsets_ = std::move(offsets);
    person_column_ = static_cast<std::size_t>(person);
  }
}

IdentifierRelease::IdentifierRelease(const Job& job, const Dataset& grouped, const Secret& secret,
                                     const std::vector<CountedIdentifier>& counted)
    : data_(&grouped), counted_(true), secret_(secret) {
  by_column_.assign(grouped.columns.size(), -1);
  if (!job.identifiers) throw std::logic_error("IdentifierRelease: an action without an identifiers section");
  shift_days_ = job.identifiers->shift_days;
  person_ = job.identifiers->person;
  std::size_t i = 0;
  for (const AttributeSpec& a : job.attributes) {
    if (a.role != Role::identifying || a.identifier.action == IdentifierAction::remove) continue;
    if (i >= counted.size() || counted[i].name != a.name)
      throw std::invalid_argument(fmt::format("IdentifierRelease: no count for the released column '{}'", a.name));
    const int c = grouped.column_index(a.name);
    if (c < 0) throw std::invalid_argument(fmt::format("IdentifierRelease: '{}' is not a column", a.name));
    if (a.identifier.action == IdentifierAction::date_shift) person_column_ = person_column(job, grouped);
    auto r = std::make_unique<ColumnRelease>();
    r->column = static_cast<std::size_t>(c);
    r->spec = &a;
    r->distinct = counted[i].distinct_values;
    r->formulas = counted[i].formulas;
    by_column_[r->column] = static_cast<int>(columns_.size());
    columns_.push_back(std::move(r));
    ++i;
  }
  if (i != counted.size()) throw std::invalid_argument("IdentifierRelease: counts of columns the job does not release");
}

IdentifierRelease::~IdentifierRelease() = default;

bool IdentifierRelease::released(std::size_t c) const { return c < by_column_.size() && by_column_[c] >= 0; }

std::string IdentifierRelease::value(std::size_t c, std::uint64_t row) const {
  if (counted_) throw std::logic_error("IdentifierRelease::value: a release built from counts has no values");
  const ColumnRelease& r = *columns_[static_cast<std::size_t>(by_column_[c])];
  const std::uint32_t code = data_->columns[c].codes[row];
  if (r.spec->identifier.action != IdentifierAction::date_shift) return r.values[code];
  if (r.days[code] == kNoDate) return {};
  const std::uint32_t who = data_->columns[person_column_].codes[row];
  return r.format->format(r.days[code] + person_offsets_[who]) + r.rests[code];
}

const std::vector<std::string>* IdentifierRelease::distinct_values(std::size_t c) const {
  const ColumnRelease& r = *columns_[static_cast<std::size_t>(by_column_[c])];
  return r.spec->identifier.action == IdentifierAction::date_shift || counted_ ? nullptr : &r.values;
}

const FormulaCount* IdentifierRelease::counted_formulas(std::size_t c) const {
  const ColumnRelease& r = *columns_[static_cast<std::size_t>(by_column_[c])];
  return r.formulas ? &*r.formulas : nullptr;
}

nlohmann::json IdentifierRelease::summary() const {
  if (columns_.empty()) return nullptr;
  nlohmann::json cols = nlohmann::json::array();
  bool shifts = false;
  for (const auto& r : columns_) {
    const IdentifierActionSpec& a = r->spec->identifier;
    nlohmann::json c = {{"name", r->spec->name}, {"action", to_string(a.action)}};
    if (a.action == IdentifierAction::pseudonym) c["length"] = a.length;
    if (a.action == IdentifierAction::date_shift) {
      c["format"] = a.date_format;
      shifts = true;
    }
    c["distinct_values"] = r->distinct;
    cols.push_back(std::move(c));
  }
  // Masks alone are keyed with no secret.
  nlohmann::json out = {{"secret_fingerprint", secret_.fingerprint.empty() ? nlohmann::json(nullptr)
                                                                            : nlohmann::json(secret_.fingerprint)},
                        {"columns", std::move(cols)}};
  if (shifts) out["date_shift"] = {{"person", person_}, {"days", shift_days_}};
  return out;
}

std::vector<std::string> IdentifierRelease::warnings() const {
  if (secret_.warning) return {*secret_.warning};
  return {};
}

void IdentifierRelease::write_linkage(std::ostream& out, char delimiter) const {
  if (counted_) throw std::logic_error("IdentifierRelease::write_linkage: a release built from counts has no values");
  std::string line;
  auto row = [&](std::initializer_list<std::string_view> fields) {
    line.clear();
    bool first = true;
    for (std::string_view f : fields) {
      if (!first) line.push_back(delimiter);
      first = false;
      append_csv_field(line, std::string(f), delimiter);
    }
    line.push_back('\n');
    out << line;
  };
  row({"column", "value", "pseudonym"});
  for (const auto& r : columns_) {
    if (r->spec->identifier.action != IdentifierAction::pseudonym) continue;
    const Column& col = data_->columns[r->column];
    for (std::uint32_t code = 0; code < col.dictionary.size(); ++code)
      row({col.name, col.dictionary.value(code), r->values[code]});
  }
}

}  // namespace deid
