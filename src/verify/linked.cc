// Linked tables (checks.h, check_linked): a linked table's release checked
// against its input and the verified release of the job's table, from the
// files alone: each released row paired with its input row (in order, the
// dropped rows skipped by the job's rules), its key, values, released
// identifiers and quasi-identifiers recomputed, and no identifying input
// value anywhere in the release.
#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

#include "checks.h"
#include "release_check.h"

namespace verify {
namespace {

// A line: ok with `detail`, or failed with the first problem.
struct Line {
  explicit Line(std::string n) : name(std::move(n)) {}
  std::string name;
  std::uint64_t failures = 0;
  std::string first;
  std::string column;
  std::uint64_t row = 0, line = 0;
  void fail(std::string message, std::string col = {}, std::uint64_t r = 0, std::uint64_t l = 0) {
    if (failures++ > 0) return;
    first = std::move(message);
    column = std::move(col);
    row = r;
    line = l;
  }
  CheckLine done(const std::string& detail) const {
    if (failures == 0) return {name, CheckLine::Status::ok, detail, {}, 0, 0};
    return {name, CheckLine::Status::failed,
            failures == 1 ? first : first + " (and " + std::to_string(failures - 1) + " more)", column, row, line};
  }
};

}  // namespace

std::vector<CheckLine> check_linked(const Options& o, const Table& input, const Table& output,
                                    const std::vector<Table>& hierarchies, const LinkedTableOptions& l,
                                    const Table& table, const Table& released) {
  const std::string prefix = "linked " + quote(l.name) + " ";
  std::vector<CheckLine> lines;
  Line columns(prefix + "columns"), rows(prefix + "rows"), values(prefix + "values"),
      leaks(prefix + "identifier values");

  // Columns: the key and every column not removed, each once.
  std::vector<std::string> expected{l.key};
  for (const LinkedColumn& c : l.columns)
    if (c.kind != LinkedColumn::Kind::removed) expected.push_back(c.name);
  for (const std::string& name : expected)
    if (std::count(released.header.begin(), released.header.end(), name) != 1)
      columns.fail("column " + quote(name) + " is not in the release once", name);
  for (const std::string& name : released.header)
    if (std::find(expected.begin(), expected.end(), name) == expected.end())
      columns.fail("column " + quote(name) + " is in the release but should not be (identifying, or unknown)", name);

  // The persons of the input and what the job's release shows of them.
  const int person_in = index_of(input.header, o.person);
  const int person_out = index_of(output.header, o.person);
  const int key_in = index_of(table.header, l.key);
  if (person_in < 0 || key_in < 0 || output.rows.size() != input.rows.size()) {
    lines.push_back(columns.done("the key and " + std::to_string(expected.size() - 1) + " column(s)"));
    lines.push_back({rows.name, CheckLine::Status::skipped,
                     "the person column or the key is missing, or the job's release does not align with its input",
                     {}, 0, 0});
    return lines;
  }
  std::unordered_map<std::string, std::size_t> person_row;
  for (std::size_t r = 0; r < input.rows.size(); ++r)
    if (!input.rows[r][static_cast<std::size_t>(person_in)].empty() &&
        !person_row.emplace(input.rows[r][static_cast<std::size_t>(person_in)], r).second)
      rows.fail("the input's person column " + quote(o.person) + " holds one value in rows " +
                std::to_string(person_row[input.rows[r][static_cast<std::size_t>(person_in)]] + 1) + " and " +
                std::to_string(r + 1));
  std::vector<int> qi_out;
  for (const QuasiIdentifier& q : o.quasi_identifiers) qi_out.push_back(index_of(output.header, q.name));
  std::vector<char> suppressed(output.rows.size(), 0);
  for (std::size_t r = 0; r < output.rows.size(); ++r) {
    bool all = !qi_out.empty();
    for (int c : qi_out) all = all && c >= 0 && output.rows[r][static_cast<std::size_t>(c)] == "*";
    suppressed[r] = all ? 1 : 0;
  }
  // The level each quasi-identifier shows: the lowest one whose value of
  // the input's agrees with every row not suppressed.
  std::vector<std::unordered_map<std::string, const std::vector<std::string>*>> hier(hierarchies.size());
  std::vector<int> level(o.quasi_identifiers.size(), -1);
  for (std::size_t q = 0; q < o.quasi_identifiers.size() && q < hierarchies.size(); ++q) {
    for (const auto& row : hierarchies[q].rows)
      if (!row.empty()) hier[q].emplace(row[0], &row);
    const int in = index_of(input.header, o.quasi_identifiers[q].name);
    if (in < 0 || qi_out[q] < 0) continue;
    const std::size_t height = hierarchies[q].rows.empty() ? 0 : hierarchies[q].rows[0].size();
    for (std::size_t lv = 0; lv < height && level[q] < 0; ++lv) {
      bool fits = true;
      for (std::size_t r = 0; r < input.rows.size() && fits; ++r) {
        if (suppressed[r]) continue;
        const auto h = hier[q].find(input.rows[r][static_cast<std::size_t>(in)]);
        fits = h != hier[q].end() && (*h->second)[lv] == output.rows[r][static_cast<std::size_t>(qi_out[q])];
      }
      if (fits) level[q] = static_cast<int>(lv);
    }
  }

  // Pair each released row with the input row it must come from.
  std::vector<std::optional<std::regex>> regexes(l.columns.size());
  for (std::size_t c = 0; c < l.columns.size(); ++c)
    if (l.columns[c].kind == LinkedColumn::Kind::released && l.columns[c].released.regex) {
      try {
        regexes[c].emplace(*l.columns[c].released.regex, std::regex::ECMAScript);
      } catch (const std::regex_error&) {
        values.fail("the mask of " + quote(l.columns[c].name) + " is not a valid regular expression");
      }
    }
  std::size_t next = 0;  // of the release
  std::uint64_t orphans = 0, dropped = 0;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& in = table.rows[r];
    const auto who = person_row.find(in[static_cast<std::size_t>(key_in)]);
    const std::uint64_t line = r < table.lines.size() ? table.lines[r] : r + 2;
    if (who == person_row.end() || in[static_cast<std::size_t>(key_in)].empty()) {
      ++orphans;
      if (!l.drop_orphans)
        rows.fail("row " + std::to_string(r + 1) + " of the linked table names no person of the input, and the job "
                  "does not drop orphans", l.key, r + 1, line);
      continue;
    }
    const std::size_t p = who->second;
    if (suppressed[p] && l.drop_suppressed) {
      ++dropped;
      continue;
    }
    if (next >= released.rows.size()) {
      rows.fail("the release ends before the linked table's row " + std::to_string(r + 1), {}, r + 1, line);
      break;
    }
    const auto& out = released.rows[next++];
    const std::uint64_t out_row = next;
    auto cell = [&](const std::string& name) -> const std::string* {
      const int c = index_of(released.header, name);
      return c < 0 ? nullptr : &out[static_cast<std::size_t>(c)];
    };
    // The key: the person's value in the job's release.
    const std::string* key = cell(l.key);
    if (key && person_out >= 0 && *key != output.rows[p][static_cast<std::size_t>(person_out)])
      values.fail("row " + std::to_string(out_row) + ": the key is not the person's released " + quote(o.person), l.key,
                  out_row);
    for (std::size_t c = 0; c < l.columns.size(); ++c) {
      const LinkedColumn& lc = l.columns[c];
      const int ci = index_of(table.header, lc.name);
      const std::string* got = cell(lc.name);
      if (ci < 0 || !got) continue;
      const std::string& v = in[static_cast<std::size_t>(ci)];
      std::optional<std::string> want;
      switch (lc.kind) {
        case LinkedColumn::Kind::removed: continue;
        case LinkedColumn::Kind::copied: want = v; break;
        case LinkedColumn::Kind::released:
          want = released_value(o, lc.released, regexes[c], v, &input.rows[p][static_cast<std::size_t>(person_in)]);
          break;
        case LinkedColumn::Kind::generalized: {
          std::size_t q = 0;
          while (q < o.quasi_identifiers.size() && o.quasi_identifiers[q].name != lc.quasi_identifier) ++q;
          if (q == o.quasi_identifiers.size()) continue;
          if (suppressed[p]) {
            want = "*";
          } else if (level[q] >= 0) {
            const auto h = hier[q].find(v);
            if (h != hier[q].end()) want = (*h->second)[static_cast<std::size_t>(level[q])];
          }
          break;
        }
      }
      if (!want || *want != *got)
        values.fail("row " + std::to_string(out_row) + ", column " + quote(lc.name) + ": " + quote(*got) +
                        (want ? ", expected " + quote(*want) : ", which nothing of the input gives"),
                    lc.name, out_row);
    }
  }
  if (next < released.rows.size())
    rows.fail("the release has " + std::to_string(released.rows.size()) + " rows, " + std::to_string(next) +
              " expected (the linked table's rows less the dropped ones)");

