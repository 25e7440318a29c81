#include <fmt/format.h>

#include <chrono>

#include "deid/error.h"
#include "deid/pipeline.h"

namespace deid {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::unique_ptr<PreparedJob> prepare(const Job& job, Timings* timings) {
  const auto t0 = std::chrono::steady_clock::now();
  Dataset data = read_dataset(job.input.path, CsvOptions{job.input.delimiter});
  if (timings) timings->read = ms_since(t0);
  return prepare(job, std::move(data), timings);
}

std::unique_ptr<PreparedJob> prepare(const Job& job, Dataset data, Timings* timings) {
  const auto t0 = std::chrono::steady_clock::now();
  auto p = std::make_unique<PreparedJob>();
  p->job = job;
  p->data = std::move(data);
  const Dataset& ds = p->data;

  for (const auto& a : job.attributes)
    if (ds.column_index(a.name) < 0)
      throw JobError(Location{job.path, a.line, 0, {}},
                     fmt::format("attribute '{}' is not a column of {}", a.name, ds.source));

  std::vector<std::string> unassigned;
  Problem& pr = p->problem;
  std::vector<int> sensitive_columns;
  for (std::size_t c = 0; c < ds.columns.size(); ++c) {
    const Column& col = ds.columns[c];
    const AttributeSpec* spec = job.attribute(col.name);
    Role role;
    if (spec) {
      role = spec->role;
    } else if (job.default_role) {
      role = *job.default_role;
    } else {
      unassigned.push_back(col.name);
      continue;
    }
    p->roles.push_back(role);
    if (role == Role::quasi_identifying) {
      pr.qi_names.push_back(col.name);
      pr.qi_columns.push_back(static_cast<int>(c));
      p->qi_tables.push_back(read_hierarchy(spec->hierarchy));
    } else if (role == Role::sensitive) {
      sensitive_columns.push_back(static_cast<int>(c));
      p->sensitive_tables.push_back(spec && !spec->hierarchy.empty() ? read_hierarchy(spec->hierarchy)
                                                                    : HierarchyTable{});
    }
  }
  if (!unassigned.empty()) {
    std::string list;
    for (const auto& n : unassigned) list += (list.empty() ? "'" : ", '") + n + "'";
    throw JobError(Location{job.path, 0, 0, {}},
                   fmt::format("column{} {} of {} ha{} no role: list {} under 'attributes' or set 'default-role'",
                               unassigned.size() == 1 ? "" : "s", list, ds.source,
                               unassigned.size() == 1 ? "s" : "ve", unassigned.size() == 1 ? "it" : "them"));
  }

  for (std::size_t q = 0; q < pr.qi_columns.size(); ++q)
    pr.hierarchies.push_back(Generalization::build(p->qi_tables[q], ds.columns[pr.qi_columns[q]], ds.source));
  for (std::size_t s = 0; s < sensitive_columns.size(); ++s) {
    SensitiveAttribute sa;
    sa.column = sensitive_columns[s];
    sa.data = &ds.columns[sa.column];
    sa.name = sa.data->name;
    sa.hierarchy = p->sensitive_tables[s].rows.empty() ? nullptr : &p->sensitive_tables[s];
    if (const AttributeSpec* spec = job.attribute(sa.name)) sa.order = spec->order;
    pr.sensitive.push_back(std::move(sa));
  }

  pr.histogram = build_histogram(ds, pr.qi_columns, sensitive_columns);
  pr.rows = ds.rows;
  // ARX: at most floor(limit * rows) records may be suppressed.
  pr.max_suppressed = static_cast<std::uint64_t>(job.suppression_limit * static_cast<double>(ds.rows) + 1e-9);
  pr.quality = make_quality_model(job.quality);
  for (const auto& spec : job.privacy) pr.privacy.push_back(make_privacy_model(spec, pr));
  if (timings) timings->encode = ms_since(t0);
  return p;
}

}  // namespace deid
