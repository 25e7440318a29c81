// No output that travels with a release holds an original value of an
// identifying or quasi-identifying column that the release generalized or
// removed (docs/reliability.md, "What travels with a release").
//
// Each test runs reference jobs through the command line, the way a
// custodian does, and scans every file the runs write (and what they print)
// for such values:
//
//  - the oracle: a value of an identifying or quasi-identifying input column
//    is a *candidate* when it is at least 3 characters long, no released
//    table of the run shows it in any cell (of a column that is not
//    identifying), it is not a column name, and no hierarchy of the job has
//    it as a label above level 0 (the hierarchy's own labels may be shown).
//    A candidate that is a plain integer below 100000 in magnitude is not
//    scanned for: reports are full of counts and sizes of that kind, and a
//    match would say nothing. An ISO date candidate is also looked for as
//    its day number since 1970-01-01, the form the utility analysis reads
//    dates in.
//  - the scan: CSV files cell by cell; JSON files in every key and string
//    value (as a token, see below) and every number (against the numeric
//    candidates: non-integers, negatives, magnitudes of 100000 and more);
//    HTML files and standard output and error as text, entities decoded.
//    In text a candidate is found as a token: the characters on either side
//    are not ASCII letters or digits.
//
// Runs: the bundled adult job (anonymize with report and utility, risk and
// utility of the released table, verify --json), the bundled discharge job
// (suppress: table, two samples, result), a small synthetic job built to
// trip every way a value could leak (a masked code, birth dates, decimal
// weights, a microaggregated income, a level-0 clinic whose rare values are
// suppressed, one of them formula-like, names as identifiers; anonymize,
// risk and utility of the release, and a cell-suppression job with
// missingness by an area whose rare values lose every cell), and one ARX
// reference run of each reference file with privacy models in the job
// format. The risk of the input is custodian-only: it is not scanned, and
// the test checks that it says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/reference.h"

namespace {

namespace fs = std::filesystem;
using deid::testing::slurp;

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// RFC 4180 with `delim`; CRLF and LF line ends; blank lines skipped.
Table read_csv(const std::string& path, char delim) {
  const std::string text = slurp(path);
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == delim) {
      record.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\r') {
    } else if (c == '\n') {
      if (any || !field.empty()) {
        record.push_back(std::move(field));
        records.push_back(std::move(record));
      }
      record.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  Table t;
  if (records.empty()) return t;
  t.header = records.front();
  t.rows.assign(records.begin() + 1, records.end());
  return t;
}

std::optional<double> number(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Days since 1970-01-01 of an ISO date YYYY-MM-DD, nullopt otherwise.
std::optional<long> day_number(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u})
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  const std::chrono::year_month_day d{std::chrono::year{std::stoi(s.substr(0, 4))},
                                      std::chrono::month{static_cast<unsigned>(std::stoi(s.substr(5, 2)))},
                                      std::chrono::day{static_cast<unsigned>(std::stoi(s.substr(8, 2)))}};
  if (!d.ok()) return std::nullopt;
  return std::chrono::sys_days{d}.time_since_epoch().count();
}

// A number a report would not show by chance (module comment).
bool distinctive(double v) { return v != std::floor(v) || v < 0 || std::abs(v) >= 100000; }

// What one run released and which columns are protected.
struct RunSpec {
  std::string input;                       // the input table
  char delim = ',';
  std::vector<std::string> protected_columns;  // identifying and quasi-identifying
  std::set<std::string> identifying;
  std::vector<std::string> hierarchies;    // hierarchy files (';'), labels above level 0 may be shown
};

