#include "pipeline/subset.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <string>

#include "deid/csv.h"
#include "deid/error.h"

namespace deid {
namespace {

std::vector<std::uint8_t> from_column(const Job& job, const Job::Subset& s, const Dataset& data) {
  const int c = data.column_index(s.column);
  if (c < 0)
    throw JobError(Location{job.path, s.line, 0, {}},
                   fmt::format("subset.column '{}' is not a column of {}", s.column, data.source));
  std::vector<std::uint8_t> in(data.rows, 0);
  const std::int64_t code = data.columns[static_cast<std::size_t>(c)].dictionary.find(s.value);
  if (code >= 0) {
    const auto& codes = data.columns[static_cast<std::size_t>(c)].codes;
    for (std::uint64_t r = 0; r < data.rows; ++r) in[r] = codes[r] == static_cast<std::uint32_t>(code) ? 1 : 0;
  }
  return in;
}

std::vector<std::uint8_t> from_file(const Job::Subset& s, const Dataset& data) {
  // The input's rows by their codes, each key's rows in ascending order.
  const std::size_t width = data.columns.size();
  absl::flat_hash_map<std::vector<std::uint32_t>, std::deque<std::uint64_t>> rows;
  std::vector<std::uint32_t> key(width);
  for (std::uint64_t r = 0; r < data.rows; ++r) {
    for (std::size_t c = 0; c < width; ++c) key[c] = data.columns[c].codes[r];
    rows[key].push_back(r);
  }
  std::vector<std::uint8_t> in(data.rows, 0);
  std::vector<int> column_of;  // file field -> input column
  read_csv(s.file, CsvOptions{s.delimiter ? s.delimiter : std::optional<char>(data.delimiter), true, false},
           [&](const CsvRecord& rec) {
             if (rec.index == 0) {
               std::vector<std::uint8_t> seen(width, 0);
               for (std::size_t f = 0; f < rec.fields.size(); ++f) {
                 const int c = data.column_index(rec.fields[f]);
                 if (c < 0 || seen[static_cast<std::size_t>(c)])
                   throw InputError(Location{s.file, rec.line, f + 1, std::string(rec.fields[f])},
                                    c < 0 ? fmt::format("the subset's column '{}' is not a column of {}",
                                                        rec.fields[f], data.source)
                                          : fmt::format("the subset names column '{}' twice", rec.fields[f]));
                 seen[static_cast<std::size_t>(c)] = 1;
                 column_of.push_back(c);
               }
               if (column_of.size() != width)
                 throw InputError(Location{s.file, rec.line, 0, {}},
                                  fmt::format("the subset has {} columns, {} has {}: a subset's records are records "
                                              "of the input, with all its columns",
                                              column_of.size(), data.source, width));
               return;
             }
             bool known = true;
             for (std::size_t f = 0; f < rec.fields.size() && known; ++f) {
               const std::size_t c = static_cast<std::size_t>(column_of[f]);
               const std::int64_t code = data.columns[c].dictionary.find(rec.fields[f]);
               known = code >= 0;
               key[c] = static_cast<std::uint32_t>(code);
             }
             const auto it = known ? rows.find(key) : rows.end();
             if (it == rows.end())
               throw InputError(Location{s.file, rec.line, 0, {}},
                                fmt::format("no record of {} equals this record of the subset", data.source));
             if (it->second.empty())
               throw InputError(Location{s.file, rec.line, 0, {}},
                                fmt::format("the subset has this record more often than {} has", data.source));
             in[it->second.front()] = 1;
             it->second.pop_front();
           });
  return in;
}

}  // namespace

std::vector<std::uint8_t> research_subset(const Job& job, const Dataset& data) {
  const Job::Subset& s = *job.subset;
  std::vector<std::uint8_t> in = s.file.empty() ? from_column(job, s, data) : from_file(s, data);
  if (std::find(in.begin(), in.end(), 1) == in.end())
    throw InputError(Location{s.file.empty() ? job.path : s.file, s.file.empty() ? s.line : 0, 0, {}},
                     s.file.empty() ? fmt::format("the research subset is empty: no record of {} has '{}' in "
                                                  "column '{}'",
                                                  data.source, s.value, s.column)
                                    : std::string("the research subset has no records"));
  return in;
}

}  // namespace deid
