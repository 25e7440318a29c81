// ARX's genetic algorithm (GeneticAlgorithm, GeneticAlgorithmSubpopulation;
// ARX 3.9.2's BEST_EFFORT_GENETIC), after the semantics of ARX's source.
//
// Two subpopulations of k = quasi-identifiers + subpopulation-size
// individuals (transformations). The first starts with a "triangle"
// (individual i < quasi-identifiers: attributes 0..i at their maximum
// level, the others at their minimum), then random individuals; the second
// is random. A random level of attribute j is min_j + round(u (max_j -
// min_j)), u uniform in [0, 1). Each of `iterations` generations sorts
// both by loss (stable, ascending: the fittest first); every
// immigration-interval generations each moves its fittest to the other
// (ARX computes their number as (int) immigration-fraction × k, which is 0
// for any fraction below 1, and so does deid), and sorts again. Then each
// subpopulation, in turn:
//
// - crossover: ceil(crossover-fraction × k) children, each with levels
//   taken attribute by attribute from one of two parents (u < 0.5: the
//   first), parents drawn by fitness among the ceil(production-fraction ×
//   k) fittest (probability ∝ 1 − (loss − min) / (max − min), commons-math's
//   EnumeratedDistribution); child c replaces the individual at k − c − 1;
// - mutation: the individuals from ceil(elite-fraction × k) up to before
//   the children are replaced by mutants of random members of the
//   generation's old population: up to ceil(mutation-probability ×
//   quasi-identifiers) attributes (a uniform number of them, picked by a
//   shuffle) get a random level.
//
// The elite stays. Every individual is checked once (later visits read the
// result); the release is ARX's optimum (search/heuristic.h). The random
// numbers are java.util.Random's for the job's seed (ARX's deterministic
// mode: 0xDEADBEEF), drawn in ARX's order, so a seed gives ARX's run and
// the same run for any thread count. Stops early when the evaluator is
// exhausted, where ARX tests mustStop().
#include <algorithm>
#include <cmath>
#include <numeric>

#include "privacy/java_random.h"
#include "search/heuristic.h"

namespace deid {
namespace {

using search_internal::HeuristicChecks;

struct Individual {
  Transformation levels;
  double loss = 0;
};
using Population = std::vector<Individual>;

// Java's Math.round for x >= 0: the nearest integer, halves up.
std::int64_t java_round(double x) {
  const double f = std::floor(x);
  return static_cast<std::int64_t>(x - f >= 0.5 ? f + 1 : f);
}

// java.util.Arrays.binarySearch(double[], key) (keys compared as numbers,
// equal ones by their bits; no NaN arises here).
std::ptrdiff_t java_binary_search(const std::vector<double>& a, double key) {
  std::ptrdiff_t low = 0, high = static_cast<std::ptrdiff_t>(a.size()) - 1;
  while (low <= high) {
    const std::ptrdiff_t mid = (low + high) / 2;
    if (a[static_cast<std::size_t>(mid)] < key)
      low = mid + 1;
    else if (a[static_cast<std::size_t>(mid)] > key)
      high = mid - 1;
    else
      return mid;
  }
  return -(low + 1);
}

class GeneticSearch final : public SearchAlgorithm {
 public:
  explicit GeneticSearch(GeneticSpec spec) : spec_(spec), random_(spec.seed) {}

  std::string name() const override { return "genetic"; }

