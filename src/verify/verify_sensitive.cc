#include "verify_sensitive.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "release_check.h"

namespace verify {
namespace {

std::string number(long double v) {
  std::ostringstream s;
  s.precision(6);
  s << static_cast<double>(v);
  return s.str();
}

long double share(const ValueCounts& d, const std::string& value, long double total) {
  auto it = d.find(value);
  return it == d.end() ? 0.0L : static_cast<long double>(it->second) / total;
}

long double total_of(const ValueCounts& d) {
  long double n = 0;
  for (const auto& [v, c] : d) n += static_cast<long double>(c);
  return n;
}

// The whole string is a finite number.
bool parse_number(const std::string& s, long double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long double v = std::strtold(s.c_str(), &end);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

}  // namespace

long double shannon_entropy(const ValueCounts& cls) {
  const long double n = total_of(cls);
  long double h = 0;
  for (const auto& [v, c] : cls) {
    const long double p = static_cast<long double>(c) / n;
    h -= p * std::log(p);
  }
  return h;
}

long double equal_distance(const ValueCounts& cls, const ValueCounts& all) {
  const long double n = total_of(cls), rows = total_of(all);
  long double d = 0;
  for (const auto& [v, c] : all) d += std::fabs(share(cls, v, n) - static_cast<long double>(c) / rows);
  for (const auto& [v, c] : cls)
    if (!all.count(v)) d += static_cast<long double>(c) / n;  // cannot happen for a table's own classes
  return d / 2;
}

std::optional<long double> ordered_distance(const ValueCounts& cls, const ValueCounts& all,
                                            const std::vector<std::string>& order, std::string* why) {
  std::vector<std::string> values;
  for (const auto& [v, c] : all) values.push_back(v);
  std::map<std::string, long double> numeric;
  bool numbers = true;
  for (const auto& v : values) {
    long double x;
    if (!parse_number(v, &x)) {
      numbers = false;
      break;
    }
    numeric[v] = x;
  }
  if (numbers) {
    std::stable_sort(values.begin(), values.end(),
                     [&](const std::string& a, const std::string& b) { return numeric[a] < numeric[b]; });
  } else {
    std::map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < order.size(); ++i) position.emplace(order[i], i);
    for (const auto& v : values)
      if (!position.count(v)) {
        *why = "the value " + quote(v) + ", which is not a number and not in the declared order";
        return std::nullopt;
      }
    std::sort(values.begin(), values.end(),
              [&](const std::string& a, const std::string& b) { return position[a] < position[b]; });
  }
  if (values.size() <= 1) return 0.0L;
  const long double n = total_of(cls), rows = total_of(all);
  long double cumulative = 0, d = 0;
  for (const auto& v : values) {
    cumulative += share(cls, v, n) - share(all, v, rows);
    d += std::fabs(cumulative);
  }
  return d / static_cast<long double>(values.size() - 1);
}

std::optional<long double> hierarchical_distance(const ValueCounts& cls, const ValueCounts& all,
                                                 const std::vector<std::vector<std::string>>& hierarchy,
                                                 std::string* why) {
  if (hierarchy.empty() || hierarchy.front().size() < 2) return 0.0L;
  const std::size_t height = hierarchy.front().size() - 1;
  const long double n = total_of(cls), rows = total_of(all);
  // Surplus p - q of every non-root node, a node being (level, value).
  std::map<std::pair<std::size_t, std::string>, long double> surplus;
  std::map<std::string, const std::vector<std::string>*> row_of;
  for (const auto& row : hierarchy)
    if (!row.empty()) row_of.emplace(row[0], &row);
  for (const auto& [v, c] : all) {
    auto it = row_of.find(v);
    if (it == row_of.end()) {
      *why = "the value " + quote(v) + ", which is not in the attribute's hierarchy";
      return std::nullopt;
    }
    const long double r = share(cls, v, n) - static_cast<long double>(c) / rows;
    for (std::size_t level = 0; level < height; ++level) surplus[{level, (*it->second)[level]}] += r;
  }
  long double flow = 0;
  for (const auto& [node, r] : surplus) flow += std::fabs(r);
  return flow / (2.0L * static_cast<long double>(height));
}

long double digamma(long double x) {
  long double shift = 0;
  for (; x < 10; x += 1) shift -= 1 / x;  // psi(x) = psi(x + 1) - 1/x
  const long double y = 1 / (x * x);
  return shift + std::log(x) - 1 / (2 * x) -
         y * (1.0L / 12 - y * (1.0L / 120 - y * (1.0L / 252 - y * (1.0L / 240 - y * (1.0L / 132)))));
}

namespace {

long double grassberger_g(std::uint64_t n) {
  const long double x = static_cast<long double>(n);
  const long double sign = n % 2 == 0 ? 1 : -1;
  return digamma(x) + sign * (digamma((x + 1) / 2) - digamma(x / 2)) / 2;
}

}  // namespace

long double grassberger_entropy(const ValueCounts& cls) {
  std::uint64_t n = 0;
  for (const auto& [v, c] : cls) n += c;
  if (n == 0) return 0;
  long double sum = 0;
  for (const auto& [v, c] : cls) sum += static_cast<long double>(c) * grassberger_g(c);
  return grassberger_g(n) - sum / static_cast<long double>(n);
}

bool requirement_holds(const EntropyLDiversity& r, const ValueCounts& cls, const ValueCounts&, std::string* why) {
  const long double h = r.grassberger ? grassberger_entropy(cls) : shannon_entropy(cls);
  const auto need = static_cast<std::size_t>(std::ceil(r.l));
  if (cls.size() >= need && h >= std::log(static_cast<long double>(r.l)) - kTolerance) return true;
  *why = std::to_string(cls.size()) + " distinct value(s) of " + quote(r.attribute) + " with entropy " + number(h) +
         ", need ln " + number(r.l) + " = " + number(std::log(static_cast<long double>(r.l))) +
         (r.grassberger ? " (entropy l-diversity, Grassberger's estimate)" : " (entropy l-diversity)");
  return false;
}

bool requirement_holds(const RecursiveCLDiversity& r, const ValueCounts& cls, const ValueCounts&,
                       std::string* why) {
  std::vector<std::uint64_t> counts;
  for (const auto& [v, c] : cls) counts.push_back(c);
  std::sort(counts.begin(), counts.end(), std::greater<>());
  long double tail = 0;
  for (std::size_t i = r.l == 0 ? 0 : r.l - 1; i < counts.size(); ++i) tail += static_cast<long double>(counts[i]);
  if (counts.size() >= r.l && static_cast<long double>(counts[0]) < static_cast<long double>(r.c) * tail) return true;
  *why = std::to_string(counts.size()) + " distinct value(s) of " + quote(r.attribute) +
         (counts.empty() ? std::string()
                         : ", the most frequent " + std::to_string(counts[0]) + " times against c * " +
                               number(tail) + " = " + number(static_cast<long double>(r.c) * tail)) +
         " (recursive (" + number(r.c) + "," + std::to_string(r.l) + ")-diversity)";
  return false;
}

bool requirement_holds(const TCloseness& r, const ValueCounts& cls, const ValueCounts& all, std::string* why) {
  std::optional<long double> d;
  const char* name = "equal";
  switch (r.distance) {
    case TCloseness::Distance::equal:
      d = equal_distance(cls, all);
      break;
    case TCloseness::Distance::ordered:
      name = "ordered";
      d = ordered_distance(cls, all, r.order, why);
      break;
    case TCloseness::Distance::hierarchical:
      name = "hierarchical";
      d = hierarchical_distance(cls, all, r.hierarchy, why);
      break;
  }
  if (!d) return false;
  if (*d <= static_cast<long double>(r.t) + kTolerance) return true;
  *why = "a distance " + number(*d) + " of " + quote(r.attribute) + " from the whole table, more than t = " +
         number(r.t) + " (t-closeness, " + name + " distance)";
  return false;
}

// A value of `cls` whose share q there, against its share p over `all`,
// fails `fails(q, p)`; nullptr when every value passes.
template <typename Fails>
const std::pair<const std::string, std::uint64_t>* first_failing(const ValueCounts& cls, const ValueCounts& all,
                                                                 Fails fails, long double* q_out, long double* p_out) {
  const long double n = total_of(cls), rows = total_of(all);
  for (const auto& entry : cls) {
    const long double q = static_cast<long double>(entry.second) / n;
    const long double p = share(all, entry.first, rows);
    if (fails(q, p)) {
      *q_out = q;
      *p_out = p;
      return &entry;
    }
  }
  return nullptr;
}

bool requirement_holds(const DeltaDisclosure& r, const ValueCounts& cls, const ValueCounts& all, std::string* why) {
  long double q = 0, p = 0;
  // The bound is strict (ARX's); the tolerance favours the model.
  const auto* bad = first_failing(
      cls, all,
      [&](long double qv, long double pv) {
        return std::fabs(std::log(qv / pv)) / std::log(2.0L) >= static_cast<long double>(r.delta) + kTolerance;
      },
      &q, &p);
  if (!bad) return true;
  *why = "the value " + quote(bad->first) + " of " + quote(r.attribute) + " at a share of " + number(q) +
         " against " + number(p) + " in the table, a factor of 2^" + number(std::fabs(std::log(q / p)) / std::log(2.0L)) +
         ", need below 2^" + number(r.delta) + " (delta-disclosure)";
  return false;
}

bool requirement_holds(const BetaLikeness& r, const ValueCounts& cls, const ValueCounts& all, std::string* why) {
  long double q = 0, p = 0;
  auto bound = [&](long double pv) {
    const long double beta = r.beta;
    return r.enhanced ? std::min(beta, -std::log(pv)) : beta;
  };
  const auto* bad = first_failing(
      cls, all, [&](long double qv, long double pv) { return (qv - pv) / pv > bound(pv) + kTolerance; }, &q, &p);
  if (!bad) return true;
  *why = "the value " + quote(bad->first) + " of " + quote(r.attribute) + " at a share of " + number(q) +
         " against " + number(p) + " in the table, a relative gain of " + number((q - p) / p) + ", need at most " +
         number(bound(p)) + (r.enhanced ? " (enhanced beta-likeness)" : " (basic beta-likeness)");
  return false;
}

}  // namespace verify
