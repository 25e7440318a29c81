// The patterns of single values: numbers, dates and the HIPAA identifier
// types that have a written form (e-mail, telephone, SSN, URL, IP address,
// ZIP code), and names from the bundled Census lists.
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "inspect/detectors.h"

namespace deid::inspect_detail {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int digits_value(std::string_view v) {
  int x = 0;
  std::from_chars(v.data(), v.data() + v.size(), x);
  return x;
}

bool all_digits(std::string_view v) { return !v.empty() && std::all_of(v.begin(), v.end(), digit); }

bool valid_day(int y, int m, int d) {
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return !(m == 2 && d == 29 && !leap);
}

// A host name: labels of letters, digits and hyphens separated by dots, at
// least two labels, the last of letters only (a top-level domain).
bool is_host(std::string_view h) {
  if (h.empty() || h.size() > 253) return false;
  std::size_t labels = 0, start = 0;
  std::string_view last;
  while (start <= h.size()) {
    const std::size_t dot = h.find('.', start);
    const std::string_view label = h.substr(start, dot == std::string_view::npos ? h.size() - start : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label)
      if (!alpha(c) && !digit(c) && c != '-') return false;
    ++labels;
    last = label;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return labels >= 2 && last.size() >= 2 && std::all_of(last.begin(), last.end(), alpha);
}

}  // namespace

bool is_integer(std::string_view v) {
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
  return all_digits(v);
}

bool is_decimal(std::string_view v) {
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
  const std::size_t dot = v.find('.');
  if (dot == std::string_view::npos) return all_digits(v);
  return (dot == 0 || all_digits(v.substr(0, dot))) && all_digits(v.substr(dot + 1));
}

std::optional<double> parse_number(std::string_view v) {
  if (!is_decimal(v)) return std::nullopt;
  if (v[0] == '+') v.remove_prefix(1);
  double x = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  return x;
}

const std::vector<std::string>& date_formats() {
  static const std::vector<std::string> formats{"%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y"};
  return formats;
}

bool is_date(std::string_view v, std::string_view format) {
  if (v.size() != 10) return false;
  int y = 0, m = 0, d = 0;
  if (format == "%Y-%m-%d") {
    if (v[4] != '-' || v[7] != '-' || !all_digits(v.substr(0, 4)) || !all_digits(v.substr(5, 2)) ||
        !all_digits(v.substr(8, 2)))
      return false;
    y = digits_value(v.substr(0, 4)), m = digits_value(v.substr(5, 2)), d = digits_value(v.substr(8, 2));
  } else if (format == "%d.%m.%Y" || format == "%m/%d/%Y") {
    const char sep = format[2];
    if (v[2] != sep || v[5] != sep || !all_digits(v.substr(0, 2)) || !all_digits(v.substr(3, 2)) ||
        !all_digits(v.substr(6, 4)))
      return false;
    const int a = digits_value(v.substr(0, 2)), b = digits_value(v.substr(3, 2));
    y = digits_value(v.substr(6, 4));
    m = sep == '.' ? b : a;
    d = sep == '.' ? a : b;
  } else {
    return false;
  }
  return valid_day(y, m, d);
}

bool is_email(std::string_view v) {
  const std::size_t at = v.find('@');
  if (at == std::string_view::npos || at == 0 || v.find('@', at + 1) != std::string_view::npos) return false;
  const std::string_view local = v.substr(0, at);
  if (local.size() > 64) return false;
  for (char c : local)
    if (!alpha(c) && !digit(c) && std::string_view("._%+-'").find(c) == std::string_view::npos) return false;
  return is_host(v.substr(at + 1));
}

bool is_phone(std::string_view v) {
  std::string digits;
  bool plus = false, separators = false;
  std::size_t group = 0, first_group = 0, shortest_group = v.size();  // digit runs between separators
  auto end_group = [&] {
    if (group == 0) return;
    if (first_group == 0) first_group = group;
    shortest_group = std::min(shortest_group, group);
    group = 0;
  };
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (digit(c)) {
      digits.push_back(c);
      ++group;
    } else if (c == '+' && i == 0) {
      plus = true;
    } else if (c == ' ' || c == '-' || c == '.' || c == '(' || c == ')') {
      separators = true;
      end_group();
    } else {
      return false;
    }
  }
  end_group();
  if (plus) {
    if (digits.size() >= 11 && digits[0] == '1') return digits.size() == 11 && digits[1] >= '2';
    return digits.size() >= 8 && digits.size() <= 15 && digits[0] != '0';
  }
  // Ten bare digits are as likely any other number: a phone number is
  // written with separators. Every format below has 9 digits or more.
  if (!separators || digits.size() < 9) return false;
  // International access code 00, then a country code and a number
  // (ITU-T E.164: at most 15 digits after the access code): 0049 30 1234567.
  if (digits.size() >= 10 && digits.size() <= 17 && digits[0] == '0' && digits[1] == '0')
    return digits[2] != '0' && first_group >= 4 && shortest_group >= 2;
  // A national number with its trunk prefix 0 (most countries outside North
  // America): 9 to 11 digits in groups of 2 or more, the first of 2 to 5
  // (020 7946 0958, 030 1234567, 01 23 45 67 89, (02) 9876 5432). Dates
  // (8 digits) and decimals (a first group of 1) do not fit.
  if (digits[0] == '0')
    return digits.size() >= 9 && digits.size() <= 11 && digits[1] != '0' && first_group >= 2 && first_group <= 5 &&
           shortest_group >= 2;
  if (digits.size() == 11 && digits[0] == '1') digits.erase(0, 1);
  return digits.size() == 10 && digits[0] >= '2';
}

