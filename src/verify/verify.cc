// The independent verifier (verify.h). Only the C++ standard library is used,
// on purpose: sharing a CSV reader, a hierarchy binding or a grouping routine
// with the engine would let one bug hide itself in both.
#include "verify.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace verify {

// ---------------------------------------------------------------------------
// RFC 4180 reader.

std::optional<Table> parse_csv(std::string_view text, char delimiter, bool has_header, std::string* error) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());

  Table table;
  std::vector<std::vector<std::string>> records;
  std::vector<std::uint64_t> lines;  // of each record
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;        // inside a quoted field
  bool field_quoted = false;  // the current field was quoted (it is over once the quote closes)
  bool record_started = false;
  std::uint64_t line = 1, record_line = 1;
  std::size_t expected = 0;

  auto fail = [&](std::uint64_t at, const std::string& what) {
    if (error) *error = "line " + std::to_string(at) + ": " + what;
    return std::nullopt;
  };
  auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
    field_quoted = false;
  };
  // Returns false when the record has the wrong number of fields.
  auto end_record = [&]() -> bool {
    end_field();
    const bool blank = record.size() == 1 && record[0].empty() && !record_started;
    if (!blank) {
      if (records.empty()) expected = record.size();
      if (record.size() != expected) return false;
      records.push_back(std::move(record));
      lines.push_back(record_line);
    }
    record.clear();
    record_started = false;
    return true;
  };

  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n' || (c == '\r' && !(i + 1 < text.size() && text[i + 1] == '\n'))) ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == delimiter) {
      record_started = true;
      end_field();
    } else if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (!end_record())
        return fail(record_line, "record has " + std::to_string(record.size()) + " fields, expected " +
                                     std::to_string(expected));
      ++line;
      record_line = line;
    } else if (c == '"') {
      if (!field.empty() || field_quoted)
        return fail(line, "quote inside a field that does not start with a quote");
      quoted = true;
      field_quoted = true;
      record_started = true;
    } else {
      if (field_quoted) return fail(line, "character after the closing quote of a field");
      field.push_back(c);
      record_started = true;
    }
  }
  if (quoted) return fail(record_line, "quoted field not closed at the end of the file");
  if (record_started || !field.empty() || !record.empty()) {
    if (!end_record())
      return fail(record_line, "record has " + std::to_string(record.size()) + " fields, expected " +
                                   std::to_string(expected));
  }
  if (has_header) {
    if (records.empty()) return fail(1, "no header");
    table.header = std::move(records.front());
    table.rows.assign(std::make_move_iterator(records.begin() + 1), std::make_move_iterator(records.end()));
    table.lines.assign(lines.begin() + 1, lines.end());
  } else {
    table.rows = std::move(records);
    table.lines = std::move(lines);
  }
  return table;
}

std::optional<Table> read_csv_file(const std::string& path, char delimiter, bool has_header, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path + ": cannot open";
    return std::nullopt;
  }
  // In pieces, stopping at the first NUL byte: what holds one is no CSV text
  // (a binary file), and /dev/zero would otherwise be read until memory
  // runs out.
  std::string text;
  char piece[65536];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    const std::string_view got(piece, static_cast<std::size_t>(in.gcount()));
    if (const std::size_t nul = got.find('\0'); nul != std::string_view::npos) {
      const auto line = std::count(text.begin(), text.end(), '\n') + std::count(got.begin(), got.begin() + nul, '\n');
      if (error) *error = path + ":" + std::to_string(line + 1) + ": the file is not text (a NUL byte)";
      return std::nullopt;
    }
    text.append(got);
  }
  std::string why;
  auto table = parse_csv(text, delimiter, has_header, &why);
  if (!table && error) *error = path + ": " + why;
  return table;
}

char detect_delimiter(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  constexpr char kCandidates[] = {';', ',', '\t', '|'};
  std::size_t counts[4] = {0, 0, 0, 0};
  bool quoted = false;
  for (const char c : text) {
    if (c == '"') quoted = !quoted;  // a doubled quote toggles twice
    if (quoted) continue;
    if (c == '\n' || c == '\r') break;
    for (int i = 0; i < 4; ++i) counts[i] += c == kCandidates[i];
  }
  int best = -1;
  for (int i = 0; i < 4; ++i)
    if (counts[i] > 0 && (best < 0 || counts[i] > counts[best])) best = i;
  return best < 0 ? ',' : kCandidates[best];
}

std::optional<char> detect_file_delimiter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // The first record: up to the first line end outside quotes (a header is
  // short; 1 MiB bounds a file without line ends).
  std::string text;
  bool quoted = false;
  char c;
  while (text.size() < (1u << 20) && in.get(c)) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == '\n' || c == '\r')) break;
    text.push_back(c);
  }
  return detect_delimiter(text);
}

// ---------------------------------------------------------------------------
// Reporting.

