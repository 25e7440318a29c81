// Sample-based risks (papers/002, VI-C) as ARX 3.9.2 computes them:
// RiskModelSampleRisks, RiskModelSampleSummary without a population table,
// RiskModelSampleRiskDistribution.
#include <algorithm>
#include <array>

#include "deid/risk.h"

namespace deid {

SampleRisks sample_risks(const ClassSizeFrequencies& freq) {
  SampleRisks r;
  if (freq.empty()) return r;
  const double n = static_cast<double>(freq.records());
  const auto& [smallest, smallest_count] = freq.sizes.front();
  const auto& [largest, largest_count] = freq.sizes.back();
  r.highest_risk = 1.0 / static_cast<double>(smallest);
  r.lowest_risk = 1.0 / static_cast<double>(largest);
  r.average_risk = static_cast<double>(freq.classes()) / n;
  r.records_affected_by_highest_risk = smallest * smallest_count;
  r.records_affected_by_lowest_risk = largest * largest_count;
  r.fraction_affected_by_highest_risk = static_cast<double>(r.records_affected_by_highest_risk) / n;
  r.fraction_affected_by_lowest_risk = static_cast<double>(r.records_affected_by_lowest_risk) / n;
  return r;
}

AttackerRisks attacker_risks(const ClassSizeFrequencies& freq, double threshold) {
  AttackerRisks r;
  r.threshold = threshold;
  if (freq.empty()) return r;
  const double n = static_cast<double>(freq.records());
  double at_risk = 0;
  for (const auto& [size, count] : freq.sizes)
    if (1.0 / static_cast<double>(size) > threshold) at_risk += static_cast<double>(size * count);
  AttackerRisks::Model m;
  m.records_at_risk = at_risk / n;
  m.highest_risk = 1.0 / static_cast<double>(freq.sizes.front().first);
  m.success_rate = static_cast<double>(freq.classes()) / n;
  // Without a population table the journalist's classes are the sample's.
  r.prosecutor = m;
  r.journalist = m;
  r.marketer_success_rate = m.success_rate;
  return r;
}

std::vector<RiskProfileBin> risk_profile(const ClassSizeFrequencies& freq) {
  // ARX's bin limits: a record with risk r falls into the first bin whose
  // upper limit is >= r.
  static constexpr std::array<double, 24> upper = {1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3,  0.01,  0.02,
                                                   0.03, 0.04, 0.05, 0.06, 0.07, 0.08,  0.09,  0.1,
                                                   0.125, 0.143, 0.167, 0.2, 0.25, 0.334, 0.5, 1.0};
  std::vector<RiskProfileBin> bins(upper.size());
  for (std::size_t i = 0; i < upper.size(); ++i) {
    bins[i].lower = i == 0 ? 0.0 : upper[i - 1];
    bins[i].upper = upper[i];
  }
  if (freq.empty()) return bins;
  const double n = static_cast<double>(freq.records());
  for (const auto& [size, count] : freq.sizes) {
    const double risk = 1.0 / static_cast<double>(size);
    const auto it = std::lower_bound(upper.begin(), upper.end(), risk);
    bins[static_cast<std::size_t>(it - upper.begin())].records += static_cast<double>(size * count) / n;
  }
  double cumulative = 0;
  for (auto& b : bins) {
    cumulative += b.records;
    b.cumulative = cumulative;
  }
  return bins;
}

PrefixSearch find_suppression_prefix(std::size_t candidates,
                                     const std::function<ProbeState(std::size_t prefix)>& probe) {
  // Binary search for the first cut-off whose probe is fulfilled (papers/002,
  // VI-G). Index i stands for prefix i+1; the probe sequence is ARX's: low,
  // high and mid as in suppressWhileNotFulfilledBinary, so that the same
  // cut-offs are evaluated in the same order.
  PrefixSearch out;
  std::size_t lo = 0, hi = candidates;  // indices still undecided: [lo, hi)
  while (lo < hi) {
    const std::size_t mid = lo + (hi - 1 - lo) / 2;  // ARX: (low + high) / 2 with high = hi - 1
    ++out.probes;
    const ProbeState s = probe(mid + 1);
    if (s == ProbeState::abort) {
      out.aborted = true;
      return out;
    }
    if (s == ProbeState::fulfilled) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  // lo is the first index known to be fulfilled (every index below it was
  // probed unfulfilled); ARX's final re-check of that state is redundant
  // for a deterministic probe.
  out.prefix = std::min(lo + 1, candidates);
  return out;
}

PrefixSearch find_suppression_prefix_linear(std::size_t candidates,
                                            const std::function<ProbeState(std::size_t prefix)>& probe) {
  PrefixSearch out;
  for (std::size_t p = 1; p <= candidates; ++p) {
    ++out.probes;
    const ProbeState s = probe(p);
    if (s == ProbeState::abort) {
      out.aborted = true;
      return out;
    }
    if (s == ProbeState::fulfilled) {
      out.prefix = p;
      return out;
    }
  }
  out.prefix = candidates;
  return out;
}

}  // namespace deid
