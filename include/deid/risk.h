// Re-identification risk of a table, estimated from the sizes of its
// equivalence classes (papers/002, sections VI-C, VI-D and VIII).
//
// Everything here works on class-size frequencies: how many classes of each
// size the table has over its quasi-identifiers. Suppressed records are
// ignored, as ARX ignores them (RiskModelHistogram): they form no class and
// do not count in the number of records n. The measures are those of ARX
// 3.9.2, with ARX's definitions (docs/risk-models.md gives every formula):
//
//  - sample risks: prosecutor risk 1/size of a record's class, its highest,
//    lowest and average value and the records affected (RiskModelSampleRisks);
//    the prosecutor, journalist and marketer attacker models with a threshold
//    on the risk of single records (RiskModelSampleSummary); the risk profile
//    of Figures 7 and 12 (RiskModelSampleRiskDistribution);
//  - sample uniques (classes of size 1);
//  - population uniques, the number of individuals of the population (size
//    N) whose combination of quasi-identifier values is unique in the
//    population, estimated with Zayatz's model, Pitman's model (Hoshino),
//    the SNB model (Chen and McNulty) and the decision rule of Dankar et al.
//    (RiskModelPopulationUniqueness).
//
// Pitman and SNB are fitted by Newton-Raphson. An estimate whose solver did
// not converge is never reported as a number: `uniques` is then empty and
// `status` says why. All functions are pure and thread-safe; the solver is
// ARX's, restarting from ARX's fixed start values, so results are
// deterministic (src/risk/newton.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/dataset.h"
#include "deid/job.h"

namespace deid {

// How many equivalence classes have each size. `sizes` holds (size, number
// of classes of that size) with size >= 1 ascending and counts >= 1.
struct ClassSizeFrequencies {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sizes;

  // From the size of every class (zeros are skipped), and of every class c
  // with !skip[c] (skip, when not empty, has one flag per class).
  static ClassSizeFrequencies from_class_sizes(std::span<const std::uint64_t> class_sizes,
                                               std::span<const std::uint8_t> skip = {});

  std::uint64_t records() const;   // n: sum of size * count
  std::uint64_t classes() const;   // u: sum of count
  std::uint64_t of_size(std::uint64_t size) const;  // s_size (0 when absent)
  bool empty() const { return sizes.empty(); }
};

// Newton-Raphson settings; the defaults are ARX's (ARXSolverConfiguration,
// deterministic: the first try starts at the model's initial guess, later
// ones at 16 fixed start values; src/risk/newton.h): converged when both
// equations are within `accuracy` of 0; at most `iterations_per_try` steps
// from one start and `iterations_total` evaluations in all (ARX configures
// (16 + 1) x 1000). ARX also ends a try after 100 ms and a solve after 1 s;
// deid counts the terms an evaluation by exact sums adds instead (about
// u + n + the largest class), so that results do not depend on the machine:
// `cost_per_try` and `cost_total` are those limits in terms, about what ARX
// sums in 100 ms and 1 s (docs/risk-models.md, "Numerics").
struct SolverOptions {
  double accuracy = 1e-6;
  int iterations_per_try = 1000;
  int iterations_total = 17000;
  double cost_per_try = 2.5e7;
  double cost_total = 2.5e8;
};

using UniquenessEstimator = PopulationUniquenessSpec::Estimator;
const char* to_string(UniquenessEstimator e);

// An estimate of the number of population uniques.
struct UniquenessEstimate {
  enum class Status {
    ok,                 // `uniques` holds the estimate
    no_sample_uniques,  // no class of size 1: the estimate is 0 by definition (ARX)
    not_converged,      // Newton-Raphson found no root within the limits
    invalid,            // a root was found but the estimate is not a number in [0, N]
                        // (Pitman) or is not a positive number (Zayatz, SNB)
  };
  UniquenessEstimator estimator = UniquenessEstimator::dankar;
  Status status = Status::ok;
  std::optional<double> uniques;  // estimated population uniques, when available
  // Dankar's rule only: the model whose estimate it took.
  std::optional<UniquenessEstimator> selected;
  // Pitman: theta and alpha; SNB: alpha and beta (the fitted parameters).
  std::optional<std::pair<double, double>> parameters;
  int iterations = 0;           // Newton-Raphson steps, over all solves
  bool exact_sums = false;      // Pitman: the root was (re)computed with the exact sums