const char* to_string(Violation::Kind kind) {
  switch (kind) {
    case Violation::Kind::unreadable: return "unreadable";
    case Violation::Kind::bad_hierarchy: return "bad_hierarchy";
    case Violation::Kind::bad_options: return "bad_options";
    case Violation::Kind::identifying_column_present: return "identifying_column_present";
    case Violation::Kind::column_missing: return "column_missing";
    case Violation::Kind::unexpected_column: return "unexpected_column";
    case Violation::Kind::row_count: return "row_count";
    case Violation::Kind::value_changed: return "value_changed";
    case Violation::Kind::value_not_in_hierarchy: return "value_not_in_hierarchy";
    case Violation::Kind::not_single_level: return "not_single_level";
    case Violation::Kind::level_outside_bounds: return "level_outside_bounds";
    case Violation::Kind::too_many_suppressed: return "too_many_suppressed";
    case Violation::Kind::class_too_small: return "class_too_small";
    case Violation::Kind::class_requirement: return "class_requirement";
    case Violation::Kind::population_uniqueness: return "population_uniqueness";
    case Violation::Kind::wrong_aggregate: return "wrong_aggregate";
    case Violation::Kind::average_risk: return "average_risk";
    case Violation::Kind::sample_uniqueness: return "sample_uniqueness";
    case Violation::Kind::k_map: return "k_map";
    case Violation::Kind::outside_subset_released: return "outside_subset_released";
    case Violation::Kind::delta_presence: return "delta_presence";
    case Violation::Kind::population_class_too_small: return "population_class_too_small";
    case Violation::Kind::unprofitable_class: return "unprofitable_class";
  }
  return "?";
}

bool Report::has(Violation::Kind kind) const {
  return std::any_of(violations.begin(), violations.end(), [&](const Violation& v) { return v.kind == kind; });
}

std::string Report::to_string() const {
  std::string out;
  for (const auto& v : violations) out += std::string(verify::to_string(v.kind)) + ": " + v.message + "\n";
  return out;
}

namespace {

std::string quote(const std::string& s) { return "'" + s + "'"; }

using Distribution = std::map<std::string, std::uint64_t>;

// Whether a class with distribution `cls` of the requirement's attribute
// satisfies `req`; `all` is the distribution over the whole table (needed by
// t-closeness). On failure `why` says what the class lacks.
bool requirement_holds(const ClassRequirement& req, const Distribution& cls, const Distribution& all,
                       std::string* why) {
  return std::visit(
      [&](const auto& r) -> bool {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, DistinctLDiversity>) {
          if (cls.size() >= r.l) return true;
          *why = std::to_string(cls.size()) + " distinct value(s) of " + quote(r.attribute) + ", need " +
                 std::to_string(r.l) + " (distinct l-diversity)";
          return false;
        } else {
          return verify::requirement_holds(r, cls, all, why);  // verify_sensitive.h
        }
      },
      req);
}

const std::string& requirement_attribute(const ClassRequirement& req) {
  return std::visit([](const auto& r) -> const std::string& { return r.attribute; }, req);
}

// The tuple of quasi-identifier values of an output row, as a map key that
// cannot confuse two tuples (values are length-prefixed).
std::string class_key(const std::vector<std::string>& row, const std::vector<int>& qi_out_columns) {
  std::string key;
  for (int c : qi_out_columns) {
    if (c < 0) continue;
    key += std::to_string(row[c].size());
    key.push_back(':');
    key += row[c];
  }
  return key;
}

std::string describe_tuple(const std::vector<std::string>& row, const std::vector<int>& qi_out_columns,
                           const std::vector<QuasiIdentifier>& qis) {
  std::string s;
  for (std::size_t q = 0; q < qis.size(); ++q) {
    if (qi_out_columns[q] < 0) continue;
    if (!s.empty()) s += ", ";
    s += qis[q].name + "=" + quote(row[qi_out_columns[q]]);
  }
  return "(" + s + ")";
}

}  // namespace

// ---------------------------------------------------------------------------
// The check.

std::optional<std::vector<char>> match_subset(const Table& input, const Table& subset, std::string* error) {
  // The subset's columns in the input's order.
  std::vector<std::size_t> from(input.header.size(), subset.header.size());
  for (std::size_t s = 0; s < subset.header.size(); ++s) {
    const auto it = std::find(input.header.begin(), input.header.end(), subset.header[s]);
    if (it == input.header.end()) {
      *error = "the subset's column " + quote(subset.header[s]) + " is not an input column";
      return std::nullopt;
    }
    from[static_cast<std::size_t>(it - input.header.begin())] = s;
  }
  for (std::size_t c = 0; c < input.header.size(); ++c)
    if (from[c] == subset.header.size()) {
      *error = "the subset lacks the input column " + quote(input.header[c]);
      return std::nullopt;
    }
  // Input rows by their values, each list in row order.
  std::map<std::vector<std::string>, std::vector<std::size_t>> rows;
  for (std::size_t r = input.rows.size(); r-- > 0;) rows[input.rows[r]].push_back(r);
  std::vector<char> in(input.rows.size(), 0);
  std::vector<std::string> key(input.header.size());
  for (std::size_t r = 0; r < subset.rows.size(); ++r) {
    for (std::size_t c = 0; c < key.size(); ++c) key[c] = subset.rows[r][from[c]];
    const auto it = rows.find(key);
    if (it == rows.end() || it->second.empty()) {
      *error = "the subset's data row " + std::to_string(r + 1) +
               (it == rows.end() ? " is no record of the input" : " is given more often than the input has it");
      return std::nullopt;
    }
    in[it->second.back()] = 1;  // the earliest unmatched row (lists are in reverse)
    it->second.pop_back();
  }
  return in;
}