  SearchOutcome run(Evaluator& ev) override {
    HeuristicChecks hc(ev);
    hc_ = &hc;
    random_.set_seed(spec_.seed);  // each run from the seed
    const Lattice& lattice = hc.lattice();
    const std::size_t m = lattice.dimensions();
    min_ = lattice.bottom();
    max_ = lattice.top();
    const std::size_t k = m + static_cast<std::size_t>(spec_.subpopulation_size);
    const auto immigrants = static_cast<std::size_t>(std::floor(spec_.immigration_fraction)) * k;
    std::uint64_t generations = 0;
    const auto finish = [&](bool stopped) {
      SearchOutcome out = hc.outcome(name(), stopped);
      out.statistics["generations"] = generations;
      out.statistics["subpopulation_individuals"] = k;
      out.statistics["seed"] = spec_.seed;
      return out;
    };

    // Both initial subpopulations are drawn first (the run ends where the
    // limit stops it, so no later draw depends on where that is), checked
    // ahead of time, then taken in order.
    std::vector<Transformation> initial;
    for (std::size_t i = 0; i < 2 * k; ++i) {
      Transformation t(m);
      if (i < m) {
        for (std::size_t j = 0; j < m; ++j) t[j] = j <= i ? max_[j] : min_[j];
      } else {
        for (std::size_t j = 0; j < m; ++j) t[j] = random_level(j);
      }
      initial.push_back(std::move(t));
    }
    prefetch(initial);
    Population z1, z2;
    for (std::size_t i = 0; i < 2 * k; ++i) {
      if (hc.must_stop()) return finish(true);
      (i < k ? z1 : z2).push_back(individual(std::move(initial[i])));
    }
    for (std::uint64_t g = 0; g < spec_.iterations; ++g) {
      sort(z1);
      sort(z2);
      if (g % spec_.immigration_interval == 0) {
        move_fittest(z1, z2, immigrants);
        move_fittest(z2, z1, immigrants);
        sort(z1);
        sort(z2);
      }
      // As ARX: the second runs even when the first was stopped (it then
      // stops at its first test, or after one mutant without crossovers).
      iterate(z1);
      iterate(z2);
      if (hc.must_stop()) return finish(true);
      generations = g + 1;
    }
    return finish(false);
  }

 private:
  std::uint8_t random_level(std::size_t j) {
    const double span = static_cast<double>(max_[j] - min_[j]);
    return static_cast<std::uint8_t>(min_[j] + java_round(random_.next_double() * span));
  }

  Individual individual(Transformation t) {
    const double loss = hc_->get(t).loss;
    return Individual{std::move(t), loss};
  }

  // Ascending loss, stable (Java's List.sort is a stable merge sort).
  static void sort(Population& p) {
    std::stable_sort(p.begin(), p.end(), [](const Individual& a, const Individual& b) { return a.loss < b.loss; });
  }

  static void move_fittest(Population& from, Population& to, std::size_t count) {
    count = std::min(count, from.size());
    for (std::size_t i = 0; i < count; ++i) {
      to.push_back(std::move(from.front()));
      from.erase(from.begin());
    }
  }

  // `count` parents drawn by fitness among the first `range` of `p`
  // (GeneticAlgorithm.getRandomIndividuals with commons-math's
  // EnumeratedDistribution: weights normalized by their sum, accumulated,
  // and a draw u answered by the first cumulative weight above it).
  std::vector<std::size_t> parents(const Population& p, std::size_t range, std::size_t count) {
    double lo = 0, hi = 0;
    for (std::size_t i = 0; i < range; ++i) {
      if (i == 0 || p[i].loss < lo) lo = p[i].loss;
      if (i == 0 || p[i].loss > hi) hi = p[i].loss;
    }
    std::vector<double> weights(range);
    double sum = 0;
    for (std::size_t i = 0; i < range; ++i) {
      const double relative = hi - lo == 0 ? 0.0 : (p[i].loss - lo) / (hi - lo);
      weights[i] = 1.0 - relative;
      sum += weights[i];
    }
    std::vector<double> cumulative(range);
    double acc = 0;
    for (std::size_t i = 0; i < range; ++i) {
      acc += weights[i] * 1.0 / sum;
      cumulative[i] = acc;
    }
    std::vector<std::size_t> out(count);
    for (std::size_t c = 0; c < count; ++c) {
      const double u = random_.next_double();
      std::ptrdiff_t index = java_binary_search(cumulative, u);
      if (index < 0) index = -index - 1;
      const auto at = static_cast<std::size_t>(index);
      out[c] = at < range && u < cumulative[at] ? at : range - 1;
    }
    return out;
  }

