// Identifying values in a report or a result (checks.h,
// check_text_for_identifiers): each value looked for as a whole word of
// the text, as it is and as HTML and JSON write it.
#include <algorithm>
#include <cctype>

#include "checks.h"
#include "release_check.h"

namespace verify {
namespace {

std::string html_escaped(const std::string& v) {
  std::string out;
  for (char ch : v) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(ch);
    }
  }
  return out;
}

std::string json_escaped(const std::string& v) {
  std::string out;
  for (char ch : v) {
    if (ch == '"' || ch == '\\') out.push_back('\\');
    out.push_back(ch);
  }
  return out;
}

// What continues a value: a letter, a digit, '_', '-' or '@' ("Other" is
// not in "Other-service", nor "ann" in "ann@example.org").
bool word_char(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '-' || ch == '@';
}

// Whether `v` occurs in `text` with nothing that continues a word right
// before or after it ("Ann" is not in "Annual").
bool occurs(const std::string& text, const std::string& v) {
  for (std::size_t at = text.find(v); at != std::string::npos; at = text.find(v, at + 1)) {
    const bool before = at > 0 && word_char(text[at - 1]) && word_char(v.front());
    const bool after = at + v.size() < text.size() && word_char(text[at + v.size()]) && word_char(v.back());
    if (!before && !after) return true;
  }
  return false;
}

}  // namespace

CheckLine check_text_for_identifiers(const std::string& what, const std::string& text,
                                     const std::vector<std::pair<std::string, std::string>>& values) {
  const std::string name = "identifier values in the " + what;
  std::uint64_t found = 0;
  std::string first;
  for (const auto& [column, v] : values) {
    // A value without a letter (a number, a phone number) is looked for
    // only when long: a report and a result are made of counts, sizes and
    // times, which short numbers meet by chance.
    const bool letters = std::any_of(v.begin(), v.end(), [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)) != 0; });
    if (v.size() < (letters ? kShortestIdentifierSought : kShortestNumberSought)) continue;
    if (!occurs(text, v) && !occurs(text, html_escaped(v)) && !occurs(text, json_escaped(v))) continue;
    if (found++ == 0) first = column;
  }
  if (found == 0)
    return {name, CheckLine::Status::ok,
            "no input value of an identifying column (of " + std::to_string(kShortestIdentifierSought) +
                " characters or more; without a letter, " + std::to_string(kShortestNumberSought) + " or more)",
            {}, 0, 0};
  return {name, CheckLine::Status::failed,
          "the " + what + " holds " + std::to_string(found) + " input value(s) of identifying columns; the first of " +
              "column " + quote(first),
          first, 0, 0};
}

}  // namespace verify
