#include "privacy/frequency_bounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "deid/problem.h"
#include "privacy/models.h"
#include "privacy/t_closeness.h"

namespace deid {

FrequencyBound::FrequencyBound(std::string attribute, std::size_t index,
                               const std::vector<std::uint64_t>& reference_counts)
    : attribute_(std::move(attribute)), index_(index) {
  std::uint64_t records = 0;
  for (std::uint64_t c : reference_counts) records += c;
  table_share_.reserve(reference_counts.size());
  for (std::uint64_t c : reference_counts)
    table_share_.push_back(static_cast<double>(c) / static_cast<double>(records));
}

// --- delta-disclosure -------------------------------------------------------

std::string DeltaDisclosure::describe() const {
  return fmt::format("{}-disclosure privacy for '{}'", delta_, attribute_);
}

nlohmann::json DeltaDisclosure::to_json() const {
  return {{"model", "delta-disclosure"}, {"attribute", attribute_}, {"delta", delta_}};
}

bool DeltaDisclosure::holds(const ClassView& cls) const {
  // As ARX computes it: log2 as ln x / ln 2, and a value at the bound fails.
  static const double kLn2 = std::log(2.0);
  const ClassView::Distribution& d = cls.sensitive[index_];
  const double count = static_cast<double>(cls.count);
  for (std::size_t i = 0; i < d.codes.size(); ++i) {
    const double in_class = static_cast<double>(d.counts[i]) / count;
    if (std::abs(std::log(in_class / table_share_[d.codes[i]]) / kLn2) >= delta_) return false;
  }
  return true;
}

// --- beta-likeness ----------------------------------------------------------

BetaLikeness::BetaLikeness(std::string attribute, std::size_t index, const std::vector<std::uint64_t>& reference_counts,
                           double beta, Variant variant, bool suppression)
    : FrequencyBound(std::move(attribute), index, reference_counts),
      beta_(beta),
      variant_(variant),
      suppression_(suppression) {
  bound_.reserve(table_share_.size());
  for (double p : table_share_)
    bound_.push_back(variant_ == Variant::basic ? beta_ : std::min(beta_, -std::log(p)));
}

std::string BetaLikeness::describe() const {
  return fmt::format("{}-{}-likeness for '{}'", variant_ == Variant::basic ? "basic" : "enhanced", beta_, attribute_);
}

nlohmann::json BetaLikeness::to_json() const {
  return {{"model", "beta-likeness"},
          {"attribute", attribute_},
          {"variant", variant_ == Variant::basic ? "basic" : "enhanced"},
          {"beta", beta_}};
}

bool BetaLikeness::holds(const ClassView& cls) const {
  const ClassView::Distribution& d = cls.sensitive[index_];
  const double count = static_cast<double>(cls.count);
  for (std::size_t i = 0; i < d.codes.size(); ++i) {
    const double p = table_share_[d.codes[i]];
    const double in_class = static_cast<double>(d.counts[i]) / count;
    if ((in_class - p) / p > bound_[d.codes[i]]) return false;
  }
  return true;
}

// --- factories --------------------------------------------------------------

std::unique_ptr<PrivacyModel> make_delta_disclosure(const DeltaDisclosureSpec& spec, const Problem& problem) {
  const std::size_t index = sensitive_index(problem, spec.attribute, "delta-disclosure");
  return std::make_unique<DeltaDisclosure>(spec.attribute, index, reference_counts(problem, index), spec.delta);
}

std::unique_ptr<PrivacyModel> make_beta_likeness(const BetaLikenessSpec& spec, const Problem& problem) {
  const std::size_t index = sensitive_index(problem, spec.attribute, "beta-likeness");
  return std::make_unique<BetaLikeness>(spec.attribute, index, reference_counts(problem, index), spec.beta,
                                        spec.variant, problem.max_suppressed > 0);
}

}  // namespace deid
