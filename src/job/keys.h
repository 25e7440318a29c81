// The keys a job file may hold, section by section (internal to src/job/).
//
// This table is the one list of keys: the parser checks every mapping of a
// job against it (Ctx::keys: "unknown key 'x' in input (allowed: path,
// delimiter, postgres)", the keys in the order listed here), the privacy
// models are dispatched by its model names, and a test holds it against
// docs/job-file.md both ways (every key accepted is documented, every key
// documented is accepted). A new key goes here, in its section's parser and
// in the doc.
#pragma once

#include <string_view>
#include <vector>

namespace deid::job_parse {

enum class Section {
  job,  // the top level
  input,
  input_postgres,
  output,
  output_postgres,
  attribute,
  hierarchy_intervals,
  hierarchy_masking,
  hierarchy_dates,
  hierarchy_grouping,
  // The privacy models, in the order "unknown privacy model" lists them.
  k_anonymity,
  l_diversity,
  t_closeness,
  population_uniqueness,
  average_risk,
  sample_uniqueness,
  delta_disclosure,
  beta_likeness,
  k_map,
  profitability,
  delta_presence,
  differential_privacy,
  cost_benefit,
  quality,
  search,
  utility,
  risk,
  subset,
  cell_suppression,
  release_levels,  // one quasi-identifier's entry of cell-suppression.release-levels
  missingness,     // an entry of cell-suppression.missingness
  samples,
  sample_draw,  // an entry of cell-suppression.samples.draws
  registry,
  identifiers,
  identifiers_secret,
  linked,         // an entry of linked
  linked_column,  // linked[].columns.NAME
  local_recoding,
};

// How docs/job-file.md documents a section's keys.
enum class Doc {
  headings,  // each key is a "### `key`" heading under "## Keys"
  rows,      // each key is a row of the Key column of the heading's table
  text,      // named in a code span of the heading's text ({table: NAME, ...})
};

struct SectionKeys {
  Section section;
  std::string_view path;  // where it stands in a job: "input.postgres", "privacy: k-map"
  std::string_view into;  // what it parses into
  std::vector<std::string_view> keys;  // allowed, in the order messages list them
  Doc doc;
  std::string_view heading;  // the heading of docs/job-file.md that documents it
  // For Doc::rows: the value of the table's first column (Model, `type`)
  // that the rows of this section carry; empty: the table has no such column.
  std::string_view group = {};
};

// Every section, in the order of the enum.
const std::vector<SectionKeys>& key_table();
const SectionKeys& keys_of(Section section);

}  // namespace deid::job_parse
