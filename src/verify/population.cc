// The models that need the input as the population, and the dataset-level
// risks (release_check.h): δ-presence and the population's class sizes
// (with a research subset), profitability, population uniqueness, average
// risk and sample uniqueness.
#include <algorithm>
#include <cmath>

#include "release_check.h"

namespace verify {

void ReleaseCheck::check_population() {
  // Against the population (the input): each input record's class at the
  // detected levels, from the hierarchies.
  const bool journalist = options.profitability && options.profitability->journalist;
  if (with_subset && (options.delta_presence || options.population_k > 0 || journalist) && aligned && all_levels &&
      options.subset.size() == input.rows.size()) {
    std::vector<std::string> generalized(output.header.size());
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t q = 0; q < qis.size(); ++q)
        if (qi_out[q] >= 0) generalized[qi_out[q]] = (*hier[q].at(input.rows[r][qi_in[q]]))[*report.levels[q]];
      auto [it, inserted] = population.try_emplace(class_key(generalized, qi_out));
      if (inserted) it->second.first_row = r;
      ++it->second.records;
      it->second.subset += !outside(r);
    }
    std::uint64_t shares = 0, small_population = 0;
    std::size_t first_share = rows, first_small = rows;
    std::string share_why, small_why;
    for (const auto& [key, p] : population) {
      const auto released = classes.find(key);
      if (options.delta_presence) {
        const DeltaPresence& d = *options.delta_presence;
        // A released class: its records in the subset; a class without
        // subset records: share 0, asked unless judged too small first.
        const bool asked = released != classes.end() || (p.subset == 0 && !d.judged_too_small_first);
        const double share = p.subset == 0 ? 0.0 : static_cast<double>(p.subset) / static_cast<double>(p.records);
        if (asked && (share < d.min || share > d.max)) {
          ++shares;
          if (p.first_row < first_share) {
            first_share = p.first_row;
            share_why = std::to_string(p.subset) + " of its " + std::to_string(p.records) +
                        " input records in the subset (share " + std::to_string(share) + ")";
          }
        }
      }
      if (options.population_k > 0 && released != classes.end() && p.records < options.population_k) {
        ++small_population;
        if (released->second.first_row < first_small) {
          first_small = released->second.first_row;
          small_why = std::to_string(p.records);
        }
      }
    }
    if (shares)
      add(Kind::delta_presence, {}, first_share + 1, shares,
          std::to_string(shares) + " class(es) of the input have a share of subset records outside [" +
              std::to_string(options.delta_presence->min) + ", " + std::to_string(options.delta_presence->max) +
              "]; the first (data row " + std::to_string(first_share + 1) + ") has " + share_why);
    if (small_population)
      add(Kind::population_class_too_small, {}, first_small + 1, small_population,
          std::to_string(small_population) + " released class(es) have fewer than " +
              std::to_string(options.population_k) + " records in the input (the population); the first, " +
              describe_tuple(output.rows[first_small], qi_out, qis) + ", has " + small_why);
  }
}

void ReleaseCheck::check_profitability() {
  if (options.profitability && aligned && all_levels) {
    const Profitability& pf = *options.profitability;
    // Per quasi-identifier: the hierarchy's rows by their value at the
    // detected level (ARX's DomainShareMaterialized), and the log10 of the
    // product of the hierarchies' row counts (the largest loss).
    std::vector<std::unordered_map<std::string, std::uint64_t>> under(qis.size());
    double all_rows = 1.0;
    for (std::size_t q = 0; q < qis.size(); ++q) {
      const auto level = static_cast<std::size_t>(*report.levels[q]);
      for (const auto& row : hierarchies[q].rows)
        if (level < row.size()) ++under[q][row[level]];
      all_rows *= static_cast<double>(hierarchies[q].rows.size());
    }
    const double max_loss = std::log10(all_rows);
    std::uint64_t unprofitable = 0;
    std::size_t first = rows;
    std::string why;
    for (const auto& [key, info] : classes) {
      const std::vector<std::string>& row = output.rows[info.first_row];
      // The all-'*' class reads the same released or suppressed (and the
      // engine suppresses it: its loss is 1, its payout at most 0).
      if (starred[info.first_row]) continue;
      double product = 1.0;
      for (std::size_t q = 0; q < qis.size(); ++q) {
        if (qi_out[q] < 0) continue;
        const auto it = under[q].find(row[qi_out[q]]);
        product *= static_cast<double>(it == under[q].end() ? 0 : it->second) /
                   static_cast<double>(hierarchies[q].rows.size());
      }
      double loss = 0.0;
      if (max_loss != 0 && std::isfinite(max_loss)) loss = std::clamp(std::log10(product) / max_loss + 1.0, 0.0, 1.0);
      double success = 1.0 / static_cast<double>(info.size);
      if (pf.journalist) {
        const auto p = population.find(class_key(row, qi_out));
        if (p != population.end() && p->second.records != 0) success = 1.0 / static_cast<double>(p->second.records);
      }
      const double adversary = pf.adversary_gain * success - pf.adversary_cost;
      const double payout = pf.publisher_benefit * (1.0 - loss) - (adversary > 0 ? pf.publisher_loss * success : 0.0);
      if (payout > 0) continue;
      ++unprofitable;
      if (info.first_row < first) {
        first = info.first_row;
        why = std::to_string(payout) + " (information loss " + std::to_string(loss) + ", success probability " +
              std::to_string(success) + ")";
      }
    }
    if (unprofitable)
      add(Kind::unprofitable_class, {}, first + 1, unprofitable,
          std::to_string(unprofitable) + " released class(es) have a publisher payout of 0 or less; the first, " +
              describe_tuple(output.rows[first], qi_out, qis) + ", has " + why);
  }
}

void ReleaseCheck::check_dataset_risk() {
  if (options.population_uniqueness || options.average_risk || options.sample_uniqueness) {
    ClassSizes sizes;
    for (const auto& [key, info] : classes) ++sizes[info.size];
    const std::uint64_t uniques = sizes.count(1) ? sizes.at(1) : 0;
    long double value = 0;
    std::string why;
    if (options.population_uniqueness) {
      if (!population_uniqueness_holds(*options.population_uniqueness, sizes, &value, &why))
        add(Kind::population_uniqueness, {}, 0, uniques, why);
      report.population_uniqueness = static_cast<double>(value);
    }
    if (options.average_risk) {
      if (!average_risk_holds(*options.average_risk, sizes, &value, &why)) add(Kind::average_risk, {}, 0, 0, why);
      report.average_risk = static_cast<double>(value);
    }
    if (options.sample_uniqueness) {
      if (!sample_uniqueness_holds(*options.sample_uniqueness, sizes, &value, &why))
        add(Kind::sample_uniqueness, {}, 0, uniques, why);
      report.sample_uniqueness = static_cast<double>(value);
    }
  }
}

}  // namespace verify
