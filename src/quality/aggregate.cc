#include <algorithm>
#include <cmath>

#include "deid/quality.h"

namespace deid {

// Each aggregate is computed in the order ARX's ILMultiDimensional* classes
// use, so that deid's totals equal ARX's to the last bits. Every aggregate
// is non-decreasing in each value, which keeps per-attribute lower bounds
// (and their monotonicity) valid for the total.
// With weights, each value is multiplied by its attribute's weight where ARX
// does (ILMultiDimensionalArithmeticMean: (v / n) * w; Sum: v * w;
// GeometricMean: (v * w + 1)^(1/n); Max: max(v * w)); a weight of 1 leaves
// every bit as without weights.
namespace {

// The term of value v (weight w, n values) in the aggregate `how`: what
// aggregate() combines. One function for both, so that LevelBound's totals
// are aggregate()'s bit for bit.
double term(Aggregate how, double v, double w, double n) {
  switch (how) {
    case Aggregate::geometric_mean:
      // ARX shifts by one so that a zero does not make the mean zero:
      // prod((1 + v_i)^(1/n)) - 1.
      return std::pow(v * w + 1.0, 1.0 / n);
    case Aggregate::arithmetic_mean:
      return (v / n) * w;
    case Aggregate::sum:
    case Aggregate::max:
      return v * w;
  }
  return 0;
}

// Folds term x into the running total (`first`: x is the first term).
double fold(Aggregate how, double total, double x, bool first) {
  switch (how) {
    case Aggregate::geometric_mean:
      return (first ? 1.0 : total) * x;
    case Aggregate::arithmetic_mean:
    case Aggregate::sum:
      return (first ? 0.0 : total) + x;
    case Aggregate::max:
      return first ? x : std::max(total, x);
  }
  return 0;
}

double finish(Aggregate how, double total) { return how == Aggregate::geometric_mean ? total - 1.0 : total; }

}  // namespace

double aggregate(Aggregate how, const std::vector<double>& values, std::span<const double> weights) {
  if (values.empty()) return 0;
  const double n = static_cast<double>(values.size());
  double total = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    total = fold(how, total, term(how, values[i], weights.empty() ? 1.0 : weights[i], n), i == 0);
  return finish(how, total);
}

LevelBound::LevelBound(Aggregate how, const std::vector<std::vector<double>>& values,
                       const std::vector<double>& constants, std::span<const double> weights)
    : how_(how), terms_(values.size()) {
  const std::size_t dims = values.size() + constants.size();
  const double n = static_cast<double>(dims);
  const auto w = [&](std::size_t i) { return weights.empty() ? 1.0 : weights[i]; };
  for (std::size_t q = 0; q < values.size(); ++q)
    for (double v : values[q]) terms_[q].push_back(term(how, v, w(q), n));
  for (std::size_t i = 0; i < constants.size(); ++i)
    constant_terms_.push_back(term(how, constants[i], w(values.size() + i), n));
}

// The search's hot path (a bound per transformation it enumerates): the
// aggregate chosen once, the terms folded as fold() does.
double LevelBound::operator()(const Transformation& t) const {
  const std::size_t m = terms_.size();
  switch (how_) {
    case Aggregate::geometric_mean: {
      double p = 1.0;
      for (std::size_t q = 0; q < m; ++q) p *= terms_[q][t[q]];
      for (double x : constant_terms_) p *= x;
      return p - 1.0;
    }
    case Aggregate::arithmetic_mean:
    case Aggregate::sum: {
      double s = 0.0;
      for (std::size_t q = 0; q < m; ++q) s += terms_[q][t[q]];
      for (double x : constant_terms_) s += x;
      return s;
    }
    case Aggregate::max: {
      double total = 0;
      bool first = true;
      for (std::size_t q = 0; q < m; ++q) {
        total = fold(how_, total, terms_[q][t[q]], first);
        first = false;
      }
      for (double x : constant_terms_) {
        total = fold(how_, total, x, first);
        first = false;
      }
      return total;
    }
  }
  return 0;
}

}  // namespace deid
