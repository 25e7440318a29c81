// The utility analysis as JSON (the result's "utility" section and `deid
// utility --json`, docs/utility.md), showing no input value the release
// generalized or suppressed.
#include <cstddef>

#include "deid/utility.h"

namespace deid {
namespace {

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json to_json(const NumericSummary& s) {
  return {{"count", s.count},
          {"missing", s.missing},
          {"mean", optional_json(s.mean)},
          {"sd", optional_json(s.sd)},
          {"min", optional_json(s.min)},
          {"q1", optional_json(s.q1)},
          {"median", optional_json(s.median)},
          {"q3", optional_json(s.q3)},
          {"max", optional_json(s.max)},
          {"skewness", optional_json(s.skewness)},
          {"kurtosis", optional_json(s.kurtosis)}};
}

nlohmann::json deviation_json(const NumericSummary& before, const NumericSummary& after) {
  nlohmann::json d = nlohmann::json::object();
  const std::pair<const char*, std::optional<double> NumericSummary::*> fields[] = {
      {"mean", &NumericSummary::mean}, {"sd", &NumericSummary::sd},         {"min", &NumericSummary::min},
      {"q1", &NumericSummary::q1},     {"median", &NumericSummary::median}, {"q3", &NumericSummary::q3},
      {"max", &NumericSummary::max},   {"skewness", &NumericSummary::skewness}, {"kurtosis", &NumericSummary::kurtosis}};
  for (const auto& [name, field] : fields) {
    const auto& x = before.*field;
    const auto& y = after.*field;
    d[name] = x && y ? nlohmann::json(*y - *x) : nlohmann::json(nullptr);
  }
  return d;
}

nlohmann::json matrix_json(const std::vector<std::vector<std::optional<double>>>& m) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : m) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& v : row) r.push_back(optional_json(v));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const UtilityAnalysis& u) {
  nlohmann::json attrs = nlohmann::json::array();
  for (const AttributeUtility& a : u.attributes) {
    nlohmann::json j = {{"name", a.name},
                        {"role", to_string(a.role)},
                        {"distinct_before", a.distinct_before},
                        {"categories_after", a.categories.size()},
                        {"suppressed_cells", a.suppressed},
                        {"suppressed_share", u.records ? static_cast<double>(a.suppressed) / static_cast<double>(u.records) : 0.0},
                        {"total_variation", a.total_variation},
                        {"jensen_shannon", a.jensen_shannon}};
    j["level"] = a.level >= 0 ? nlohmann::json(a.level) : nlohmann::json(nullptr);
    // What travels with a release shows no input value the release
    // generalized or suppressed (docs/reliability.md). A quasi-identifier
    // whose release changed some value ("changed") therefore lists no
    // category that only suppressed records had at level 0 (the category is
    // an input value no released record shows: "distribution_withheld"
    // counts them and their input records, which stay in the distances),
    // and gives none of
    // the input's order statistics (each is one record's value, or between
    // two) nor, with a single value, its mean.
    const bool changed = a.role == Role::quasi_identifying && (a.level != 0 || a.suppressed > 0);
    // Large domains (identifiers, free text) are cut to the first categories.
    constexpr std::size_t kListed = 1000;
    nlohmann::json dist = nlohmann::json::array();
    std::size_t listable = 0, withheld = 0;
    std::uint64_t withheld_records = 0;
    for (std::size_t i = 0; i < a.categories.size(); ++i) {
      if (a.role == Role::quasi_identifying && a.level == 0 && a.after[i] == 0 && a.before[i] > 0) {
        ++withheld;
        withheld_records += a.before[i];
        continue;
      }
      if (listable++ < kListed)
        dist.push_back({{"value", a.categories[i]}, {"before", a.before[i]}, {"after", a.after[i]}});
    }
    j["distribution"] = std::move(dist);
    j["distribution_omitted"] = listable > kListed ? listable - kListed : 0;
    if (withheld > 0) j["distribution_withheld"] = {{"categories", withheld}, {"before", withheld_records}};
    if (a.numeric_kind) {
      NumericSummary before = a.numeric_before;
      if (changed) {
        for (auto field : {&NumericSummary::min, &NumericSummary::q1, &NumericSummary::median, &NumericSummary::q3,
                           &NumericSummary::max})
          before.*field = std::nullopt;
        if (before.count == 1) before.mean = std::nullopt;
      }
      j["numeric"] = {{"kind", *a.numeric_kind},
                      {"before", to_json(before)},
                      {"after", to_json(a.numeric_after)},
                      {"deviation", deviation_json(before, a.numeric_after)}};
      if (changed) {
        nlohmann::json names = nlohmann::json::array({"min", "q1", "median", "q3", "max"});
        if (a.numeric_before.count == 1) names.push_back("mean");
        j["numeric"]["before_withheld"] = std::move(names);
      }
    } else {
      j["numeric"] = nullptr;
    }
    attrs.push_back(std::move(j));
  }
  nlohmann::json classification = nlohmann::json::array();
  for (const ClassificationUtility& c : u.classification)
    classification.push_back({{"target", c.target},
                              {"features", c.features},
                              {"model", "logistic-regression"},
                              {"records", c.records},
                              {"folds", c.folds},
                              {"baseline_accuracy", c.baseline},
                              {"accuracy_before", c.accuracy_before},
                              {"accuracy_after", c.accuracy_after},
                              {"relative_accuracy", optional_json(c.relative_accuracy)},
                              {"auc_before", optional_json(c.auc_before)},
                              {"auc_after", optional_json(c.auc_after)}});
  return {{"records", u.records},
          {"classification", std::move(classification)},
          {"suppressed_records", u.suppressed_records},
          {"attributes", std::move(attrs)},
          {"dependencies",
           {{"measure", "cramers_v"},
            {"attributes", u.dependency_attributes},
            {"before", matrix_json(u.cramers_v_before)},
            {"after", matrix_json(u.cramers_v_after)}}}};
}

}  // namespace deid
