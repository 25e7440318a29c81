// (epsilon, delta)-differential privacy (SafePub; ARX's EDDifferentialPrivacy
// and dp/ParameterCalculation). See differential_privacy.h.
#include "privacy/differential_privacy.h"

#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <openssl/rand.h>

#include "deid/error.h"
#include "privacy/models.h"
#include "quality/arx_conventions.h"

namespace deid {
namespace {

// ARX's IntervalArithmeticDouble, operation by operation. Each operation
// evaluates at the bounds (round to nearest), then widens by one ulp per
// side: Java's Math functions return one of the two doubles bracketing the
// exact value, so the widened interval contains it. glibc's exp, log, pow
// and sqrt carry the same guarantee; where they and the JVM's intrinsics
// round differently the bounds move by an ulp, and the integers derived
// from them (k) only change when a bound is within an ulp of deciding them
// (the tests compare k and beta with ARX's for many (epsilon, delta)).
class Arithmetic {
 public:
  static constexpr double kMax = std::numeric_limits<double>::max();

  static Interval make(double v) {
    check(v);
    return {v, v};
  }
  static Interval make(double lo, double hi) {
    check(lo);
    check(hi);
    if (lo > hi) throw IntervalArithmeticError(fmt::format("invalid range [{}, {}]", lo, hi));
    return {lo, hi};
  }
  static Interval one() { return {1, 1}; }
  static Interval minus_one() { return {-1, -1}; }
  static Interval pi() { return {3.1415926535897932384, 3.1415926535897932385}; }

  template <class Op>
  static Interval binary(Interval a, Interval b, Op op) {
    const double v0 = op(a.lo, b.lo), v1 = op(a.lo, b.hi), v2 = op(a.hi, b.lo), v3 = op(a.hi, b.hi);
    check(v0);
    check(v1);
    check(v2);
    check(v3);
    const double lo = java_min(java_min(java_min(v0, v1), v2), v3);
    const double hi = java_max(java_max(java_max(v0, v1), v2), v3);
    return make(down(lo), up(hi));
  }
  template <class Op>
  static Interval unary(Interval a, Op op, bool expand) {
    const double v0 = op(a.lo), v1 = op(a.hi);
    check(v0);
    check(v1);
    double lo = java_min(v0, v1), hi = java_max(v0, v1);
    if (expand) {
      lo = down(lo);
      hi = up(hi);
    }
    return make(lo, hi);
  }

  static Interval add(Interval a, Interval b) {
    return binary(a, b, [](double x, double y) { return x + y; });
  }
  static Interval sub(Interval a, Interval b) {
    return binary(a, b, [](double x, double y) { return x - y; });
  }
  static Interval mult(Interval a, Interval b) {
    return binary(a, b, [](double x, double y) { return x * y; });
  }
  static Interval div(Interval a, Interval b) {
    return binary(a, b, [](double x, double y) { return x / y; });
  }
  static Interval exp(Interval a) {
    return unary(a, [](double x) { return std::exp(x); }, true);
  }
  static Interval log(Interval a) {
    return unary(a, [](double x) { return std::log(x); }, true);
  }
  static Interval sqrt(Interval a) {
    return unary(a, [](double x) { return std::sqrt(x); }, true);
  }
  static Interval inv(Interval a) {
    return unary(a, [](double x) { return 1.0 / x; }, true);
  }
  static Interval pow(Interval a, int n) {
    return unary(a, [n](double x) { return std::pow(x, static_cast<double>(n)); }, true);
  }

  static bool overlap(Interval a, Interval b) { return !(a.hi < b.lo || b.hi < a.lo); }
  static bool less_than(Interval a, Interval b) {
    if (overlap(a, b)) throw IntervalArithmeticError("undecidable relationship");
    return a.hi < b.lo;
  }
  static bool greater_than(Interval a, Interval b) {
    if (overlap(a, b)) throw IntervalArithmeticError("undecidable relationship");
    return a.lo > b.hi;
  }
  static bool less_than_or_overlap(Interval a, Interval b) { return a.lo <= b.hi; }
  static Interval max(Interval a, Interval b) {
    if (a.hi == b.lo) return b;
    if (b.hi == a.lo) return a;
    if (overlap(a, b)) throw IntervalArithmeticError("undecidable relationship");
    return a.hi < b.lo ? b : a;
  }