class Oracle {
 public:
  Oracle(const RunSpec& spec, const std::vector<Table>& released) {
    std::unordered_set<std::string> allowed;
    for (const Table& t : released) {
      for (std::size_t c = 0; c < t.header.size(); ++c) {
        allowed.insert(t.header[c]);
        if (spec.identifying.count(t.header[c])) continue;
        for (const auto& row : t.rows)
          if (c < row.size()) allowed.insert(row[c]);
      }
    }
    for (const std::string& h : spec.hierarchies)
      for (const auto& row : read_csv(h, ';').rows)
        for (std::size_t l = 1; l < row.size(); ++l) allowed.insert(row[l]);
    const Table in = read_csv(spec.input, spec.delim);
    for (const std::string& h : in.header) allowed.insert(h);
    for (const std::string& name : spec.protected_columns) {
      std::size_t c = 0;
      while (c < in.header.size() && in.header[c] != name) ++c;
      if (c == in.header.size()) {
        ADD_FAILURE() << name << " is not a column of " << spec.input;
        continue;
      }
      for (const auto& row : in.rows) {
        if (c >= row.size()) continue;
        const std::string& v = row[c];
        if (v.size() < 3 || allowed.count(v)) continue;
        if (const auto x = number(v)) {
          if (!distinctive(*x)) continue;
          numbers_.emplace(*x, name + " value '" + v + "'");
        }
        add(v, name);
        if (const auto d = day_number(v)) {
          const std::string text = std::to_string(*d);
          if (!allowed.count(text) && distinctive(static_cast<double>(*d))) add(text, name + " (day number of '" + v + "')");
          if (distinctive(static_cast<double>(*d))) numbers_.emplace(static_cast<double>(*d), name + " day number of '" + v + "'");
        }
      }
    }
    // A candidate that is a token of a label the release shows ("South" in
    // adult's "South America") is found wherever that label is: not a leak.
    std::set<std::string> inside;
    for (const std::string& label : allowed) {
      for_each_token(label, [&](std::string_view token) { inside.insert(std::string(token)); });
    }
    for (const std::string& v : inside) {
      by_length_[v.size()].erase(std::string_view(values_.find(v)->first));
      values_.erase(v);
    }
  }

  std::size_t size() const { return values_.size(); }

  // Calls `f` with each candidate in `text` as a token: the characters on
  // either side of it are not ASCII letters or digits where the candidate's
  // own first or last character is one.
  template <typename F>
  void for_each_token(std::string_view text, F&& f) const {
    const auto alnum = [](char ch) {
      return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (i > 0 && alnum(text[i - 1]) && alnum(text[i])) continue;
      for (const auto& [length, set] : by_length_) {
        if (i + length > text.size()) break;
        if (i + length < text.size() && alnum(text[i + length]) && alnum(text[i + length - 1])) continue;
        const auto it = set.find(text.substr(i, length));
        if (it != set.end()) f(text.substr(i, length));
      }
    }
  }

  // The candidates found in `text` as tokens: "value (column)".
  void scan_text(std::string_view text, const std::string& where, std::vector<std::string>& leaks) const {
    for_each_token(text, [&](std::string_view token) {
      const std::size_t i = static_cast<std::size_t>(token.data() - text.data());
      const std::size_t from = i > 40 ? i - 40 : 0;
      leaks.push_back(where + ": " + values_.at(std::string(token)) + " in \"" +
                      std::string(text.substr(from, std::min<std::size_t>(text.size() - from, token.size() + 80))) +
                      "\"");
    });
  }

  void scan_number(double v, const std::string& where, std::vector<std::string>& leaks) const {
    const auto it = numbers_.find(v);
    if (it != numbers_.end()) leaks.push_back(where + ": the number " + it->second);
  }

  void scan_json(const nlohmann::json& j, const std::string& where, std::vector<std::string>& leaks) const {
    if (j.is_object()) {
      for (const auto& [key, value] : j.items()) {
        scan_text(key, where + " key", leaks);
        scan_json(value, where + "." + key, leaks);
      }
    } else if (j.is_array()) {
      for (std::size_t i = 0; i < j.size(); ++i) scan_json(j[i], where + "[" + std::to_string(i) + "]", leaks);
    } else if (j.is_string()) {
      scan_text(j.get<std::string>(), where, leaks);
    } else if (j.is_number()) {
      scan_number(j.get<double>(), where, leaks);
    }
  }

