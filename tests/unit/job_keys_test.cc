// The job parser's table of keys (src/job/keys.h) against the reference of
// the job file, docs/job-file.md: every key the parser accepts is
// documented where the table says, and every key the doc's tables list is
// accepted. The doc is read as Markdown: headings, tables (cells split on
// unescaped '|') and code spans.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "deid/error.h"
#include "deid/job.h"
#include "job/keys.h"

namespace {

using deid::job_parse::Doc;
using deid::job_parse::key_table;
using deid::job_parse::keys_of;
using deid::job_parse::Section;
using deid::job_parse::SectionKeys;

std::vector<std::string> read_doc() {
  std::ifstream in(std::string(DEID_EXAMPLES_DIR) + "/../docs/job-file.md");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> code_spans(const std::string& text) {
  static const std::regex span("`([^`]+)`");
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), span), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

// The names in a code span: "{table: NAME, schema: NAME}" gives table and
// schema (upper-case placeholders are no keys).
std::set<std::string> words(const std::string& span) {
  static const std::regex word("[a-z][a-z0-9-]*");
  std::set<std::string> out;
  for (std::sregex_iterator it(span.begin(), span.end(), word), end; it != end; ++it) out.insert(it->str());
  return out;
}

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {  // past the leading '|'
    if (row[i] == '|' && row[i - 1] != '\\') {
      out.push_back(cell);
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return out;
}

struct Heading {
  int level = 0;
  std::string name;  // its first code span, else its text
  std::size_t begin = 0, end = 0;  // its lines, up to the next heading
};

std::vector<Heading> headings(const std::vector<std::string>& lines) {
  std::vector<Heading> out;
  bool fenced = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || lines[i].empty() || lines[i][0] != '#') continue;
    Heading h;
    h.level = static_cast<int>(lines[i].find_first_not_of('#'));
    const auto spans = code_spans(lines[i]);
    h.name = spans.empty() ? lines[i].substr(static_cast<std::size_t>(h.level) + 1) : spans[0];
    h.begin = i + 1;
    if (!out.empty()) out.back().end = i;
    out.push_back(h);
  }
  if (!out.empty()) out.back().end = lines.size();
  return out;
}

// The documented keys of a heading's tables that have a Key column: group
// (the value of the column before Key, carried down blank cells; empty when
// there is none) -> keys. A code span in the group column's header (`type`)
// is a key of every group.
std::map<std::string, std::set<std::string>> table_keys(const std::vector<std::string>& lines, const Heading& h) {
  std::map<std::string, std::set<std::string>> out;
  for (std::size_t i = h.begin; i + 1 < h.end; ++i) {
    if (lines[i].rfind("|", 0) != 0 || lines[i + 1].rfind("|---", 0) != 0) continue;
    const auto header = cells(lines[i]);
    std::size_t key = header.size();
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == " Key ") key = c;
    if (key == header.size()) continue;
    std::set<std::string> every_group;
    if (key > 0)
      for (const auto& s : code_spans(header[key - 1])) every_group.insert(s);
    std::string group;
    for (std::size_t r = i + 2; r < h.end && lines[r].rfind("|", 0) == 0; ++r) {
      const auto row = cells(lines[r]);
      if (row.size() <= key) continue;
      if (key > 0 && !code_spans(row[key - 1]).empty()) group = code_spans(row[key - 1])[0];
      for (const auto& s : code_spans(row[key])) out[group].insert(s);
      out[group].insert(every_group.begin(), every_group.end());
    }
    i += 1;
  }
  return out;
}

const Heading* find(const std::vector<Heading>& hs, std::string_view name) {
  for (const auto& h : hs)
    if (h.name == name) return &h;
  return nullptr;
}

TEST(JobKeys, TableIsInEnumOrderAndEverySectionHasKeys) {
  const auto& table = key_table();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const SectionKeys& s = keys_of(static_cast<Section>(i));
    EXPECT_EQ(&s, &table[i]);
    EXPECT_FALSE(s.keys.empty()) << s.path;
    std::set<std::string_view> distinct(s.keys.begin(), s.keys.end());
    EXPECT_EQ(distinct.size(), s.keys.size()) << s.path << " lists a key twice";
  }
}

