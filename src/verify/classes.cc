// Equivalence classes of the released records that are not suppressed, and
// the models that judge them one by one (release_check.h): k-anonymity, the
// class requirements on sensitive attributes, k-map.
#include <type_traits>
#include <variant>

#include "release_check.h"

namespace verify {
namespace {

// Whether a class with distribution `cls` of the requirement's attribute
// satisfies `req`; `all` is the distribution over the whole table (needed by
// t-closeness). On failure `why` says what the class lacks.
bool requirement_holds(const ClassRequirement& req, const Distribution& cls, const Distribution& all,
                       std::string* why) {
  return std::visit(
      [&](const auto& r) -> bool {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, DistinctLDiversity>) {
          if (cls.size() >= r.l) return true;
          *why = std::to_string(cls.size()) + " distinct value(s) of " + quote(r.attribute) + ", need " +
                 std::to_string(r.l) + " (distinct l-diversity)";
          return false;
        } else {
          return verify::requirement_holds(r, cls, all, why);  // verify_sensitive.h
        }
      },
      req);
}

}  // namespace

const std::string& requirement_attribute(const ClassRequirement& req) {
  return std::visit([](const auto& r) -> const std::string& { return r.attribute; }, req);
}

void ReleaseCheck::group_classes() {
  // The tuple an attacker sees: the quasi-identifiers and the
  // microaggregated columns.
  tuple_out = qi_out;
  tuple_out.insert(tuple_out.end(), micro_out.begin(), micro_out.end());

  // Equivalence classes of the records that are not suppressed.
  overall.resize(options.class_requirements.size());
  for (const auto& req : options.class_requirements) req_out.push_back(out_index(requirement_attribute(req)));
  for (std::size_t r = 0; r < rows; ++r) {
    // Q, the distribution the classes are compared with, is the research
    // subset's (ARX's DataManager.getDistribution counts the subset's
    // rows); a value found only outside it is kept with count 0, since the
    // ordered distance ranks every value of the input (m - 1 divides).
    for (std::size_t i = 0; i < req_out.size(); ++i)
      if (req_out[i] >= 0) {
        std::uint64_t& count = overall[i][output.rows[r][req_out[i]]];
        if (!outside(r)) count += weight(r);
      }
    if (suppressed[r] || outside(r)) continue;
    auto [it, inserted] = classes.try_emplace(class_key(output.rows[r], tuple_out));
    ClassInfo& info = it->second;
    if (inserted) {
      info.first_row = r;
      info.distributions.resize(req_out.size());
    }
    info.size += weight(r);
    for (std::size_t i = 0; i < req_out.size(); ++i)
      if (req_out[i] >= 0) info.distributions[i][output.rows[r][req_out[i]]] += weight(r);
  }
  report.classes = classes.size();
}

void ReleaseCheck::check_class_sizes() {
  // Summaries name the smallest offending class (ties: the earliest).
  std::uint64_t small = 0;
  const ClassInfo* smallest_small = nullptr;
  for (const auto& [key, info] : classes) {
    if (report.smallest_class == 0 || info.size < report.smallest_class) report.smallest_class = info.size;
    if (info.size < options.k) {
      ++small;
      if (!smallest_small || info.size < smallest_small->size ||
          (info.size == smallest_small->size && info.first_row < smallest_small->first_row))
        smallest_small = &info;
    }
  }
  if (small)
    add(Kind::class_too_small, {}, smallest_small->first_row + 1, small,
        std::to_string(small) + " class(es) have fewer than k = " + std::to_string(options.k) +
            " records; the smallest, " + describe_tuple(output.rows[smallest_small->first_row], qi_out, qis) + ", has " +
            std::to_string(smallest_small->size) + " (first at data row " + std::to_string(smallest_small->first_row + 1) +
            ")");
}

void ReleaseCheck::check_class_requirements() {
  for (std::size_t i = 0; i < options.class_requirements.size(); ++i) {
    if (req_out[i] < 0) continue;  // column_missing already reported
    std::uint64_t failing = 0;
    std::size_t first_row = rows;
    std::string first_why;
    for (const auto& [key, info] : classes) {
      std::string reason;
      if (requirement_holds(options.class_requirements[i], info.distributions[i], overall[i], &reason)) continue;
      ++failing;
      if (info.first_row < first_row) {
        first_row = info.first_row;
        first_why = reason;
      }
    }
    if (failing) {
      add(Kind::class_requirement, requirement_attribute(options.class_requirements[i]), first_row + 1, failing,
          std::to_string(failing) + " class(es) fail a requirement on " +
              quote(requirement_attribute(options.class_requirements[i])) + "; the first, " +
              describe_tuple(output.rows[first_row], qi_out, qis) + " (data row " + std::to_string(first_row + 1) +
              "), has " + first_why);
      report.violations.back().requirement = i;
    }
  }
}

void ReleaseCheck::check_k_map() {
  if (options.k_map) {
    const std::uint64_t derived = k_map_derived_k(*options.k_map, records);
    report.k_map_derived_k = derived;
    std::uint64_t small = 0;
    const ClassInfo* first = nullptr;
    for (const auto& [key, info] : classes)
      if (info.size < derived) {
        ++small;
        if (!first || info.first_row < first->first_row) first = &info;
      }
    if (small)
      add(Kind::k_map, {}, first->first_row + 1, small,
          std::to_string(small) + " class(es) have fewer than the " + std::to_string(derived) +
              " records k-map derives for k = " + std::to_string(options.k_map->k) + "; the first, " +
              describe_tuple(output.rows[first->first_row], qi_out, qis) + ", has " + std::to_string(first->size));
  }
}

}  // namespace verify
