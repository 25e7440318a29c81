#include "privacy/t_closeness.h"

#include <fmt/format.h>

#include "deid/error.h"
#include "deid/problem.h"
#include "privacy/models.h"

namespace deid {
namespace {

const char* distance_name(const TCloseness::Distance& d) {
  switch (d.index()) {
    case 0:
      return "equal";
    case 1:
      return "hierarchical";
    default:
      return "ordered";
  }
}

}  // namespace

TCloseness::TCloseness(std::string attribute, std::size_t index, double t, Distance distance, bool suppression)
    : attribute_(std::move(attribute)), index_(index), t_(t), distance_(std::move(distance)), suppression_(suppression) {}

std::string TCloseness::describe() const {
  return fmt::format("{}-closeness with {} distance for '{}'", t_, distance_name(distance_), attribute_);
}

nlohmann::json TCloseness::to_json() const {
  return {{"model", "t-closeness"}, {"attribute", attribute_}, {"distance", distance_name(distance_)}, {"t", t_}};
}

bool TCloseness::holds(const ClassView& cls) const {
  const ClassView::Distribution& d = cls.sensitive[index_];
  switch (distance_.index()) {
    case 0:
      return std::get<0>(distance_).within(d, cls.count, t_);
    case 1:
      return std::get<1>(distance_).within(d, cls.count, t_);
    default:
      return std::get<2>(distance_).within(d, cls.count);
  }
}

double TCloseness::distance(const ClassView& cls) const {
  return std::visit([&](const auto& g) { return g.distance(cls.sensitive[index_], cls.count); }, distance_);
}

// The records' distribution, summed from the histogram's per-entry
// distributions (a grouped table's rows stand for several records each);
// from the column's codes for a problem built without a histogram.
std::vector<std::uint64_t> reference_counts(const Problem& problem, std::size_t index) {
  const Column& col = *problem.sensitive[index].data;
  std::vector<std::uint64_t> counts(col.dictionary.size(), 0);
  if (index < problem.histogram.sensitive.size()) {
    const Histogram::Sensitive& s = problem.histogram.sensitive[index];
    for (std::size_t i = 0; i < s.codes.size(); ++i) counts[s.codes[i]] += s.counts[i];
  } else {
    for (std::uint32_t code : col.codes) ++counts[code];
  }
  return counts;
}

std::unique_ptr<TCloseness> make_t_closeness(const TClosenessSpec& spec, const Problem& problem,
                                             const OrderedDistanceOptions& options) {
  const std::size_t index = sensitive_index(problem, spec.attribute, "t-closeness");
  const SensitiveAttribute& sa = problem.sensitive[index];
  std::vector<std::uint64_t> q = reference_counts(problem, index);
  const bool suppression = problem.max_suppressed > 0;
  switch (spec.distance) {
    case TClosenessSpec::Distance::equal:
      return std::make_unique<TCloseness>(sa.name, index, spec.t, EqualDistance(q), suppression);
    case TClosenessSpec::Distance::hierarchical: {
      if (!sa.hierarchy)
        throw JobError(Location{}, fmt::format("t-closeness with hierarchical distance on '{}' needs a hierarchy: "
                                               "set attributes.{}.hierarchy",
                                               sa.name, sa.name));
      const Generalization g = Generalization::build(*sa.hierarchy, *sa.data, std::string{});
      return std::make_unique<TCloseness>(sa.name, index, spec.t, HierarchicalDistance(g, std::move(q)),
                                          suppression);
    }
    case TClosenessSpec::Distance::ordered:
      return std::make_unique<TCloseness>(sa.name, index, spec.t,
                                          OrderedDistance(std::move(q), ordered_ranks(sa), spec.t, options),
                                          suppression);
  }
  throw JobError(Location{}, "t-closeness: unknown distance");
}

std::unique_ptr<PrivacyModel> make_t_closeness(const TClosenessSpec& spec, const Problem& problem) {
  return make_t_closeness(spec, problem, OrderedDistanceOptions{});
}

}  // namespace deid