bool is_ssn(std::string_view v) {
  if (v.size() != 11 || v[3] != v[6] || (v[3] != '-' && v[3] != ' ')) return false;
  const std::string_view area = v.substr(0, 3), group = v.substr(4, 2), serial = v.substr(7, 4);
  if (!all_digits(area) || !all_digits(group) || !all_digits(serial)) return false;
  const int a = digits_value(area);
  return a != 0 && a != 666 && a < 900 && digits_value(group) != 0 && digits_value(serial) != 0;
}

bool is_url(std::string_view v) {
  std::string lower(v);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string_view rest(lower);
  bool www = false;
  for (std::string_view scheme : {"https://", "http://", "ftp://"})
    if (rest.starts_with(scheme)) {
      rest.remove_prefix(scheme.size());
      www = true;
      break;
    }
  if (!www) {
    if (!rest.starts_with("www.")) return false;
  }
  const std::size_t end = rest.find_first_of("/:?#");
  return is_host(rest.substr(0, end));
}

bool is_ip_address(std::string_view v) {
  if (v.empty() || v.size() > 45) return false;
  const std::string s(v);
  unsigned char buf[16];
  return ::inet_pton(AF_INET, s.c_str(), buf) == 1 || ::inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

bool is_zip_code(std::string_view v) {
  if (v.size() == 5) return all_digits(v);
  return v.size() == 10 && v[5] == '-' && all_digits(v.substr(0, 5)) && all_digits(v.substr(6));
}

bool looks_like_person_name(std::string_view v) {
  // "Smith, Ann" -> words Smith, Ann.
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (alpha(c)) {
      word.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    } else if (c == ' ') {
      flush();
    } else if (c == ',' && i + 1 < v.size() && v[i + 1] == ' ') {
      flush();
    } else if (c == '.' && (i + 1 == v.size() || v[i + 1] == ' ')) {
      flush();  // an initial: "J." or "Jr."
    } else if ((c == '\'' || c == '-') && !word.empty()) {
      word.push_back(c);
    } else {
      return false;
    }
  }
  flush();
  if (words.empty() || words.size() > 4) return false;
  for (const std::string& w : words)
    if (is_common_first_name(w) || is_common_last_name(w)) return true;
  return false;
}

}  // namespace deid::inspect_detail
