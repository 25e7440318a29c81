// A de-identification problem as the engine sees it: the histogram, the
// bound hierarchies, the models and the limit. Built once from a job and
// its data (pipeline.h), then read by the check and the search; immutable
// while they run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "deid/hierarchy.h"
#include "deid/histogram.h"
#include "deid/lattice.h"
#include "deid/privacy.h"
#include "deid/quality.h"

namespace deid {

struct SensitiveAttribute {
  std::string name;
  int column = -1;                 // in the dataset
  const Column* data = nullptr;    // the encoded column (values by code)
  const HierarchyTable* hierarchy = nullptr;  // when the job gives one
  std::vector<std::string> order;  // declared order of values, when given
};

// A microaggregated quasi-identifier (job.h, MicroaggregationSpec): the
// release replaces its value in each equivalence class by the class's
// aggregate (transform/microaggregation.h).
struct MicroaggregatedAttribute {
  std::string name;
  int column = -1;                 // in the dataset
  const Column* data = nullptr;    // the encoded column
  AggregationFunction function = AggregationFunction::mean;
  // Generalized before aggregation: also a quasi-identifier (index `qi`),
  // whose loss is that of its generalization. Otherwise it forms no
  // classes, and the quality models that account for microaggregation
  // (Loss, Precision, as ARX's do) add a dimension for it: the share of
  // its distinct values found in each record's class.
  int qi = -1;
  // Not generalized: the distinct codes of the column in each histogram
  // entry, entry-major: [offsets[e], offsets[e+1]) of `codes`.
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> codes;
  bool generalized() const { return qi >= 0; }
};

// A response variable of the classification quality model
// (QualitySpec::responses): a quasi-identifier, whose generalized value the
// model reads from each class's key, or another released column, whose
// values it reads from the distributions the histogram keeps per entry.
struct ResponseVariable {
  std::string name;
  int qi = -1;            // a quasi-identifier: its index
  // Otherwise its distribution: histogram.sensitive[distribution] (a
  // sensitive attribute's own, or one after them for an insensitive column).
  int distribution = -1;
  std::uint32_t domain = 0;  // its codes are below this (the column's dictionary size)
};

// search.memory: auto bounds the checker's memory (Problem::bounded_memory)
// for histograms of more than this many bytes (histogram_bytes).
constexpr std::uint64_t kBoundedMemoryHistogramBytes = std::uint64_t{32} << 20;

struct Problem {
  std::vector<std::string> qi_names;
  std::vector<int> qi_columns;                 // in the dataset
  std::vector<Generalization> hierarchies;     // per quasi-identifier
  // histogram.sensitive[i] belongs to sensitive[i]; after them come the
  // insensitive response variables' (ResponseVariable::distribution).
  std::vector<SensitiveAttribute> sensitive;
  Histogram histogram;
  // Records the models judge: the input's, or the research subset's.
  std::uint64_t rows = 0;
  std::uint64_t max_suppressed = 0;            // floor(limit * rows), ARX's rule
  // The research subset (Job::subset): one flag per input row (empty: no
  // subset, every row), the input's rows, and the index in
  // histogram.sensitive of the population counts (Histogram::population
  // as a distribution of one code, 0, so checks roll them up with the
  // other distributions; -1 without a subset).
  std::vector<std::uint8_t> subset;
  std::uint64_t population_rows = 0;
  int population_distribution = -1;
  bool has_subset() const { return population_distribution >= 0; }
  std::vector<std::unique_ptr<PrivacyModel>> privacy;
  std::unique_ptr<QualityModel> quality;
  // Generalization constraints per quasi-identifier (the job's min-level and
  // max-level; empty: every level of every hierarchy).
  std::vector<int> min_levels, max_levels;
  // Attribute weights of the multi-dimensional quality models, per
  // quasi-identifier, normalized as ARX does: each weight divided by the
  // largest (ARX's default weight 0.5 for an attribute without one); all 1
  // when none is given. Empty: all 1.
  std::vector<double> weights;

  // The classification model's response variables, in column order (ARX's
  // order); empty for every other model.
  std::vector<ResponseVariable> responses;

  // Microaggregated quasi-identifiers, in column order.
  std::vector<MicroaggregatedAttribute> microaggregated;
  // Names of the quality models' dimensions: the quasi-identifiers, then
  // the microaggregated attributes that are not generalized (ARX's order).
  // `weights`, when not empty, has one per dimension.
  std::vector<std::string> dimension_names() const;
  // The microaggregated attributes that are not generalized.
  std::size_t aggregated_dimensions() const;

  // The checker keeps its working memory within half the histogram's size
  // plus a constant (Job's search.memory; docs/databases.md, "Memory"):
  // the sorted order of the histogram as a permutation instead of a copy,
  // no radix-partitioned grouping of the whole histogram, the classes'
  // keys written only when read.
  bool bounded_memory = false;

  // The lattice within the generalization constraints.
  Lattice lattice() const;
  bool monotonic() const;  // all privacy models monotonic
};

}  // namespace deid