  // One generation of `p` (GeneticAlgorithm.iterateSubpopulation); stops
  // where the limit is reached.
  void iterate(Population& p) {
    const Population old = p;
    const std::size_t k = p.size(), m = min_.size();
    const auto crossovers = static_cast<std::size_t>(std::ceil(spec_.crossover_fraction * static_cast<double>(k)));
    const auto elite = static_cast<std::size_t>(std::ceil(spec_.elite_fraction * static_cast<double>(k)));
    const auto production = static_cast<std::size_t>(std::ceil(spec_.production_fraction * static_cast<double>(k)));
    const std::vector<std::size_t> first = parents(p, production, crossovers);
    const std::vector<std::size_t> second = parents(p, production, crossovers);
    // The parents are read from the population as it was when drawn.
    std::vector<Transformation> first_levels, second_levels;
    for (std::size_t c = 0; c < crossovers; ++c) {
      first_levels.push_back(p[first[c]].levels);
      second_levels.push_back(p[second[c]].levels);
    }
    // The children and mutants are drawn first, each with the generator's
    // state after its draws, and checked ahead of time (prefetch); then
    // taken in ARX's order. Where the limit stops the generation, the
    // generator goes back to the state ARX's run has there (the second
    // subpopulation still draws from it).
    std::vector<Transformation> drawn;
    std::vector<JavaRandom> after;
    for (std::size_t c = 0; c < crossovers; ++c) {
      Transformation child(m);
      for (std::size_t i = 0; i < m; ++i)
        child[i] = (random_.next_double() < 0.5 ? first_levels[c] : second_levels[c])[i];
      drawn.push_back(std::move(child));
      after.push_back(random_);
    }
    for (std::size_t i = elite; i + crossovers < k; ++i) {
      const Individual& parent = old[static_cast<std::size_t>(random_.next_int(static_cast<std::int32_t>(k)))];
      drawn.push_back(mutant(parent.levels));
      after.push_back(random_);
    }
    prefetch(drawn);
    for (std::size_t c = 0; c < crossovers; ++c) {
      if (hc_->must_stop()) {
        random_ = after[c];
        return;
      }
      p[k - c - 1] = individual(std::move(drawn[c]));
    }
    for (std::size_t i = elite, d = crossovers; i + crossovers < k; ++i, ++d) {
      p[i] = individual(std::move(drawn[d]));
      if (hc_->must_stop()) {
        random_ = after[d];
        return;
      }
    }
  }

  // GeneticAlgorithm.getMutatedIndividual's levels.
  Transformation mutant(Transformation t) {
    const std::size_t m = t.size();
    const auto most = static_cast<std::int32_t>(std::ceil(spec_.mutation_probability * static_cast<double>(m)));
    const auto mutations = static_cast<std::size_t>(random_.next_int(most + 1));
    // Collections.shuffle(list, random) on 0 .. m-1.
    std::vector<std::size_t> order(m);
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = m; i > 1; --i)
      std::swap(order[i - 1], order[static_cast<std::size_t>(random_.next_int(static_cast<std::int32_t>(i)))]);
    for (std::size_t i = 0; i < mutations; ++i) t[order[i]] = random_level(order[i]);
    return t;
  }

  // Computes the checks of the unknown ones among `ts` ahead of time,
  // concurrently (Evaluator::prefetch): results and counts are those of the
  // checks one by one, which take them.
  void prefetch(const std::vector<Transformation>& ts) {
    std::vector<Transformation> unknown;
    for (const Transformation& t : ts)
      if (!hc_->find(hc_->lattice().index(t))) unknown.push_back(t);
    if (unknown.size() > 1) hc_->evaluator().prefetch(unknown);
  }

  GeneticSpec spec_;
  JavaRandom random_;
  HeuristicChecks* hc_ = nullptr;
  Transformation min_, max_;
};

}  // namespace

std::unique_ptr<SearchAlgorithm> make_genetic_search(const GeneticSpec& spec) {
  return std::make_unique<GeneticSearch>(spec);
}

}  // namespace deid
