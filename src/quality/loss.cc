#include "quality/loss.h"

#include <fmt/format.h>

#include <algorithm>

#include "deid/check.h"
#include "deid/problem.h"

namespace deid {

LossModel::LossModel(Aggregate aggregate, double gs_factor)
    : aggregate_(aggregate),
      gs_factor_(gs_factor),
      // ARX: gs-factor 0.5 weighs both equally; below it generalization
      // counts less, above it suppression counts less.
      g_factor_(gs_factor <= 0.5 ? 2.0 * gs_factor : 1.0),
      s_factor_(gs_factor <= 0.5 ? 1.0 : 2.0 * (1.0 - gs_factor)) {}

std::string LossModel::describe() const {
  return fmt::format("Loss ({}/{}/{})", gs_factor_, g_factor_, s_factor_);
}

QualityValue LossModel::compute(const Problem& problem, const Transformation& t, const Classes& classes,
                                bool with_suppression) const {
  const std::uint32_t w = classes.width;
  const double n = static_cast<double>(problem.rows);
  QualityValue out;
  out.per_attribute.resize(w);
  for (std::uint32_t q = 0; q < w; ++q) {
    const Generalization& h = problem.hierarchies[q];
    const double rows_h = static_cast<double>(h.hierarchy_rows());
    double sum = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const double count = static_cast<double>(classes.counts[c]);
      if (with_suppression && classes.suppressed[c]) {
        sum += count * s_factor_;
      } else {
        const double share = static_cast<double>(h.leaves(t[q], classes.keys[c * w + q])) / rows_h;
        sum += count * share * g_factor_;
      }
    }
    const double min = n / rows_h;
    const double v = n - min > 0 ? (sum - min) / (n - min) : 0.0;
    out.per_attribute[q] = std::max(0.0, v);
  }
  out.value = deid::aggregate(aggregate_, out.per_attribute);
  return out;
}

QualityValue LossModel::evaluate(const Problem& problem, const Transformation& t, const Classes& classes) const {
  return compute(problem, t, classes, true);
}

double LossModel::lower_bound(const Problem& problem, const Transformation& t, const Classes& classes) const {
  return compute(problem, t, classes, false).value;
}

}  // namespace deid
