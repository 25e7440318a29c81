// The SafePub search (Bild, Kuhn, Prasser: "SafePub: A Truthful Data
// Anonymization Algorithm With Strong Privacy Guarantees", PoPETs 2018(1),
// Algorithm 1; ARX's DataDependentEDDPAlgorithm): a random walk down the
// lattice from its top. In each step the predecessors of the current
// transformation (the pivot) join the candidates, the pivot leaves them, and
// the exponential mechanism picks the next pivot among all candidates with
// probability proportional to exp(epsilon_step / 2 * score); after `steps`
// steps the pivot with the best score is released. Each step spends
// search-budget / steps of epsilon, so the search as a whole spends the
// search budget (sequential composition), whatever the data.
//
// deid draws the same random numbers as ARX in deterministic mode (seed
// 0xDEADBEEF) and hands the candidates to the mechanism in the order ARX's
// HashMap iterates them, so for that seed it picks ARX's transformation.
#include "search/safepub.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "deid/check.h"
#include "deid/error.h"
#include "deid/search.h"
#include "quality/dp_score.h"

namespace deid {

std::size_t exponential_mechanism(std::span<const double> scores, double epsilon, DpRandom& random) {
  std::vector<double> p(scores.size());
  double shift = -std::numeric_limits<double>::max();
  for (std::size_t i = 0; i < scores.size(); ++i) {
    p[i] = 0.5 * epsilon * scores[i];
    shift = std::max(shift, p[i]);
  }
  for (double& v : p) v = std::exp(v - shift);
  // MathArrays.normalizeArray(p, 1.0): v * 1.0 / sum, the sum in order.
  double sum = 0;
  for (double v : p) sum += v;
  double cumulative = 0;
  std::vector<double> cum(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    cumulative += p[i] * 1.0 / sum;
    cum[i] = cumulative;
  }
  const double r = random.next_double();
  // Arrays.binarySearch, then "r < cum[index]": a draw equal to a
  // cumulative probability falls through to the last value.
  const auto it = std::lower_bound(cum.begin(), cum.end(), r);
  if (it != cum.end() && *it != r) return static_cast<std::size_t>(it - cum.begin());
  return cum.size() - 1;
}

std::uint32_t JavaHashOrder::bucket(std::int64_t key) const {
  const auto v = static_cast<std::uint64_t>(key);
  const auto h = static_cast<std::uint32_t>(v ^ (v >> 32));  // Long.hashCode
  return (h ^ (h >> 16)) & static_cast<std::uint32_t>(capacity_ - 1);  // HashMap.hash, masked
}

std::size_t JavaHashOrder::bucket_size(std::uint32_t b) const {
  std::size_t n = 0;
  for (const Entry& e : entries_) n += bucket(e.key) == b ? 1 : 0;
  return n;
}

void JavaHashOrder::put(std::int64_t key) {
  const std::uint32_t b = bucket(key);
  const std::size_t before = bucket_size(b);
  entries_.push_back({key, next_seq_++});
  // putVal: a ninth key in one bucket treeifies it, or, below capacity 64,
  // doubles the table instead (treeifyBin); then the size check.
  if (before + 1 >= 9) {
    if (capacity_ < 64)
      capacity_ *= 2;
    else
      exact_ = false;
  }
  if (static_cast<double>(entries_.size()) > 0.75 * static_cast<double>(capacity_)) capacity_ *= 2;
}

void JavaHashOrder::remove(std::int64_t key) {
  entries_.erase(std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; }));
}

bool JavaHashOrder::contains(std::int64_t key) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
}

std::vector<std::int64_t> JavaHashOrder::order() const {
  std::vector<std::pair<std::pair<std::uint32_t, std::uint64_t>, std::int64_t>> keyed;
  keyed.reserve(entries_.size());
  for (const Entry& e : entries_) keyed.push_back({{bucket(e.key), e.seq}, e.key});
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::int64_t> out;
  out.reserve(keyed.size());
  for (const auto& k : keyed) out.push_back(k.second);
  return out;
}

namespace {

class SafePubSearch final : public SearchAlgorithm {
 public:
  explicit SafePubSearch(const DifferentialPrivacyModel& model) : model_(model) {}
  std::string name() const override { return "safepub"; }

  SearchOutcome run(Evaluator& ev) override {
    const Problem& pr = ev.problem();
    const Lattice lattice = pr.lattice();
    const DifferentialPrivacySpec& spec = model_.spec();
    const std::uint64_t k = model_.parameters().k;
    const double epsilon_step = dp_epsilon_per_step(spec.search_budget, spec.steps);
    // The sample is the research subset: per histogram entry, counts are
    // its records and population all of them (ARX's count and pcount).
    if (!pr.has_subset() || pr.histogram.population.size() != pr.histogram.size())
      throw std::logic_error("safepub: the problem has no sample (research subset)");
    // ARX numbers a transformation by its levels above the bottom, the
    // first attribute least significant (jhpl's Lattice, SolutionSpaceLong).
    // Above 2^63 - 1 transformations ARX numbers them otherwise
    // (SolutionSpaceIntArray), with another HashMap order: deid then keeps
    // the low 64 bits as the id and reports the order as inexact.
    const std::size_t dims = lattice.dimensions();
    const bool long_ids = lattice.size() <= static_cast<LatticeIndex>(std::numeric_limits<std::int64_t>::max());
    std::vector<LatticeIndex> multiplier(dims);
    LatticeIndex m = 1;
    for (std::size_t q = 0; q < dims; ++q) {
      multiplier[q] = m;
      m *= static_cast<LatticeIndex>(lattice.max_level(q) - lattice.min_level(q) + 1);
    }
    const auto id_of = [&](const Transformation& t) {
      LatticeIndex id = 0;
      for (std::size_t q = 0; q < dims; ++q) id += static_cast<LatticeIndex>(t[q] - lattice.min_level(q)) * multiplier[q];
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(id));
    };
    // ARX stops once its checks reach steps * attributes (its check limit
    // for a limit given in expansions).
    // (ARX computes it in an int: Math.multiplyExact, Integer.MAX_VALUE on overflow.)
    const std::uint64_t check_limit = std::min<std::uint64_t>(spec.steps * dims, 2147483647u);