  // No input value of an identifying column anywhere in the release, unless
  // its own column gives it back (a mask keeping it) or it is also a value
  // of a column the input releases as it is (then it names nobody).
  std::set<std::string> explained;
  for (std::size_t c = 0; c < l.columns.size(); ++c)
    if (l.columns[c].kind == LinkedColumn::Kind::copied || l.columns[c].kind == LinkedColumn::Kind::generalized) {
      const int ci = index_of(table.header, l.columns[c].name);
      if (ci >= 0)
        for (const auto& row : table.rows) explained.insert(row[static_cast<std::size_t>(ci)]);
    }
  std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> cells;  // value -> first (row, column)
  for (std::size_t r = 0; r < released.rows.size(); ++r)
    for (std::size_t c = 0; c < released.rows[r].size(); ++c) cells.emplace(released.rows[r][c], std::make_pair(r, c));
  auto scan = [&](const Table& t, const std::string& column, const std::string& own) {
    const int ci = index_of(t.header, column);
    if (ci < 0) return;
    for (const auto& row : t.rows) {
      const std::string& v = row[static_cast<std::size_t>(ci)];
      if (v.empty() || explained.count(v)) continue;
      const auto at = cells.find(v);
      if (at == cells.end() || released.header[at->second.second] == own) continue;
      leaks.fail("an input value of identifying column " + quote(column) + " is in row " +
                     std::to_string(at->second.first + 1) + ", column " + quote(released.header[at->second.second]),
                 column, at->second.first + 1);
      return;
    }
  };
  // Dates are not looked for: shifted dates fall on other people's dates
  // all the time (each released date is checked against its own shift
  // above).
  const auto date = ReleasedIdentifier::Action::date_shift;
  if (!l.key_as_is) scan(table, l.key, "");
  for (const LinkedColumn& c : l.columns)
    if (c.kind == LinkedColumn::Kind::removed || (c.kind == LinkedColumn::Kind::released && c.released.action != date))
      scan(table, c.name, c.name);
  for (const std::string& c : o.identifying) scan(input, c, "");
  for (const ReleasedIdentifier& r : o.released_identifiers)
    if (r.action != date) scan(input, r.name, "");

  lines.push_back(columns.done("the key and " + std::to_string(expected.size() - 1) + " column(s)"));
  lines.push_back(rows.done(std::to_string(table.rows.size()) + " rows, " + std::to_string(released.rows.size()) +
                            " released (" + std::to_string(dropped) + " of suppressed people dropped, " +
                            std::to_string(orphans) + " orphans dropped)"));
  lines.push_back(values.done("keys, copied values, released identifiers and quasi-identifiers as the person's"));
  lines.push_back(leaks.done("no input value of an identifying column in any row"));
  return lines;
}

}  // namespace verify