  static int floor_lower_to_int(Interval v) { return to_int(std::floor(v.lo)); }
  static int ceil_lower_to_int(Interval v) { return to_int(std::ceil(v.lo)); }

  static Interval from_int(int v) { return {static_cast<double>(v), static_cast<double>(v)}; }

  // commons-math SaddlePointExpansion.getStirlingError, in intervals.
  static Interval stirling_error(Interval v) {
    const Interval base = sub(inv(mult(make(12.0), v)), inv(mult(make(360.0), pow(v, 3))));
    const Interval bound = inv(mult(make(1260.0), pow(v, 5)));
    const double offset = std::max(std::fabs(bound.lo), std::fabs(bound.hi));
    return make(down(base.lo - offset), up(base.hi + offset));
  }

 private:
  static void check(double v) {
    if (std::isnan(v) || std::isinf(v)) throw IntervalArithmeticError(fmt::format("numeric instability: {}", v));
  }
  // Math.nextUp / Math.nextDown on the bits: std::nextafter was a fifth of
  // the parameter computation's time. Operands are finite (check()).
  static double up(double v) {
    if (v == 0) return std::numeric_limits<double>::denorm_min();
    const auto bits = std::bit_cast<std::uint64_t>(v);
    return std::bit_cast<double>(v > 0 ? bits + 1 : bits - 1);
  }
  static double down(double v) {
    if (v == 0) return -std::numeric_limits<double>::denorm_min();
    const auto bits = std::bit_cast<std::uint64_t>(v);
    return std::bit_cast<double>(v > 0 ? bits - 1 : bits + 1);
  }
  // Math.min / Math.max: -0.0 below 0.0 (operands are never NaN here).
  static double java_min(double a, double b) {
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
  static double java_max(double a, double b) {
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
  static int to_int(double v) {
    if (v > static_cast<double>(std::numeric_limits<std::int32_t>::max()) ||
        v < static_cast<double>(std::numeric_limits<std::int32_t>::min()))
      throw IntervalArithmeticError(fmt::format("value does not fit into an integer: {}", v));
    return static_cast<int>(v);
  }
};

using A = Arithmetic;

// ParameterCalculation's sequences, named as there (SafePub, Theorem 1 and
// its proof): gamma = (e^eps - 1 + beta) / e^eps; a_n = P[Bin(n, beta) >
// floor(n gamma)]; c_n = exp(-n (gamma ln(gamma/beta) - (gamma - beta))).
struct Calculation {
  Interval epsilon, beta, gamma;
  // a_n and c_n by n, computed once each (ARX caches the last 1000; the
  // values are the same either way). Vectors, not maps: delta(k) walks
  // tens of thousands of n for every k when epsilon is large, and the
  // lookups were 80% of the time.
  // Not yet computed: NaN bounds (ARX computes a_n only for the n it walks).
  std::vector<Interval> a_cache, c_cache;

  // stirling_error(from_int(j)) and stirling_error(from_int(n) - from_int(j))
  // (a widened interval around n - j) depend on j and n - j only: computed
  // once each instead of once per term.
  std::vector<Interval> stirling_point, stirling_difference;
  // The work done, in steps: a step of delta(k)'s walk is one, a binomial
  // term kTermSteps (their relative cost); max_work 0 is no bound.
  static constexpr std::uint64_t kTermSteps = 64;
  std::uint64_t work = 0, max_work = 0;
  void spend(std::uint64_t steps) {
    work += steps;
    if (max_work != 0 && work > max_work) throw DpComputationLimitError(max_work);
  }

  static Interval memo(std::vector<Interval>& cache, int m, Interval (*f)(int)) {
    const auto i = static_cast<std::size_t>(m);
    while (cache.size() <= i) cache.push_back(f(static_cast<int>(cache.size())));
    return cache[i];
  }
  static Interval stirling_of_point(int j) { return j == 0 ? Interval{} : A::stirling_error(A::from_int(j)); }
  static Interval stirling_of_difference(int m) {
    return m == 0 ? Interval{} : A::stirling_error(A::sub(A::from_int(m), A::from_int(0)));
  }

  // a_n as ARX sums it: IntervalArithmeticDouble.binomialProbability(n,
  // beta, j) for j from floor(n gamma) + 1 to n, the saddle-point expansion
  // of Loader ("Fast and accurate computation of binomial probabilities",
  // 2000) as commons-math has it. The same operations on the same operands
  // as ARX's, in the same order; what does not depend on j is evaluated
  // once per n.
  Interval a(int n) {
    const int from = A::floor_lower_to_int(A::mult(A::from_int(n), gamma)) + 1;
    Interval sum = A::make(0.0);
    if (from > n) return sum;
    spend(kTermSteps * static_cast<std::uint64_t>(n - from + 1));
    const Interval p = beta;
    if (A::less_than(p, A::make(0.0)) || A::greater_than(p, A::one())) throw IntervalArithmeticError("invalid p");
    const Interval in = A::from_int(n);
    const Interval np = A::mult(in, p), nq = A::mult(in, A::sub(A::one(), p));
    const Interval stirling_n = A::stirling_error(in);
    const Interval two_pi = A::mult(A::from_int(2), A::pi());
    for (int j = from; j <= n; ++j) {
      Interval term;
      if (j == 0) {
        term = A::pow(A::sub(A::one(), p), n);
      } else if (j == n) {
        term = A::pow(p, n);
      } else {
        const Interval ik = A::from_int(j), nk = A::sub(in, ik);
        const Interval dev = A::add(A::mult(ik, A::log(A::div(ik, np))), A::mult(nk, A::log(A::div(nk, nq))));
        const Interval term1 = A::sub(A::sub(stirling_n, memo(stirling_point, j, stirling_of_point)),
                                      memo(stirling_difference, n - j, stirling_of_difference));
        const Interval term2 = A::sqrt(A::div(in, A::mult(A::mult(two_pi, ik), nk)));
        term = A::exp(A::sub(A::add(A::log(term2), term1), dev));
      }
      sum = A::add(sum, term);
    }
    return sum;
  }
  // gamma ln(gamma / beta) - (gamma - beta), as ARX computes it for each n.
  Interval c_rate() const {
    const Interval term1 = A::mult(gamma, A::log(A::div(gamma, beta)));
    return A::sub(term1, A::sub(gamma, beta));
  }
  Interval rate;
  Interval c(int n) const { return A::exp(A::mult(A::minus_one(), A::mult(A::from_int(n), rate))); }
  // delta(k) = max over n >= n_m of a_n, up to where c_n bounds the rest.
  // For large epsilon this walks ~10^5 cached n for each of ~10^3 k: the
  // walk is kept to two comparisons per n.
  Interval delta(int k) {
    const int n_m = std::max(0, A::ceil_lower_to_int(A::sub(A::div(A::from_int(k), gamma), A::one())));
    Interval d = A::make(-A::kMax);
    for (auto n = static_cast<std::size_t>(n_m);; ++n) {
      if (n >= a_cache.size()) {
        constexpr double nan = std::numeric_limits<double>::quiet_NaN();
        a_cache.resize(std::max(n + 1, a_cache.size() * 2), Interval{nan, nan});
        c_cache.resize(a_cache.size());
      }
      if (std::isnan(a_cache[n].lo)) {
        a_cache[n] = a(static_cast<int>(n));
        c_cache[n] = c(static_cast<int>(n));
      }
      const Interval& x = a_cache[n];
      d = A::max(d, x);
      if (!A::less_than_or_overlap(d, c_cache[n])) return d;
      spend(1);
    }
  }
};

}  // namespace

DpParameters dp_parameters(double epsilon, double delta, std::uint64_t max_work) {
  Calculation calc;
  calc.max_work = max_work;
  calc.epsilon = A::make(epsilon);
  const Interval delta_i = A::make(delta);
  calc.beta = A::sub(A::one(), A::exp(A::mult(A::minus_one(), calc.epsilon)));
  const Interval power = A::exp(calc.epsilon);
  calc.gamma = A::div(A::add(A::sub(power, A::one()), calc.beta), power);
  calc.rate = calc.c_rate();
  // ARX's loop: k is one more than the first k whose delta(k) is below
  // delta (the increment runs after the computation), kept as ARX has it.
  int k = 1;
  Interval delta_k = A::make(A::kMax);
  for (; !A::less_than(delta_k, delta_i); ++k) delta_k = calc.delta(k);
  return {static_cast<std::uint64_t>(k), calc.beta.lo};
}

double dp_anonymization_epsilon(double epsilon, double search_budget) {
  if (search_budget == 0) return epsilon;
  return A::sub(A::make(epsilon), A::make(search_budget)).lo;
}

double dp_epsilon_per_step(double search_budget, std::uint64_t steps) {
  if (steps == 0) return 0;
  return A::div(A::make(search_budget), A::make(static_cast<double>(steps))).lo;
}

DpParameters dp_parameters(const DifferentialPrivacySpec& spec) {
  // A job needs them twice (the sample before the histogram, the model
  // after it), and they take seconds for large epsilon and small delta:
  // computed once per (epsilon, delta) and process.
  static std::mutex mutex;
  static std::map<std::pair<double, double>, DpParameters> cache;
  const double epsilon = dp_anonymization_epsilon(spec.epsilon, spec.data_dependent() ? spec.search_budget : 0);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find({epsilon, spec.delta}); it != cache.end()) return it->second;
  }
  const DpParameters p = dp_parameters(epsilon, spec.delta);
  const std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(std::make_pair(epsilon, spec.delta), p);
  return p;
}

DpRandom::DpRandom(std::optional<std::int64_t> seed) {
  if (seed) java_.emplace(*seed);
}

double DpRandom::next_double() {
  if (java_) return java_->next_double();
  // 53 random bits from OpenSSL's CSPRNG, as SecureRandom.nextDouble
  // derives a double from its bits.
  std::uint64_t bits = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&bits), sizeof bits) != 1)
    throw Error("differential privacy: the system's random number generator failed");
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