 private:
  void add(const std::string& v, const std::string& column) {
    const auto [it, added] = values_.emplace(v, "'" + v + "' of " + column);
    if (added) by_length_[v.size()].insert(std::string_view(it->first));
  }

  std::map<std::string, std::string> values_;  // candidate -> description (stable keys for the views)
  std::map<std::size_t, std::unordered_set<std::string_view>> by_length_;
  std::map<double, std::string> numbers_;
};

// "&amp;" and the other entities the reports write, decoded.
std::string html_text(const std::string& html) {
  std::string out;
  out.reserve(html.size());
  for (std::size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '&') {
      bool done = false;
      for (const auto& [entity, ch] : {std::pair<const char*, char>{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'},
                                       {"&quot;", '"'}, {"&#39;", '\''}, {"&#x27;", '\''}}) {
        const std::string_view e(entity);
        if (html.compare(i, e.size(), e) == 0) {
          out += ch;
          i += e.size() - 1;
          done = true;
          break;
        }
      }
      if (done) continue;
    }
    out += html[i];
  }
  return out;
}

// Scans every regular file under `dir` (by kind, from its name) and returns
// the leaks; `scanned` counts the files.
std::vector<std::string> scan_dir(const fs::path& dir, const Oracle& oracle, char delim, std::size_t& scanned,
                                  const std::set<std::string>& skip = {}) {
  std::vector<std::string> leaks;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && !skip.count(e.path().filename().string())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    ++scanned;
    const std::string name = f.filename().string();
    const std::string ext = f.extension().string();
    if (ext == ".csv") {
      const Table t = read_csv(f.string(), delim);
      std::vector<std::string> cells = t.header;
      for (const auto& row : t.rows) cells.insert(cells.end(), row.begin(), row.end());
      for (const std::string& cell : cells) {
        // A whole cell, and the tokens in it.
        oracle.scan_text(cell, name, leaks);
      }
    } else if (ext == ".json") {
      const std::string text = slurp(f.string());
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception& e) {
        leaks.push_back(name + ": not JSON: " + e.what());
        continue;
      }
      oracle.scan_json(j, name, leaks);
    } else if (ext == ".html") {
      oracle.scan_text(html_text(slurp(f.string())), name, leaks);
    } else {
      oracle.scan_text(slurp(f.string()), name, leaks);
    }
  }
  return leaks;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

// Runs `deid ARGS` with stdout and stderr into `dir`/NAME.stdout and
// NAME.stderr; returns the exit code.
int deid_run(const std::string& args, const fs::path& dir, const std::string& name) {
  return deid::testing::run_deid(args, (dir / (name + ".stdout")).string(), (dir / (name + ".stderr")).string());
}

std::string summary(const std::vector<std::string>& leaks) {
  std::string s;
  for (std::size_t i = 0; i < leaks.size() && i < 25; ++i) s += "\n  " + leaks[i];
  if (leaks.size() > 25) s += "\n  ... and " + std::to_string(leaks.size() - 25) + " more";
  return s;
}

// ---------------------------------------------------------------------------
// The synthetic job.

