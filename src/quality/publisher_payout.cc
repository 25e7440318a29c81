#include "quality/publisher_payout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "deid/check.h"
#include "deid/problem.h"
#include "quality/arx_conventions.h"
#include "quality/payout.h"
#include "quality/problem_cache.h"

namespace deid {

PublisherPayoutModel::PublisherPayoutModel(double gs_factor, const CostBenefitSpec& cost_benefit, bool journalist)
    : journalist_(journalist), cost_benefit_(cost_benefit) {
  const quality::GsWeights w = quality::gs_weights(gs_factor);
  generalization_ = w.generalization;
  suppression_ = w.suppression;
}

std::string PublisherPayoutModel::describe() const {
  return fmt::format("PublisherBenefit ({}, Benefit={})", journalist_ ? "Journalist" : "Prosecutor",
                     quality::java_double(cost_benefit_.publisher_benefit));
}

double PublisherPayoutModel::term(const Problem& problem, const Transformation& t, const Classes& classes,
                                  std::size_t c, double max_loss) const {
  if (classes.counts[c] == 0) return 0;  // no record of the research subset (ARX: entry.count > 0)
  const double count = static_cast<double>(classes.counts[c]);
  const double benefit = cost_benefit_.publisher_benefit;
  if (classes.suppressed[c]) return suppression_ * count * benefit;
  const std::uint32_t w = classes.width;
  const double loss = quality::entropy_based_loss(problem, t, {classes.keys.data() + c * w, w}, max_loss);
  // ARX's MetricSDNMPublisherPayout.getSuccessProbability.
  double success = 1.0 / count;
  if (journalist_) {
    if (!classes.distributions)
      throw std::logic_error("publisher-payout (journalist) needs the classes' population counts");
    const std::uint64_t population = class_population(problem, *classes.distributions, c);
    if (population != 0) success = 1.0 / static_cast<double>(population);
  }
  const double payout = quality::publisher_payout(cost_benefit_, loss, success);
  return generalization_ * count * (benefit - payout);
}

QualityValue PublisherPayoutModel::evaluate(const Problem& problem, const Transformation& t,
                                            const Classes& classes) const {
  const double max_loss = quality::max_entropy_based_loss(problem);
  // Added as fixed-point numbers (2^-40 units, in a 128-bit integer): the
  // sum does not depend on the order of the classes, which differs between
  // a rolled-up and a grouped check. (Sorting the classes by key instead
  // took 41 % of an adult search.) A term is at most n * benefit, so the
  // rounding to 2^-40 changes the total by at most n * 2^-41.
  __int128 sum = 0;
  for (std::size_t c = 0; c < classes.size(); ++c)
    sum += static_cast<__int128>(std::nearbyint(std::ldexp(term(problem, t, classes, c, max_loss), 40)));
  const double real = std::ldexp(static_cast<double>(sum), -40);
  QualityValue out;
  out.value = real;
  return out;
}

double PublisherPayoutModel::lower_bound(const Problem& problem, const Transformation& t, const Classes&) const {
  if (suppression_ < generalization_) return 0.0;
  const double max_loss = quality::max_entropy_based_loss(problem);
  if (max_loss == 0 || !std::isfinite(max_loss)) return 0.0;
  const auto table = log_shares_.get(problem, [](const Problem& p) {
    LogShares out(p.hierarchies.size());
    for (std::size_t q = 0; q < p.hierarchies.size(); ++q) {
      const Generalization& h = p.hierarchies[q];
      const std::vector<std::uint64_t> frequencies = quality::value_frequencies(p, q);
      const double rows = static_cast<double>(h.hierarchy_rows());
      for (int level = 0; level < h.height(); ++level) {
        double sum = 0;
        for (std::size_t v = 0; v < frequencies.size(); ++v)
          if (frequencies[v] != 0)
            sum += static_cast<double>(frequencies[v]) *
                   std::log10(static_cast<double>(h.leaves(level, h.map(level)[v])) / rows);
        out[q].push_back(sum);
      }
    }
    return out;
  });
  double logs = 0;
  for (std::size_t q = 0; q < table->size(); ++q) logs += (*table)[q][static_cast<std::size_t>(t[q])];
  const double records_loss = std::max(0.0, static_cast<double>(problem.rows) + logs / max_loss);
  return generalization_ * cost_benefit_.publisher_benefit * records_loss * (1.0 - 1e-9);
}

double PublisherPayoutModel::class_loss(const Problem& problem, const Transformation& t, const Classes& classes,
                                        std::size_t c) const {
  return term(problem, t, classes, c, quality::max_entropy_based_loss(problem));
}

double PublisherPayoutModel::arx_value(const Problem& problem, const Transformation& t, const Classes& classes) const {
  const double max_loss = quality::max_entropy_based_loss(problem);
  double real = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) real += term(problem, t, classes, c, max_loss);
  return real;
}

double PublisherPayoutModel::arx_bound(const Problem& problem, const Transformation& t, const Classes* classes) const {
  if (!classes) return 0.0;
  const double max_loss = quality::max_entropy_based_loss(problem);
  const double benefit = cost_benefit_.publisher_benefit;
  const std::uint32_t w = classes->width;
  double bound = 0;
  for (std::size_t c = 0; c < classes->size(); ++c) {
    if (classes->counts[c] == 0) continue;
    const double loss = quality::entropy_based_loss(problem, t, {classes->keys.data() + c * w, w}, max_loss);
    bound += generalization_ * static_cast<double>(classes->counts[c]) *
             (benefit - quality::publisher_payout(cost_benefit_, loss, 0.0));
  }
  return bound;
}

}  // namespace deid