Report check(const Options& options) {
  Report report;
  auto unreadable = [&](const std::string& why) {
    report.violations.push_back({Violation::Kind::unreadable, {}, 0, 0, why});
    return report;
  };
  std::string why;
  auto input = read_csv_file(options.input_path, options.input_delimiter, true, &why);
  if (!input) return unreadable("input " + why);
  auto output = read_csv_file(options.output_path, options.output_delimiter.value_or(options.input_delimiter), true, &why);
  if (!output) return unreadable("output " + why);
  std::vector<Table> hierarchies;
  for (const auto& qi : options.quasi_identifiers) {
    auto h = read_csv_file(qi.hierarchy_path, options.hierarchy_delimiter, false, &why);
    if (!h) {
      report.violations.push_back({Violation::Kind::bad_hierarchy, qi.name, 0, 0, "hierarchy " + why});
      return report;
    }
    hierarchies.push_back(std::move(*h));
  }
  std::vector<Table> aggregated;
  for (const auto& m : options.microaggregated) {
    if (m.hierarchy_path.empty()) {
      aggregated.emplace_back();
      continue;
    }
    auto h = read_csv_file(m.hierarchy_path, options.hierarchy_delimiter, false, &why);
    if (!h) {
      report.violations.push_back({Violation::Kind::bad_hierarchy, m.name, 0, 0, "hierarchy " + why});
      return report;
    }
    aggregated.push_back(std::move(*h));
  }
  return check_tables(options, *input, *output, hierarchies, aggregated);
}