TEST(JobKeys, EveryAcceptedKeyIsDocumented) {
  const auto lines = read_doc();
  ASSERT_GT(lines.size(), 100u) << "docs/job-file.md not found";
  const auto hs = headings(lines);
  for (const SectionKeys& s : key_table()) {
    const Heading* h = find(hs, s.heading);
    ASSERT_NE(h, nullptr) << s.path << ": no heading '" << s.heading << "' in docs/job-file.md";
    std::set<std::string> documented;
    if (s.doc == Doc::headings) {
      for (const auto& sub : hs)
        if (sub.begin > h->begin && sub.level == h->level + 1 &&
            std::none_of(hs.begin(), hs.end(), [&](const Heading& o) {
              return o.level <= h->level && o.begin > h->begin && o.begin <= sub.begin;
            }))
          documented.insert(sub.name);
    } else if (s.doc == Doc::rows) {
      documented = table_keys(lines, *h)[std::string(s.group)];
    } else {
      for (std::size_t i = h->begin; i < h->end; ++i)
        for (const auto& span : code_spans(lines[i]))
          for (const auto& w : words(span)) documented.insert(w);
    }
    for (const auto& key : s.keys)
      EXPECT_TRUE(documented.contains(std::string(key)))
          << "key '" << key << "' of " << s.path << " is accepted but not documented under '" << s.heading << "'"
          << (s.group.empty() ? "" : " (" + std::string(s.group) + ")");
  }
}

TEST(JobKeys, EveryDocumentedKeyIsAccepted) {
  const auto lines = read_doc();
  ASSERT_GT(lines.size(), 100u) << "docs/job-file.md not found";
  const auto hs = headings(lines);
  std::set<std::string> headings_with_rows;
  for (const SectionKeys& s : key_table())
    if (s.doc == Doc::rows) headings_with_rows.insert(std::string(s.heading));
  int checked = 0;
  for (const auto& name : headings_with_rows) {
    const Heading* h = find(hs, name);
    ASSERT_NE(h, nullptr) << name;
    for (const auto& [group, keys] : table_keys(lines, *h)) {
      const SectionKeys* section = nullptr;
      for (const SectionKeys& s : key_table())
        if (s.doc == Doc::rows && s.heading == name && s.group == group) section = &s;
      ASSERT_NE(section, nullptr) << "docs/job-file.md documents '" << group << "' under '" << name
                                  << "', which the parser does not know";
      for (const auto& key : keys) {
        ++checked;
        EXPECT_TRUE(std::find(section->keys.begin(), section->keys.end(), key) != section->keys.end())
            << "docs/job-file.md documents key '" << key << "' of " << section->path << ", which is not accepted";
      }
    }
  }
  EXPECT_GT(checked, 100);
  // The top-level keys: each "### `key`" under "## Keys".
  const Heading* keys = find(hs, "Keys");
  ASSERT_NE(keys, nullptr);
  const auto& top = keys_of(Section::job).keys;
  for (const auto& h : hs) {
    if (h.begin <= keys->begin || h.level != 3) continue;
    if (std::any_of(hs.begin(), hs.end(), [&](const Heading& o) {
          return o.level <= 2 && o.begin > keys->begin && o.begin <= h.begin;
        }))
      break;
    EXPECT_TRUE(std::find(top.begin(), top.end(), h.name) != top.end())
        << "docs/job-file.md documents top-level key '" << h.name << "', which is not accepted";
  }
}

// The table drives the message that lists the allowed keys, in its order.
TEST(JobKeys, UnknownKeyMessageListsTheTablesKeys) {
  const std::string job = "input: {path: a.csv, colour: red}\n";
  try {
    deid::parse_job(job, "job.yaml", "");
    FAIL() << "an unknown key was accepted";
  } catch (const deid::JobError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'colour' in input (allowed: path, parquet, delimiter, postgres, "
                                         "table)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
