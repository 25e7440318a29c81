#include <fmt/format.h>

#include <algorithm>

#include "deid/error.h"
#include "deid/hierarchy_spec.h"
#include "job/sections.h"

namespace deid::job_parse {

// An inline hierarchy definition, `hierarchy: {type: intervals, ...}`, with
// the parameters of `deid hierarchy TYPE` (docs/job-file.md). Its parameters
// are checked here, so a bad definition is reported with its line before
// any data is read; the values are checked when prepare() builds it.
HierarchyBuilderSpec parse_hierarchy_builder(const Ctx& ctx, const YAML::Node& h, const std::string& attribute) {
  const std::string where = fmt::format("the hierarchy of attribute '{}'", attribute);
  if (!h["type"])
    ctx.fail(h, fmt::format("{} needs 'type': intervals, masking, dates or grouping (or give the path of a "
                            "hierarchy file)",
                            where));
  enum class Type { intervals, masking, dates, grouping };
  const Type type = ctx.choice<Type>(h["type"], "hierarchy type",
                                     {{"intervals", Type::intervals},
                                      {"masking", Type::masking},
                                      {"dates", Type::dates},
                                      {"grouping", Type::grouping}});
  auto numbers = [&](const YAML::Node& n, const char* what) {
    if (!n.IsSequence() || n.size() == 0) ctx.fail(n, fmt::format("{} must be a non-empty list of numbers", what));
    std::vector<double> out;
    for (const auto& x : n) out.push_back(ctx.num(x, what));
    return out;
  };
  HierarchyBuilderSpec spec;
  switch (type) {
    case Type::intervals: {
      ctx.keys(h, where, Section::hierarchy_intervals);
      for (const char* k : {"min", "max", "widths"})
        if (!h[k]) ctx.fail(h, fmt::format("an intervals hierarchy needs '{}' (keys: min, max, widths, "
                                           "bottom-coding, top-coding)",
                                           k));
      IntervalSpec s;
      s.min = ctx.num(h["min"], "min");
      s.max = ctx.num(h["max"], "max");
      s.widths = numbers(h["widths"], "widths");
      if (h["bottom-coding"]) s.bottom_coding = ctx.boolean(h["bottom-coding"], "bottom-coding");
      if (h["top-coding"]) s.top_coding = ctx.boolean(h["top-coding"], "top-coding");
      spec = s;
      break;
    }
    case Type::masking: {
      ctx.keys(h, where, Section::hierarchy_masking);
      MaskingSpec s;
      if (h["levels"]) s.levels = static_cast<int>(std::min<std::uint64_t>(ctx.integer(h["levels"], "levels", 1), 1000));
      if (h["from-left"]) s.from_left = ctx.boolean(h["from-left"], "from-left");
      if (h["mask-char"]) {
        const std::string c = ctx.str(h["mask-char"], "mask-char");
        if (c.size() != 1) ctx.fail(h["mask-char"], fmt::format("mask-char must be a single character, got '{}'", c));
        s.mask_char = c[0];
      }
      spec = s;
      break;
    }
    case Type::dates: {
      ctx.keys(h, where, Section::hierarchy_dates);
      DateSpec s;
      if (h["month"]) s.month = ctx.boolean(h["month"], "month");
      if (h["year"]) s.year = ctx.boolean(h["year"], "year");
      if (h["decade"]) s.decade = ctx.boolean(h["decade"], "decade");
      spec = s;
      break;
    }
    case Type::grouping: {
      ctx.keys(h, where, Section::hierarchy_grouping);
      for (const char* k : {"order", "sizes"})
        if (!h[k]) ctx.fail(h, fmt::format("a grouping hierarchy needs '{}' (keys: order, sizes)", k));
      GroupingSpec s;
      if (!h["order"].IsSequence()) ctx.fail(h["order"], "order must be a list of categories, in order");
      for (const auto& o : h["order"]) s.order.push_back(ctx.str(o, "category"));
      if (!h["sizes"].IsSequence() || h["sizes"].size() == 0)
        ctx.fail(h["sizes"], "sizes must be a non-empty list of group sizes, e.g. [2, 4]");
      for (const auto& x : h["sizes"]) s.sizes.push_back(static_cast<std::size_t>(ctx.integer(x, "group size", 2)));
      spec = s;
      break;
    }
  }
  try {
    check_parameters(spec);
  } catch (const HierarchyParameterError& e) {
    const YAML::Node at = h[e.parameter()] ? h[e.parameter()] : h;
    ctx.fail(at, fmt::format("attribute '{}': {}", attribute, e.problem()));
  }
  return spec;
}

// Gives attribute `a` the hierarchy `h`, in place of any the job gives it.
// A builder is parsed from its own text, named by h.source in messages.
void give_hierarchy(const HierarchyOverride& h, AttributeSpec& a) {
  a.hierarchy.clear();
  a.hierarchy_builder.reset();
  a.hierarchy_data.reset();
  a.hierarchy_line = a.hierarchy_column = 0;
  a.hierarchy_source.clear();
  if (h.table) {
    a.hierarchy_data = h.table;
    return;
  }
  if (!h.builder.empty()) {
    const Ctx ctx{h.source, {}, nullptr};
    try {
      const YAML::Node node = YAML::Load(h.builder);
      if (!node.IsMap())
        ctx.fail(node, fmt::format("the hierarchy of attribute '{}' must be a mapping such as {{type: masking}}",
                                   a.name));
      a.hierarchy_builder = parse_hierarchy_builder(ctx, node, a.name);
      const auto m = node.Mark();
      a.hierarchy_line = static_cast<std::uint64_t>(m.line + 1);
      a.hierarchy_column = static_cast<std::uint64_t>(m.column + 1);
      a.hierarchy_source = h.source;
    } catch (const YAML::Exception& e) {
      throw JobError(Location{h.source, static_cast<std::uint64_t>(e.mark.line + 1),
                              static_cast<std::uint64_t>(e.mark.column + 1), {}},
                     yaml_problem(e));
    }
    return;
  }
  if (h.path.empty())
    throw JobError(Location{h.source, 0, 0, {}},
                   fmt::format("attribute '{}': the path of its hierarchy must not be empty", a.name));
  a.hierarchy = h.path;
}

}  // namespace deid::job_parse
