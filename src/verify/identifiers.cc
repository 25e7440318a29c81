// Released identifiers and leaks (release_check.h): each pseudonym, mask
// and shifted date recomputed from the input's value in the same row, and no
// input value of an identifying column anywhere in the output.
// HMAC-SHA-256 is built here from its definition (RFC 2104) on SHA-256; the
// masks and dates are written anew; nothing of the engine is used.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

#include "release_check.h"
#include "sha256.h"

namespace verify {
namespace {

std::string bytes_of_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// HMAC(K, m) = H((K' xor opad) || H((K' xor ipad) || m)), K' the key (hashed
// when longer than the block of 64 bytes) padded with zeros to 64 bytes.
std::string hmac_sha256(std::string key, const std::string& message) {
  if (key.size() > 64) key = bytes_of_hex(sha256_hex(key));
  key.resize(64, '\0');
  std::string inner(64, '\0'), outer(64, '\0');
  for (std::size_t i = 0; i < 64; ++i) {
    inner[i] = static_cast<char>(key[i] ^ 0x36);
    outer[i] = static_cast<char>(key[i] ^ 0x5c);
  }
  return bytes_of_hex(sha256_hex(outer + bytes_of_hex(sha256_hex(inner + message))));
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

long long shift_of(const Options& o, const std::string& person) {
  const std::string mac = hmac_sha256(o.secret, std::string("deid date shift") + '\0' + person);
  unsigned long long x = 0;
  for (int i = 0; i < 8; ++i) x = x * 256 + static_cast<unsigned char>(mac[static_cast<std::size_t>(i)]);
  return static_cast<long long>(x % static_cast<unsigned long long>(2 * o.shift_days + 1)) - o.shift_days;
}

// The characters of a UTF-8 string, one string per code point.
std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = b >= 0xF0 && b < 0xF8 ? 4 : b >= 0xE0 && b < 0xF0 ? 3 : b >= 0xC0 && b < 0xE0 ? 2 : 1;
    n = std::min(n, s.size() - i);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string masked(const ReleasedIdentifier& r, const std::optional<std::regex>& re, const std::string& v) {
  if (re) return std::regex_replace(v, *re, r.replacement);
  std::string out;
  if (r.digits || r.letters) {
    for (char ch : v) {
      if (std::isdigit(static_cast<unsigned char>(ch)) && r.digits) out += *r.digits;
      else if (((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) && r.letters) out += *r.letters;
      else out.push_back(ch);
    }
    return out;
  }
  const auto cs = characters(v);
  for (std::size_t i = 0; i < cs.size(); ++i)
    out += i < static_cast<std::size_t>(r.keep_first) || cs.size() - i <= static_cast<std::size_t>(r.keep_last) ? cs[i] : r.symbol;
  return out;
}

// The date of `v` written with `format`, moved by `days`; nullopt when `v`
// is not such a date (optionally followed by ' ' or 'T' and anything).
std::optional<std::string> shifted(const std::string& format, const std::string& v, long long days) {
  int y = -1, m = -1, d = -1;
  std::size_t at = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '%' && i + 1 < format.size() && format[i + 1] != '%') {
      const char f = format[++i];
      const std::size_t n = f == 'Y' ? 4 : 2;
      const auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
      if (at + n > v.size() || !std::all_of(v.begin() + static_cast<long>(at), v.begin() + static_cast<long>(at + n), digit))
        return std::nullopt;
      const int x = std::stoi(v.substr(at, n));
      (f == 'Y' ? y : f == 'm' ? m : d) = x;
      at += n;
    } else {
      if (format[i] == '%') ++i;
      if (at >= v.size() || v[at] != format[i]) return std::nullopt;
      ++at;
    }
  }
  if (at < v.size() && v[at] != ' ' && v[at] != 'T') return std::nullopt;
  using namespace std::chrono;
  const year_month_day date{year{y}, month{static_cast<unsigned>(m)}, day{static_cast<unsigned>(d)}};
  if (!date.ok()) return std::nullopt;
  const year_month_day moved{sys_days{date} + std::chrono::days{days}};
  std::string out;
  char buf[8];
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out.push_back(format[i]);
      continue;
    }
    const char f = format[++i];
    if (f == 'Y') std::snprintf(buf, sizeof buf, "%04d", static_cast<int>(moved.year()));
    else if (f == 'm') std::snprintf(buf, sizeof buf, "%02u", static_cast<unsigned>(moved.month()));
    else if (f == 'd') std::snprintf(buf, sizeof buf, "%02u", static_cast<unsigned>(moved.day()));
    else std::snprintf(buf, sizeof buf, "%%");
    out += buf;
  }
  return out + v.substr(at);
}

}  // namespace

std::optional<std::string> released_value(const Options& o, const ReleasedIdentifier& r,
                                          const std::optional<std::regex>& re, const std::string& v,
                                          const std::string* person) {
  switch (r.action) {
    case ReleasedIdentifier::Action::pseudonym:
      return hex(hmac_sha256(o.secret, v)).substr(0, static_cast<std::size_t>(r.length));
    case ReleasedIdentifier::Action::mask: return masked(r, re, v);
    case ReleasedIdentifier::Action::date_shift:
      if (v.empty()) return std::string();
      if (person) return shifted(r.date_format, v, shift_of(o, *person));
      return std::nullopt;
  }
  return std::nullopt;
}

