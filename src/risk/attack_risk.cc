// Attack-based risk of papers/003 (see include/deid/attack_risk.h).

#include "deid/attack_risk.h"

#include <cmath>
#include <stdexcept>

namespace deid {
namespace {

void check_sizes(std::span<const std::uint64_t> f, std::span<const std::uint64_t> F) {
  if (!F.empty() && F.size() != f.size())
    throw std::invalid_argument("sample and population class sizes must describe the same classes");
  if (!F.empty())
    for (std::size_t j = 0; j < f.size(); ++j)
      if (f[j] > 0 && F[j] < f[j]) throw std::invalid_argument("a population class is smaller than its sample class");
}

}  // namespace

std::uint64_t k_for_threshold(double tau) {
  if (!(tau > 0) || tau > 1) throw std::invalid_argument("tau must be in (0, 1]");
  // ceil(1/tau) computed in floating point can be one too high when 1/tau
  // is an integer that is not exact in binary; step down while 1/(k-1)
  // still meets the threshold.
  auto k = static_cast<std::uint64_t>(std::ceil(1.0 / tau));
  while (k > 1 && 1.0 / static_cast<double>(k - 1) <= tau * (1 + 1e-12)) --k;
  while (1.0 / static_cast<double>(k) > tau * (1 + 1e-12)) ++k;
  return k;
}

TargetedAttackRisk targeted_attack_risk(std::span<const std::uint64_t> f, std::span<const std::uint64_t> F,
                                        double tau) {
  check_sizes(f, F);
  TargetedAttackRisk out;
  out.k = k_for_threshold(tau);
  out.population_sizes = !F.empty();
  double sum = 0;
  std::uint64_t smallest = 0;
  for (std::size_t j = 0; j < f.size(); ++j) {
    if (f[j] == 0) continue;
    const std::uint64_t pop = F.empty() ? f[j] : F[j];
    out.records += f[j];
    ++out.classes;
    sum += static_cast<double>(f[j]) / static_cast<double>(pop);
    if (smallest == 0 || pop < smallest) smallest = pop;
    if (pop < out.k) {
      out.records_at_risk += f[j];
      ++out.classes_at_risk;
    }
  }
  if (out.records > 0) {
    out.highest_risk = 1.0 / static_cast<double>(smallest);
    out.average_risk = sum / static_cast<double>(out.records);
    out.records_at_risk_fraction = static_cast<double>(out.records_at_risk) / static_cast<double>(out.records);
  }
  return out;
}

RegistryMatchingRisk registry_matching_risk(std::span<const std::uint64_t> f, std::span<const std::uint64_t> F) {
  if (F.size() != f.size()) throw std::invalid_argument("registry matching needs population class sizes");
  check_sizes(f, F);
  RegistryMatchingRisk out;
  for (std::size_t j = 0; j < f.size(); ++j) {
    if (f[j] == 0) continue;
    out.records += f[j];
    out.expected_matches += static_cast<double>(f[j]) / static_cast<double>(F[j]);
  }
  if (out.records > 0) out.proportion = out.expected_matches / static_cast<double>(out.records);
  return out;
}

RegistryMatchingRisk registry_matching_bound(double alpha, std::uint64_t classes, std::uint64_t records) {
  if (!(alpha > 0) || alpha > 1) throw std::invalid_argument("the sampling fraction must be in (0, 1]");
  RegistryMatchingRisk out;
  out.records = records;
  out.expected_matches = alpha * static_cast<double>(classes);
  if (records > 0) out.proportion = out.expected_matches / static_cast<double>(records);
  return out;
}

RegistryPersonRisk registry_person_risk(std::span<const std::uint64_t> C, double tau) {
  RegistryPersonRisk out;
  out.k = k_for_threshold(tau);
  for (std::uint64_t c : C) {
    out.population += c;
    if (c > 0 && c < out.k) out.population_at_risk += c;
  }
  if (out.population > 0)
    out.proportion = static_cast<double>(out.population_at_risk) / static_cast<double>(out.population);
  return out;
}

std::vector<RegistryPersonRisk> registry_person_risk_by_group(std::span<const std::uint64_t> C,
                                                              std::span<const std::uint32_t> group,
                                                              std::uint32_t groups, double tau) {
  if (group.size() != C.size()) throw std::invalid_argument("one group per class is needed");
  std::vector<std::vector<std::uint64_t>> split(groups);
  for (std::size_t j = 0; j < C.size(); ++j) {
    if (group[j] >= groups) throw std::invalid_argument("a group out of range");
    split[group[j]].push_back(C[j]);
  }
  std::vector<RegistryPersonRisk> out;
  for (const auto& s : split) out.push_back(registry_person_risk(s, tau));
  return out;
}

}  // namespace deid