// Deterministic pseudo-random numbers (a linear congruential generator), so
// the data are the same on every machine.
struct Lcg {
  std::uint64_t s;
  std::uint64_t next() { return s = s * 6364136223846793005ull + 1442695040888963407ull, s >> 33; }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

struct Synthetic {
  fs::path dir;
  std::vector<std::string> hierarchies;
};

// 72 people: name (identifying), zip (a 13-character code, masked), birth
// (a date; year, decade, *), weight (a decimal; ranges), clinic (kept at
// level 0: its rare values, one formula-like, can only be suppressed),
// income (microaggregated), diag (sensitive).
Synthetic write_synthetic(const fs::path& dir) {
  Synthetic s{dir, {}};
  fs::create_directories(dir / "h");
  Lcg rng{20240611};
  const char* first[] = {"Xanthe", "Quillon", "Brisea", "Torvald", "Yselde", "Marcanth", "Oddny", "Wendrik", "Zephyra"};
  const char* last[] = {"Vortigern", "Quennington", "Hazelwhit", "Brackmoor", "Ulverstone", "Fennimore", "Kestrelby", "Oakhurst"};
  std::ofstream data(dir / "people.csv");
  data << "name,zip,birth,weight,clinic,income,diag\n";
  std::set<std::string> zips, births, weights, clinics;
  for (int i = 0; i < 72; ++i) {
    const std::string name = std::string(first[rng.below(9)]) + " " + last[rng.below(8)] + " " + std::to_string(100 + i);
    const std::string zip = "Q1320" + std::to_string(rng.below(3)) + "Zork" + std::to_string(rng.below(10)) +
                            static_cast<char>('A' + rng.below(26)) + static_cast<char>('a' + rng.below(26));
    char birth[16];
    std::snprintf(birth, sizeof birth, "19%02d-%02d-%02d", static_cast<int>(31 + rng.below(35)),
                  static_cast<int>(1 + rng.below(12)), static_cast<int>(1 + rng.below(28)));
    char weight[16];
    std::snprintf(weight, sizeof weight, "%d.%02d", static_cast<int>(2500 + rng.below(2000)),
                  static_cast<int>(1 + rng.below(98)));
    // Two frequent clinics; records 7 and 40 are the only ones at theirs.
    const std::string clinic = i == 7 ? "=CLINIC(7)" : i == 40 ? "Eastwick Annex" : (i % 2 ? "North Clinic" : "South Clinic");
    char income[16];
    std::snprintf(income, sizeof income, "%d.%02d", static_cast<int>(30000 + rng.below(60000)),
                  static_cast<int>(1 + rng.below(98)));
    data << '"' << name << "\"," << zip << ',' << birth << ',' << weight << ",\"" << clinic << "\"," << income << ','
         << (rng.below(3) ? "flu" : "cold") << '\n';
    zips.insert(zip);
    births.insert(birth);
    weights.insert(weight);
    clinics.insert(clinic);
  }
  data.close();
  {
    std::ofstream h(dir / "h" / "zip.csv");
    for (const auto& z : zips) h << z << ';' << z.substr(0, 10) << "***;" << z.substr(0, 6) << "*******;*\n";
  }
  {
    std::ofstream h(dir / "h" / "birth.csv");
    for (const auto& b : births)
      h << b << ';' << b.substr(0, 4) << ';' << b.substr(0, 3) << "0-" << b.substr(0, 3) << "9;*\n";
  }
  {
    std::ofstream h(dir / "h" / "weight.csv");
    for (const auto& w : weights) {
      const int x = std::stoi(w);
      h << w << ';' << x / 500 * 500 << '-' << x / 500 * 500 + 499 << ';' << x / 1000 * 1000 << '-'
        << x / 1000 * 1000 + 999 << ";*\n";
    }
  }
  {
    std::ofstream h(dir / "h" / "clinic.csv");
    for (const auto& c : clinics) h << (c.find_first_of(",;\"=") != std::string::npos ? "\"" + c + "\"" : c) << ";*\n";
  }
  for (const char* n : {"zip", "birth", "weight", "clinic"}) s.hierarchies.push_back((dir / "h" / (std::string(n) + ".csv")).string());
  std::ofstream(dir / "job.yaml")
      << "input: {path: people.csv}\n"
         "attributes:\n"
         "  name:   {role: identifying}\n"
         "  zip:    {role: quasi-identifying, hierarchy: h/zip.csv}\n"
         "  birth:  {role: quasi-identifying, hierarchy: h/birth.csv}\n"
         "  weight: {role: quasi-identifying, hierarchy: h/weight.csv}\n"
         "  clinic: {role: quasi-identifying, hierarchy: h/clinic.csv, max-level: 0}\n"
         "  income: {role: quasi-identifying, transformation: microaggregation, function: mean}\n"
         "  diag:   {role: sensitive}\n"
         "privacy: [{k-anonymity: {k: 3}}]\n"
         "suppression-limit: 0.3\n"
         "quality: {model: loss}\n"
         "output: {path: out/released.csv, result: out/result.json, report: out/report.html}\n";
  return s;
}

// A cell-suppression job on 60 records: id (identifying), area (released
// at level 0 and suppressed first; two rare areas, one formula-like), band,
// code (released only as its group; one code formula-like), note.
Synthetic write_synthetic_suppress(const fs::path& dir) {
  Synthetic s{dir, {}};
  fs::create_directories(dir / "h");
  Lcg rng{77};
  std::ofstream data(dir / "visits.csv");
  data << "id,area,band,code,note\n";
  std::set<std::string> codes;
  for (int i = 0; i < 60; ++i) {
    const std::string area = i == 5 ? "Xylo Quartz Hamlet" : i == 33 ? "@Quarry-Vale" : (i % 3 ? "Lowfield" : "Highmarsh");
    const std::string code = i == 12 ? "-Z99.9q" : "K3" + std::to_string(rng.below(2)) + "." + std::to_string(rng.below(9)) + "x";
    data << "ID-" << 7730001 + i * 7 << ',' << area << ',' << (i % 2 ? "20-39" : "40-59") << ',' << code << ','
         << (rng.below(2) ? "seen" : "sent") << '\n';
    codes.insert(code);
  }
  data.close();
  {
    std::ofstream h(dir / "h" / "code.csv");
    for (const auto& c : codes) h << c << ';' << c.substr(0, 3) << ";*\n";
  }
  s.hierarchies.push_back((dir / "h" / "code.csv").string());
  std::ofstream(dir / "job.yaml") << "input: {path: visits.csv}\n"
                                     "attributes:\n"
                                     "  id:   {role: identifying}\n"
                                     "  area: {role: quasi-identifying}\n"
                                     "  band: {role: quasi-identifying}\n"
                                     "  code: {role: quasi-identifying, hierarchy: h/code.csv}\n"
                                     "  note: {role: insensitive}\n"
                                     "cell-suppression:\n"
                                     "  k: 3\n"
                                     "  weights: {area: 0.1, band: 1, code: 1}\n"
                                     "  release-levels:\n"
                                     "    code: {levels: [1], names: [code_group]}\n"
                                     "  missingness:\n"
                                     "    - {variable: code_group, by: area}\n"
                                     "  samples:\n"
                                     "    seed: 3\n"
                                     "    draws:\n"
                                     "      - {fraction: 0.2, path: out/sample-1.csv}\n"
                                     "output: {path: out/released.csv, result: out/result.json}\n";
  return s;
}

// The released tables under `out` (released.csv and samples).
std::vector<Table> released_tables(const fs::path& out, char delim) {
  std::vector<Table> t;
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    if (name == "released.csv" || name.rfind("sample-", 0) == 0) t.push_back(read_csv(e.path().string(), delim));
  }
  return t;
}