void ReleaseCheck::check_identifiers() {
  const int person = options.shift_days > 0 && in_col.count(options.person) ? in_col.at(options.person) : -1;
  // The released value each row must show.
  for (const ReleasedIdentifier& r : options.released_identifiers) {
    const int ic = in_col.count(r.name) ? in_col.at(r.name) : -1;
    const int oc = out_index(r.name);
    if (ic < 0 || oc < 0) continue;
    std::optional<std::regex> re;
    if (r.regex) {
      try {
        re.emplace(*r.regex, std::regex::ECMAScript);
      } catch (const std::regex_error&) {
        add(Kind::bad_options, r.name, 0, 0, "the mask of " + quote(r.name) + " is not a valid regular expression");
        continue;
      }
    }
    std::uint64_t wrong = 0, first = 0;
    std::string expected_first;
    for (std::size_t row = 0; row < rows; ++row) {
      const std::string& v = input.rows[row][static_cast<std::size_t>(ic)];
      const std::optional<std::string> expected =
          released_value(options, r, re, v, person >= 0 ? &input.rows[row][static_cast<std::size_t>(person)] : nullptr);
      if (expected && *expected == output.rows[row][static_cast<std::size_t>(oc)]) continue;
      if (wrong++ == 0) {
        first = row + 1;
        expected_first = expected ? quote(*expected) : std::string("no date (the input's value is not one)");
      }
    }
    if (wrong)
      add(Kind::identifier_wrong, r.name, first, wrong,
          "released identifier " + quote(r.name) + ": " + std::to_string(wrong) +
              " row(s) differ from its action's value of the input's; first at data row " + std::to_string(first) +
              ": output " + quote(output.rows[first - 1][static_cast<std::size_t>(oc)]) + ", expected " + expected_first);
  }
  // No input value of an identifying column (removed or released) is a
  // cell of any row of the output, but where its own action gives it back
  // (a mask that keeps the whole value) or the input holds it in a column
  // it releases too (then the cell names nobody: "F" in a name column and
  // in sex). The identifying values are looked up, one pass over the
  // output's cells.
  // A date is looked for in its own row only: shifted dates fall on other
  // people's dates all the time.
  std::vector<std::pair<std::string, int>> sources;
  std::vector<char> same_row;
  for (const auto& name : options.identifying)
    if (in_col.count(name)) {
      sources.emplace_back(name, in_col.at(name));
      same_row.push_back(0);
    }
  for (const auto& r : options.released_identifiers)
    if (in_col.count(r.name)) {
      sources.emplace_back(r.name, in_col.at(r.name));
      same_row.push_back(r.action == ReleasedIdentifier::Action::date_shift ? 1 : 0);
    }
  std::unordered_map<std::string, std::vector<std::size_t>> source_of;  // value -> sources holding it
  for (std::size_t s = 0; s < sources.size(); ++s)
    for (const auto& row : input.rows) {
      const std::string& v = row[static_cast<std::size_t>(sources[s].second)];
      if (v.empty()) continue;
      auto& list = source_of[v];
      if (list.empty() || list.back() != s) list.push_back(s);
    }
  std::set<int> source_columns;
  for (const auto& [name, c] : sources) source_columns.insert(c);
  for (std::size_t c = 0; c < input.header.size(); ++c) {
    if (source_columns.count(static_cast<int>(c))) continue;
    for (const auto& row : input.rows) source_of.erase(row[c]);  // explained by a released column
  }
  std::vector<std::uint64_t> leaked(sources.size(), 0), first(sources.size(), 0), last(sources.size(), 0);
  std::vector<std::string> where(sources.size());
  for (std::size_t row = 0; row < output.rows.size() && !source_of.empty(); ++row)
    for (std::size_t c = 0; c < output.header.size() && c < output.rows[row].size(); ++c) {
      const auto it = source_of.find(output.rows[row][c]);
      if (it == source_of.end()) continue;
      for (std::size_t s : it->second) {
        if (output.header[c] == sources[s].first || last[s] == row + 1) continue;
        if (same_row[s] && (row >= input.rows.size() ||
                            input.rows[row][static_cast<std::size_t>(sources[s].second)] != output.rows[row][c]))
          continue;
        last[s] = row + 1;
        if (leaked[s]++ == 0) {
          first[s] = row + 1;
          where[s] = output.header[c];
        }
      }
    }
  for (std::size_t s = 0; s < sources.size(); ++s)
    if (leaked[s])
      add(Kind::identifier_leaked, sources[s].first, first[s], leaked[s],
          "the input's value of identifying column " + quote(sources[s].first) + " is in " +
              std::to_string(leaked[s]) + " output row(s); first at data row " + std::to_string(first[s]) +
              ", column " + quote(where[s]));
}

}  // namespace verify