  bool available() const { return uniques.has_value(); }
};
const char* to_string(UniquenessEstimate::Status s);

// Zayatz (1991) as ARX computes it: the share of sample uniques that are
// population uniques, from hypergeometric probabilities of drawing one
// record of each class size, scaled by 1/f (f = n/N).
// REQUIRES: population >= freq.records() > 0.
UniquenessEstimate estimate_zayatz(const ClassSizeFrequencies& freq, double population);

// Pitman's sampling formula (Hoshino 2001): alpha and theta solve
// papers/002 equations (2) and (3); the estimate is equation (1).
// Solved with the digamma closed forms first, the root verified with the
// exact sums, and solved again with the exact sums when that fails
// (papers/002, VI-H). From Hoshino's initial guess, with theta >= 0; where
// deid's solver departs from ARX's (backtracking into theta >= 0, the
// restart box, rejecting roots at which equation (1) has no value) and why:
// docs/risk-models.md, "Numerics".
UniquenessEstimate estimate_pitman(const ClassSizeFrequencies& freq, double population,
                                   const SolverOptions& options = {});

// The SNB model (Chen and McNulty 1998) with ARX's equations, which its
// Newton-Raphson solver rarely solves (docs/risk-models.md, "SNB").
UniquenessEstimate estimate_snb(const ClassSizeFrequencies& freq, double population,
                                const SolverOptions& options = {});

// Dankar et al.'s decision rule: for a sampling fraction f <= 0.1 Pitman,
// else the smaller of Zayatz and SNB (Zayatz when SNB is unavailable). When
// Pitman is unavailable, the rule falls back to Zayatz if
// `zayatz_fallback` (ARX's risk analysis) and has no estimate otherwise
// (ARX's privacy model).
UniquenessEstimate estimate_dankar(const ClassSizeFrequencies& freq, double population,
                                   const SolverOptions& options = {}, bool zayatz_fallback = true);

UniquenessEstimate estimate_uniques(UniquenessEstimator estimator, const ClassSizeFrequencies& freq,
                                    double population, const SolverOptions& options = {},
                                    bool zayatz_fallback = true);

// Sample-based risks as ARX computes them (RiskModelSampleRisks). Zero for
// an empty table.
struct SampleRisks {
  double highest_risk = 0;   // 1 / smallest class size
  double lowest_risk = 0;    // 1 / largest class size
  double average_risk = 0;   // classes / records (1 / average class size)
  std::uint64_t records_affected_by_highest_risk = 0;
  std::uint64_t records_affected_by_lowest_risk = 0;
  double fraction_affected_by_highest_risk = 0;
  double fraction_affected_by_lowest_risk = 0;
};
SampleRisks sample_risks(const ClassSizeFrequencies& freq);

// The attacker models of El Emam as ARX computes them without a population
// table (RiskModelSampleSummary): the prosecutor and the journalist both
// see class sizes as the sample's, so their figures coincide.
struct AttackerRisks {
  double threshold = 0.2;  // acceptable risk of a single record
  struct Model {
    double records_at_risk = 0;  // share of records whose risk 1/size exceeds the threshold
    double highest_risk = 0;     // 1 / smallest class size
    double success_rate = 0;     // share of records re-identified on average: classes / records
  };
  Model prosecutor, journalist;
  double marketer_success_rate = 0;  // classes / records
};
AttackerRisks attacker_risks(const ClassSizeFrequencies& freq, double threshold);

// The risk profile of papers/002 Figures 7 and 12, with ARX's bins: bin i
// holds the share of records whose prosecutor risk lies in (lower, upper];
// `cumulative` sums the shares of the bins up to i.
struct RiskProfileBin {
  double lower = 0, upper = 0;
  double records = 0;     // share of records
  double cumulative = 0;  // share of records with risk <= upper
};
std::vector<RiskProfileBin> risk_profile(const ClassSizeFrequencies& freq);

// Risk-based record suppression (papers/002, VI-G). The candidates for
// suppression are ordered; prefix p means "the first p candidates are
// suppressed". A probe evaluates the privacy condition with a prefix
// suppressed.
enum class ProbeState { fulfilled, not_fulfilled, abort };

struct PrefixSearch {
  std::size_t prefix = 0;   // candidates to suppress
  bool aborted = false;     // a probe said abort: no prefix is acceptable
  std::size_t probes = 0;   // number of probes evaluated
};

// The smallest prefix p in [1, candidates] whose probe is fulfilled, found
// by binary search when the risk cannot increase as candidates are
// suppressed (then probe(p) is monotone in p); only the probed cut-offs are
// evaluated, about log2(candidates) of them. The probe sequence is ARX's
// (HashGroupifyDistribution.suppressWhileNotFulfilledBinary), so results
// agree with ARX even where an estimator makes the risk non-monotone.
// Prefix 0 is not probed: callers check the unsuppressed table first.
// REQUIRES: candidates >= 1; probe(candidates) is fulfilled or abort.
PrefixSearch find_suppression_prefix(std::size_t candidates,
                                     const std::function<ProbeState(std::size_t prefix)>& probe);
// The same by a linear scan p = 1, 2, ... (the test oracle).
PrefixSearch find_suppression_prefix_linear(std::size_t candidates,
                                            const std::function<ProbeState(std::size_t prefix)>& probe);

// `deid risk`: the risk of a table over a job's quasi-identifiers.
struct RiskOptions {
  double threshold = 0.2;  // for the attacker models' "records at risk"
  // Populations for the population uniques and |PU|/|SU|, by name; defaults
  // are papers/002 Table II's. A job's population-uniqueness model adds its
  // own population size (named "job") when it is not listed.
  std::vector<std::pair<std::string, double>> populations = {
      {"USA", 318.9e6}, {"California", 39.1e6}, {"Los Angeles", 4.0e6}};
  SolverOptions solver;
};

// The options of a job: its `risk:` section over the defaults.
RiskOptions risk_options(const Job& job);

struct RiskReport {
  std::string input;                           // the table analyzed
  std::vector<std::string> quasi_identifiers;
  std::uint64_t rows = 0;                      // records in the table
  std::uint64_t suppressed_records = 0;        // '*' in every quasi-identifier
  std::uint64_t records = 0;                   // n = rows - suppressed
  ClassSizeFrequencies frequencies;
  SampleRisks sample;
  AttackerRisks attackers;
  std::vector<RiskProfileBin> profile;
  std::uint64_t sample_uniques = 0;            // classes (= records) of size 1
  double sample_uniques_fraction = 0;          // of n
  struct Population {
    std::string name;
    double size = 0;                           // N
    UniquenessEstimate zayatz, pitman, snb, dankar;
    // Records of the table expected to be population unique, by Dankar's
    // rule (fraction of uniques * n), and their share of the sample uniques:
    // the probability that a sample unique is unique in the population
    // (papers/002, VIII and Table II). Empty without an estimate or without
    // sample uniques.
    std::optional<double> expected_population_uniques;
    std::optional<double> pu_su_ratio;
  };
  std::vector<Population> populations;
  // Columns with values a spreadsheet would run as formulas (output.h).
  std::vector<std::string> warnings;
  // The table measured is the job's input (not a release): the report is
  // for the custodian and never travels with a release (its warnings quote
  // input values; docs/reliability.md, "What travels with a release").
  bool custodian_only = false;
};

// The report for class-size frequencies (n = freq.records()).
RiskReport assess_risk(const ClassSizeFrequencies& freq, const RiskOptions& options = {});

// The report for the table at `input_path` (the job's input when empty)
// over the job's quasi-identifiers: input data or an output of
// `deid anonymize`, whose suppressed records ('*' in every
// quasi-identifier) are ignored. Only the columns are read, not the
// hierarchies: outputs hold generalized values. Throws JobError when the job
// has no quasi-identifier or the table lacks one of them, and the errors of
// read_dataset().
RiskReport assess_risk(const Job& job, const std::string& input_path, const RiskOptions& options = {});
// The same for a table already read (or built in memory by a front end);
// messages name it by data.source.
RiskReport assess_risk(const Job& job, const Dataset& data, const RiskOptions& options = {});

// JSON for a report or an estimate: estimates that are not available are
// null, with "status" saying why.
nlohmann::json to_json(const UniquenessEstimate& e);
nlohmann::json to_json(const RiskReport& report);
// A readable table of the report, for the terminal.
std::string to_text(const RiskReport& report);

}  // namespace deid