// The risk of the job's input is custodian-only and says so.
void expect_custodian_only_input_risk(const std::string& job, const fs::path& dir) {
  const fs::path json = dir / "input-risk.json", html = dir / "input-risk.html";
  ASSERT_EQ(deid_run("-q risk " + quote(job) + " --json " + quote(json.string()) + " --report " + quote(html.string()),
                     dir, "input-risk"),
            0)
      << slurp((dir / "input-risk.stderr").string());
  EXPECT_EQ(nlohmann::json::parse(slurp(json.string()))["custodian_only"], true);
  EXPECT_NE(slurp(html.string()).find("id=\"custodian-only\""), std::string::npos);
}

TEST(NoLeak, SyntheticAnonymizeReportUtilityAndRiskOfTheRelease) {
  deid::testing::TempDir tmp("no-leak-synthetic");
  const fs::path dir = tmp / "s";
  const Synthetic s = write_synthetic(dir);
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const std::string job = (dir / "job.yaml").string();
  ASSERT_EQ(deid_run("-q anonymize " + quote(job), out, "anonymize"), 0) << slurp((out / "anonymize.stderr").string());
  const std::string released = (out / "released.csv").string();
  ASSERT_EQ(deid_run("-q risk " + quote(job) + " --input " + quote(released) + " --json " +
                         quote((out / "risk.json").string()) + " --report " + quote((out / "risk.html").string()),
                     out, "risk"),
            0)
      << slurp((out / "risk.stderr").string());
  EXPECT_EQ(nlohmann::json::parse(slurp((out / "risk.json").string()))["custodian_only"], false);
  ASSERT_EQ(deid_run("-q utility " + quote(job) + " --output " + quote(released) + " --json " +
                         quote((out / "utility.json").string()) + " --report " +
                         quote((out / "utility.html").string()),
                     out, "utility"),
            0)
      << slurp((out / "utility.stderr").string());

  // The job is built to leave something to leak: records suppressed (the
  // rare clinics) and every other quasi-identifier generalized.
  const nlohmann::json result = nlohmann::json::parse(slurp((out / "result.json").string()));
  ASSERT_GE(result["suppressed_records"].get<int>(), 2);
  for (const char* q : {"zip", "birth", "weight"}) EXPECT_GT(result["transformation"][q].get<int>(), 0) << q;

  RunSpec spec{(dir / "people.csv").string(), ',', {"name", "zip", "birth", "weight", "clinic", "income"}, {"name"},
               s.hierarchies};
  const Oracle oracle(spec, released_tables(out, ','));
  // Every name, zip, birth date, weight and income, and the two rare clinics.
  EXPECT_GE(oracle.size(), 5u * 72u);
  RecordProperty("candidates", static_cast<int>(oracle.size()));
  std::size_t files = 0;
  const std::vector<std::string> leaks = scan_dir(out, oracle, ',', files);
  EXPECT_EQ(files, 13u);  // table, result, report, risk JSON and report, utility JSON and report, 6 captures
  EXPECT_TRUE(leaks.empty()) << leaks.size() << " original values in the outputs:" << summary(leaks);

  // The report's example of zip is a released label and the labels above it.
  const std::string report = slurp((out / "report.html").string());
  const std::map<int, std::string> example = {{1, R"(Q1320[0-2]Zork\*\*\* → Q1320[0-2]\*{7} → \*)"},
                                              {2, R"(Q1320[0-2]\*{7} → \*)"},
                                              {3, R"(<td>\*</td>)"}};
  EXPECT_TRUE(std::regex_search(report, std::regex(example.at(result["transformation"]["zip"].get<int>()))));
  expect_custodian_only_input_risk(job, dir);
}

