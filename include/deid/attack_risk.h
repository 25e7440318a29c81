// Attack-based re-identification risk (papers/003, "Possible
// Re-identification Attacks").
//
// A released file (a public use microdata file, PUMF) is a sample of a
// population. Over a set of quasi-identifiers its equivalence classes j have
// size f_j in the file and F_j in the population (papers/003 Figure 1;
// f_j >= 0, F_j > 0). The paper weighs three attacks, with a threshold tau
// on the probability of a correct re-identification and k = ceil(1/tau)
// (k_for_threshold() below); a probability 1/F is above tau
// exactly when F < k, so every test below is on integers.
//
//  attack 1  the adversary matches one person of a public registry (age,
//            sex, province) against the file: the person is re-identified
//            with probability 1/C_j, C_j the size of the person's class in
//            the registry population. Measure (equation 1): the share of the
//            population whose probability exceeds tau,
//            (1/N) * sum_j C_j * I(1/C_j > tau), per province in the paper.
//  attack 2  the adversary matches every record of the file against the
//            registry. A record of class j picks one of the F_j population
//            records of its class at random, and is right with probability
//            1/F_j; the expected number of correct matches is
//            sum_j f_j / F_j (equation 2, as derived in the paper's
//            Additional file 3 for a registry covering the population). As
//            E(f_j) = alpha * F_j for a simple random sample with sampling
//            fraction alpha, it is about alpha * |J| (equation 3, with |J|
//            the number of classes; the paper bounds |J| by the product of
//            the domain sizes, 2 x 20 x 10 = 400, and gets 4 matches).
//  attack 3  the adversary targets one person he knows (a neighbour), finds
//            the class j of the person and picks one of its f_j records:
//            right with probability 1/F_j (papers/003 ref. 134). Without
//            population class sizes, F_j is estimated by the file's own f_j
//            (the prosecutor's view, an upper bound on the risk). This is
//            the attack the paper protects against, by making F_j >= k.
//
// The formulas of equations 1-3 are images in the paper's text; the
// definitions above are reconstructed from its prose and checked against
// its figures (docs/cell-suppression.md, "Attack-based risk"). All
// functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace deid {

// The smallest k with 1/k <= tau: the class size that keeps the risk of a
// targeted re-identification 1/F_j at or below tau (papers/003, "Attack 3";
// tau 0.05 gives 20, 0.04 gives 25). Robust to 1/tau not being exact in
// binary (1/0.05 is 19.999...). REQUIRES: 0 < tau <= 1.
std::uint64_t k_for_threshold(double tau);

// Attack 3, the targeted attack.
struct TargetedAttackRisk {
  std::uint64_t k = 0;                 // ceil(1/tau)
  std::uint64_t records = 0;           // n = sum of f_j
  std::uint64_t classes = 0;           // classes with f_j > 0
  double highest_risk = 0;             // max over those classes of 1/F_j (0 without records)
  double average_risk = 0;             // (1/n) sum_j f_j / F_j: a random record's risk
  std::uint64_t records_at_risk = 0;   // sum of f_j over classes with F_j < k
  double records_at_risk_fraction = 0;
  std::uint64_t classes_at_risk = 0;   // classes with f_j > 0 and F_j < k
  bool population_sizes = false;       // F_j from population counts (else F_j = f_j)
  bool meets_threshold() const { return classes_at_risk == 0; }
};

// `sample_sizes` f_j per class; `population_sizes` F_j per class (same
// classes, same order) or empty to use f_j. Classes with f_j = 0 are
// skipped. Throws std::invalid_argument when the spans differ in length,
// when some F_j < f_j (a population holds its sample), or tau is not in
// (0, 1].
TargetedAttackRisk targeted_attack_risk(std::span<const std::uint64_t> sample_sizes,
                                        std::span<const std::uint64_t> population_sizes, double tau);

// Attack 2, matching every record of the file against a registry.
struct RegistryMatchingRisk {
  std::uint64_t records = 0;     // n
  double expected_matches = 0;   // expected number of correct matches
  double proportion = 0;         // expected_matches / n
};

// Equation 2: sum_j f_j / F_j with population class sizes. Same
// requirements as targeted_attack_risk().
RegistryMatchingRisk registry_matching_risk(std::span<const std::uint64_t> sample_sizes,
                                            std::span<const std::uint64_t> population_sizes);

// Equation 3: alpha * classes expected matches among `records` records.
// REQUIRES: 0 < alpha <= 1.
RegistryMatchingRisk registry_matching_bound(double alpha, std::uint64_t classes, std::uint64_t records);

// Attack 1, one registry person matched against the file.
struct RegistryPersonRisk {
  std::uint64_t k = 0;
  std::uint64_t population = 0;          // N = sum of C_j
  std::uint64_t population_at_risk = 0;  // sum of C_j over classes with C_j < k
  double proportion = 0;                 // equation 1
};

// Equation 1 over the registry population's class sizes C_j (zeros are
// skipped).
RegistryPersonRisk registry_person_risk(std::span<const std::uint64_t> population_sizes, double tau);

// Equation 1 per group (the paper computes it for every province): `group`
// gives each class's group in [0, groups). Returns one result per group.
std::vector<RegistryPersonRisk> registry_person_risk_by_group(std::span<const std::uint64_t> population_sizes,
                                                              std::span<const std::uint32_t> group,
                                                              std::uint32_t groups, double tau);

}  // namespace deid