std::vector<std::uint8_t> dp_sample(std::uint64_t rows, double beta, DpRandom& random) {
  std::vector<std::uint8_t> in(rows);
  for (std::uint64_t r = 0; r < rows; ++r) in[r] = random.next_double() < beta ? 1 : 0;
  return in;
}

DifferentialPrivacyModel::DifferentialPrivacyModel(const DifferentialPrivacySpec& spec, DpParameters parameters)
    : spec_(spec), parameters_(parameters) {}

std::string DifferentialPrivacyModel::describe() const {
  // ARX's toString: "(2.0,1.0E-6)-DP".
  return fmt::format("({},{})-DP", quality::java_double(spec_.epsilon), quality::java_double(spec_.delta));
}

nlohmann::json DifferentialPrivacyModel::to_json() const {
  nlohmann::json j;
  j["model"] = "differential-privacy";
  j["epsilon"] = spec_.epsilon;
  j["delta"] = spec_.delta;
  j["variant"] = spec_.data_dependent() ? "data-dependent" : "data-independent";
  if (spec_.data_dependent()) {
    j["search_budget"] = spec_.search_budget;
    j["steps"] = spec_.steps;
  }
  j["k"] = parameters_.k;
  j["beta"] = parameters_.beta;
  j["seeded"] = spec_.seed.has_value();
  return j;
}