TEST(NoLeak, SyntheticSuppressTableSamplesAndResult) {
  deid::testing::TempDir tmp("no-leak-suppress");
  const fs::path dir = tmp / "s";
  const Synthetic s = write_synthetic_suppress(dir);
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const std::string job = (dir / "job.yaml").string();
  ASSERT_EQ(deid_run("suppress " + quote(job), out, "suppress"), 0) << slurp((out / "suppress.stderr").string());
  const nlohmann::json result = nlohmann::json::parse(slurp((out / "result.json").string()));
  // The rare areas lost their cells: the missingness groups them without a name.
  const nlohmann::json& groups = result["missingness"][0]["groups"];
  ASSERT_FALSE(groups.empty());
  EXPECT_TRUE(groups.back()["value"].is_null()) << groups.dump();
  EXPECT_EQ(groups.back()["values_withheld"], 2) << groups.dump();

  RunSpec spec{(dir / "visits.csv").string(), ',', {"id", "area", "band", "code"}, {"id"}, s.hierarchies};
  const Oracle oracle(spec, released_tables(out, ','));
  EXPECT_GE(oracle.size(), 60u + 2u);
  RecordProperty("candidates", static_cast<int>(oracle.size()));
  std::size_t files = 0;
  const std::vector<std::string> leaks = scan_dir(out, oracle, ',', files);
  EXPECT_EQ(files, 5u);  // table, sample, result, 2 captures
  EXPECT_TRUE(leaks.empty()) << leaks.size() << " original values in the outputs:" << summary(leaks);
}