Report check_tables(const Options& options, const Table& input, const Table& output,
                    const std::vector<Table>& hierarchies, const std::vector<Table>& aggregated_hierarchies) {
  using Kind = Violation::Kind;
  Report report;
  auto add = [&](Kind kind, std::string column, std::uint64_t row, std::uint64_t count, std::string message) {
    report.violations.push_back({kind, std::move(column), row, count, std::move(message)});
  };
  const auto& qis = options.quasi_identifiers;
  report.input_rows = input.rows.size();
  report.output_rows = output.rows.size();
  report.levels.assign(qis.size(), std::nullopt);
  report.fitting_levels.assign(qis.size(), {});

  // Options against the input header.
  std::map<std::string, int> in_col, out_col;
  for (std::size_t c = 0; c < input.header.size(); ++c)
    if (!in_col.emplace(input.header[c], static_cast<int>(c)).second)
      add(Kind::bad_options, input.header[c], 0, 0, "the input has the column " + quote(input.header[c]) + " twice");
  const std::set<std::string> identifying(options.identifying.begin(), options.identifying.end());
  std::set<std::string> qi_names;
  for (const auto& q : qis) {
    if (!in_col.count(q.name)) add(Kind::bad_options, q.name, 0, 0, "quasi-identifier " + quote(q.name) + " is not an input column");
    if (identifying.count(q.name)) add(Kind::bad_options, q.name, 0, 0, quote(q.name) + " is both quasi-identifying and identifying");
    if (!qi_names.insert(q.name).second) add(Kind::bad_options, q.name, 0, 0, "quasi-identifier " + quote(q.name) + " listed twice");
  }
  for (const auto& name : options.identifying)
    if (!in_col.count(name)) add(Kind::bad_options, name, 0, 0, "identifying column " + quote(name) + " is not an input column");
  const auto& micro = options.microaggregated;
  for (const auto& m : micro) {
    if (!in_col.count(m.name)) add(Kind::bad_options, m.name, 0, 0, "microaggregated " + quote(m.name) + " is not an input column");
    if (identifying.count(m.name)) add(Kind::bad_options, m.name, 0, 0, quote(m.name) + " is both microaggregated and identifying");
    if (!known_aggregation_function(m.function))
      add(Kind::bad_options, m.name, 0, 0, "unknown microaggregation function " + quote(m.function));
    if (!qi_names.insert(m.name).second) add(Kind::bad_options, m.name, 0, 0, quote(m.name) + " listed twice as a quasi-identifier");
  }
  if (aggregated_hierarchies.size() != micro.size())
    add(Kind::bad_options, {}, 0, 0, std::to_string(micro.size()) + " microaggregated columns but " + std::to_string(aggregated_hierarchies.size()) + " hierarchies for them");
  for (const auto& req : options.class_requirements) {
    const std::string& a = requirement_attribute(req);
    if (!in_col.count(a) || qi_names.count(a) || identifying.count(a))
      add(Kind::bad_options, a, 0, 0, "the attribute " + quote(a) + " of a class requirement must be an input column that is neither quasi-identifying nor identifying");
  }
  if (hierarchies.size() != qis.size())
    add(Kind::bad_options, {}, 0, 0, std::to_string(qis.size()) + " quasi-identifiers but " + std::to_string(hierarchies.size()) + " hierarchies");
  if (options.k == 0) add(Kind::bad_options, {}, 0, 0, "k must be at least 1");
  if (options.profitability && options.profitability->journalist && options.subset.empty())
    add(Kind::bad_options, {}, 0, 0, "the journalist's profitability needs the research subset");
  if (!(options.suppression_limit >= 0 && options.suppression_limit <= 1))
    add(Kind::bad_options, {}, 0, 0, "the suppression limit must lie in [0, 1]");
  if (!report.violations.empty()) return report;

  // Hierarchies: original value → its row (level l value = row[l]).
  std::vector<std::unordered_map<std::string, const std::vector<std::string>*>> hier(qis.size());
  std::vector<int> heights(qis.size(), 0);
  for (std::size_t q = 0; q < qis.size(); ++q) {
    const Table& h = hierarchies[q];
    if (h.rows.empty()) {
      add(Kind::bad_hierarchy, qis[q].name, 0, 0, "hierarchy " + qis[q].hierarchy_path + " is empty");
      continue;
    }
    heights[q] = static_cast<int>(h.rows.front().size());
    for (std::size_t r = 0; r < h.rows.size(); ++r) {
      auto [it, inserted] = hier[q].emplace(h.rows[r][0], &h.rows[r]);
      if (!inserted && *it->second != h.rows[r])
        add(Kind::bad_hierarchy, qis[q].name, r + 1, 0,
            "hierarchy " + qis[q].hierarchy_path + " lists " + quote(h.rows[r][0]) + " twice with different generalizations (line " + std::to_string(r + 1) + ")");
    }
  }
  if (!report.violations.empty()) return report;

  // Output header.
  for (std::size_t c = 0; c < output.header.size(); ++c) {
    const std::string& name = output.header[c];
    if (!out_col.emplace(name, static_cast<int>(c)).second) {
      add(Kind::unexpected_column, name, 0, 0, "the output has the column " + quote(name) + " twice");
    } else if (identifying.count(name)) {
      add(Kind::identifying_column_present, name, 0, 0, "identifying column " + quote(name) + " is in the output");
    } else if (!in_col.count(name)) {
      add(Kind::unexpected_column, name, 0, 0, "the output has a column " + quote(name) + " that the input does not have");
    }
  }
  for (const auto& name : input.header)
    if (!identifying.count(name) && !out_col.count(name))
      add(Kind::column_missing, name, 0, 0, "column " + quote(name) + " of the input is missing from the output");
  auto out_index = [&](const std::string& name) {
    auto it = out_col.find(name);
    return it == out_col.end() ? -1 : it->second;
  };
  std::vector<int> qi_in(qis.size()), qi_out(qis.size());
  for (std::size_t q = 0; q < qis.size(); ++q) {
    qi_in[q] = in_col.at(qis[q].name);
    qi_out[q] = out_index(qis[q].name);
  }

  // Rows are compared position by position, so only when the counts agree.
  const bool aligned = input.rows.size() == output.rows.size();
  if (!aligned) {
    // Where the two part (a row dropped or added there): the first row
    // whose copied columns differ, or whose quasi-identifier is neither '*'
    // nor at any level of its input value's hierarchy row; else the end of
    // the shorter table.
    std::vector<std::pair<std::size_t, int>> copied;  // input column, output column
    for (std::size_t c = 0; c < input.header.size(); ++c) {
      const int oc = out_index(input.header[c]);
      if (oc >= 0 && !qi_names.count(input.header[c]) && !identifying.count(input.header[c])) copied.emplace_back(c, oc);
    }
    auto matches = [&](std::size_t r) {
      for (const auto& [ic, oc] : copied)
        if (input.rows[r][ic] != output.rows[r][oc]) return false;
      for (std::size_t q = 0; q < qis.size(); ++q) {
        if (qi_out[q] < 0) continue;
        const std::string& out = output.rows[r][qi_out[q]];
        const auto it = hier[q].find(input.rows[r][qi_in[q]]);
        if (out != "*" && it != hier[q].end() && std::find(it->second->begin(), it->second->end(), out) == it->second->end())
          return false;
      }
      return true;
    };
    const std::size_t common = std::min(input.rows.size(), output.rows.size());
    std::size_t part = common;
    for (std::size_t r = 0; r < common; ++r)
      if (!matches(r)) {
        part = r;
        break;
      }
    const bool beyond = part >= output.rows.size();  // the output ends there
    add(Kind::row_count, {}, beyond ? 0 : part + 1, 0,
        "the output has " + std::to_string(output.rows.size()) + " rows, the input " + std::to_string(input.rows.size()) +
            " (one output row per input row is required); " +
            (part == common && beyond ? "the output ends after data row " + std::to_string(part)
                                      : "input and output first part at data row " + std::to_string(part + 1)));
  }
  const std::size_t rows = output.rows.size();

  // A row is starred when every quasi-identifier in the output is '*'.
  std::vector<char> starred(rows, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    bool all = true;
    for (std::size_t q = 0; q < qis.size() && all; ++q)
      if (qi_out[q] >= 0 && output.rows[r][qi_out[q]] != "*") all = false;
    starred[r] = all && !qis.empty();
  }

  if (aligned) {
    // Columns copied from the input must be identical, row by row.
    for (std::size_t c = 0; c < input.header.size(); ++c) {
      const std::string& name = input.header[c];
      const int oc = out_index(name);
      if (oc < 0 || qi_names.count(name) || identifying.count(name)) continue;
      std::uint64_t differ = 0, first = 0;
      for (std::size_t r = 0; r < rows; ++r)
        if (input.rows[r][c] != output.rows[r][oc] && differ++ == 0) first = r + 1;
      if (differ)
        add(Kind::value_changed, name, first, differ,
            "column " + quote(name) + ": " + std::to_string(differ) + " row(s) differ from the input; first at data row " +
                std::to_string(first) + ": input " + quote(input.rows[first - 1][c]) + ", output " +
                quote(output.rows[first - 1][oc]) + " (rows must keep the input's order)");
    }

    // One level per quasi-identifier: the lowest level whose value of the
    // input equals the output in every record that is not starred.
    for (std::size_t q = 0; q < qis.size(); ++q) {
      if (qi_out[q] < 0) continue;
      const int h = heights[q];
      std::vector<const std::vector<std::string>*> gen(rows, nullptr);
      std::uint64_t missing = 0, first_missing = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        auto it = hier[q].find(input.rows[r][qi_in[q]]);
        if (it == hier[q].end()) {
          if (missing++ == 0) first_missing = r + 1;
        } else {
          gen[r] = it->second;
        }
      }
      if (missing) {
        add(Kind::value_not_in_hierarchy, qis[q].name, first_missing, missing,
            "column " + quote(qis[q].name) + ": " + std::to_string(missing) + " input value(s) are not in hierarchy " +
                qis[q].hierarchy_path + "; first " + quote(input.rows[first_missing - 1][qi_in[q]]) + " at data row " +
                std::to_string(first_missing));
        continue;
      }
      // misfits[l]: records that are not starred whose output differs from
      // the level-l value; stars[l]: starred records whose level-l value is
      // '*' (they may be generalized, not suppressed).
      std::vector<std::uint64_t> misfits(h, 0), first_misfit(h, 0), stars(h, 0);
      for (std::size_t r = 0; r < rows; ++r) {
        if (starred[r]) {
          for (int l = 0; l < h; ++l) stars[l] += (*gen[r])[l] == "*";
          continue;
        }
        const std::string& out = output.rows[r][qi_out[q]];
        for (int l = 0; l < h; ++l)
          if ((*gen[r])[l] != out && misfits[l]++ == 0) first_misfit[l] = r + 1;
      }
      // Among the levels that fit within the bounds, the one that explains
      // the most starred records as generalized (ties: the lowest).
      const int lo = qis[q].min_level, hi = qis[q].max_level.value_or(h - 1);
      int fitting = -1;
      for (int l = 0; l < h; ++l)
        if (misfits[l] == 0) {
          report.fitting_levels[q].push_back(l);
          if (l >= lo && l <= hi && (fitting < 0 || stars[l] > stars[fitting])) fitting = l;
        }
      if (fitting >= 0) {
        report.levels[q] = fitting;
        continue;
      }
      if (!report.fitting_levels[q].empty()) {
        std::string fits;
        for (int l : report.fitting_levels[q]) fits += (fits.empty() ? "" : ", ") + std::to_string(l);
        add(Kind::level_outside_bounds, qis[q].name, 0, rows,
            "column " + quote(qis[q].name) + " is generalized at level " + fits + ", outside its min-level and " +
                "max-level [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        continue;
      }
      int best = 0;
      for (int l = 1; l < h; ++l)
        if (misfits[l] < misfits[best]) best = l;
      const std::size_t r = first_misfit[best] - 1;
      std::string fits;
      for (int l = 0; l < h; ++l)
        if ((*gen[r])[l] == output.rows[r][qi_out[q]]) fits += (fits.empty() ? "" : ", ") + std::to_string(l);
      add(Kind::not_single_level, qis[q].name, r + 1, misfits[best],
          "column " + quote(qis[q].name) + " is not generalized at one single level: level " + std::to_string(best) +
              " fits all but " + std::to_string(misfits[best]) + " record(s); first at data row " + std::to_string(r + 1) +
              ": input " + quote(input.rows[r][qi_in[q]]) + ", output " + quote(output.rows[r][qi_out[q]]) + ", level-" +
              std::to_string(best) + " value " + quote((*gen[r])[best]) +
              (fits.empty() ? std::string(" (the output value is at no level of the hierarchy")
                            : " (the output value is at level(s) " + fits) +
              (output.rows[r][qi_out[q]] == "*" ? "; a suppressed record has '*' in every quasi-identifier)" : ")"));
    }
  }

  // The research subset: records outside it are starred and count nowhere
  // else.
  const bool with_subset = !options.subset.empty();
  if (with_subset && options.subset.size() != input.rows.size())
    add(Kind::bad_options, {}, 0, 0,
        "the research subset has " + std::to_string(options.subset.size()) + " flags for " +
            std::to_string(input.rows.size()) + " input rows");
  const auto outside = [&](std::size_t r) { return with_subset && (r >= options.subset.size() || !options.subset[r]); };
  std::uint64_t subset_records = 0;
  if (with_subset) {
    std::uint64_t released = 0;
    std::size_t first = 0;
    for (std::size_t r = 0; r < input.rows.size(); ++r) subset_records += !outside(r);
    for (std::size_t r = 0; r < rows; ++r)
      if (outside(r) && !starred[r] && released++ == 0) first = r;
    if (released)
      add(Kind::outside_subset_released, {}, first + 1, released,
          std::to_string(released) + " record(s) outside the research subset are not suppressed; the first at data "
                                     "row " + std::to_string(first + 1));
    report.subset_records = subset_records;
  }

  // Suppressed records: starred, unless the detected levels make every
  // quasi-identifier of the record '*' anyway (see verify.h).
  std::vector<char> suppressed(rows, 0);
  const bool all_levels = std::all_of(report.levels.begin(), report.levels.end(), [](const auto& l) { return l.has_value(); });
  for (std::size_t r = 0; r < rows; ++r) {
    if (!starred[r] || outside(r)) continue;
    bool generalized_to_star = aligned && all_levels;
    for (std::size_t q = 0; q < qis.size() && generalized_to_star; ++q)
      generalized_to_star = (*hier[q].at(input.rows[r][qi_in[q]]))[*report.levels[q]] == "*";
    suppressed[r] = !generalized_to_star;
    report.suppressed_records += suppressed[r];
  }
  // ARX: at most floor(limit * rows) records; the small epsilon keeps a
  // product like 0.29 * 100 = 28.999999999999996 from losing a record.
  const std::uint64_t judged = with_subset ? subset_records : input.rows.size();
  report.max_suppressed =
      static_cast<std::uint64_t>(std::floor(options.suppression_limit * static_cast<double>(judged) + 1e-9));
  if (report.suppressed_records > report.max_suppressed)
    add(Kind::too_many_suppressed, {}, 0, report.suppressed_records,
        std::to_string(report.suppressed_records) + " records are suppressed, the limit allows floor(" +
            std::to_string(options.suppression_limit) + " * " + std::to_string(judged) + ") = " +
            std::to_string(report.max_suppressed));

  // Microaggregated columns: '*' in suppressed records (and in those outside
  // the research subset), elsewhere the aggregate of the input values of
  // the record's class; with a subset, of the class's records in the
  // subset (ARX aggregates only those: HashGroupify.addFromBuffer adds a
  // value to a class's distribution only for a record of the subset). A column
  // generalized before aggregation joins the class at one level of its
  // hierarchy: the first combination of levels at which every record is
  // right, else the one with the fewest wrong records.
  std::vector<int> micro_out(micro.size(), -1);
  for (std::size_t m = 0; m < micro.size(); ++m) micro_out[m] = out_index(micro[m].name);
  if (aligned && !micro.empty()) {
    std::vector<std::vector<std::string>> in_values(micro.size()), released(micro.size());
    for (std::size_t m = 0; m < micro.size(); ++m) {
      if (micro_out[m] < 0) continue;  // column_missing reported
      const int ic = in_col.at(micro[m].name);
      std::uint64_t not_star = 0;
      std::size_t first = rows;
      for (std::size_t r = 0; r < rows; ++r) {
        in_values[m].push_back(input.rows[r][static_cast<std::size_t>(ic)]);
        released[m].push_back(output.rows[r][static_cast<std::size_t>(micro_out[m])]);
        if ((suppressed[r] || outside(r)) && released[m][r] != "*" && not_star++ == 0) first = r;
      }
      if (not_star)
        add(Kind::wrong_aggregate, micro[m].name, first + 1, not_star,
            "column " + quote(micro[m].name) + ": " + std::to_string(not_star) +
                " suppressed record(s) show a value instead of '*'; the first at data row " + std::to_string(first + 1));
    }
    // Per column generalized before aggregation: input value -> its hierarchy row.
    std::vector<std::size_t> generalized;
    std::vector<std::unordered_map<std::string, const std::vector<std::string>*>> rows_of(micro.size());
    std::vector<int> heights_of(micro.size(), 1);
    for (std::size_t m = 0; m < micro.size(); ++m) {
      if (micro[m].hierarchy_path.empty() || micro_out[m] < 0 || aggregated_hierarchies[m].rows.empty()) continue;
      generalized.push_back(m);
      heights_of[m] = static_cast<int>(aggregated_hierarchies[m].rows.front().size());
      for (const auto& row : aggregated_hierarchies[m].rows) rows_of[m].emplace(row[0], &row);
    }
    // The records aggregated: neither suppressed nor outside the subset.
    std::vector<char> left_out = suppressed;
    for (std::size_t r = 0; r < rows; ++r) left_out[r] = left_out[r] || outside(r);
    std::vector<std::string> base(rows);
    for (std::size_t r = 0; r < rows; ++r) base[r] = class_key(output.rows[r], qi_out);
    std::vector<int> level(generalized.size(), 0);
    std::vector<AggregateErrors> best;
    std::uint64_t best_wrong = UINT64_MAX;
    for (int combos = 0; combos < 4096; ++combos) {
      std::vector<std::string> group = base;
      for (std::size_t g = 0; g < generalized.size(); ++g)
        for (std::size_t r = 0; r < rows; ++r) {
          const std::size_t m = generalized[g];
          const auto it = rows_of[m].find(in_values[m][r]);
          const std::string& v = it == rows_of[m].end() ? in_values[m][r] : (*it->second)[static_cast<std::size_t>(level[g])];
          group[r] += std::to_string(v.size()) + "|" + v;
        }
      std::vector<AggregateErrors> errors(micro.size());
      std::uint64_t wrong = 0;
      for (std::size_t m = 0; m < micro.size(); ++m) {
        if (micro_out[m] < 0) continue;
        errors[m] = check_aggregates(micro[m], in_values[m], released[m], group, left_out);
        wrong += errors[m].wrong;
      }
      if (wrong < best_wrong) {
        best_wrong = wrong;
        best = std::move(errors);
      }
      if (wrong == 0) break;
      // The next combination of levels (an odometer), or stop.
      std::size_t g = 0;
      while (g < generalized.size() && ++level[g] == heights_of[generalized[g]]) level[g++] = 0;
      if (g == generalized.size()) break;
    }
    for (std::size_t m = 0; m < micro.size(); ++m)
      if (!best.empty() && best[m].wrong)
        add(Kind::wrong_aggregate, micro[m].name, best[m].first_row + 1, best[m].wrong,
            "column " + quote(micro[m].name) + ": " + std::to_string(best[m].wrong) +
                " record(s) do not show their class's " + micro[m].function + "; the first at data row " +
                std::to_string(best[m].first_row + 1) + ": " + best[m].why);
  }
  // The tuple an attacker sees: the quasi-identifiers and the
  // microaggregated columns.
  std::vector<int> tuple_out = qi_out;
  tuple_out.insert(tuple_out.end(), micro_out.begin(), micro_out.end());

  // Equivalence classes of the records that are not suppressed.
  struct ClassInfo {
    std::uint64_t size = 0;
    std::size_t first_row = 0;
    std::vector<Distribution> distributions;  // per class requirement
  };
  std::vector<int> req_out;
  std::vector<Distribution> overall(options.class_requirements.size());
  for (const auto& req : options.class_requirements) req_out.push_back(out_index(requirement_attribute(req)));
  std::map<std::string, ClassInfo> classes;
  for (std::size_t r = 0; r < rows; ++r) {
    // Q, the distribution the classes are compared with, is the research
    // subset's (ARX's DataManager.getDistribution counts the subset's
    // rows); a value found only outside it is kept with count 0, since the
    // ordered distance ranks every value of the input (m - 1 divides).
    for (std::size_t i = 0; i < req_out.size(); ++i)
      if (req_out[i] >= 0) {
        std::uint64_t& count = overall[i][output.rows[r][req_out[i]]];
        if (!outside(r)) ++count;
      }
    if (suppressed[r] || outside(r)) continue;
    auto [it, inserted] = classes.try_emplace(class_key(output.rows[r], tuple_out));
    ClassInfo& info = it->second;
    if (inserted) {
      info.first_row = r;
      info.distributions.resize(req_out.size());
    }
    ++info.size;
    for (std::size_t i = 0; i < req_out.size(); ++i)
      if (req_out[i] >= 0) ++info.distributions[i][output.rows[r][req_out[i]]];
  }
  report.classes = classes.size();

  // Summaries name the smallest offending class (ties: the earliest).
  std::uint64_t small = 0;
  const ClassInfo* smallest_small = nullptr;
  for (const auto& [key, info] : classes) {
    if (report.smallest_class == 0 || info.size < report.smallest_class) report.smallest_class = info.size;
    if (info.size < options.k) {
      ++small;
      if (!smallest_small || info.size < smallest_small->size ||
          (info.size == smallest_small->size && info.first_row < smallest_small->first_row))
        smallest_small = &info;
    }
  }
  if (small)
    add(Kind::class_too_small, {}, smallest_small->first_row + 1, small,
        std::to_string(small) + " class(es) have fewer than k = " + std::to_string(options.k) +
            " records; the smallest, " + describe_tuple(output.rows[smallest_small->first_row], qi_out, qis) + ", has " +
            std::to_string(smallest_small->size) + " (first at data row " + std::to_string(smallest_small->first_row + 1) +
            ")");

  for (std::size_t i = 0; i < options.class_requirements.size(); ++i) {
    if (req_out[i] < 0) continue;  // column_missing already reported
    std::uint64_t failing = 0;
    std::size_t first_row = rows;
    std::string first_why;
    for (const auto& [key, info] : classes) {
      std::string reason;
      if (requirement_holds(options.class_requirements[i], info.distributions[i], overall[i], &reason)) continue;
      ++failing;
      if (info.first_row < first_row) {
        first_row = info.first_row;
        first_why = reason;
      }
    }
    if (failing) {
      add(Kind::class_requirement, requirement_attribute(options.class_requirements[i]), first_row + 1, failing,
          std::to_string(failing) + " class(es) fail a requirement on " +
              quote(requirement_attribute(options.class_requirements[i])) + "; the first, " +
              describe_tuple(output.rows[first_row], qi_out, qis) + " (data row " + std::to_string(first_row + 1) +
              "), has " + first_why);
      report.violations.back().requirement = i;
    }
  }

  if (options.k_map) {
    const std::uint64_t derived = k_map_derived_k(*options.k_map, rows);
    report.k_map_derived_k = derived;
    std::uint64_t small = 0;
    const ClassInfo* first = nullptr;
    for (const auto& [key, info] : classes)
      if (info.size < derived) {
        ++small;
        if (!first || info.first_row < first->first_row) first = &info;
      }
    if (small)
      add(Kind::k_map, {}, first->first_row + 1, small,
          std::to_string(small) + " class(es) have fewer than the " + std::to_string(derived) +
              " records k-map derives for k = " + std::to_string(options.k_map->k) + "; the first, " +
              describe_tuple(output.rows[first->first_row], qi_out, qis) + ", has " + std::to_string(first->size));
  }

  // Against the population (the input): each input record's class at the
  // detected levels, from the hierarchies.
  struct Population {
    std::uint64_t records = 0, subset = 0;
    std::size_t first_row = 0;
  };
  std::map<std::string, Population> population;
  const bool journalist = options.profitability && options.profitability->journalist;
  if (with_subset && (options.delta_presence || options.population_k > 0 || journalist) && aligned && all_levels &&
      options.subset.size() == input.rows.size()) {
    std::vector<std::string> generalized(output.header.size());
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t q = 0; q < qis.size(); ++q)
        if (qi_out[q] >= 0) generalized[qi_out[q]] = (*hier[q].at(input.rows[r][qi_in[q]]))[*report.levels[q]];
      auto [it, inserted] = population.try_emplace(class_key(generalized, qi_out));
      if (inserted) it->second.first_row = r;
      ++it->second.records;
      it->second.subset += !outside(r);
    }
    std::uint64_t shares = 0, small_population = 0;
    std::size_t first_share = rows, first_small = rows;
    std::string share_why, small_why;
    for (const auto& [key, p] : population) {
      const auto released = classes.find(key);
      if (options.delta_presence) {
        const DeltaPresence& d = *options.delta_presence;
        // A released class: its records in the subset; a class without
        // subset records: share 0, asked unless judged too small first.
        const bool asked = released != classes.end() || (p.subset == 0 && !d.judged_too_small_first);
        const double share = p.subset == 0 ? 0.0 : static_cast<double>(p.subset) / static_cast<double>(p.records);
        if (asked && (share < d.min || share > d.max)) {
          ++shares;
          if (p.first_row < first_share) {
            first_share = p.first_row;
            share_why = std::to_string(p.subset) + " of its " + std::to_string(p.records) +
                        " input records in the subset (share " + std::to_string(share) + ")";
          }
        }
      }
      if (options.population_k > 0 && released != classes.end() && p.records < options.population_k) {
        ++small_population;
        if (released->second.first_row < first_small) {
          first_small = released->second.first_row;
          small_why = std::to_string(p.records);
        }
      }
    }
    if (shares)
      add(Kind::delta_presence, {}, first_share + 1, shares,
          std::to_string(shares) + " class(es) of the input have a share of subset records outside [" +
              std::to_string(options.delta_presence->min) + ", " + std::to_string(options.delta_presence->max) +
              "]; the first (data row " + std::to_string(first_share + 1) + ") has " + share_why);
    if (small_population)
      add(Kind::population_class_too_small, {}, first_small + 1, small_population,
          std::to_string(small_population) + " released class(es) have fewer than " +
              std::to_string(options.population_k) + " records in the input (the population); the first, " +
              describe_tuple(output.rows[first_small], qi_out, qis) + ", has " + small_why);
  }

  if (options.profitability && aligned && all_levels) {
    const Profitability& pf = *options.profitability;
    // Per quasi-identifier: the hierarchy's rows by their value at the
    // detected level (ARX's DomainShareMaterialized), and the log10 of the
    // product of the hierarchies' row counts (the largest loss).
    std::vector<std::unordered_map<std::string, std::uint64_t>> under(qis.size());
    double all_rows = 1.0;
    for (std::size_t q = 0; q < qis.size(); ++q) {
      const auto level = static_cast<std::size_t>(*report.levels[q]);
      for (const auto& row : hierarchies[q].rows)
        if (level < row.size()) ++under[q][row[level]];
      all_rows *= static_cast<double>(hierarchies[q].rows.size());
    }
    const double max_loss = std::log10(all_rows);
    std::uint64_t unprofitable = 0;
    std::size_t first = rows;
    std::string why;
    for (const auto& [key, info] : classes) {
      const std::vector<std::string>& row = output.rows[info.first_row];
      // The all-'*' class reads the same released or suppressed (and the
      // engine suppresses it: its loss is 1, its payout at most 0).
      if (starred[info.first_row]) continue;
      double product = 1.0;
      for (std::size_t q = 0; q < qis.size(); ++q) {
        if (qi_out[q] < 0) continue;
        const auto it = under[q].find(row[qi_out[q]]);
        product *= static_cast<double>(it == under[q].end() ? 0 : it->second) /
                   static_cast<double>(hierarchies[q].rows.size());
      }
      double loss = 0.0;
      if (max_loss != 0 && std::isfinite(max_loss)) loss = std::clamp(std::log10(product) / max_loss + 1.0, 0.0, 1.0);
      double success = 1.0 / static_cast<double>(info.size);
      if (pf.journalist) {
        const auto p = population.find(class_key(row, qi_out));
        if (p != population.end() && p->second.records != 0) success = 1.0 / static_cast<double>(p->second.records);
      }
      const double adversary = pf.adversary_gain * success - pf.adversary_cost;
      const double payout = pf.publisher_benefit * (1.0 - loss) - (adversary > 0 ? pf.publisher_loss * success : 0.0);
      if (payout > 0) continue;
      ++unprofitable;
      if (info.first_row < first) {
        first = info.first_row;
        why = std::to_string(payout) + " (information loss " + std::to_string(loss) + ", success probability " +
              std::to_string(success) + ")";
      }
    }
    if (unprofitable)
      add(Kind::unprofitable_class, {}, first + 1, unprofitable,
          std::to_string(unprofitable) + " released class(es) have a publisher payout of 0 or less; the first, " +
              describe_tuple(output.rows[first], qi_out, qis) + ", has " + why);
  }

  if (options.population_uniqueness || options.average_risk || options.sample_uniqueness) {
    ClassSizes sizes;
    for (const auto& [key, info] : classes) ++sizes[info.size];
    const std::uint64_t uniques = sizes.count(1) ? sizes.at(1) : 0;
    long double value = 0;
    std::string why;
    if (options.population_uniqueness) {
      if (!population_uniqueness_holds(*options.population_uniqueness, sizes, &value, &why))
        add(Kind::population_uniqueness, {}, 0, uniques, why);
      report.population_uniqueness = static_cast<double>(value);
    }
    if (options.average_risk) {
      if (!average_risk_holds(*options.average_risk, sizes, &value, &why)) add(Kind::average_risk, {}, 0, 0, why);
      report.average_risk = static_cast<double>(value);
    }
    if (options.sample_uniqueness) {
      if (!sample_uniqueness_holds(*options.sample_uniqueness, sizes, &value, &why))
        add(Kind::sample_uniqueness, {}, 0, uniques, why);
      report.sample_uniqueness = static_cast<double>(value);
    }
  }

  // Every row named is a row of the output: its line there.
  for (auto& v : report.violations)
    if (v.row > 0 && v.row <= output.rows.size())
      v.line = v.row - 1 < output.lines.size() ? output.lines[v.row - 1] : v.row + 1;
  return report;
}

}  // namespace verify