DpParameters job_dp_parameters(const DifferentialPrivacySpec& spec, const std::string& job_path) {
  const Location at{job_path, spec.line, spec.column, {}};
  try {
    return dp_parameters(spec);
  } catch (const IntervalArithmeticError& e) {
    throw JobError(at, fmt::format("differential-privacy: k and beta cannot be computed reliably for epsilon {} and "
                                   "delta {} ({}); ARX fails on them too",
                                   spec.epsilon, spec.delta, e.what()));
  } catch (const DpComputationLimitError& e) {
    const double anonymization = dp_anonymization_epsilon(spec.epsilon, spec.data_dependent() ? spec.search_budget : 0);
    throw JobError(at, fmt::format("differential-privacy: computing k for epsilon {}{} and delta {} takes {} (one "
                                   "to two minutes), and deid stops there: the work grows without bound as epsilon "
                                   "nears 0 or exceeds about 5 and as delta nears 0 (ARX's computation takes as "
                                   "long); epsilon 0.01 to 5 with delta 1e-6 takes seconds",
                                   anonymization,
                                   anonymization == spec.epsilon
                                       ? std::string()
                                       : fmt::format(" (epsilon {} less the search budget {})", spec.epsilon,
                                                     spec.search_budget),
                                   spec.delta, e.what()));
  }
}

std::unique_ptr<PrivacyModel> make_differential_privacy(const DifferentialPrivacySpec& spec, const Problem& problem) {
  (void)problem;
  // ARX computes k and beta from the anonymization's share of epsilon.
  return std::make_unique<DifferentialPrivacyModel>(spec, job_dp_parameters(spec, {}));
}

}  // namespace deid