// The adult example as the quick start runs it, plus what a custodian runs
// on its release.
TEST(NoLeak, AdultExampleEveryOutput) {
  deid::testing::TempDir tmp("no-leak-adult");
  const fs::path out = fs::path(tmp / "out");
  fs::create_directories(out);
  const std::string job = deid::testing::example_path("adult.yaml");
  const std::string released = (out / "released.csv").string();
  const std::string result = (out / "result.json").string();
  ASSERT_EQ(deid_run("-q anonymize " + quote(job) + " --output " + quote(released) + " --result " + quote(result) +
                         " --report " + quote((out / "report.html").string()),
                     out, "anonymize"),
            0)
      << slurp((out / "anonymize.stderr").string());
  ASSERT_EQ(deid_run("-q risk " + quote(job) + " --input " + quote(released) + " --json " +
                         quote((out / "risk.json").string()) + " --report " + quote((out / "risk.html").string()),
                     out, "risk"),
            0);
  ASSERT_EQ(deid_run("-q utility " + quote(job) + " --output " + quote(released) + " --json " +
                         quote((out / "utility.json").string()) + " --report " +
                         quote((out / "utility.html").string()),
                     out, "utility"),
            0);
  // verify's table of checks is custodian-only (a failed check quotes input
  // values); a passing one quotes none, which is scanned too.
  ASSERT_EQ(deid_run("-q verify " + quote(job) + " --output " + quote(released) + " --result " + quote(result) +
                         " --json " + quote((out / "verify.json").string()),
                     out, "verify"),
            0);
  EXPECT_EQ(nlohmann::json::parse(slurp((out / "verify.json").string()))["custodian_only"], true);

  std::vector<std::string> qis = {"age", "education", "marital-status", "native-country", "race", "salary-class",
                                  "sex", "workclass", "occupation"};
  std::vector<std::string> hierarchies;
  for (const auto& q : qis) hierarchies.push_back(deid::testing::example_path("adult/hierarchies/" + q + ".csv"));
  RunSpec spec{deid::testing::example_path("adult/adult.csv"), ';', qis, {}, hierarchies};
  const Oracle oracle(spec, released_tables(out, ';'));
  // Education, native country, occupation and workclass are generalized.
  EXPECT_GE(oracle.size(), 40u);
  RecordProperty("candidates", static_cast<int>(oracle.size()));
  std::size_t files = 0;
  const std::vector<std::string> leaks = scan_dir(out, oracle, ';', files);
  EXPECT_EQ(files, 16u);
  EXPECT_TRUE(leaks.empty()) << leaks.size() << " original values in the outputs:" << summary(leaks);
  expect_custodian_only_input_risk(job, out.parent_path());
}

