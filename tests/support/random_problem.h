// Test helper: small random k-anonymity problems, for comparing searches
// with exhaustive search (tests of the heuristics and of the warm start).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "deid/pipeline.h"

namespace deid::testing {

struct RandomProblem {
  Dataset data;
  std::vector<HierarchyTable> tables;
  Problem problem;
  std::string description;
};

// A few attributes with skewed values, hierarchies that group value ranges,
// k-anonymity with a random k and a suppression limit drawn from `limits`,
// quality model `quality`. The same draws from `rng` for any `limits`.
inline std::unique_ptr<RandomProblem> random_problem(std::mt19937_64& rng, const std::string& quality,
                                                     std::span<const double> limits) {
  auto rp = std::make_unique<RandomProblem>();
  const int attributes = 2 + static_cast<int>(rng() % 4);
  const int rows = 30 + static_cast<int>(rng() % 200);
  std::vector<int> values(attributes), heights(attributes);
  std::string csv;
  for (int a = 0; a < attributes; ++a) {
    values[a] = 2 + static_cast<int>(rng() % 10);
    heights[a] = 2 + static_cast<int>(rng() % 3);
    csv += fmt::format("{}a{}", a ? ";" : "", a);
  }
  csv += "\n";
  for (int r = 0; r < rows; ++r) {
    for (int a = 0; a < attributes; ++a)
      csv += fmt::format("{}v{}", a ? ";" : "", std::min(rng() % values[a], rng() % values[a]));
    csv += "\n";
  }
  rp->data = read_dataset_text(csv, "random.csv", CsvOptions{';'});
  for (int a = 0; a < attributes; ++a) {
    std::string text;
    for (int v = 0; v < values[a]; ++v) {
      text += fmt::format("v{}", v);
      int width = 1;
      for (int l = 1; l < heights[a]; ++l) {
        width *= 2;
        text += l + 1 == heights[a] ? std::string(";*") : fmt::format(";g{}_{}", l, v / width);
      }
      text += "\n";
    }
    rp->tables.push_back(read_hierarchy_text(text, fmt::format("h{}.csv", a), CsvOptions{';'}));
  }
  Problem& pr = rp->problem;
  for (int a = 0; a < attributes; ++a) {
    pr.qi_names.push_back(rp->data.columns[a].name);
    pr.qi_columns.push_back(a);
    pr.hierarchies.push_back(Generalization::build(rp->tables[a], rp->data.columns[a], "random.csv"));
  }
  pr.histogram = build_histogram(rp->data, pr.qi_columns);
  pr.rows = rp->data.rows;
  const double limit = limits[rng() % limits.size()];
  pr.max_suppressed = static_cast<std::uint64_t>(limit * static_cast<double>(pr.rows));
  QualitySpec q;
  q.model = quality;
  pr.quality = make_quality_model(q);
  const std::uint64_t k = 2 + rng() % 5;
  pr.privacy.push_back(make_privacy_model(KAnonymitySpec{k}, pr));
  rp->description = fmt::format("{} attributes, {} rows, k {}, limit {}, {}", attributes, rows, k, limit, quality);
  return rp;
}

}  // namespace deid::testing