    Checker grouper(pr);
    struct Checked {
      Transformation t;
      ExactFraction score;
      CheckResult result;
    };
    std::map<std::int64_t, Checked> checked;
    const auto assure_checked = [&](const Transformation& t) -> const Checked& {
      const std::int64_t id = id_of(t);
      auto it = checked.find(id);
      if (it != checked.end()) return it->second;
      Checked c{t, score(pr, grouper, t, k), ev.check(t)};
      return checked.emplace(id, std::move(c)).first->second;
    };

    DpRandom random(spec.seed);
    SearchOutcome out;
    out.algorithm = name();
    Transformation pivot = lattice.top();
    const Checked* optimum = &assure_checked(pivot);
    std::uint64_t steps_done = 0;
    JavaHashOrder candidates;
    candidates.put(id_of(pivot));
    std::map<std::int64_t, const Checked*> by_id;
    by_id[id_of(pivot)] = optimum;
    for (std::uint64_t step = 1; step <= spec.steps; ++step) {
      // jhpl lists the predecessors by increasing id: the last attribute
      // lowered first.
      std::vector<Transformation> preds = lattice.predecessors(pivot);
      std::reverse(preds.begin(), preds.end());
      for (const Transformation& p : preds) {
        const std::int64_t id = id_of(p);
        if (candidates.contains(id)) continue;
        by_id[id] = &assure_checked(p);
        candidates.put(id);
      }
      candidates.remove(id_of(pivot));
      if (candidates.empty()) break;
      const std::vector<std::int64_t> order = candidates.order();
      std::vector<double> scores;
      scores.reserve(order.size());
      for (std::int64_t id : order) scores.push_back(by_id.at(id)->score.to_double());
      const Checked* chosen = by_id.at(order[exponential_mechanism(scores, epsilon_step, random)]);
      pivot = chosen->t;
      steps_done = step;
      // trackOptimum: a better score, or an equal one at a lower level.
      const int c = chosen->score.compare(optimum->score);
      if (c > 0 || (c == 0 && rank(chosen->t) < rank(optimum->t))) optimum = chosen;
      ev.set_fraction_done(static_cast<double>(step) / static_cast<double>(spec.steps));
      if (checked.size() >= check_limit) break;
    }
    out.best = optimum->result;
    out.checked = ev.checked();
    out.optimal = false;
    out.time_to_best_seconds = ev.time_to_best_seconds();
    out.statistics["steps"] = steps_done;
    out.statistics["epsilon_per_step"] = epsilon_step;
    out.statistics["score"] = optimum->score.to_double();
    out.statistics["candidate_order_exact"] = candidates.exact() && long_ids;
    return out;
  }

 private:
  // The score of `t`: its classes grouped from the histogram, each with
  // its sampled and all records. The whole table's records are the
  // population's (ARX's getScore reads the input's length). A class is
  // released when it has k sampled records and the job's other privacy
  // models keep it too: ARX's score functions read HashGroupifyEntry's
  // isNotOutlier, which HashGroupify.analyzeAll sets from every model
  // (class-based ones and the sample-based risk models), judged on the
  // sample; suppression is unlimited.
  static ExactFraction score(const Problem& pr, Checker& grouper, const Transformation& t, std::uint64_t k) {
    Classes classes;
    const bool others = pr.privacy.size() > 1;
    if (others)
      grouper.check(t, &classes);
    else
      grouper.group(t, classes);
    std::vector<std::uint64_t> count(classes.size(), 0), population(classes.size(), 0);
    for (std::size_t e = 0; e < classes.entry_class.size(); ++e) {
      count[classes.entry_class[e]] += pr.histogram.counts[e];
      population[classes.entry_class[e]] += pr.histogram.population[e];
    }
    std::vector<ScoreClass> sc(classes.size());
    for (std::size_t c = 0; c < classes.size(); ++c)
      sc[c] = {{classes.keys.data() + c * classes.width, classes.width}, count[c], population[c],
               count[c] >= k && !(others && classes.suppressed[c])};
    return dp_score(pr.quality->name(), pr, t, sc, pr.population_rows, k, classes.entry_class);
  }

  const DifferentialPrivacyModel& model_;
};

}  // namespace

std::unique_ptr<SearchAlgorithm> make_safepub_search(const DifferentialPrivacyModel& model) {
  return std::make_unique<SafePubSearch>(model);
}

}  // namespace deid