// The bundled cell-suppression example: table, two samples, result.
TEST(NoLeak, DischargeExampleEveryOutput) {
  deid::testing::TempDir tmp("no-leak-discharge");
  const fs::path out = fs::path(tmp / "out");
  fs::create_directories(out);
  // The example's job with its paths made absolute and its outputs here.
  const std::string ex = deid::testing::example_path("discharge");
  std::string text = slurp(ex + "/discharge.yaml");
  const auto replace = [&text](const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace("../../out/discharge-pumf-", out.string() + "/sample-");
  replace("../../out/discharge-suppressed.csv", out.string() + "/released.csv");
  replace("../../out/discharge-suppressed.json", out.string() + "/result.json");
  replace("hierarchies/", ex + "/hierarchies/");
  replace("path: discharge.csv", "path: " + ex + "/discharge.csv");
  replace("population: census.csv", "population: " + ex + "/census.csv");
  const std::string job = tmp / "discharge.yaml";
  std::ofstream(job) << text;
  ASSERT_EQ(deid_run("-q suppress " + quote(job), out, "suppress"), 0) << slurp((out / "suppress.stderr").string());

  std::vector<std::string> hierarchies;
  for (const char* h : {"age_group", "diagnosis", "intervention", "los", "province", "sex"})
    hierarchies.push_back(ex + "/hierarchies/" + h + ".csv");
  RunSpec spec{ex + "/discharge.csv", ',',
               {"abstract_id", "province", "age_group", "sex", "diagnosis", "intervention", "los"},
               {"abstract_id"}, hierarchies};
  const Oracle oracle(spec, released_tables(out, ','));
  EXPECT_GE(oracle.size(), 5000u);  // the abstract ids at least
  RecordProperty("candidates", static_cast<int>(oracle.size()));
  std::size_t files = 0;
  const std::vector<std::string> leaks = scan_dir(out, oracle, ',', files);
  EXPECT_EQ(files, 6u);  // table, two samples, result, 2 captures
  EXPECT_TRUE(leaks.empty()) << leaks.size() << " original values in the outputs:" << summary(leaks);
}

// One ARX reference run of each reference file whose runs are in the job
// format (privacy models, suppression limit), on adult: anonymize with
// result and report.
TEST(NoLeak, ReferenceRunsResultAndReport) {
  std::size_t runs = 0;
  for (const char* file : {"arx-privacy-models.json", "arx-classification.json", "arx-profitability.json",
                           "arx-differential-privacy.json"}) {
    const nlohmann::json* chosen = nullptr;
    for (const auto& run : deid::testing::reference_runs(file))
      if (run["dataset"] == "adult" && run.value("solution_found", true)) {
        chosen = &run;
        break;
      }
    ASSERT_NE(chosen, nullptr) << file;
    const nlohmann::json& run = *chosen;
    SCOPED_TRACE(run["name"].get<std::string>());
    deid::testing::TempDir tmp(std::string("no-leak-ref-") + run["name"].get<std::string>());
    const fs::path out = fs::path(tmp / "out");
    fs::create_directories(out);
    const std::string quality = run["quality"].is_string() ? "{model: " + run["quality"].get<std::string>() + "}"
                                                           : run["quality"].dump();
    const std::string job = tmp / "job.yaml";
    // Differential privacy needs the SafePub search (auto picks it).
    std::ofstream(job) << deid::testing::reference_job_text(run, quality,
                                                            std::string(file) == "arx-differential-privacy.json"
                                                                ? "auto"
                                                                : "optimal");
    ASSERT_EQ(deid_run("-q anonymize " + quote(job) + " --output " + quote((out / "released.csv").string()) +
                           " --result " + quote((out / "result.json").string()) + " --report " +
                           quote((out / "report.html").string()),
                       out, "anonymize"),
              0)
        << slurp((out / "anonymize.stderr").string());
    std::vector<std::string> qis;
    std::vector<std::string> hierarchies;
    for (const auto& q : run["quasi_identifiers"]) {
      qis.push_back(q.get<std::string>());
      hierarchies.push_back(deid::testing::example_path("adult/hierarchies/" + qis.back() + ".csv"));
    }
    RunSpec spec{deid::testing::example_path("adult/adult.csv"), ';', qis, {}, hierarchies};
    const Oracle oracle(spec, released_tables(out, ';'));
    RecordProperty(run["name"].get<std::string>() + "_candidates", static_cast<int>(oracle.size()));
    std::size_t files = 0;
    const std::vector<std::string> leaks = scan_dir(out, oracle, ';', files);
    EXPECT_EQ(files, 5u);
    EXPECT_TRUE(leaks.empty()) << leaks.size() << " original values in the outputs:" << summary(leaks);
    ++runs;
  }
  EXPECT_EQ(runs, 4u);
}

}  // namespace
