// Score functions of the quality models for differential privacy (SafePub);
// see dp_score.h. Each follows its ARX class's getScore() term by term; the
// comments name the class.
#include "quality/dp_score.h"

#include <fmt/format.h>

#include <absl/container/flat_hash_map.h>

#include <algorithm>

#include "check/distributions.h"
#include "deid/error.h"
#include "deid/problem.h"

namespace deid {
namespace {

[[noreturn]] void overflow() {
  throw Error("differential privacy: a quality score exceeds the 128-bit exact arithmetic deid computes it in");
}

__int128 mul(__int128 a, __int128 b) {
  __int128 r = 0;
  if (__builtin_mul_overflow(a, b, &r)) overflow();
  return r;
}
__int128 add(__int128 a, __int128 b) {
  __int128 r = 0;
  if (__builtin_add_overflow(a, b, &r)) overflow();
  return r;
}
__int128 gcd(__int128 a, __int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const __int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

}  // namespace

ExactFraction::ExactFraction(__int128 num, __int128 den) {
  if (den == 0) throw Error("differential privacy: division by zero in a quality score");
  if (den < 0) {
    num = -num;
    den = -den;
  }
  const __int128 g = gcd(num, den);
  num_ = g > 1 ? num / g : num;
  den_ = g > 1 ? den / g : den;
}

ExactFraction ExactFraction::operator+(const ExactFraction& o) const {
  if (den_ == o.den_) return {add(num_, o.num_), den_};
  const __int128 g = gcd(den_, o.den_);
  const __int128 d1 = den_ / g;
  return {add(mul(num_, o.den_ / g), mul(o.num_, d1)), mul(d1, o.den_)};
}

ExactFraction ExactFraction::operator*(const ExactFraction& o) const {
  const __int128 g1 = gcd(num_, o.den_), g2 = gcd(o.num_, den_);
  const __int128 a = g1 > 1 ? num_ / g1 : num_, d = g1 > 1 ? o.den_ / g1 : o.den_;
  const __int128 c = g2 > 1 ? o.num_ / g2 : o.num_, b = g2 > 1 ? den_ / g2 : den_;
  return {mul(a, c), mul(b, d)};
}

ExactFraction ExactFraction::operator/(const ExactFraction& o) const {
  if (o.num_ == 0) throw Error("differential privacy: division by zero in a quality score");
  return *this * ExactFraction(o.den_, o.num_);
}

int ExactFraction::compare(const ExactFraction& o) const {
  const __int128 l = mul(num_, o.den_), r = mul(o.num_, den_);
  return l < r ? -1 : l > r ? 1 : 0;
}

double ExactFraction::to_double() const {
  // BigInteger.doubleValue() rounds to nearest (ties to even), as the
  // conversion of a 128-bit integer does.
  return static_cast<double>(num_) / static_cast<double>(den_);
}

bool has_dp_score(const std::string& model, bool monotonic) {
  (void)monotonic;  // both variants of entropy and discernability share their score (ARX's subclasses)
  return model == "loss" || model == "precision" || model == "entropy" || model == "normalized-entropy" ||
         model == "discernability" || model == "aecs" || model == "classification";
}

namespace {

// MetricSDClassification.getScore: the records of released classes that
// carry their class's most frequent response value (for a quasi-identifying
// response variable: the most frequent generalized value among the released
// classes that agree on every other quasi-identifier, ARX's
// MetaHashGroupify, scaled by 1 - level / top level), summed over the
// response variables and divided by k times their number (one record moves
// a majority count by at most one per variable, and k of them enter or
// leave with a class).
ExactFraction classification_score(const Problem& problem, const Transformation& t,
                                   std::span<const ScoreClass> classes, std::span<const std::uint32_t> entry_class,
                                   std::uint64_t k) {
  const auto I = [](std::uint64_t v) { return static_cast<__int128>(v); };
  if (problem.responses.empty()) throw Error("differential privacy: the classification score needs response variables");
  ExactFraction score(0);
  // Response variables that are not quasi-identifiers: each released
  // class's largest frequency of the response value (its sampled records).
  bool others = false;
  for (const ResponseVariable& r : problem.responses) others = others || r.qi < 0;
  if (others) {
    if (entry_class.size() != problem.histogram.size())
      throw Error("differential privacy: the classification score needs each entry's class");
    const std::vector<std::uint32_t> member(entry_class.begin(), entry_class.end());
    const std::vector<check_internal::ClassDistributions> dists =
        check_internal::roll_up_distributions(problem, problem.histogram.sensitive, member, classes.size());
    __int128 sum = 0;
    for (const ResponseVariable& r : problem.responses) {
      if (r.qi >= 0) continue;
      const check_internal::ClassDistributions& d = dists[static_cast<std::size_t>(r.distribution)];
      for (std::size_t c = 0; c < classes.size(); ++c) {
        if (!classes[c].released || classes[c].count == 0) continue;
        std::uint64_t top = 0;
        for (std::uint64_t j = d.offsets[c]; j < d.offsets[c + 1]; ++j) top = std::max(top, d.counts[j]);
        sum = add(sum, I(top));
      }
    }
    score = score + ExactFraction(sum);
  }
  // Quasi-identifying ones: released classes grouped by the other
  // quasi-identifiers; per group the largest records of one value of r.
  for (const ResponseVariable& r : problem.responses) {
    if (r.qi < 0) continue;
    const auto q = static_cast<std::size_t>(r.qi);
    std::vector<std::size_t> released;
    for (std::size_t c = 0; c < classes.size(); ++c)
      if (classes[c].released && classes[c].count > 0) released.push_back(c);
    const auto less_others = [&](std::size_t a, std::size_t b) {
      for (std::size_t i = 0; i < classes[a].key.size(); ++i)
        if (i != q && classes[a].key[i] != classes[b].key[i]) return classes[a].key[i] < classes[b].key[i];
      return false;
    };
    std::sort(released.begin(), released.end(), [&](std::size_t a, std::size_t b) {
      if (less_others(a, b)) return true;
      if (less_others(b, a)) return false;
      return classes[a].key[q] < classes[b].key[q];
    });
    __int128 sum = 0;
    for (std::size_t i = 0; i < released.size();) {
      std::uint64_t top = 0;
      std::size_t j = i;
      while (j < released.size() && !less_others(released[i], released[j])) {
        std::uint64_t frequency = 0;
        const std::uint32_t value = classes[released[j]].key[q];
        for (; j < released.size() && !less_others(released[i], released[j]) && classes[released[j]].key[q] == value;
             ++j)
          frequency += classes[released[j]].count;
        top = std::max(top, frequency);
      }
      sum = add(sum, I(top));
      i = j;
    }
    // ARX: scale 1 - level / (levels - 1), 1 for a hierarchy of one level.
    const int top_level = problem.hierarchies[q].height() - 1;
    ExactFraction scale(1);
    if (top_level != 0) scale = scale + ExactFraction(-static_cast<__int128>(t[q]), top_level);
    score = score + ExactFraction(sum) * scale;
  }
  return score / ExactFraction(mul(I(k), I(problem.responses.size())));
}

}  // namespace

ExactFraction dp_score(const std::string& model, const Problem& problem, const Transformation& t,
                       std::span<const ScoreClass> classes, std::uint64_t rows, std::uint64_t k,
                       std::span<const std::uint32_t> entry_class) {
  if (model == "classification") return classification_score(problem, t, classes, entry_class, k);
  const std::size_t dims = problem.hierarchies.size();
  const auto I = [](std::uint64_t v) { return static_cast<__int128>(v); };
  // Records not released: outside the sample, or in a class not released.
  std::uint64_t released = 0;
  for (const ScoreClass& c : classes)
    if (c.released) released += c.count;
  const std::uint64_t suppressed = rows - released;
  // 1 / (k^2 / (k - 1) + 1), or 1/5 for k = 1: the sensitivity of the
  // class-size based scores (entropy, discernability).
  const ExactFraction size_sensitivity =
      k == 1 ? ExactFraction(5) : ExactFraction(mul(I(k), I(k)), I(k - 1)) + ExactFraction(1);

  if (model == "loss") {
    // MetricMDNMLoss: per attribute, a suppressed record counts 1, a
    // released one its value's domain share; the sum divided by the
    // attributes and by k - 1.
    ExactFraction score(mul(I(suppressed), I(dims)));
    for (std::size_t q = 0; q < dims; ++q) {
      const Generalization& h = problem.hierarchies[q];
      // Records per generalized value: ARX sums count * share per distinct share.
      absl::flat_hash_map<std::uint32_t, std::uint64_t> per_value;
      for (const ScoreClass& c : classes)
        if (c.released && c.count > 0) per_value[c.key[q]] += c.count;
      __int128 leaves = 0;  // sum of count * leaves; the share's denominator is the hierarchy's rows
      for (const auto& [code, count] : per_value) leaves = add(leaves, mul(I(count), I(h.leaves(t[q], code))));
      score = score + ExactFraction(leaves, I(h.hierarchy_rows()));
    }
    score = score * ExactFraction(-1, I(dims));
    if (k > 1) score = score / ExactFraction(I(k - 1));
    return score;
  }
  if (model == "precision") {
    // MetricMDNMPrecision: per attribute, released records count
    // level / height, suppressed ones 1.
    ExactFraction score(0);
    for (std::size_t q = 0; q < dims; ++q) {
      const int height = problem.hierarchies[q].height() - 1;
      const ExactFraction value = height == 0 ? ExactFraction(0) : ExactFraction(t[q], height);
      score = score + (ExactFraction(I(released)) * value + ExactFraction(I(suppressed)));
    }
    score = score * ExactFraction(-1, I(dims));
    if (k > 1) score = score / ExactFraction(I(k - 1));
    return score;
  }
  if (model == "entropy" || model == "normalized-entropy") {
    // MetricMDNUEntropyPrecomputed: per attribute, a value released and
    // not the hierarchy's single root counts the square of its records;
    // every other record counts the table's rows.
    __int128 sum = 0;
    for (std::size_t q = 0; q < dims; ++q) {
      const Generalization& h = problem.hierarchies[q];
      const int top = h.height() - 1;
      // The root: the single value of the top level, if there is one.
      const bool single_root = h.domain_size(top) == 1;
      const std::string* root = single_root ? &h.label(top, 0) : nullptr;
      absl::flat_hash_map<std::uint32_t, std::uint64_t> per_value;
      std::uint64_t other = 0;
      for (const ScoreClass& c : classes) {
        const bool is_root = root != nullptr && h.label(t[q], c.key[q]) == *root;
        if (c.released && !is_root)
          per_value[c.key[q]] += c.count;
        else
          other += c.count;
        other += c.population - c.count;
      }
      sum = add(sum, mul(I(other), I(rows)));
      for (const auto& [code, count] : per_value) sum = add(sum, mul(I(count), I(count)));
    }
    ExactFraction score = ExactFraction(-sum, mul(I(rows), I(dims)));
    return score / size_sensitivity;
  }
  if (model == "discernability") {
    // MetricSDNMDiscernability: a released class counts the square of its
    // records, a suppressed record the table's rows.
    __int128 sum = mul(I(rows), I(suppressed));
    for (const ScoreClass& c : classes)
      if (c.released) sum = add(sum, mul(I(c.count), I(c.count)));
    return ExactFraction(-sum) / (ExactFraction(I(rows)) * size_sensitivity);
  }
  if (model == "aecs") {
    // MetricSDAECS: the released classes, plus one for all suppressed
    // records together (sensitivity one).
    bool any_suppressed = false;
    std::uint64_t released_classes = 0;
    for (const ScoreClass& c : classes) {
      if ((!c.released && c.count > 0) || c.population > c.count) any_suppressed = true;
      if (c.released && c.count > 0) ++released_classes;
    }
    return ExactFraction(I(released_classes + (any_suppressed ? 1 : 0)));
  }
  throw Error(fmt::format("differential privacy: no score function for quality model '{}'", model));
}

}  // namespace deid
